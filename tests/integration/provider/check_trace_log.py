#!/usr/bin/env python3
"""check_trace_log.py REPORT_TRAFFIC SPRAY DPA_THREAD_TEST - DOCA_LOG_LEVEL=trace logs one
line per state-changing Flow and DPA call (docs/logging.md, "Trace records"):
  - report_traffic (tests/integration/flow): pipe create/destroy, entry add/update/remove,
    entries_process with how many operations it processed, pipes flush, port stop,
    doca_flow_destroy;
  - the index_selector_spray sample with FLOWDPA_PORT0_RX: the traffic source's start and
    end with its frame counts, DPA mem alloc/free, d2h memcpy, each kernel launch with its
    kernel and thread count, the provider's init/queues/export;
  - test_dpa_thread: DPA thread create/start/destroy and notification completions.
Each expected record is matched by its text; launches are counted (one line per call)."""
import os
import re
import subprocess
import sys


def run(argv, **extra):
    env = dict(os.environ, DOCA_LOG_LEVEL="trace", **extra)
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit("FAIL: %s exit %d:\n%s%s" % (argv[0], p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return [l for l in (p.stdout + p.stderr).splitlines() if "[TRC]" in l]


def expect(lines, pattern, count=None, what=""):
    hits = [l for l in lines if re.search(pattern, l)]
    if not hits or (count is not None and len(hits) != count):
        sys.exit("FAIL: %s: %d record(s) match %r, want %s\n%s" % (what, len(hits), pattern, count or ">= 1",
                                                                   "\n".join(lines[-60:])))
    return hits


def main():
    report_traffic, spray, dpa_thread = sys.argv[1:4]
    flow = run([report_traffic])
    for pat, n in ((r"doca_flow_pipe_create: 'REPORT_ROOT' type 0 port 0 root 1", 1),
                   (r"doca_flow_pipe_basic_add_entry: pipe 'REPORT_ROOT' queue 0: entry add queued", 5),
                   (r"doca_flow_pipe_basic_add_entry: pipe 'REPORT_DROP' queue 0: entry add queued", 3),
                   (r"doca_flow_entries_process: port 0 queue 0: 6 operation\(s\) processed$", 1),
                   (r"doca_flow_pipe_basic_update_entry: pipe 'REPORT_DROP' queue 0: entry update queued", 1),
                   (r"doca_flow_pipe_remove_entry: pipe 'REPORT_DROP' queue 0: entry removal queued", 1),
                   (r"doca_flow_entries_process: port 0 queue 0: 2 operation\(s\) processed$", 2),
                   (r"pipe 'REPORT_ROOT' destroyed \(port 0, 5 entries\)", 1),
                   (r"pipe 'REPORT_DROP' destroyed \(port 0, 2 entries\)", 1),
                   (r"doca_flow_port_pipes_flush: port 0", 1),
                   (r"doca_flow_port_stop: port 0 stopped and destroyed", 1),
                   (r"doca_flow_destroy: ", 1)):
        expect(flow, pat, n, "report_traffic")

    dpa = run([spray], FLOWDPA_PORT0_RX="gen:flows=2,pkts=300")
    expect(dpa, r"FLOWDPA_PORT0_RX: traffic source started: generator, 300 frames x 1 loop\(s\)", 1, "spray")
    # How far it got depends on when the sample stops the port: any count, one line.
    expect(dpa, r"FLOWDPA_PORT0_RX: traffic source ended: \d+ frames sent in [01] loop\(s\)", 1, "spray")
    expect(dpa, r"doca_dpa_kernel_launch_update_add: kernel spray_kernel, 1 thread\(s\) on DPA context \d+", 5,
           "spray: one line per launch")
    expect(dpa, r"doca_dpa_mem_alloc: 12 bytes at device address 0x[0-9a-f]+", 1, "spray")
    expect(dpa, r"doca_dpa_mem_free: device address 0x[0-9a-f]+ freed", 1, "spray")
    expect(dpa, r"doca_dpa_d2h_memcpy: 12 bytes from device address", 5, "spray")
    for pat in (r"doca_flow_dpa_init: ctx \d+", r"doca_flow_dpa_queues_create: ctx \d+ port 0",
                r"doca_flow_dpa_external_resource_export: ctx", r"DPA context \d+ started",
                r"DPA context \d+ destroyed"):
        expect(dpa, pat, None, "spray")

    thr = run([dpa_thread])
    for pat in (r"doca_dpa_thread_create: DPA thread \d+ on DPA context", r"doca_dpa_thread_start: DPA thread \d+ runs",
                r"doca_dpa_thread_destroy: DPA thread", r"doca_dpa_notification_completion_create: for DPA thread",
                r"doca_dpa_notification_completion_destroy: of DPA thread"):
        expect(thr, pat, None, "test_dpa_thread")
    print("trace records: %d flow, %d spray, %d dpa thread" % (len(flow), len(dpa), len(thr)))


if __name__ == "__main__":
    main()
