#!/usr/bin/env python3
# check_asan_report.py PROGRAM KERNEL_SRC HOST_SRC - PROGRAM (built with -fsanitize=address
# from KERNEL_SRC and HOST_SRC) must fail with an ASan report whose first frame is
# KERNEL_SRC's line marked OVERRUN, and flowdpa's line naming the doca_dpa_mem_alloc
# block of 64 bytes it ran past and HOST_SRC's line marked ALLOC as its call site.
# Then PROGRAM free (a write to the block after doca_dpa_mem_free) must fail the same
# way, flowdpa's line saying the address is in no live block.
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


def run(*args):
    """The program's output and what is wrong with its ASan report (first frame)."""
    p = subprocess.run([program, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env)
    problems = []
    if p.returncode == 0:
        problems.append("the program exited 0 (the bad access was not detected)")
    first_frame = re.search(r"^\s*#0 .*$", p.stdout, re.M)
    if "ERROR: AddressSanitizer: use-after-poison" not in p.stdout:
        problems.append("no ASan use-after-poison report")
    elif first_frame is None or not kernel_re.search(first_frame.group(0)):
        problems.append("the report's first frame is not fill_kernel at %s" % kernel_at)
    return p.stdout, problems


out, problems = run()
flowdpa = re.search(r"^flowdpa: address 0x[0-9a-f]+ is 0 bytes past the end of a doca_dpa_mem_alloc\(64\) block "
                    r"\(0x[0-9a-f]+\) allocated at (.*)$", out, re.M)
if flowdpa is None:
    problems.append("no flowdpa line naming the doca_dpa_mem_alloc(64) block")
elif not alloc_re.fullmatch(flowdpa.group(1)):
    problems.append("the block's call site is %r, not %s" % (flowdpa.group(1), alloc_at))
if not problems:
    out, problems = run("free")
    if not re.search(r"^flowdpa: address 0x[0-9a-f]+ is in the DPA device heap but in no live doca_dpa_mem_alloc "
                     r"block \(freed, or never allocated\)$", out, re.M):
        problems.append("after free: no flowdpa line saying the address is in no live block")
if problems:
    sys.stderr.write("%s\noutput:\n%s\n" % ("\n".join(problems), out))
    sys.exit(1)
print("ASan reports name %s and the doca_dpa_mem_alloc at %s; a use after free is reported too" % (kernel_at, alloc_at))
