#!/usr/bin/env python3
"""check.py BINARY - run path_failover on the bundled trace (samples/data/
path_failover.pcap: 16 flows x 64 frames, round-robin) in both NIC modes, read the output
capture (FLOWDPA_PORT1_TX) with tshark and assert:
  - the switch-over is at frame 512 (the host fails path 2 after frame 500, the kernel
    checks every 64 frames);
  - every frame before it carries its flow's original path port, every frame from it on
    the port the kernel chose (flows.csv): the new source ports appear exactly from the
    switch-over on;
  - the failed path's port 10002 is present before and absent after; some flows moved.
Skipped (exit 77) without tshark."""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

binary = os.path.abspath(sys.argv[1])
here = os.path.dirname(os.path.abspath(__file__))
data = os.environ.get("FLOWDPA_SAMPLE_DATA", os.path.join(here, "..", "data"))
trace = os.path.join(data, "path_failover.pcap")
tshark = shutil.which("tshark")
if tshark is None:
    print("tshark not found: skipped")
    sys.exit(77)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(mode):
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, FLOWDPA_NIC_MODE=mode, FLOWDPA_PORT1_TX="pcap:" + out + "/out.pcap")
        if mode == "async":
            env["FLOWDPA_NIC_LATENCY_US"] = "50"
        p = subprocess.run([binary, "--out", out, trace], env=env, capture_output=True, text=True, cwd=out)
        print(p.stdout)
        if p.returncode != 0:
            print(p.stderr)
            fail("%s: exit status %d" % (mode, p.returncode))
        switch = None
        for line in p.stdout.splitlines():
            if line.startswith("switch-over at frame "):
                switch = int(line.split()[3])
        if switch != 512:
            fail("%s: switch-over at %s, expected 512" % (mode, switch))
        flows = {r["src"]: r for r in csv.DictReader(open(out + "/flows.csv"))}
        moved = [s for s, r in flows.items() if r["port_before"] != r["port_after"]]
        if not moved or any(flows[s]["port_before"] != "10002" for s in moved):
            fail("%s: moved flows %s: expected some, all from port 10002" % (mode, moved))
        t = subprocess.run([tshark, "-r", out + "/out.pcap", "-T", "fields", "-e", "frame.number", "-e", "ip.src",
                            "-e", "udp.srcport"], capture_output=True, text=True, check=True)
        rows = [l.split("\t") for l in t.stdout.splitlines() if l.strip()]
        if len(rows) != 1024:
            fail("%s: %d frames captured, expected 1024" % (mode, len(rows)))
        seen_new = None
        for num, src, port in rows:
            idx = int(num) - 1
            want = flows[src]["port_before"] if idx < switch else flows[src]["port_after"]
            if port != want:
                fail("%s: frame %d of %s left with source port %s, expected %s" % (mode, idx, src, port, want))
            if src in moved and idx >= switch and seen_new is None:
                seen_new = idx
            if idx >= switch and port == "10002":
                fail("%s: failed path port 10002 at frame %d" % (mode, idx))
        if not any(p_ == "10002" for _, _, p_ in rows[:switch]):
            fail("%s: port 10002 never used before the switch-over" % mode)
        print("%s: ok: flows %s moved from 10002 to %s exactly from frame %d on (first new port at frame %d)"
              % (mode, sorted(moved), sorted({flows[s]["port_after"] for s in moved}), switch, seen_new))


for m in ("sync", "async"):
    run(m)
