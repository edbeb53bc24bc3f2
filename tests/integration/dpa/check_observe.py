#!/usr/bin/env python3
# check_observe.py PROGRAM - runs PROGRAM with FLOWDPA_REPORT and FLOWDPA_TRACE set and
# checks the DPA report sections and the trace's kernel slices and DPA thread names.
import json
import os
import subprocess
import sys
import tempfile


def fail(msg):
    sys.stderr.write("FAIL: %s\n" % msg)
    sys.exit(1)


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, FLOWDPA_REPORT=os.path.join(tmp, "r.json"), FLOWDPA_TRACE=os.path.join(tmp, "t.json"))
    p = subprocess.run([sys.argv[1]], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        fail("program failed:\n" + p.stdout)
    report = json.load(open(env["FLOWDPA_REPORT"]))
    dpa = [s["data"] for s in report.get("sections", []) if s.get("name") == "dpa"]
    if len(dpa) != 2:
        fail("expected 2 dpa report sections, got %d: %s" % (len(dpa), report))
    first, second = dpa
    want = {"app": "dpa_test_app", "launches": 1, "instances": 4, "rpcs": 1, "faults": 0, "heap_used": 0,
            "heap_peak": 64, "heap_live_allocations": 0, "fatal_error": ""}
    for k, v in want.items():
        if first.get(k) != v:
            fail("first context: %s is %r, expected %r" % (k, first.get(k), v))
    if second.get("faults") != 1 or "fault_kernel (rank 0 of 1) faulted: SIGSEGV" not in second.get("fatal_error", ""):
        fail("second context does not report its fault: %s" % second)
    trace = json.load(open(env["FLOWDPA_TRACE"]))
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    slices = [e for e in events if e.get("cat") == "dpa" and e.get("ph") == "X"]
    ranks = sorted(e["args"]["rank"] for e in slices if e["name"] == "rank_kernel")
    if ranks != [0, 1, 2, 3]:
        fail("rank_kernel slices have ranks %s" % ranks)
    if not any(e["name"] == "add_rpc" and e["args"]["threads"] == 1 for e in slices):
        fail("no add_rpc slice")
    names = [e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"]
    # Named after the kernel and rank they run (docs/dpa.md): 4 ranks of rank_kernel.
    if sorted(n for n in names if n.startswith("dpa:rank_kernel/")) != ["dpa:rank_kernel/%d" % r for r in range(4)]:
        fail("no DPA thread names dpa:rank_kernel/0..3 in the trace: %s" % names)
print("report and trace: ok")
