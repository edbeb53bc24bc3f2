#!/usr/bin/env python3
"""gen_corpus.py OUTDIR STAMP - write the seed corpus of every tests/fuzz harness into
OUTDIR/<harness>/ (the build tree; nothing binary is committed): valid and near-valid
inputs that reach each parser's branches, so that libFuzzer starts from real shapes and
the regression runners of `make test` run them too. STAMP is touched when done."""
import os
import random
import struct
import sys


def eth_udp4(src, dst, sport, dport, payload=b"x" * 18):
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, bytes(src), bytes(dst))
    s = sum(struct.unpack(">10H", ip))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    ip = ip[:10] + struct.pack(">H", ~s & 0xFFFF) + ip[12:]
    return b"\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x01\x00\x08\x00" + ip + udp


def eth_tcp4(src, dst, sport, dport):
    tcp = struct.pack(">HHIIBBHHH", sport, dport, 1, 0, 0x50, 0x02, 1024, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0, bytes(src), bytes(dst))
    return b"\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x01\x00\x08\x00" + ip + tcp


def eth_udp6(sport, dport):
    udp = struct.pack(">HHHH", sport, dport, 8, 0)
    ip6 = struct.pack(">IHBB", 0x60000000, len(udp), 17, 64) + bytes(range(16)) + bytes(range(16, 32))
    return b"\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x01\x00\x86\xdd" + ip6 + udp


def vlan_udp4():
    f = eth_udp4([10, 0, 0, 1], [10, 0, 0, 2], 1000, 2000)
    return f[:12] + b"\x81\x00\x00\x64" + f[12:]


FRAMES = [
    eth_udp4([10, 0, 0, 1], [10, 0, 0, 2], 1000, 2000),
    eth_udp4([192, 168, 1, 1], [10, 0, 0, 9], 53, 4789),
    eth_tcp4([10, 0, 0, 3], [10, 0, 0, 4], 80, 8080),
    eth_udp6(1000, 2000),
    vlan_udp4(),
    b"\xff" * 6 + b"\x02" * 6 + b"\x08\x06" + b"\x00" * 28,  # ARP
    b"\x00" * 14,
]


def pcap(frames, magic=0xA1B2C3D4, endian="<", linktype=1, snaplen=65535, caplens=None):
    out = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for i, f in enumerate(frames):
        cap = caplens[i] if caplens else len(f)
        out += struct.pack(endian + "IIII", 1, i, cap, len(f)) + f[:cap]
    return out


def pcapng(frames, linktype=1):
    def block(btype, body):
        body += b"\x00" * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack("<II", btype, n) + body + struct.pack("<I", n)

    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", linktype, 0, 65535))
    for i, f in enumerate(frames):
        out += block(6, struct.pack("<IIIII", 0, 0, i, len(f), len(f)) + f)
    return out


def corpus_pcap():
    big = FRAMES[0] + b"\x00" * 2100
    return {
        "le": pcap(FRAMES),
        "be": pcap(FRAMES, endian=">"),
        "nsec": pcap(FRAMES[:3], magic=0xA1B23C4D),
        "empty": pcap([]),
        "raw_linktype": pcap(FRAMES[:2], linktype=101),
        "short_and_long": pcap([b"\x01" * 10, big, FRAMES[1]]),
        "truncated": pcap(FRAMES[:3])[:-7],
        "caplen_gt_len": pcap([FRAMES[0]], caplens=[len(FRAMES[0])]),
        "ng": pcapng(FRAMES),
        "ng_raw": pcapng(FRAMES[:2], linktype=101),
        "ng_truncated": pcapng(FRAMES[:3])[:-5],
        "garbage": b"not a capture at all\n",
    }


def corpus_config():
    return {
        "defaults": b"",
        "all_keys": b"\n".join([
            b"# every key",
            b"FLOWDPA_DEVICES=bf3:2,cx7:4,bf2,cx6:1",
            b"FLOWDPA_DPA_CORES=4",
            b"FLOWDPA_DPA_EUS_PER_CORE=64",
            b"FLOWDPA_DPA_HEAP_SIZE=16M",
            b"FLOWDPA_NIC_MODE=async",
            b"FLOWDPA_NIC_LATENCY_US=10000000",
            b"FLOWDPA_STRICT=1",
            b"FLOWDPA_FAULTS=dpa_init,queues_create,pipe_export,queue_poll,queue_flush,dpa_mem_alloc",
            b"FLOWDPA_PORT0_RX=gen:flows=16,pkts=100,zipf=1.2,seed=7,rate=1000,loop=2",
            b"FLOWDPA_PORT15_RX=pcap:/tmp/x,y.pcap,loop=3",
            b"FLOWDPA_PORT1_TX=pcap:/tmp/out.pcap",
            b"  FLOWDPA_DPA_HEAP_SIZE = 4K  ",
            b"",
        ]),
        "bad_value": b"FLOWDPA_DPA_CORES=65\n",
        "bad_key": b"FLOWDPA_NOPE=1\n",
        "no_equals": b"FLOWDPA_STRICT\n",
        "port_range": b"FLOWDPA_PORT16_RX=gen:\n",
        "long_comment": b"#" + b"c" * 700 + b"\nFLOWDPA_STRICT=1\n",
        "heap_suffix": b"FLOWDPA_DPA_HEAP_SIZE=64G\nFLOWDPA_NIC_MODE=sync\n",
        "env": b"@DEVICES=cx7:8\n@DPA_CORES=1\n@PORT3_RX=gen:pkts=1\nFLOWDPA_DEVICES=bf3\n",
        "env_bad": b"@NIC_LATENCY_US=10000001\n",
        "env_unknown": b"@SOMETHING_ELSE=1\nFLOWDPA_STRICT=0\n",
        "crlf": b"FLOWDPA_STRICT=1\r\nFLOWDPA_DPA_CORES=2\r\n",
    }


def corpus_random(name, count=24, size=400):
    """Byte-programmed harnesses (pipeline, flow_api, provider): every byte picks a
    choice, so fixed pseudo-random programs (seeded by the harness's name) are good
    starting points; all-zero and counting inputs take the first branch everywhere."""
    rng = random.Random(name)
    seeds = {"zeros": b"\x00" * size, "count": bytes(range(256)) * 2}
    for i in range(count):
        seeds["random%02d" % i] = bytes(rng.randrange(256) for _ in range(rng.randrange(16, size)))
    return seeds


HARNESSES = {
    "config": corpus_config,
    "pcap": corpus_pcap,
    "pipeline": lambda: corpus_random("pipeline"),
    "flow_api": lambda: corpus_random("flow_api"),
    "provider": lambda: corpus_random("provider"),
}


def main():
    out, stamp = sys.argv[1], sys.argv[2]
    for name, fn in HARNESSES.items():
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        for seed, data in fn().items():
            with open(os.path.join(d, seed), "wb") as fh:
                fh.write(data)
    with open(stamp, "w") as fh:
        fh.write("ok\n")


if __name__ == "__main__":
    main()
