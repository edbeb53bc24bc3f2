#!/usr/bin/env python3
"""check.py BINARY - run heavy_hitter_guard on the bundled trace (samples/data/
heavy_hitters.pcap) in both NIC modes and assert its outcome:
  - exactly the elephant flows of the trace (source 10.1.0.0/24, see
    samples/tools/gen_traffic.py) are disabled, no mouse (10.2.0.0/16, 10.3.0.1) ever is;
  - each elephant is first disabled at the end of the first period it is active in
    (periods 0, 6, 12) and re-enabled after the 3-period cool-down;
  - no mouse frame is dropped; every DPA request completed without failure;
  - the output capture (FLOWDPA_PORT1_TX) holds exactly the forwarded frames, and the
    JSON report (FLOWDPA_REPORT) and the trace (FLOWDPA_TRACE) are written."""
import csv
import json
import os
import struct
import subprocess
import sys
import tempfile

binary = os.path.abspath(sys.argv[1])
here = os.path.dirname(os.path.abspath(__file__))
data = os.environ.get("FLOWDPA_SAMPLE_DATA", os.path.join(here, "..", "data"))
trace = os.path.join(data, "heavy_hitters.pcap")
ELEPHANTS = {"10.1.0.1:40001>192.168.1.1:5003": 0, "10.1.0.2:40002>192.168.1.2:5003": 6,
             "10.1.0.3:40003>192.168.1.3:5003": 12}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def pcap_count(path):
    n = 0
    with open(path, "rb") as f:
        f.read(24)
        while True:
            h = f.read(16)
            if len(h) < 16:
                return n
            f.seek(struct.unpack("<IIII", h)[2], 1)
            n += 1


def run(mode):
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, FLOWDPA_NIC_MODE=mode, FLOWDPA_PORT1_TX="pcap:" + out + "/out.pcap",
                   FLOWDPA_REPORT=out + "/report.json", FLOWDPA_TRACE=out + "/trace.json")
        if mode == "async":
            env["FLOWDPA_NIC_LATENCY_US"] = "50"
        p = subprocess.run([binary, "--out", out, trace], env=env, capture_output=True, text=True, cwd=out)
        print(p.stdout)
        if p.returncode != 0:
            print(p.stderr)
            fail("%s: exit status %d" % (mode, p.returncode))
        events = list(csv.DictReader(open(out + "/events.csv")))
        periods = list(csv.DictReader(open(out + "/periods.csv")))
        disabled = {}
        for e in events:
            for fl in e["flows"].split():
                if e["event"] == "disable":
                    disabled.setdefault(fl, []).append(int(e["period"]))
        if set(disabled) != set(ELEPHANTS):
            fail("%s: disabled flows %s, expected the elephants %s" % (mode, sorted(disabled), sorted(ELEPHANTS)))
        for fl, first in ELEPHANTS.items():
            if disabled[fl][0] != first:
                fail("%s: %s first disabled at period %d, expected %d" % (mode, fl, disabled[fl][0], first))
            # disabled at p, enabled at p+3, counted in p+4, disabled again at p+4
            for a, b in zip(disabled[fl], disabled[fl][1:]):
                if b - a != 4:
                    fail("%s: %s disabled at %s: not every 4 periods" % (mode, fl, disabled[fl]))
        fwd = drop = 0
        for r in periods:
            fwd += int(r["forwarded"])
            drop += int(r["dropped"])
            if r["flow"] not in ELEPHANTS and int(r["dropped"]):
                fail("%s: mouse %s lost %s frames in period %s" % (mode, r["flow"], r["dropped"], r["period"]))
        if "failed 0), entry disable/enable" not in p.stdout or not p.stdout.count("failed 0)") == 2:
            fail("%s: a DPA request failed" % mode)
        got = pcap_count(out + "/out.pcap")
        if got != fwd:
            fail("%s: output capture has %d frames, %d were forwarded" % (mode, got, fwd))
        json.load(open(out + "/report.json"))
        if not json.load(open(out + "/trace.json")).get("traceEvents"):
            fail("%s: empty trace" % mode)
        print("%s: ok: elephants disabled %s, mice untouched, %d forwarded %d dropped, capture %d frames"
              % (mode, {k: v[0] for k, v in disabled.items()}, fwd, drop, got))


for m in ("sync", "async"):
    run(m)
