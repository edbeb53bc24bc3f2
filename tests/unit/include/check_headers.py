#!/usr/bin/env python3
# check_headers.py - every installed header compiles on its own (run by meson as a test):
#   check_headers.py SRC_ROOT GENERATED_INCLUDE_DIR -- CC [CC ARGS...]
# Each header is included twice (its guard must hold) in a translation unit that
# includes nothing else, under strict ISO C17 and under GNU C17, with warnings as
# errors. Host headers (include/*.h, the generated doca_version.h and flowdpa_version.h) are compiled as a host
# program includes them; DPA-side headers (include/dpa/*.h and dpacc's prelude) with
# -DDOCA_DPA_DEVICE, as dpacc compiles device code. New headers are picked up by the glob.
import glob
import os
import subprocess
import sys
import tempfile

STDS = ["-std=c17", "-std=gnu17"]
WARN = ["-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wstrict-prototypes"]


def main():
    sep = sys.argv.index("--")
    src, gen = sys.argv[1], sys.argv[2]
    cc = sys.argv[sep + 1:]
    inc, inc_dpa, tools = os.path.join(src, "include"), os.path.join(src, "include", "dpa"), \
        os.path.join(src, "tools", "dpacc")
    host = sorted(glob.glob(os.path.join(inc, "*.h"))) + [os.path.join(gen, "doca_version.h"), os.path.join(gen, "flowdpa_version.h")]
    device = sorted(glob.glob(os.path.join(inc_dpa, "*.h"))) + [os.path.join(tools, "flowdpa_dpa_prelude.h")]
    jobs = [(h, ["-I" + gen, "-I" + inc]) for h in host]
    jobs += [(h, ["-DDOCA_DPA_DEVICE", "-I" + inc_dpa, "-I" + tools, "-I" + gen, "-I" + inc]) for h in device]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for header, flags in jobs:
            if not os.path.isfile(header):
                sys.stderr.write("FAIL: %s does not exist\n" % header)
                failed += 1
                continue
            name = os.path.basename(header)
            tu = os.path.join(tmp, "only_" + name.replace(".", "_") + ".c")
            with open(tu, "w") as f:
                f.write("#include <%s>\n#include <%s>\ntypedef int flowdpa_header_check_t;\n" % (name, name))
            for std in STDS:
                cmd = cc + [std] + WARN + flags + ["-fsyntax-only", tu]
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
                if p.returncode != 0:
                    sys.stderr.write("FAIL: %s does not compile on its own (%s):\n  %s\n%s\n" %
                                     (os.path.relpath(header, src), std, " ".join(cmd), p.stdout))
                    failed += 1
    print("%d headers, %d compiler modes, %d failures" % (len(jobs), len(STDS), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
