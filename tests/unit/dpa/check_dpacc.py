#!/usr/bin/env python3
# check_dpacc.py - command-line checks of dpacc (run by meson as tests):
#   reject DPACC SRC RULE   dpacc must fail on SRC and name RULE in its message
#   version DPACC VERSION   dpacc --version / -V print VERSION
#   options DPACC SRC       the option spellings docs/dpa.md lists are accepted or refused
import os
import subprocess
import sys
import tempfile


def dpacc(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)


def fail(msg, p=None):
    sys.stderr.write("FAIL: %s\n" % msg)
    if p is not None:
        sys.stderr.write("--- stdout\n%s\n--- stderr\n%s\n" % (p.stdout, p.stderr))
    sys.exit(1)


def main():
    mode, prog = sys.argv[1], sys.argv[2]
    cc = os.environ.get("DPACC_TEST_CC", "cc")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.a")
        if mode == "reject":
            src, rule = sys.argv[3], sys.argv[4]
            p = dpacc([prog, src, "-o", out, "-hostcc=" + cc, "--app-name=bad_app"])
            if p.returncode == 0:
                fail("dpacc accepted %s" % src, p)
            if "flowdpa DPA rule" not in p.stderr or rule not in p.stderr:
                fail("message does not name the rule '%s'" % rule, p)
            if os.path.exists(out):
                fail("an archive was written for a rejected source")
        elif mode == "version":
            want = sys.argv[3]
            for flag in ("--version", "-V", "-version"):
                p = dpacc([prog, flag])
                if p.returncode != 0 or p.stdout.strip().split()[-1] != want:
                    fail("%s does not print version %s" % (flag, want), p)
        elif mode == "options":
            src = sys.argv[3]
            ok = [
                [src, "-o", out, "-hostcc=" + cc, "-mcpu=nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8,nv-dpa-cx9",
                 "--devicecc-options=-Wall,-Werror -O2 -Wno-deprecated-declarations", "-hostcc-options=-Wall -Wextra", "-flto",
                 "-disable-asm-checks", "--app-name", "spelled_app", "-device-libs=-L/x -ldoca_dpa_dev",
                 "--dpa-proc-attr=" + os.path.join(tmp, "none.blob"), "--keep-dir=" + os.path.join(tmp, "k")],
                [src, "--o=" + out, "--hostcc", cc, "-app-name=spelled_app", "-keep-dir", os.path.join(tmp, "k2")],
            ]
            for args in ok:
                p = dpacc([prog] + args)
                if p.returncode != 0 or not os.path.exists(out):
                    fail("dpacc refused %s" % args, p)
                os.unlink(out)
            if not os.path.exists(os.path.join(tmp, "k", "spelled_app.meta.c")):
                fail("--keep-dir did not keep the generated descriptor")
            optf = os.path.join(tmp, "opts")
            with open(optf, "w") as f:
                f.write("-o %s -hostcc=%s --app-name=from_file\n" % (out, cc))
            p = dpacc([prog, src, "-optf", optf])
            if p.returncode != 0 or not os.path.exists(out):
                fail("-optf was not read", p)
            nm = subprocess.run(["nm", out], stdout=subprocess.PIPE, universal_newlines=True).stdout
            if " D from_file" not in nm:
                fail("the app symbol from_file is not a global data symbol:\n" + nm)
            bad = [
                ([src, "-o", out, "-mcpu=nv-dpa-bf9"], "unknown -mcpu target"),
                ([src, "-o", out, "--no-such-option"], "unknown option"),
                ([src, "-o", out, "--app-name=1bad"], "is not a C identifier"),
                ([os.path.join(tmp, "missing.c"), "-o", out], "no such file"),
                (["-o", out], "no device source"),
            ]
            for args, msg in bad:
                p = dpacc([prog] + args + ["-hostcc=" + cc])
                if p.returncode == 0 or msg not in p.stderr:
                    fail("expected failure '%s' for %s" % (msg, args), p)
            strict = os.path.join(os.path.dirname(src), "strict_kernels.c")
            p = dpacc([prog, strict, "-o", out, "-hostcc=" + cc, "--app-name=strict_app",
                       "--devicecc-options=-Wall -Wextra -Werror -Wconversion -Wsign-conversion -Wcast-qual "
                       "-Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-deprecated-declarations"])
            if p.returncode != 0:
                fail("generated packers are not warning-clean under strict flags", p)
            os.unlink(out)
            p = dpacc([prog, "-h"])
            if p.returncode != 0 or "usage: dpacc" not in p.stdout:
                fail("-h does not print usage", p)
        else:
            fail("unknown mode " + mode)


main()
