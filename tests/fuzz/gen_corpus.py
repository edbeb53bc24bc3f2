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


def programs(prefix, progs):
    """Hand-written call programs (each a list of byte lists, one per call) as seeds."""
    return {"%s_%s" % (prefix, name): bytes(b for call in calls for b in call) for name, calls in progs.items()}


def corpus_flow_api():
    """fuzz_flow_api programs: one byte picks the call (op % 13), the next its arguments
    (see the call_* functions); handles: port 1/2 = id 0/1, 3 = a stopped one, 4 = a pipe;
    pipe and entry 1 = the first live slot, 0 = NULL, 7 = a wrong object."""
    ports = [[0, 0], [0, 1]]
    basic = [4, 0x00, 0x00, 0x80, 1]  # BASIC on port 0, fwd DROP, default miss
    basic_p1 = [4, 0x00, 0x00, 0x80, 2]
    hashp = [4, 0x02, 0x00, 0x80, 1]
    control = [4, 0x01, 0x00, 0x80, 1]
    add = lambda key, q=0, api=0, fb=0, pipe=1: [7, api, q, key, fb, pipe]
    remove = lambda q=0, entry=1: [9, q, entry]
    process = lambda q=0, port=1, budget=0: [10, q, budget, port]
    progs = {
        "remove_twice": ports + [basic, add(1), remove(), remove(), process()],
        "remove_other_queue": ports + [basic, add(1), remove(q=1), process(), remove(q=1), process(q=1)],
        "duplicate_key": ports + [basic, add(1), add(1), process(), [11, 0, 2], [11, 0, 10]],
        "full": ports + [basic] + [add(k) for k in range(6)] + [process(), [11, 0, 2]],
        "hash_index": ports + [hashp, add(0, api=2), add(0, api=2), add(5, api=2), process()],
        "control": ports + [control, add(1, api=1, fb=1), add(2, api=1), process(), [11, 0, 3]],
        "wrong_api": ports + [basic, add(1, api=2), add(1, api=1), process()],
        "stop_then_use": ports + [basic, add(1), [2, 1], process(port=3), [4, 0, 0, 0x80, 3], [2, 3], [0, 0]],
        "stop_between": ports + [[4, 0xE0, 0, 0x80, 1], [0, 0], basic],
        "second_root": ports + [[4, 0x10, 0, 0x80, 1], [4, 0x10, 0, 0x80, 1], [6, 1], [4, 0x10, 0, 0x80, 1]],
        "fwd_to_destroyed": ports + [basic, [6, 1], [4, 0x00, 0x06, 0x80, 1], [4, 0x00, 0x00, 0x06, 1]],
        "cross_port": ports + [basic_p1, [4, 0x00, 0x06, 0x80, 1], [4, 0x00, 0x00, 0x06, 1], process(port=2)],
        "per_entry_fwd": ports + [[4, 0x00, 0x81, 0x80, 1], add(1), add(2, fb=1), add(3, fb=5), process()],
        "update": ports + [basic, add(1), process(), [12, 1, 0, 1, 0, 1], process(), [12, 1, 0, 0, 0, 1],
                           process(), [12, 1, 1, 1, 0, 1]],
        "update_miss": ports + [basic, basic, [12, 0, 0x00, 1], [12, 0, 0x06, 1], [12, 0, 0x80, 0]],
        "wrong_objects": ports + [basic, add(1), [2, 4], remove(entry=7), [6, 7], [11, 0, 14], process()],
        "other_port_queue": ports + [basic, add(1), process(port=2), [11, 0, 2], process()],
        "flush": ports + [basic, add(1), [3, 1], [11, 0, 2], process(), basic],
        "pair": ports + [[11, 0, 1, 2], [2, 2], [11, 0, 1, 3], [11, 0, 0, 1]],
        "budget": ports + [basic] + [add(k) for k in range(4)] + [process(budget=1), process(budget=2),
                                                                 remove(), process()],
    }
    return programs("prog", progs)


def corpus_provider():
    """fuzz_provider programs: one byte picks the call (op % 14); ctx 1/2 = ctx 0/1, 3 = an
    export handle as a ctx; port 1/2 = id 0/1, 3 = a stopped one; export 1 = the first
    live one of the kind, 3 = one of the other kind."""
    queues = lambda ctx=1, port=1, types=0x07, bad=6: [0, ctx, port, types, bad]
    hashp = [3, 0x02]
    prepare = lambda ctx=1, nr=3: [6, ctx, 1, nr]
    export = lambda ctx=1, e=1: [8, 1, 0, ctx, e]
    addr = lambda pipe=1, ctx=1: [8, pipe, 1, ctx, 1]
    destroy = lambda pipe=1, ctx=1: [8, pipe, 2, ctx, 1]
    progs = {
        "lifecycle": [queues(), hashp, prepare(), export(), addr(), export(), destroy(), [2, 1, 1], [12, 1]],
        "resource": [queues(types=0x02), [9, 1, 0x02], [9, 0, 1, 1, 0], [10, 0], addr(pipe=0),
                     destroy(pipe=0), [10, 0]],
        "memory_read_only": [queues(types=0x04), [9, 1, 0x00], [9, 0, 1, 1, 1], [9, 0, 1, 1, 0]],
        "other_ctx": [queues(), queues(ctx=2), hashp, prepare(), export(ctx=2), prepare(ctx=2), destroy(ctx=2)],
        "port_stop": [queues(), hashp, prepare(), export(), [11, 0], export(), addr(), [2, 1, 3], [2, 1, 1],
                      queues(), destroy()],
        "flush": [queues(), hashp, prepare(), [11, 2], export(), [5, 1], destroy()],
        "destroy_alive": [queues(), [12, 1], hashp, prepare(), [2, 1, 1], [12, 1], destroy(), [12, 1]],
        "no_queues": [hashp, prepare(), [3, 0x00], queues(types=0x02), prepare(), [9, 1, 0x02], [9, 0, 1, 1, 0]],
        "not_hash": [queues(), [3, 0x00], prepare(), prepare(nr=0), prepare(nr=1)],
        "entries_before": [queues(), [3, 0x2A], prepare()],
        "pipe_destroy_exported": [queues(), hashp, prepare(), [5, 1], export(), [5, 1], destroy(), [5, 1]],
        "wrong_handles": [queues(), hashp, prepare(), [9, 1, 0x02], queues(ctx=3), [8, 1, 0, 1, 3],
                          [8, 0, 1, 1, 3], [13, 0], [13, 1]],
        "twice": [queues(), queues(), hashp, prepare(), prepare(), [9, 1, 0x00], [9, 0, 1, 1, 1],
                  [9, 0, 1, 1, 1], [9, 0, 1, 4, 1]],
    }
    for bad in range(6):
        progs["queue_cfg_%d" % bad] = [queues(bad=bad), queues(types=0, bad=6)]
    return programs("prog", progs)


HARNESSES = {
    "config": corpus_config,
    "pcap": corpus_pcap,
    "pipeline": lambda: corpus_random("pipeline"),
    "flow_api": lambda: {**corpus_random("flow_api"), **corpus_flow_api()},
    "provider": lambda: {**corpus_random("provider"), **corpus_provider()},
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
