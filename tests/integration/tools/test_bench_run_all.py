#!/usr/bin/env python3
"""bench/run_all.sh (`make bench`) end to end, quick mode, without the peers (they need
root and their own packages): every benchmark of the tree and the doca_flow_dpa_perf
sweep run, the peers are skipped with a reason, and latest.json / latest.md /
latest.png are written (the chart only when gnuplot is found).

Usage: test_bench_run_all.py SOURCE_ROOT BUILD_ROOT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

src, build = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="flowdpa-bench-test-")
env = {k: v for k, v in os.environ.items() if not k.startswith("FLOWDPA_") or k.startswith("FLOWDPA_TEST_")}
env.update({"FLOWDPA_BENCH_PEERS": os.path.join(tmp, "no-peers"), "BENCH_RESULTS": os.path.join(tmp, "results"),
            "TMPDIR": tmp})
r = subprocess.run(["bash", os.path.join(src, "bench", "run_all.sh"), build, "quick"], env=env, capture_output=True,
                   text=True, timeout=600)
if r.returncode != 0:
    sys.exit("run_all.sh failed (%d):\n%s\n%s" % (r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
res = os.path.join(tmp, "results")
d = json.load(open(os.path.join(res, "latest.json")))
assert d["machine"]["cores"] >= 1 and d["machine"]["cpu"], d["machine"]
assert "no bench-peers" in d["peers"]["xdp_bpf"]["status"], d["peers"]
assert "no bench-peers" in d["peers"]["dpdk_rte_hash"]["status"], d["peers"]
rows = d["doca_flow_dpa_perf"]
assert sorted((x["operation"], x["workers"], x["burst"]) for x in rows) == sorted(
    (o, w, b) for o in ("update", "disable") for w in (1, 2) for b in (1, 8, 32)), rows
assert all(x["kops_per_sec"] > 0 and x["ratio_xdp"] is None for x in rows), rows
assert {b["benchmark"] for b in d["benchmarks"]} == {"bench_datapath", "bench_provider", "bench_dpa"}, d["benchmarks"]
assert all(b["value"] is not None for b in d["benchmarks"]), d["benchmarks"]
md = open(os.path.join(res, "latest.md")).read()
for s in ("Machine: ", "cores", "XDP/BPF peer: no bench-peers", "| update | 1 | 32 |", "| disable | 2 | 8 |"):
    assert s in md, (s, md)
if shutil.which("gnuplot"):
    with open(os.path.join(res, "latest.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n", "latest.png is not a PNG"
shutil.rmtree(tmp)
print("bench/run_all.sh quick: ok")
