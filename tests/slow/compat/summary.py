#!/usr/bin/env python3
"""summary.py - one line per compat_* test of the last `meson test` run: result and the
first blocking reason (its "blocking:" line).   python3 summary.py [BUILD_DIR]"""
import json
import os
import sys

build = sys.argv[1] if len(sys.argv) > 1 else "build"
rows = []
with open(os.path.join(build, "meson-logs", "testlog.json")) as f:
    for line in f:
        t = json.loads(line)
        name = t.get("name", "").rsplit(" / ", 1)[-1]
        if not name.startswith("compat_"):
            continue
        why = next((l[len("blocking: "):] for l in t.get("stdout", "").splitlines() if l.startswith("blocking: ")), "")
        if why.startswith("[") and "][" in why:  # a DOCA log line: keep what the call said
            why = why.rsplit("] ", 1)[-1]
        rows.append((name, t["result"], why))
for name, result, why in rows:
    print("%-32s %-5s %s" % (name, result, why[:160]))
