#!/usr/bin/env python3
"""bench/summarize.py - the arithmetic of bench/run_all.sh: reads the raw outputs of every
round (key=value lines of the peers, bench_datapath and bench_provider; bench_dpa's text;
doca_flow_dpa_perf's --json) and writes, into --results:
  latest.json   every figure per round, its median over the rounds, the ratios
  latest.md     the table: ours next to each peer, ratios (median of the per-round
                ratios), the machine (CPU model, cores), the command
  latest.dat    gnuplot data: burst, then Kops/s of update w1, update w2, disable w1,
                disable w2 (medians over the rounds)
  latest.refs   gnuplot: the peers' update rates as reference lines (bench/chart.gp)
"""
import argparse
import datetime
import glob
import json
import os
import platform
import re
import statistics

ap = argparse.ArgumentParser()
ap.add_argument("--raw", required=True)
ap.add_argument("--rounds", type=int, required=True)
ap.add_argument("--results", required=True)
ap.add_argument("--cmd", default="")
ap.add_argument("--xdp-note", default="")
ap.add_argument("--dpdk-note", default="")
a = ap.parse_args()

BURSTS = [1, 8, 32]
WORKERS = [1, 2]
OPS = ["update", "disable"]


def kv(path):
    d = {}
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            m = re.match(r"^([A-Za-z0-9_]+)=([-+0-9.eE]+)\s*$", line)
            if m:
                try:
                    d[m.group(1)] = float(m.group(2))
                except ValueError:  # key_range=min-max
                    pass
    return d


def dpa_text(path):
    d, kind = {}, None
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith(" ") and not line.startswith(("command", "parameters")):
                kind = line.strip()
            m = re.search(r"over \d+ runs: median ([0-9.]+)\.\.", line)
            if m and kind:
                d[kind] = float(m.group(1))
    return d


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"cpu": model, "cores": os.cpu_count(), "kernel": platform.release(),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}


rounds = []
for r in range(1, a.rounds + 1):
    p = lambda name: os.path.join(a.raw, "r%d-%s" % (r, name))  # noqa: E731
    rd = {"xdp": kv(p("xdp.txt")), "dpdk": kv(p("dpdk.txt")), "datapath": kv(p("datapath.txt")),
          "provider": kv(p("provider.txt")), "dpa": dpa_text(p("dpa.txt")), "perf": {}}
    for op in OPS:
        for b in BURSTS:
            for w in WORKERS:
                with open(p("perf-%s-b%d-w%d.json" % (op, b, w))) as f:
                    j = json.load(f)
                rd["perf"]["%s_b%d_w%d" % (op, b, w)] = j["overall"]["kops_per_sec"]
    rounds.append(rd)


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def series(get):
    out = []
    for rd in rounds:
        try:
            out.append(get(rd))
        except (KeyError, TypeError):
            out.append(None)
    return out


def ratio(ours, peer):
    return med([o / p for o, p in zip(ours, peer) if o is not None and p])


# The peers' figures used, in the units of the comparison.
xdp_ok = any(rd["xdp"] for rd in rounds)
dpdk_ok = any(rd["dpdk"] for rd in rounds)
peer = {
    "xdp_update_kops": series(lambda rd: rd["xdp"]["bpf_update_kops"]),
    "xdp_update_batch_kops": series(lambda rd: rd["xdp"]["bpf_update_batch_kops"]),
    "xdp_deladd_req_kops": series(lambda rd: 2 * rd["xdp"]["bpf_deladd_kops"]),
    "xdp_hash_pipe_mpps": series(lambda rd: rd["xdp"]["xdp_hash_pipe_mpps"]),
    "dpdk_update_kops": series(lambda rd: 1000 * rd["dpdk"]["dpdk_hash_update_mops"]),
    "dpdk_deladd_req_kops": series(lambda rd: 2000 * rd["dpdk"]["dpdk_hash_deladd_mops"]),
    "dpdk_hash_pipe_mpps": series(lambda rd: rd["dpdk"]["dpdk_hash_pipe_mpps"]),
}

perf_rows = []
for op in OPS:
    for w in WORKERS:
        for b in BURSTS:
            s = series(lambda rd: rd["perf"]["%s_b%d_w%d" % (op, b, w)])
            px = peer["xdp_update_kops"] if op == "update" else peer["xdp_deladd_req_kops"]
            pd = peer["dpdk_update_kops"] if op == "update" else peer["dpdk_deladd_req_kops"]
            perf_rows.append({"operation": op, "workers": w, "burst": b, "kops_per_sec": med(s), "rounds": s,
                              "xdp_kops": med(px), "ratio_xdp": ratio(s, px),
                              "dpdk_kops": med(pd), "ratio_dpdk": ratio(s, pd)})

other = []


def add(bench, metric, unit, ours, px=None, pd=None, px_name="", pd_name=""):
    other.append({"benchmark": bench, "metric": metric, "unit": unit, "value": med(ours), "rounds": ours,
                  "xdp": med(px) if px else None, "xdp_metric": px_name, "ratio_xdp": ratio(ours, px) if px else None,
                  "dpdk": med(pd) if pd else None, "dpdk_metric": pd_name,
                  "ratio_dpdk": ratio(ours, pd) if pd else None})


def dp(key, scale=1.0):
    return series(lambda rd: scale * rd["datapath"][key])


def pser(src, key, scale=1.0):
    return series(lambda rd: scale * rd[src][key])


def add_opt(*args, **kw):  # a row of a part that may not have run (16M parts, skipped when they do not fit)
    if any(v is not None for v in args[3]):
        add(*args, **kw)


M = "_n1048576"
add("bench_datapath", "W1 hash pipe N=1024 sequential, burst 32, 1 worker", "Mpps", dp("w1_n1024_seq_b32_1w_mpps"),
    peer["xdp_hash_pipe_mpps"], peer["dpdk_hash_pipe_mpps"], "xdp_hash_pipe_mpps", "dpdk_hash_pipe_mpps")
add("bench_datapath", "W1 hash pipe N=1024 sequential, burst 32, 2 workers", "Mpps", dp("w1_n1024_seq_b32_2w_mpps"))
add("bench_datapath", "W1 N=1024 LCG walk, burst 32, 1 worker", "Mpps", dp("w1_n1024_lcg_b32_1w_mpps"),
    pser("xdp", "xdp_hash_pipe_rotate_mpps"), pser("dpdk", "dpdk_hash_pipe_rotate_mpps"), "xdp_hash_pipe_rotate_mpps",
    "dpdk_hash_pipe_rotate_mpps")
add("bench_datapath", "W1 N=1024 LCG walk, burst 1, 1 worker", "Mpps", dp("w1_n1024_lcg_b1_1w_mpps"),
    pser("xdp", "xdp_hash_pipe_rotate_mpps"), pser("dpdk", "dpdk_hash_pipe_rotate_mpps"), "xdp_hash_pipe_rotate_mpps",
    "dpdk_hash_pipe_rotate_mpps")
for b in (32, 1):
    add_opt("bench_datapath", "W1 N=1M LCG rotate, burst %d, 1 worker" % b, "Mpps", dp("w1_n1048576_lcg_b%d_1w_mpps" % b),
            pser("xdp", "xdp_hash_pipe_rotate_mpps" + M), pser("dpdk", "dpdk_hash_pipe_rotate_mpps" + M),
            "xdp_hash_pipe_rotate_mpps" + M, "dpdk_hash_pipe_rotate_mpps" + M)
    add_opt("bench_datapath", "W1 N=16M LCG rotate, burst %d, 1 worker" % b, "Mpps",
            dp("w1_n16777216_lcg_b%d_1w_mpps" % b))
add("bench_datapath", "hash entry insert N=1M", "Kops/s", dp("insert_hash_n1048576_meps", 1000),
    peer["xdp_update_batch_kops"], None, "bpf_update_batch_kops")
for n, tag in (("1M", "n1048576"), ("16M", "n16777216")):
    for q in (1, 2):
        add_opt("bench_datapath", "BASIC keyed insert N=%s, %d queue(s)" % (n, q), "Kops/s",
                dp("insert_basic_%s_%dq_meps" % (tag, q), 1000), pser("xdp", "bpf_add_kops" + M) if n == "1M" else None,
                pser("dpdk", "dpdk_hash_add_mops" + M, 1000) if n == "1M" else None, "bpf_add_kops" + M,
                "dpdk_hash_add_mops%s x1000" % M)
    add_opt("bench_datapath", "HASH pipe creation N=%s (fresh process)" % n, "ms", dp("scale_create_hash_%s_ms" % tag))
    for t in ("hash", "basic"):
        add_opt("bench_datapath", "%s bytes per entry N=%s (target %d)" % (t.upper(), n, 48 if t == "hash" else 96),
                "B", dp("scale_%s_%s_bytes_per_entry" % (t, tag)))
for t, n, tag in (("hash", "134M", "n134217728"), ("basic", "67M", "n67108864")):
    add_opt("bench_datapath", "%s N=%s, a fresh process's RSS once filled and walked" % (t.upper(), n), "GB",
            dp("fit_%s_%s_rss_gb" % (t, tag)))
add_opt("bench_datapath", "capacity: both of these added up (target <= 24)", "GB", dp("fit_both_rss_gb"))
add("bench_provider", "replace 1t b32 sync", "Kops/s",
    series(lambda rd: 1000 * rd["provider"]["replace_1t_b32_sync_mops"]), peer["xdp_update_kops"],
    peer["dpdk_update_kops"], "bpf_update_kops", "dpdk_hash_update_mops x1000")
add("bench_provider", "replace 2t b32 sync", "Kops/s",
    series(lambda rd: 1000 * rd["provider"]["replace_2t_b32_sync_mops"]), peer["xdp_update_kops"],
    peer["dpdk_update_kops"], "bpf_update_kops", "dpdk_hash_update_mops x1000")
add("bench_provider", "disable+enable 1t b32 sync (requests)", "Kops/s",
    series(lambda rd: 2000 * rd["provider"]["disable_enable_1t_b32_sync_mpairs"]), peer["xdp_deladd_req_kops"],
    peer["dpdk_deladd_req_kops"], "2 x bpf_deladd_kops", "2 x dpdk_hash_deladd_mops x1000")
add("bench_provider", "memory update 1t b32 sync", "Kops/s",
    series(lambda rd: 1000 * rd["provider"]["memory_update_1t_b32_sync_mops"]), peer["xdp_update_kops"],
    peer["dpdk_update_kops"], "bpf_update_kops", "dpdk_hash_update_mops x1000")
add("bench_provider", "memory read 1t b32 sync", "Kops/s",
    series(lambda rd: 1000 * rd["provider"]["memory_read_1t_b32_sync_mops"]))
for kind in sorted({k for rd in rounds for k in rd["dpa"]}):
    add("bench_dpa", kind + " (median latency)", "us", series(lambda rd: rd["dpa"][kind]))

m = machine()
xdp_status = "ran (xdp_bench -q -n 1024)" if xdp_ok else (a.xdp_note or "no figures")
dpdk_status = "ran (dpdk_bench -q -n 1024)" if dpdk_ok else (a.dpdk_note or "no figures")
doc = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "command": a.cmd,
       "rounds": a.rounds, "machine": m,
       "peers": {"xdp_bpf": {"status": xdp_status, "figures": {k: med(v) for k, v in peer.items() if k.startswith("xdp")}},
                 "dpdk_rte_hash": {"status": dpdk_status,
                                   "figures": {k: med(v) for k, v in peer.items() if k.startswith("dpdk")}}},
       "doca_flow_dpa_perf": perf_rows, "benchmarks": other, "raw": a.raw}
os.makedirs(a.results, exist_ok=True)
with open(os.path.join(a.results, "latest.json"), "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")


def fmt(v, d=1):
    return "-" if v is None else ("%.*f" % (d, v))


def fx(v):
    return "-" if v is None else "%.2fx" % v


L = []
L.append("# flowdpa benchmarks (`make bench`)")
L.append("")
L.append("- Machine: %s, %d cores (kernel %s); load average at the end %s (other tenants make a shared VM "
         "noisy: compare within a round, as the ratios do)" % (m["cpu"], m["cores"], m["kernel"],
                                                               " / ".join("%.2f" % x for x in m["load_average_at_end"])))
L.append("- Date: %s; command: `%s`; %d round(s), peers and ours alternated" % (doc["date"], a.cmd, a.rounds))
L.append("- XDP/BPF peer: %s" % xdp_status)
L.append("- DPDK rte_hash peer: %s" % dpdk_status)
L.append("- Figures: medians over the rounds; a ratio is the median of the per-round ratios (ours / peer)")
L.append("")
L.append("## doca_flow_dpa_perf (DPA requests through the DOCA Flow DPA Provider)")
L.append("")
L.append("`--num-operations 131072 --num-iterations 5`, 1 table of 1024 entries per worker, queue 64, threshold 32, "
         "sync NIC mode. Kops/s from the median iteration. update = `doca_flow_pipe_hash_replace_index`, peers: "
         "`bpf_map_update_elem(BPF_EXIST)` / `rte_hash_add_key_data` on an existing key. disable = disable + enable "
         "(two requests), peers: delete + re-add (two operations), all counted as requests.")
L.append("")
L.append("| operation | workers | burst | flowdpa Kops/s | XDP/BPF Kops/s | vs XDP/BPF | DPDK Kops/s | vs DPDK |")
L.append("|---|---|---|---|---|---|---|---|")
for row in perf_rows:
    L.append("| %s | %d | %d | %s | %s | %s | %s | %s |" % (
        row["operation"], row["workers"], row["burst"], fmt(row["kops_per_sec"]), fmt(row["xdp_kops"]),
        fx(row["ratio_xdp"]), fmt(row["dpdk_kops"]), fx(row["ratio_dpdk"])))
L.append("")
L.append("## The other benchmarks")
L.append("")
L.append("| benchmark | metric | unit | flowdpa | XDP/BPF | vs XDP/BPF | DPDK | vs DPDK |")
L.append("|---|---|---|---|---|---|---|---|")
for o in other:
    d = 2
    L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        o["benchmark"], o["metric"], o["unit"], fmt(o["value"], d),
        fmt(o["xdp"], d) + (" (%s)" % o["xdp_metric"] if o["xdp"] is not None else ""), fx(o["ratio_xdp"]),
        fmt(o["dpdk"], d) + (" (%s)" % o["dpdk_metric"] if o["dpdk"] is not None else ""), fx(o["ratio_dpdk"])))
L.append("")
L.append("Peers' update rates (chart reference lines), Kops/s: XDP update_elem %s, XDP update_batch %s, "
         "DPDK rte_hash update %s." % (fmt(med(peer["xdp_update_kops"])), fmt(med(peer["xdp_update_batch_kops"])),
                                       fmt(med(peer["dpdk_update_kops"]))))
L.append("")
L.append("Chart: latest.png. Raw outputs: %s" % a.raw)
with open(os.path.join(a.results, "latest.md"), "w") as f:
    f.write("\n".join(L) + "\n")

with open(os.path.join(a.results, "latest.dat"), "w") as f:
    f.write("# burst update_w1 update_w2 disable_w1 disable_w2 (Kops/s)\n")
    for b in BURSTS:
        vals = [next(r["kops_per_sec"] for r in perf_rows if r["operation"] == op and r["workers"] == w and r["burst"] == b)
                for op in OPS for w in WORKERS]
        f.write("%d %s\n" % (b, " ".join(fmt(v, 3).replace("-", "NaN") for v in vals)))

refs = []
for key, label, style in (("xdp_update_kops", "XDP/BPF update_elem", "lc rgb '#888888' dt 2"),
                          ("xdp_update_batch_kops", "XDP/BPF update_batch", "lc rgb '#555555' dt 4"),
                          ("dpdk_update_kops", "DPDK rte_hash update", "lc rgb '#000000' dt 3")):
    v = med(peer[key])
    if v:
        refs.append(", %.3f with lines %s lw 2 title '%s (%.0f Kops/s)'" % (v, style, label, v))
title = "doca_flow_dpa_perf on %s, %d cores (%d round(s))" % (m["cpu"], m["cores"], a.rounds)
with open(os.path.join(a.results, "latest.refs"), "w") as f:
    f.write("refplot = \"%s\"\n" % "".join(refs).replace('"', '\\"'))
    f.write("charttitle = \"%s\"\n" % title)
print("summary: %s" % os.path.join(a.results, "latest.md"))
