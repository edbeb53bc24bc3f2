#!/usr/bin/env python3
"""check_report.py PROGRAM - runs report_traffic (known frames per entry) with
FLOWDPA_REPORT and FLOWDPA_REPORT_TOP=3 and checks the report: REPORT_ROOT's flow_pipe
section (captured when the pipe was destroyed) lists as top_entries are the three entries hit most, most first, each named by pipe, index and
match, with exactly the frames sent to it (the entries have no COUNT action); and port 0's
flow_port section's drop reasons count the DROP forward and the miss without fwd_miss, every reason of the
NIC listed by name."""
import json
import os
import subprocess
import sys
import tempfile


def main():
    prog = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "report.json")
        env = dict(os.environ, FLOWDPA_REPORT=report, FLOWDPA_REPORT_TOP="3")
        p = subprocess.run([prog], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("program failed (%d): %s%s" % (p.returncode, p.stdout, p.stderr))
        sections = json.load(open(report))["sections"]
    port0 = [s["data"] for s in sections if s["name"] == "flow_port" and s["data"]["port_id"] == 0]
    assert len(port0) == 1, sections
    port0 = port0[0]
    # Destroyed at port stop: each pipe's section holds its state from then.
    pipes = {s["data"]["name"]: s["data"] for s in sections if s["name"] == "flow_pipe" and not s["live"]}
    assert {"REPORT_ROOT", "REPORT_DROP"} <= set(pipes), sections
    top = pipes["REPORT_ROOT"]["top_entries"]
    got = [(e["pipe"], e["pkts"], e["match"]) for e in top]
    want = [("REPORT_ROOT", 9, "l4.dst=1003"), ("REPORT_ROOT", 7, "l4.dst=1001"), ("REPORT_ROOT", 5, "l4.dst=1002")]
    assert len(got) == 3, "FLOWDPA_REPORT_TOP=3: %r" % top
    for (pipe, pkts, match), (wpipe, wpkts, wmatch) in zip(got, want):
        assert pipe == wpipe and pkts == wpkts and wmatch in match.split(), "top entries %r, want %r" % (got, want)
    assert all(e["bytes"] > 0 and isinstance(e["index"], int) for e in top), top
    # BASIC entries are numbered in the order they were added: 1001 is 0, 1003 is 2.
    assert [e["index"] for e in top] == [2, 0, 1], top
    drop_top = pipes["REPORT_DROP"]["top_entries"]
    assert [(e["pkts"], "l4.dst=2000" in e["match"].split()) for e in drop_top] == [(4, True)], drop_top
    reasons = port0["drop_reasons"]
    assert reasons["fwd_drop"] == 4 and reasons["miss_no_fwd"] == 3, reasons
    assert sum(reasons.values()) == port0["drops"] == 7, (reasons, port0["drops"])
    assert {"port_not_started", "no_root_pipe", "pipe_destroyed", "pipe_loop"} <= set(reasons), reasons
    print("report: top entries %r, drop reasons %r" % (got, reasons))


if __name__ == "__main__":
    main()
