#!/usr/bin/env python3
"""doca_flow_dpa_perf (issue 11): argument validation (each refused combination: exit
code 2 and the rule in the message), a short run of each operation and pipeline policy
(text and --json), the self-test (in-tool, and with tshark on the FLOWDPA_PORT1_TX pcap
when tshark is given), and that the tool's request count equals the provider's
completion counters in FLOWDPA_REPORT.

Usage: test_doca_flow_dpa_perf.py TOOL [TSHARK]"""
import json
import os
import subprocess
import sys
import tempfile

tool = sys.argv[1]
tshark = sys.argv[2] if len(sys.argv) > 2 else None
tmp = tempfile.mkdtemp(prefix="flowdpa-perf-test-")
failures = []


def run(*args, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("FLOWDPA_") or k.startswith("FLOWDPA_TEST_")}
    e.update(env)
    return subprocess.run([tool, *args], env=e, capture_output=True, text=True, timeout=120)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)
    return cond


SHORT = ["--num-iterations", "2", "--table-size", "256"]

# --help lists every option with its default.
r = run("--help")
check(r.returncode == 0, "--help exit code %d" % r.returncode)
for opt in ("--operation", "--burst-size", "--queue-size", "--completion-threshold", "--num-tables",
            "--table-size", "--num-workers", "--hash-algorithm", "--work-policy", "--warmup",
            "--num-iterations", "--num-operations", "--pipeline-policy", "--self-test", "--json",
            "-l, --log-level", "--sdk-log-level", "-h, --help"):
    check(opt in r.stdout, "--help does not list " + opt)
check(r.stdout.count("(default:") >= 16, "--help: a default per option:\n" + r.stdout)

# Each refused combination: exit 2 before anything starts, the message names the rule.
refused = [
    (["--burst-size", "3"], "burst size 3 must divide num-tables x table-size = 1024"),
    (["--num-tables", "3", "--table-size", "100", "--burst-size", "8"],
     "burst size 8 must divide num-tables x table-size = 300"),
    (["--queue-size", "48"], "queue size 48 must be a power of 2"),
    (["--queue-size", "16", "--burst-size", "32"], "queue size 16 must be >= burst size 32"),
    (["--completion-threshold", "128"], "completion threshold 128 must be <= queue size 64"),
    (["--hash-algorithm", "identity", "--operation", "disable"], "hash algorithm identity supports update only"),
    (["--num-workers", "9"], "--num-workers 9: must be 1..8"),
    (["--num-workers", "0"], "--num-workers 0: must be 1..8"),
    (["--num-workers", "8", "--num-tables", "33"], "num-workers x num-tables = 264 exceeds 256"),
    (["--operation", "disable", "--num-operations", "7"], "num-operations 7 must be even"),
    (["--self-test", "--pipeline-policy", "resources"], "--self-test needs pipeline policy entries"),
    (["--operation", "delete"], "--operation \"delete\": must be update or disable"),
    (["--hash-algorithm", "crc"], "--hash-algorithm \"crc\": must be random or identity"),
    (["--work-policy", "zigzag"], "--work-policy \"zigzag\": must be sequential or random"),
    (["--pipeline-policy", "rules"], "--pipeline-policy \"rules\": must be entries or resources"),
    (["--burst-size", "0"], "--burst-size 0: must be"),
    (["--num-iterations", "x"], "--num-iterations \"x\": not a number"),
    (["--log-level", "35"], "a level is 10, 20, ... 70"),
    (["--bogus"], "unknown option \"--bogus\""),
    (["--queue-size"], "--queue-size needs a value"),
]
for args, rule in refused:
    r = run(*args, FLOWDPA_REPORT=os.path.join(tmp, "refused.json"))
    check(r.returncode == 2, "%s: exit code %d, want 2" % (args, r.returncode))
    check(rule in r.stderr, "%s: the message does not name the rule %r:\n%s" % (args, rule, r.stderr))
    check(r.stdout == "", "%s: started anyway (stdout %r)" % (args, r.stdout[:200]))


def report_completed(path):
    with open(path) as f:
        rep = json.load(f)
    prov = [s["data"] for s in rep["sections"] if s["name"] == "provider"]
    check(len(prov) == 1, "one provider section, got %d" % len(prov))
    qs = prov[0]["queues"] if prov else []
    return sum(q["completed"] for q in qs), sum(q["failed"] for q in qs), sum(q["posted"] for q in qs), qs


# A short run of each operation and policy; JSON and the provider's counters.
cases = [
    ["--operation", "update"],
    ["--operation", "disable"],
    ["--operation", "update", "--pipeline-policy", "resources"],
    ["--operation", "disable", "--pipeline-policy", "resources"],
    ["--operation", "update", "--hash-algorithm", "identity"],
    ["--operation", "update", "--work-policy", "random", "--num-workers", "2", "--burst-size", "8"],
    ["--operation", "disable", "--work-policy", "random", "--num-workers", "2", "--num-tables", "2",
     "--burst-size", "1", "--queue-size", "8", "--completion-threshold", "4"],
    ["--operation", "update", "--num-workers", "8", "--burst-size", "32", "--completion-threshold", "1"],
    ["--operation", "disable", "--pipeline-policy", "resources", "--num-workers", "4", "--num-operations", "1000",
     "--warmup", "0"],
]
for i, args in enumerate(cases):
    rep = os.path.join(tmp, "report-%d.json" % i)
    r = run(*args, *SHORT, "--json", FLOWDPA_REPORT=rep)
    if not check(r.returncode == 0, "%s: exit %d\n%s" % (args, r.returncode, r.stderr)):
        continue
    d = json.loads(r.stdout)
    p = d["parameters"]
    workers = p["num_workers"]
    ops = p["num_operations"]
    check(len(d["iterations"]) == 2 and all(it["time_ms"] > 0 for it in d["iterations"]), "%s: iterations" % args)
    for k in ("average_ms", "median_ms", "max_ms", "stddev_ms", "kops_per_sec"):
        check(k in d["overall"], "%s: overall lacks %s" % (args, k))
    check(d["overall"]["kops_per_sec"] > 0, "%s: no rate" % args)
    check(d["operations"] == 2 * ops * workers, "%s: operations %d != iterations x ops x workers" % (args, d["operations"]))
    expect = (2 + p["warmup"]) * ops * workers
    check(d["requests"]["posted"] == expect and d["requests"]["completed"] == expect,
          "%s: requests %s, want %d" % (args, d["requests"], expect))
    done, failed, posted, qs = report_completed(rep)
    check(done == d["requests"]["completed"] and posted == d["requests"]["posted"] and failed == 0,
          "%s: provider completed %d / posted %d / failed %d, the tool says %s" % (args, done, posted, failed,
                                                                                  d["requests"]))
    want_type = "RESOURCES_WRITE" if p["pipeline_policy"] == "resources" else "GENERAL"
    check(len(qs) == workers and all(q["type"] == want_type for q in qs), "%s: queues %s" % (args, qs))
    # Each worker its own queue: every queue carried the same share.
    check(all(q["completed"] == expect // workers for q in qs), "%s: per-queue completions %s" % (args, qs))

# The text output: parameter echo, per-iteration lines, the overall block.
r = run("--operation", "disable", *SHORT)
check(r.returncode == 0, "text run exit %d: %s" % (r.returncode, r.stderr))
for s in ("operation            disable", "burst-size           32", "iteration 1/2:", "iteration 2/2:",
          "average", "median", "max", "standard deviation", "Kops/sec (median)"):
    check(s in r.stdout, "text output lacks %r:\n%s" % (s, r.stdout))
check("\r" not in r.stdout, "a progress line although stdout is not a terminal")

# On a terminal: a progress line per iteration (carriage return, then the result line).
try:
    import pty

    master, slave = pty.openpty()
    e = {k: v for k, v in os.environ.items() if not k.startswith("FLOWDPA_") or k.startswith("FLOWDPA_TEST_")}
    p = subprocess.Popen([tool, *SHORT], stdout=slave, stderr=subprocess.PIPE, env=e)
    os.close(slave)
    chunks = []
    while True:
        try:
            c = os.read(master, 65536)
        except OSError:
            break
        if not c:
            break
        chunks.append(c)
    p.wait(timeout=120)
    os.close(master)
    tty_out = b"".join(chunks).decode(errors="replace")
    check(p.returncode == 0, "tty run exit %d" % p.returncode)
    check("\r[iteration 1/2]" in tty_out and "\r[iteration 2/2]" in tty_out,
          "no progress line on a terminal: %r" % tty_out[-600:])
    check("iteration 2/2: " in tty_out, "tty run lacks the per-iteration line")
except ImportError:
    print("no pty module: the terminal check is skipped")

# The self-test, in the tool and (with tshark) in the egress pcap.
pcap = os.path.join(tmp, "egress.pcap")
rep = os.path.join(tmp, "report-self.json")
for alg in ("random", "identity"):
    env = {"FLOWDPA_REPORT": rep}
    if alg == "random":
        env["FLOWDPA_PORT1_TX"] = "pcap:" + pcap
    r = run("--self-test", "--hash-algorithm", alg, *SHORT, "--json", **env)
    if check(r.returncode == 0, "self-test (%s) exit %d: %s" % (alg, r.returncode, r.stderr)):
        d = json.loads(r.stdout)
        check(d["self_test"]["result"] == "pass" and d["self_test"]["sentinel_frames"] > 0, "self-test %s" % d)
        done, _, _, _ = report_completed(rep)
        check(done == d["requests"]["completed"], "self-test: provider %d, tool %s" % (done, d["requests"]))
r = run("--self-test", *SHORT)
check(r.returncode == 0 and "self-test: PASS" in r.stdout, "self-test text: %s" % r.stdout[-400:])
if tshark:
    t = subprocess.run([tshark, "-r", pcap, "-Y", "udp.srcport == 65432", "-T", "fields", "-e", "udp.srcport"],
                       capture_output=True, text=True, timeout=120)
    n = len([l for l in t.stdout.splitlines() if l.strip()])
    check(t.returncode == 0 and n > 0, "tshark: %d frames with udp.srcport == 65432 in %s (%s)" % (n, pcap, t.stderr))
    t = subprocess.run([tshark, "-r", pcap, "-Y", "udp.srcport != 65432", "-T", "fields", "-e", "udp.srcport"],
                       capture_output=True, text=True, timeout=120)
    check(len(t.stdout.split()) > 0, "tshark: no frame with the old path-selector values before the replace")
    print("tshark: %d egress frames with udp.srcport == 65432" % n)
else:
    print("tshark not found: the pcap check is skipped")

if failures:
    sys.exit("doca_flow_dpa_perf: %d check(s) failed" % len(failures))
print("doca_flow_dpa_perf: ok")
