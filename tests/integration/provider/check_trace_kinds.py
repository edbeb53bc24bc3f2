#!/usr/bin/env python3
"""check_trace_kinds.py PROGRAM - runs the index_selector_spray sample (host Flow, host DPA
and provider, a DPA kernel, injected frames) in async NIC mode with FLOWDPA_TRACE and a
traffic source on port 0 (FLOWDPA_PORT0_RX=gen:...), loads the file with json.load as
Chrome trace JSON and checks every kind of event the README promises:
  - a complete event (ph X, cat api) for each host DOCA call, with its duration and its
    result ({"result": "DOCA_SUCCESS"}; none for a void function), on the main thread;
    the variadic launch among them;
  - thread_name metadata for the main thread, the NIC worker of port 0, the async NIC
    engine and the DPA thread that ran the kernel ("dpa:spray_kernel/0"), whose kernel
    runs are on that thread's row;
  - a counter track (ph C) of port 0's packets whose rx count grows to the frames sent
    (sampled at most every 10 ms, and at the port's stop)."""
import json
import os
import subprocess
import sys
import tempfile

GEN_PKTS = 3000
INJECTED = 4 * 800  # the sample's four phases


def fail(msg):
    sys.exit("FAIL: " + msg)


def main():
    prog = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "trace.json")
        env = dict(os.environ, FLOWDPA_TRACE=trace, FLOWDPA_NIC_MODE="async",
                   FLOWDPA_PORT0_RX="gen:flows=4,pkts=%d" % GEN_PKTS)
        p = subprocess.run([prog], env=env, capture_output=True, text=True, cwd=d)
        if p.returncode != 0:
            fail("program exit %d: %s%s" % (p.returncode, p.stdout, p.stderr))
        doc = json.load(open(trace))
    events = doc["traceEvents"]

    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    main_tids = [tid for (pid, tid), n in names.items() if pid == 0 and n == "main (%s)" % os.path.basename(prog)]
    if len(main_tids) != 1:
        fail("no main thread name: %r" % names)
    for want in ("NIC worker (port 0 rx)", "NIC engine (device 0)", "dpa:spray_kernel/0"):
        if want not in names.values():
            fail("no thread named %r: %r" % (want, sorted(set(names.values()))))
    eu = [k for k, n in names.items() if n == "dpa:spray_kernel/0"]
    runs = [e for e in events if e["ph"] == "X" and e.get("cat") == "dpa" and e["name"] == "spray_kernel"]
    if not runs or any((e["pid"], e["tid"]) not in eu for e in runs):
        fail("kernel runs not on the DPA thread's row: %r vs %r" % (runs, eu))

    api = [e for e in events if e["ph"] == "X" and e.get("cat") == "api"]
    by_name = {}
    for e in api:
        by_name.setdefault(e["name"], []).append(e)
    for call in ("doca_dev_open", "doca_flow_init", "doca_flow_port_start", "doca_flow_pipe_create",
                 "doca_flow_pipe_hash_add_entry", "doca_flow_entries_process", "doca_dpa_create",
                 "doca_dpa_mem_alloc", "doca_dpa_kernel_launch_update_add", "doca_dpa_d2h_memcpy",
                 "doca_flow_dpa_init", "doca_flow_dpa_queues_create", "doca_flow_dpa_external_resource_export",
                 "doca_sync_event_wait_gt", "doca_flow_port_stop", "doca_dpa_destroy"):
        if call not in by_name:
            fail("no event for %s; have %r" % (call, sorted(by_name)))
        for e in by_name[call]:
            if e["args"].get("result") != "DOCA_SUCCESS" or not isinstance(e["dur"], int) or e["dur"] < 0:
                fail("%s: %r" % (call, e))
            if e["pid"] != 0 or e["tid"] != main_tids[0]:
                fail("%s not on the main thread: %r" % (call, e))
    for void_call in ("doca_flow_pipe_destroy", "doca_flow_destroy"):
        if void_call not in by_name or any("result" in e["args"] for e in by_name[void_call]):
            fail("void %s: %r" % (void_call, by_name.get(void_call)))

    counters = [e for e in events if e["ph"] == "C" and e["name"] == "port 0 packets"]
    rx = [e["args"]["rx"] for e in counters]
    # Every injected frame, and the generator's as far as it got before the port stopped
    # (its start waits for the pipeline, so under load it may not finish).
    if len(rx) < 2 or rx != sorted(rx) or rx[0] >= rx[-1] or not INJECTED <= rx[-1] <= GEN_PKTS + INJECTED:
        fail("port 0 counter rx %r, want increasing to %d..%d" % (rx, INJECTED, GEN_PKTS + INJECTED))
    if len(counters) > 200:
        fail("%d counter events: not rate-bounded" % len(counters))
    print("trace: %d host DOCA calls (%d kinds), threads %r, port 0 rx %r" %
          (len(api), len(by_name), sorted(set(names.values())), rx))


if __name__ == "__main__":
    main()
