#!/usr/bin/env python3
# check_asan_report.py PROGRAM KERNEL_SRC HOST_SRC - PROGRAM (built with -fsanitize=address
# from KERNEL_SRC and HOST_SRC) must fail with an ASan report whose first frame is
# KERNEL_SRC's line marked OVERRUN, and flowdpa's line naming the doca_dpa_mem_alloc
# block of 64 bytes it ran past and HOST_SRC's line marked ALLOC as its call site.
import os
import re
import subprocess
import sys


def marked_line(path, marker):
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if "/* %s */" % marker in line:
                return n
    sys.exit("%s has no line marked /* %s */" % (path, marker))


program, kernel_src, host_src = sys.argv[1:4]
kernel_at = "%s:%d" % (os.path.basename(kernel_src), marked_line(kernel_src, "OVERRUN"))
alloc_at = "%s:%d" % (os.path.basename(host_src), marked_line(host_src, "ALLOC"))
# file:line, a column after it or not (gcc's symbolizer gives none, clang's does)
kernel_re = re.compile(r"in fill_kernel \S*%s(:\d+)?$" % re.escape(kernel_at))
alloc_re = re.compile(r"\S*%s(:\d+)? in main$" % re.escape(alloc_at))
env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
p = subprocess.run([program], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=env)
out = p.stdout
problems = []
if p.returncode == 0:
    problems.append("the program exited 0 (the overrun was not detected)")
first_frame = re.search(r"^\s*#0 .*$", out, re.M)
if "ERROR: AddressSanitizer: use-after-poison" not in out:
    problems.append("no ASan use-after-poison report")
elif first_frame is None or not kernel_re.search(first_frame.group(0)):
    problems.append("the report's first frame is not fill_kernel at %s" % kernel_at)
flowdpa = re.search(r"^flowdpa: address 0x[0-9a-f]+ is 0 bytes past the end of a doca_dpa_mem_alloc\(64\) block "
                    r"\(0x[0-9a-f]+\) allocated at (.*)$", out, re.M)
if flowdpa is None:
    problems.append("no flowdpa line naming the doca_dpa_mem_alloc(64) block")
elif not alloc_re.fullmatch(flowdpa.group(1)):
    problems.append("the block's call site is %r, not %s" % (flowdpa.group(1), alloc_at))
if problems:
    sys.stderr.write("%s\noutput:\n%s\n" % ("\n".join(problems), out))
    sys.exit(1)
print("ASan report names %s and the doca_dpa_mem_alloc at %s" % (kernel_at, alloc_at))
