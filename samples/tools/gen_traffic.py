#!/usr/bin/env python3
"""gen_traffic.py - the bundled traffic of the samples, written by hand as classic pcap
(no library needed), deterministic for a given scenario and seed.

  python3 samples/tools/gen_traffic.py heavy_hitters samples/data/heavy_hitters.pcap
  python3 samples/tools/gen_traffic.py failover      samples/data/path_failover.pcap

heavy_hitters: 12000 Ethernet/IPv4/UDP frames (60 bytes), 24 blocks of 500 frames (the
  sample's default period). 120 "mice" (source 10.2.0.0/16) send 1-3 frames per block
  each; one "busy mouse" (10.3.0.1) sends 25 frames per block, below the guard's
  threshold; three "elephants" (source 10.1.0.0/24) send about 100 frames per block while
  active: 10.1.0.1 blocks 0-23, 10.1.0.2 blocks 6-23, 10.1.0.3 blocks 12-17. The class of
  a flow is in its source address so that reports can name it; the guard never looks.
failover: 16 flows (source 10.4.0.x) x 64 frames, round-robin, 1024 frames.
"""
import random
import struct
import sys

ETH_IP4 = b"\x02\x00\x00\x00\x01\x00" + b"\x02\x00\x00\x00\x00\x00" + b"\x08\x00"


def ip4(a):
    return bytes(int(x) for x in a.split("."))


def frame(src, dst, sport, dport):
    payload = b"\x00" * 18  # 14 + 20 + 8 + 18 = 60 bytes, the Ethernet minimum without FCS
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    tot = 20 + len(udp)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, 0, 0x4000, 64, 17, 0, ip4(src), ip4(dst))
    s = sum(struct.unpack("!10H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    hdr = hdr[:10] + struct.pack("!H", ~s & 0xFFFF) + hdr[12:]
    return ETH_IP4 + hdr + udp


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            usec = 1700000000 * 1000000 + i * 20  # one frame every 20 us (50 kpps)
            f.write(struct.pack("<IIII", usec // 1000000, usec % 1000000, len(fr), len(fr)))
            f.write(fr)


def heavy_hitters(seed):
    rnd = random.Random(seed)
    blocks, per_block = 24, 500
    mice = [("10.2.%d.%d" % (i // 200, 1 + i % 200), "192.168.0.%d" % (1 + i % 50), 20000 + i, 5001)
            for i in range(120)]
    busy = ("10.3.0.1", "192.168.0.200", 30000, 5002)
    elephants = [(("10.1.0.1", "192.168.1.1", 40001, 5003), 0, 24),
                 (("10.1.0.2", "192.168.1.2", 40002, 5003), 6, 24),
                 (("10.1.0.3", "192.168.1.3", 40003, 5003), 12, 18)]
    out = []
    for b in range(blocks):
        block = [busy] * 25
        for e, first, end in elephants:
            if first <= b < end:
                block += [e] * rnd.randint(95, 105)
        while len(block) < per_block:
            block.append(mice[rnd.randrange(len(mice))])
        block = block[:per_block]
        rnd.shuffle(block)
        out += [frame(*t) for t in block]
    return out


def failover(seed):
    flows = [("10.4.0.%d" % (1 + i), "192.168.2.%d" % (1 + i), 50000 + i, 5004) for i in range(16)]
    return [frame(*flows[k % 16]) for k in range(16 * 64)]


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in ("heavy_hitters", "failover"):
        sys.exit("usage: gen_traffic.py heavy_hitters|failover OUT.pcap [SEED]")
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    frames = heavy_hitters(seed) if sys.argv[1] == "heavy_hitters" else failover(seed)
    write_pcap(sys.argv[2], frames)
    print("%s: %d frames" % (sys.argv[2], len(frames)))


if __name__ == "__main__":
    main()
