#!/usr/bin/env python3
"""check_traffic.py - the bundled traces are what samples/tools/gen_traffic.py writes
(deterministic, byte for byte), and together stay under 2 MB."""
import filecmp
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "data")
total = 0
with tempfile.TemporaryDirectory() as tmp:
    for scenario, name in (("heavy_hitters", "heavy_hitters.pcap"), ("failover", "path_failover.pcap")):
        out = os.path.join(tmp, name)
        subprocess.run([sys.executable, os.path.join(here, "gen_traffic.py"), scenario, out], check=True)
        if not filecmp.cmp(out, os.path.join(data, name), shallow=False):
            sys.exit("FAIL: samples/data/%s differs from what gen_traffic.py %s writes" % (name, scenario))
        total += os.path.getsize(os.path.join(data, name))
if total >= 2 * 1024 * 1024:
    sys.exit("FAIL: bundled traffic is %d bytes (limit 2 MB)" % total)
print("bundled traffic regenerates byte for byte; %d bytes" % total)
