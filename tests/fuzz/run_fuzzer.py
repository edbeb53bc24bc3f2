#!/usr/bin/env python3
"""run_fuzzer.py HARNESS REGRESS NAME SECONDS WORKDIR SEEDS REGRESS_DIR

One test of the 'fuzzing' suite (`make fuzz`, .ci/run): runs the libFuzzer harness
HARNESS for SECONDS on WORKDIR/corpus/NAME (kept between runs), seeded with SEEDS
(gen_corpus.py's) and REGRESS_DIR (tests/fuzz/regress/NAME), and prints one line
"fuzz summary: NAME: ..." with the executions, executions per second and corpus size.
On a crash, leak or timeout it names the input libFuzzer saved, replays it with the
regression runner REGRESS (logs on) to show the report, and fails.
FLOWDPA_TEST_FUZZ_OPTS adds libFuzzer options (e.g. "-detect_leaks=1 -jobs=2")."""
import glob
import os
import re
import subprocess
import sys


def main():
    harness, regress, name, seconds, workdir, seeds, regress_dir = sys.argv[1:8]
    corpus = os.path.join(workdir, "corpus", name)
    artifacts = os.path.join(workdir, "artifacts", name) + "/"
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    before = set(glob.glob(artifacts + "*"))
    # Leak checks between inputs scan the whole heap and cost most of the time; the
    # regression runners of `make test-sanitize` check leaks on every kept input.
    opts = ["-detect_leaks=0"] + os.environ.get("FLOWDPA_TEST_FUZZ_OPTS", "").split()
    cmd = [harness, "-max_total_time=%s" % seconds, "-print_final_stats=1", "-close_fd_mask=2",
           "-artifact_prefix=" + artifacts] + opts + [corpus, seeds, regress_dir]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    out = run.stdout
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", out, re.M))
    execs = int(stats.get("number_of_executed_units", 0))
    rate = int(stats.get("average_exec_per_sec", 0))
    found = sorted(set(glob.glob(artifacts + "*")) - before)
    result = "OK" if run.returncode == 0 and not found else "DEFECT"
    print("fuzz summary: %s: %d execs in %s s (%d execs/s), corpus %d inputs, %s"
          % (name, execs, seconds, rate, len(os.listdir(corpus)), result))
    if result == "OK":
        return 0
    print("\n".join(out.splitlines()[-40:]))
    for art in found:
        print("fuzz_%s found %s; replaying it with %s (logs on):" % (name, art, os.path.basename(regress)))
        env = dict(os.environ, FLOWDPA_TEST_FUZZ_LOG="1")
        rep = subprocess.run([regress, art], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", env=env)
        print("\n".join(rep.stdout.splitlines()[-60:]))
        print("Once fixed, keep it: cp %s %s/<what-it-found>" % (art, regress_dir))
    return 1


if __name__ == "__main__":
    sys.exit(main())
