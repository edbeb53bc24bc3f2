#!/usr/bin/env python3
# test_dpacc_errors.py DPACC [CC] - regression cases of issue 15 (dpacc on bad input) and
# of issue 12 (DOCA_ALLOW_EXPERIMENTAL_API in device code).
#
# Each refused case must end within a timeout with a non-zero exit, no traceback, one
# `dpacc: error:` line on stderr naming the file or option, and no archive written. The
# accepted cases must build their archive under -Werror.
import os
import subprocess
import sys
import tempfile

KERNEL = "#include <doca_dpa_dev.h>\n__dpa_global__ void k(uint64_t x)\n{\n\t(void)x;\n}\n"
# doca_dpa_dev_device_set is DOCA_EXPERIMENTAL: without the experimental API allowed it
# warns "Symbol is defined as experimental", an error under -Werror.
EXPERIMENTAL_CALL = "__dpa_global__ void k(uint64_t dpa)\n{\n\tdoca_dpa_dev_device_set(dpa);\n}\n"

# name, files {relative path: bytes}, arguments (after dpacc; OUT is the archive),
# what the error line must contain
REFUSED = [
    ("output_is_directory", {"k.c": KERNEL.encode(), "adir/.keep": b""}, ["k.c", "-o", "adir"],
     "-o adir is a directory"),
    ("output_directory_missing", {"k.c": KERNEL.encode()}, ["k.c", "-o", "nodir/out.a"],
     "nodir does not exist"),
    ("output_under_file", {"k.c": KERNEL.encode(), "afile": b"x\n"}, ["k.c", "-o", "afile/out.a"],
     "afile is not a directory"),
    ("output_empty", {"k.c": KERNEL.encode()}, ["k.c", "-o="], "-o is empty"),
    ("output_is_the_source", {"k.c": KERNEL.encode()}, ["k.c", "-o", "k.c"],
     "-o k.c is one of the device sources"),
    ("keep_dir_is_file", {"k.c": KERNEL.encode(), "afile": b"x\n"}, ["k.c", "-o", "OUT", "--keep-dir=afile"],
     "--keep-dir afile exists and is not a directory"),
    ("keep_dir_under_file", {"k.c": KERNEL.encode(), "afile": b"x\n"}, ["k.c", "-o", "OUT", "--keep-dir=afile/sub"],
     "--keep-dir afile/sub"),
    ("optf_includes_itself", {"k.c": KERNEL.encode(), "self.opt": b"-v -optf self.opt\n"},
     ["k.c", "-o", "OUT", "-optf", "self.opt"], "options file self.opt includes itself"),
    ("optf_cycle", {"k.c": KERNEL.encode(), "a.opt": b"-optf=b.opt\n", "b.opt": b"--options-file c.opt\n",
                    "c.opt": b"-optf a.opt\n"},
     ["k.c", "-o", "OUT", "-optf", "a.opt"], "options file a.opt includes itself"),
    ("optf_directory", {"k.c": KERNEL.encode(), "adir/.keep": b""}, ["k.c", "-o", "OUT", "-optf", "adir"],
     "options file adir: not a regular file"),
    ("optf_unbalanced_quote", {"k.c": KERNEL.encode(), "q.opt": b"-o 'out.a\n"}, ["k.c", "-optf", "q.opt"],
     "options file q.opt: No closing quotation"),
    ("static_before_keyword", {"k.c": b"#include <doca_dpa_dev.h>\nstatic __dpa_global__ void k(void)\n{\n}\n"},
     ["k.c", "-o", "OUT"], "DPA entry point k is static; a kernel cannot be static"),
    ("static_after_keyword", {"k.c": b"#include <doca_dpa_dev.h>\n__dpa_global__ static void k(void)\n{\n}\n"},
     ["k.c", "-o", "OUT"], "DPA entry point k is static; a kernel cannot be static"),
    ("static_rpc", {"k.c": b"#include <doca_dpa_dev.h>\nstatic inline __dpa_rpc__ uint64_t r(void)\n{\n\treturn 1;\n}\n"},
     ["k.c", "-o", "OUT"], "DPA entry point r is static; an RPC cannot be static"),
    ("rpc_returns_struct", {"k.c": b"#include <doca_dpa_dev.h>\nstruct pair { int a, b; };\n"
                                 b"__dpa_rpc__ struct pair r(int x)\n{\n\tstruct pair p = {x, x};\n\treturn p;\n}\n"},
     ["k.c", "-o", "OUT"], "DPA entry point r returns a struct or union, which is not supported; RPC return types supported are"),
    ("rpc_returns_typedef_union", {"k.c": b"#include <doca_dpa_dev.h>\ntypedef union { int a; float f; } u_t;\n"
                                        b"__dpa_rpc__ u_t r(int x)\n{\n\tu_t u;\n\tu.a = x;\n\treturn u;\n}\n"},
     ["k.c", "-o", "OUT"], "DPA entry point r returns a struct or union"),
    ("hostcc_empty", {"k.c": KERNEL.encode()}, ["k.c", "-o", "OUT", "-hostcc="], "-hostcc is empty"),
    ("hostcc_unbalanced_quote", {"k.c": KERNEL.encode()}, ["k.c", "-o", "OUT", "-hostcc=gcc '-O2"],
     "-hostcc: No closing quotation"),
    ("devicecc_unbalanced_quote", {"k.c": KERNEL.encode()}, ["k.c", "-o", "OUT", "--devicecc-options=\"-O2"],
     "-devicecc-options: No closing quotation"),
    ("source_is_directory", {"d.c/.keep": b""}, ["d.c", "-o", "OUT"], "d.c: not a regular file"),
    ("app_name_not_ascii", {"k.c": KERNEL.encode()}, ["k.c", "-o", "OUT", "--app-name=caf\u00e9"],
     "is not a C identifier"),
]

ACCEPTED = [
    # a byte that is not UTF-8 is the compiler's business, as with DPACC (it used to be a
    # UnicodeDecodeError traceback in dpacc's own scanner)
    ("latin1_byte_in_comment", {"k.c": b"/* caf\xe9 */\n" + KERNEL.encode()}, []),
    # (clang warns about the string's encoding, gcc passes it through; gcc ignores the -Wno-)
    ("latin1_byte_in_string", {"k.c": KERNEL.encode() + b"const char *s = \"\xff\";\n"},
     ["--devicecc-options=-Wno-invalid-source-encoding"]),
    # dpacc allows DOCA's experimental device API, as DOCA's device builds do
    ("experimental_device_call", {"k.c": ("#include <doca_dpa_dev.h>\n" + EXPERIMENTAL_CALL).encode()}, []),
    # ... without making a source that defines the macro itself fail with "redefined"
    ("source_defines_experimental_empty",
     {"k.c": ("#define DOCA_ALLOW_EXPERIMENTAL_API\n#include <doca_dpa_dev.h>\n" + EXPERIMENTAL_CALL).encode()}, []),
    ("source_defines_experimental_1",
     {"k.c": ("#define DOCA_ALLOW_EXPERIMENTAL_API 1\n#include <doca_dpa_dev.h>\n" + EXPERIMENTAL_CALL).encode()}, []),
    ("devicecc_defines_experimental", {"k.c": ("#include <doca_dpa_dev.h>\n" + EXPERIMENTAL_CALL).encode()},
     ["--devicecc-options=-DDOCA_ALLOW_EXPERIMENTAL_API"]),
    # an options file read twice, not recursively, is no cycle
    ("optf_twice", {"k.c": KERNEL.encode(), "o.opt": b"--devicecc-options=-O2\n"},
     ["-optf", "o.opt", "-optf", "o.opt"]),
    # a non-static kernel next to a static helper
    ("static_helper", {"k.c": b"#include <doca_dpa_dev.h>\nstatic int helper(void)\n{\n\treturn 1;\n}\n"
                              b"__dpa_global__ void k(void)\n{\n\t(void)helper();\n}\n"}, []),
]


def write_files(tmp, files):
    for rel, data in files.items():
        path = os.path.join(tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


def run(dpacc, cc, args, cwd):
    return subprocess.run([dpacc, "-hostcc=" + cc] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, timeout=60)


def main():
    dpacc = os.path.abspath(sys.argv[1])
    cc = sys.argv[2] if len(sys.argv) > 2 else "cc"
    failures = []
    for name, files, args, want in REFUSED:
        with tempfile.TemporaryDirectory() as tmp:
            write_files(tmp, files)
            args = [os.path.join(tmp, "out.a") if a == "OUT" else a for a in args]
            try:
                p = run(dpacc, cc, args, tmp)
            except subprocess.TimeoutExpired:
                failures.append("%s: dpacc did not finish in 60 s" % name)
                continue
            err = p.stderr.decode("utf-8", errors="replace")
            lines = [ln for ln in err.splitlines() if ln.strip()]
            problem = None
            if p.returncode == 0:
                problem = "exit status 0"
            elif "Traceback" in err:
                problem = "a Python traceback"
            elif len(lines) != 1 or not lines[0].startswith("dpacc: error: "):
                problem = "not one `dpacc: error:` line"
            elif want not in lines[0]:
                problem = "the line does not say '%s'" % want
            elif os.path.exists(os.path.join(tmp, "out.a")):
                problem = "an archive was written"
            if problem:
                failures.append("%s: %s\n--- stderr\n%s" % (name, problem, err))
            else:
                print("refused %-28s %s" % (name, lines[0]))
    for name, files, args in ACCEPTED:
        with tempfile.TemporaryDirectory() as tmp:
            write_files(tmp, files)
            out = os.path.join(tmp, "out.a")
            p = run(dpacc, cc, ["k.c", "-o", out, "--devicecc-options=-Wall -Wextra -Werror"] + args, tmp)
            if p.returncode != 0 or not os.path.isfile(out):
                failures.append("%s: refused (exit %d)\n--- stderr\n%s" % (name, p.returncode, p.stderr.decode()))
            else:
                print("accepted %s" % name)
    if failures:
        sys.stderr.write("FAIL:\n" + "\n".join(failures) + "\n")
        return 1
    print("dpacc: %d refused cases, %d accepted cases: ok" % (len(REFUSED), len(ACCEPTED)))
    return 0


sys.exit(main())
