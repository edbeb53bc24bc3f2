#!/usr/bin/env python3
# fuzz_dpacc_cmdline.py - a seeded fuzzer of dpacc's command line (issue 15): random
# combinations of valid and invalid options, paths (directories, missing files, files
# where a directory is wanted, self-including and cyclic -optf files) and device sources
# (valid kernels and RPCs, static ones, struct returns, mutated bytes, Latin-1), each run
# in a fresh temporary directory. A run fails the fuzzer when dpacc
#   - prints a Python traceback,
#   - does not finish within --timeout seconds (a hang),
#   - exits 0 without writing its archive (except -h, -V, -dryrun), or
#   - exits non-zero without an `error:` line on stderr.
# Case i of seed S is always the same case (its own random generator), so a failure is
# reproduced with --seed S --case i and saved as JSON with --save DIR; tests/fuzz/dpacc/
# regress/*.json are such cases, replayed first (--regress DIR) and checked the same way.
#
#   fuzz_dpacc_cmdline.py --dpacc PATH [--cc CC] [--seconds N | --cases N | --case I]
#                         [--seed S] [--regress DIR] [--save DIR] [--timeout T]
import argparse
import base64
import glob
import json
import os
import random
import subprocess
import sys
import tempfile
import time

KERNEL = b"#include <doca_dpa_dev.h>\n__dpa_global__ void k(uint64_t a, uint32_t b)\n{\n\t(void)a;\n\t(void)b;\n}\n"
SOURCES = [
    KERNEL,
    b"#include <doca_dpa_dev.h>\n__dpa_rpc__ uint64_t r(uint64_t x)\n{\n\treturn x + 1;\n}\n",
    b"#include <doca_dpa_dev.h>\nstatic __dpa_global__ void k(void)\n{\n}\n",
    b"#include <doca_dpa_dev.h>\n__dpa_global__ static void k(void)\n{\n}\n",
    b"#include <doca_dpa_dev.h>\nstruct p { int a, b; };\n__dpa_rpc__ struct p r(int x)\n{\n\tstruct p v = {x, x};\n"
    b"\treturn v;\n}\n",
    b"/* caf\xe9 */\n" + KERNEL,
    KERNEL + b"const char *s = \"\xff\";\n",
    b"#define DOCA_ALLOW_EXPERIMENTAL_API\n#include <doca_dpa_dev.h>\n__dpa_global__ void k(uint64_t d)\n{\n"
    b"\tdoca_dpa_dev_device_set(d);\n}\n",
    b"#include <doca_dpa_dev.h>\n__dpa_global__ void k(int) { }\n",
    b"#include <doca_dpa_dev.h>\n__dpa_global__ void k(void) __attribute__((unused\n{\n}\n",
    b"",
]
JUNK_BYTES = [b"\x00", b"\xe9", b"\xff", b"(", b")", b"{", b"}", b";", b"\"", b"'", b"\\", b"\n", b"#", b"/*",
              b"__dpa_global__", b"__dpa_rpc__", b"static", b"struct", b"__attribute__((", b"..."]
CPUS = ["nv-dpa-bf3", "nv-dpa-cx7", "nv-dpa-cx8", "nv-dpa-cx9"]


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(3)
        pos = rng.randint(0, len(data))
        if op == 0 or not data:
            data[pos:pos] = rng.choice(JUNK_BYTES)
        elif op == 1:
            data[pos:pos + rng.randint(1, 8)] = b""
        else:
            data[min(pos, len(data) - 1)] = rng.randrange(256)
    return bytes(data)


def dashes(rng, name):
    return rng.choice(["-", "--"]) + name


def value_opt(rng, name, value):
    """One option with its value, in one of the spellings dpacc accepts."""
    if rng.random() < 0.5:
        return [dashes(rng, name) + "=" + value]
    return [dashes(rng, name), value]


def gen_case(seed, index):
    """Case `index` of `seed`: files (name -> bytes, None for a directory), argv, and the
    archive dpacc must write when it exits 0."""
    rng = random.Random("%d:%d" % (seed, index))
    files = {"adir": None, "d.c": None, "afile": b"not an archive\n", "sub": None}
    src = rng.choice(SOURCES)
    if rng.random() < 0.3:
        src = mutate(rng, src)
    files["k.c"] = src
    files["k2.c"] = rng.choice(SOURCES[:2])
    optf_words = [["-v"], ["--devicecc-options=-O2,-Wall"], ["-DFUZZ=1"], ["-I", "sub"], ["-optf", "self.opt"],
                  ["-optf", "b.opt"], ["-mcpu=nv-dpa-bf3"], ["'unbalanced"], ["--no-such"], []]
    files["self.opt"] = b"-v -optf self.opt\n"
    files["a.opt"] = b"-optf b.opt\n"
    files["b.opt"] = b"-optf a.opt\n"
    files["r.opt"] = " ".join(" ".join(w) for w in rng.sample(optf_words, 2)).encode() + b"\n"
    files["ok.opt"] = b"-v --devicecc-options=-O2\n"

    units = []
    for _ in range(rng.randint(0, 3)):
        units.append([rng.choice(["k.c", "k.c", "k2.c", "missing.c", "d.c", "afile", "x.o", "-", "sub/../k.c"])])
    out = None
    for _ in range(rng.randint(0, 2)):
        out = rng.choice(["out.a", "out.a", "sub/out.a", "adir", "nodir/x.a", "k.c", "afile/x.a", "afile",
                          "adir/", "\u00e9.a"])
        units.append(value_opt(rng, "o", out))
    app = None
    pool = [
        lambda: value_opt(rng, "hostcc", rng.choice(["cc", "cc", "gcc -O1", "", "'", "/nonexistent/cc", "afile"])),
        lambda: value_opt(rng, "mcpu", ",".join(rng.sample(CPUS, rng.randint(1, 2))) if rng.random() < 0.7
                          else rng.choice(["nv-dpa-bf9", "", ",", "bf3"])),
        lambda: value_opt(rng, "app-name", rng.choice(["app", "my_app", "1bad", "", "caf\u00e9", "a-b"])),
        lambda: value_opt(rng, "keep-dir", rng.choice(["kd", "adir", "afile", "afile/sub", "nodir/kd", "sub/kd"])),
        lambda: value_opt(rng, rng.choice(["optf", "options-file"]),
                          rng.choice(["ok.opt", "self.opt", "a.opt", "r.opt", "missing.opt", "adir", "k.c"])),
        lambda: value_opt(rng, "devicecc-options", rng.choice(["-O2", "-Wall -Werror", "-O2,-g", "\"-O2", "-std=c17",
                                                                "-DX=1", "-Wno-error,-O0"])),
        lambda: value_opt(rng, "hostcc-options", rng.choice(["-Wall", "-O2", "'", ""])),
        lambda: value_opt(rng, "device-libs", rng.choice(["-ldoca_dpa_dev", ""])),
        lambda: value_opt(rng, "dpa-proc-attr", rng.choice(["x.blob", "adir"])),
        lambda: [rng.choice(["-I", "--I="]) + rng.choice(["sub", "nodir", "afile"])],
        lambda: ["-D" + rng.choice(["FUZZ", "FUZZ=2", "DOCA_ALLOW_EXPERIMENTAL_API", "=", "X(y)=y"])],
        lambda: [dashes(rng, rng.choice(["v", "verbose", "keep", "flto", "disable-asm-checks"]))],
        lambda: [dashes(rng, rng.choice(["h", "help", "V", "version", "dryrun"]))],
        lambda: [rng.choice(["--no-such-option", "-x", "-", "--", "-o=", "-v=1", "--=", "junk", "-\u00e9"])],
    ]
    for _ in range(rng.randint(0, 5)):
        units.append(rng.choice(pool)())
    rng.shuffle(units)
    if rng.random() < 0.05:  # an option missing its value, last
        units.append([dashes(rng, rng.choice(["o", "optf", "hostcc", "app-name", "keep-dir"]))])
    argv = [w for u in units for w in u]
    # What a successful run writes: the last -o, else <last --app-name>.a.
    for u in units:
        if u[0].lstrip("-").startswith("app-name") and len(u) <= 2:
            app = u[-1].partition("=")[2] if len(u) == 1 else u[1]
        if u[0].lstrip("-").split("=")[0] == "o":
            out = u[-1].partition("=")[2] if len(u) == 1 else u[1]
    expect = out if out is not None else (app if app is not None else "__dpa_a_out") + ".a"
    return {"files": files, "argv": argv, "expect_output": expect}


def to_json(case, why):
    files = {k: (None if v is None else base64.b64encode(v).decode()) for k, v in case["files"].items()}
    return json.dumps({"why": why, "files": files, "argv": case["argv"], "expect_output": case["expect_output"]},
                      indent=1, ensure_ascii=True)


def from_json(text):
    j = json.loads(text)
    files = {k: (None if v is None else base64.b64decode(v)) for k, v in j["files"].items()}
    return {"files": files, "argv": j["argv"], "expect_output": j["expect_output"]}


def run_case(dpacc, cc, case, timeout):
    """Runs one case; returns None when dpacc behaved, else what went wrong."""
    with tempfile.TemporaryDirectory(prefix="fuzz-dpacc-") as tmp:
        for name, data in case["files"].items():
            path = os.path.join(tmp, name)
            if data is None:
                os.makedirs(path, exist_ok=True)
            else:
                with open(path, "wb") as f:
                    f.write(data)
        argv = [dpacc, "-hostcc=" + cc] + case["argv"]
        try:
            p = subprocess.run(argv, cwd=tmp, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "hang: no exit within %g s" % timeout
        err = p.stderr.decode("utf-8", errors="replace")
        out = p.stdout.decode("utf-8", errors="replace")
        if "Traceback (most recent call last)" in err:
            return "traceback: " + err.strip().splitlines()[-1]
        if p.returncode == 0:
            if "usage: dpacc" in out or "dpacc (flowdpa)" in out or "-dryrun" in " ".join(case["argv"]):
                return None
            target = os.path.join(tmp, case["expect_output"])
            try:
                with open(target, "rb") as f:
                    magic = f.read(8)
            except OSError as e:
                return "exit 0 without its archive %s (%s)" % (case["expect_output"], e.strerror)
            if magic != b"!<arch>\n":
                return "exit 0 but %s is not an archive" % case["expect_output"]
            return None
        if not any("error:" in ln for ln in err.splitlines()):
            return "exit %d without an error: line (stderr %r)" % (p.returncode, err[-300:])
        return None


def main():
    ap = argparse.ArgumentParser(description="seeded fuzzer of dpacc's command line")
    ap.add_argument("--dpacc", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--cases", type=int, help="run this many cases instead of --seconds")
    ap.add_argument("--case", type=int, help="run this one case of --seed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--regress", help="folder of saved *.json cases, replayed first")
    ap.add_argument("--save", help="folder to write failing cases to (as regress cases)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds one dpacc run may take")
    a = ap.parse_args()
    dpacc = os.path.abspath(a.dpacc)
    failures = 0

    def report(label, case, why):
        nonlocal failures
        failures += 1
        sys.stderr.write("FAIL %s: %s\n  argv: %r\n" % (label, why, case["argv"]))
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            path = os.path.join(a.save, "%s.json" % label.replace(" ", "_").replace("/", "_"))
            with open(path, "w") as f:
                f.write(to_json(case, why) + "\n")
            sys.stderr.write("  saved %s\n" % path)

    replayed = 0
    if a.regress and a.case is None:
        for path in sorted(glob.glob(os.path.join(a.regress, "*.json"))):
            with open(path) as f:
                case = from_json(f.read())
            why = run_case(dpacc, a.cc, case, a.timeout)
            replayed += 1
            if why:
                report("regress " + os.path.basename(path), case, why)
    start = time.monotonic()
    if a.case is not None:
        indices = [a.case]
    elif a.cases is not None:
        indices = range(a.cases)
    else:
        indices = iter(int, 1)  # endless, stopped by the clock
    done = 0
    for i, index in enumerate(indices):
        if a.case is None and a.cases is None:
            index = i
            if time.monotonic() - start >= a.seconds:
                break
        case = gen_case(a.seed, index)
        why = run_case(dpacc, a.cc, case, a.timeout)
        done += 1
        if why:
            report("seed%d_case%d" % (a.seed, index), case, why)
    elapsed = max(time.monotonic() - start, 1e-9)
    print("fuzz_dpacc_cmdline: seed %d: %d regress cases, %d generated cases in %.1f s (%.1f execs/s), %d failures"
          % (a.seed, replayed, done, elapsed, done / elapsed, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
