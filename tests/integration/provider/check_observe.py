#!/usr/bin/env python3
"""Runs a provider test program with FLOWDPA_REPORT and FLOWDPA_TRACE and checks what they
say: the report's provider section lists every queue with its counters and every export
(destroyed ones included) with its state; the trace has the flush, execute and poll events
of the DPA requests, on the device's process row."""
import json
import os
import subprocess
import sys
import tempfile


def main():
    prog = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        report, trace = os.path.join(d, "report.json"), os.path.join(d, "trace.json")
        env = dict(os.environ, FLOWDPA_REPORT=report, FLOWDPA_TRACE=trace)
        p = subprocess.run([prog], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if p.returncode != 0:
            print(p.stdout)
            sys.exit("program failed: %d" % p.returncode)
        sections = json.load(open(report))["sections"]
        prov = [s["data"] for s in sections if s["name"] == "provider"]
        assert len(prov) == 1, "one provider section per ctx, got %d" % len(prov)
        ctx = prov[0]
        assert ctx["nic_mode"] in ("sync", "async"), ctx
        types = sorted(q["type"] for q in ctx["queues"])
        assert types == ["GENERAL", "RESOURCES_READ", "RESOURCES_WRITE"], types
        gen = [q for q in ctx["queues"] if q["type"] == "GENERAL"][0]
        # test_disable_enable: disable, enable, replace, each flushed and polled.
        for k, v in {"posted": 3, "completed": 3, "failed": 0, "again": 0, "never_flushed": 0,
                     "outstanding": 0, "destroyed": True}.items():
            assert gen[k] == v, "GENERAL queue %s: %r, want %r (%r)" % (k, gen[k], v, gen)
        exp = ctx["exports"]
        assert len(exp) == 1 and exp[0]["name"] == "HASH_PIPE" and exp[0]["state"] == "destroyed", exp
        assert exp[0]["entries_not_exported"] == 0 and exp[0]["failed_requests"] == 0, exp
        events = json.load(open(trace))
        events = events["traceEvents"] if isinstance(events, dict) else events
        prov_ev = [e for e in events if e.get("cat") == "provider"]
        names = [e["name"] for e in prov_ev]
        for want in ("flush", "execute", "poll"):
            assert names.count(want) == 3, "%s events: %d (%r)" % (want, names.count(want), names)
        assert all(e["pid"] == 1 and e["args"]["queue"] == "GENERAL/0" for e in prov_ev), prov_ev
    print("report and trace OK")


if __name__ == "__main__":
    main()
