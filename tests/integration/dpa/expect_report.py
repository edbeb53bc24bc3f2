#!/usr/bin/env python3
# expect_report.py PROGRAM TEXT... - PROGRAM must fail and its output contain every TEXT.
import subprocess
import sys

p = subprocess.run(sys.argv[1:2], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
missing = [t for t in sys.argv[2:] if t not in p.stdout]
if p.returncode == 0 or missing:
    sys.stderr.write("exit status %d, missing %s; output:\n%s\n" % (p.returncode, missing, p.stdout))
    sys.exit(1)
