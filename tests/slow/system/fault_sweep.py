#!/usr/bin/env python3
"""fault_sweep.py SCENARIO - fail every allocation of fault_scenario, one run per N, and
each FLOWDPA_FAULTS site, and check that flowdpa handled each failure as documented.

A run without a fault gives K, the scenario's allocation count, and the call each
allocation belongs to (FAULT_SCN_STEPS). Port 1 has a FLOWDPA_PORT1_RX source (a pcap,
then the generator for the allocations of doca_flow_port_start only). Then, for N = 1..K, FLOWDPA_FAULT_ALLOC=N runs
twice: the scenario stopping at the failed call and tearing down (a real program's
error path), and FAULT_SCN_RETRY=1, where the failed call is made once more and must
succeed, the scenario going on to the end (the failure left the objects intact). For
each run:
  - the fault fired (the count is deterministic), the exit status is 0 or 3 (no
    crash, no sanitizer abort: in the ASan tree LSan runs at exit, so a leak fails);
  - stderr holds no sanitizer report and exactly ONE error record ([DOCA][ERR] or
    [CRIT]; [WRN] where the fault is absorbed): the failing call said what failed, once,
    and nothing else complained;
  - a failed call returned DOCA_ERROR_NO_MEMORY (an entry operation: completed with
    status ERROR) and is the call that made allocation N; teardown completed;
  - when no call failed (an allocation made before main, in a log source's
    registration, or one a call absorbs in a degraded mode), the run completed and still
    logged its line (a WARNING for a degraded mode); a destroy call that allocated and
    failed would show as TEARDOWN_FAILED.
Each FLOWDPA_FAULTS site runs once: the call it stands for fails with DRIVER (NO_MEMORY
for dpa_mem_alloc), one error record, clean teardown. FLOWDPA_DPA_HEAP_SIZE=4K..32K
exhausts the device heap at each call that takes device memory: NO_MEMORY, one record.
Exit 0 when every run passed, 1 otherwise (each failure is listed).
"""
import os
import re
import subprocess
import sys
import time

ERR_RECORD = re.compile(r"\[DOCA\]\[(ERR|CRIT)\]")
# A fault absorbed in a degraded mode (the program goes on) may say so as a WARNING.
RECORD = re.compile(r"\[DOCA\]\[(ERR|CRIT|WRN)\]")
SANITIZER = re.compile(r"(AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|runtime error:)")

# Site -> (the call that must fail, its code, the WARNING teardown rightly adds or None).
DRIVER_SITES = {
    "dpa_init": ("doca_flow_dpa_init", "DOCA_ERROR_DRIVER", None),
    "queues_create": ("doca_flow_dpa_queues_create", "DOCA_ERROR_DRIVER", None),
    "pipe_export": ("doca_flow_dpa_pipe_export", "DOCA_ERROR_DRIVER", None),
    "queue_poll": ("(doca_error_t)ret", "DOCA_ERROR_DRIVER", None),
    # The RPC's requests were posted, their flush failed: destroying the queue says so.
    "queue_flush": ("(doca_error_t)ret", "DOCA_ERROR_DRIVER", "were posted and never flushed"),
    "dpa_mem_alloc": ("doca_dpa_mem_alloc", "DOCA_ERROR_NO_MEMORY", None),
}


# Port 1's source is there for the allocations it makes: port 1 never gets a root pipe,
# so the source never plays, and flowdpa rightly says so once at the port's stop (issue
# 12, docs/flow.md). Every run has that line; it is not the fault's.
UNPLAYED_PORT1 = re.compile(r".*\[DOCA\]\[WRN\].*\] port 1: source \S+ played 0/\d+ frames "
                            r"\(port stopped first; it had no root pipe\)\n?")
# A scenario that fails before it starts port 1 tears down without starting it: flowdpa
# then says the source's port never started, which is true and is the program's doing.
NEVER_STARTED_PORT1 = re.compile(r".*\[DOCA\]\[WRN\].*\] port 1: source \S+ played 0/\d+ frames "
                                 r"\(port never started\)\n?")


def run(scenario, extra_env):
    env = dict(os.environ)
    for k in ("FLOWDPA_FAULT_ALLOC", "FLOWDPA_FAULTS", "FAULT_SCN_STEPS", "FAULT_SCN_RETRY"):
        env.pop(k, None)
    env.update(extra_env)
    p = subprocess.run([scenario], env=env, capture_output=True, text=True, timeout=60)
    stderr, unplayed = UNPLAYED_PORT1.subn("", p.stderr)
    out = {"rc": p.returncode, "stdout": p.stdout, "stderr": stderr, "failed": None, "retried": False,
           "steps": [], "allocs": None, "fired": None, "broken": []}
    for line in p.stdout.splitlines():
        f = line.split(" ", 2)
        if f[0] == "STEP":
            out["steps"].append((int(f[1]), f[2]))
        elif f[0] == "FAILED":
            call, code = line[len("FAILED "):].rsplit(" ", 1)
            out["failed"] = (call, code)
        elif f[0] == "RETRIED":
            out["retried"] = True
        elif f[0] == "ALLOCS":
            out["allocs"], out["fired"] = int(f[1]), f[2].split()[1] == "1"
        elif f[0] in ("BROKEN", "TEARDOWN_FAILED"):
            out["broken"].append(line)
    if out["failed"]:
        out["stderr"] = NEVER_STARTED_PORT1.sub("", out["stderr"])
    return out


def owner(steps, n):
    """The call that made allocation n: the first step whose count reached n ("main":
    before main, in a library's constructor; None: after the last step, in teardown)."""
    for count, call in steps:
        if count >= n:
            return call
    return None


def common_checks(r, what, problems, expected_warning=None):
    """Checks every faulted run shares; returns its records of WARNING and above."""
    recs = [l for l in r["stderr"].splitlines()
            if RECORD.search(l) and not (expected_warning and "[WRN]" in l and expected_warning in l)]
    if SANITIZER.search(r["stderr"]):
        problems.append(f"{what}: sanitizer report:\n{r['stderr'][-3000:]}")
    if r["rc"] not in (0, 3):
        problems.append(f"{what}: exit status {r['rc']}\n{r['stdout'][-1500:]}{r['stderr'][-1500:]}")
    for b in r["broken"]:
        problems.append(f"{what}: {b}")
    if len(recs) != 1:
        problems.append(f"{what}: {len(recs)} log records, expected exactly 1:\n" + "\n".join(recs[:10]))
    elif r["failed"] and not ERR_RECORD.search(recs[0]):
        problems.append(f"{what}: {r['failed'][0]} failed but logged no error: {recs[0]}")
    return recs


def short(rec):
    """A record without its time, thread and source fields."""
    return rec.split("][", 5)[-1] if rec else "-"


def sweep(scenario, config, only, problems):
    """Fail every allocation N of the scenario run with config's variables (only: the N
    owned by calls whose name contains it). Returns the number of runs."""
    label = " ".join(f"{k}={v}" for k, v in config.items())
    base = run(scenario, dict(config, FAULT_SCN_STEPS="1"))
    if base["rc"] != 0 or base["failed"] or base["allocs"] is None or RECORD.search(base["stderr"]):
        problems.append(f"[{label}] the scenario fails or logs without a fault (exit {base['rc']}):\n"
                        f"{base['stdout']}\n{base['stderr']}")
        return 0
    k = base["allocs"]
    first, last = base["steps"][0][0], base["steps"][-1][0]
    print(f"[{label}] K = {k} allocations ({first} before main, {last - first} in calls, {k - last} in teardown)"
          + (f"; swept: those of {only}" if only else ""))
    runs = 0
    for n in range(1, k + 1):
        expect_call = owner(base["steps"], n)
        if only and only not in (expect_call or ""):
            continue
        for retry in (False, True):
            env = dict(config, FLOWDPA_FAULT_ALLOC=str(n))
            if retry:
                env["FAULT_SCN_RETRY"] = "1"
            what = f"[{label}] FLOWDPA_FAULT_ALLOC={n}{' FAULT_SCN_RETRY=1' if retry else ''} " \
                   f"({expect_call or 'teardown'})"
            r = run(scenario, env)
            runs += 1
            if not r["fired"]:
                problems.append(f"{what}: the fault did not fire (allocation count not deterministic?)")
            recs = common_checks(r, what, problems)
            if r["failed"]:
                call, code = r["failed"]
                if code not in ("DOCA_ERROR_NO_MEMORY", "ENTRY_STATUS_ERROR"):
                    problems.append(f"{what}: {call} returned {code}, expected DOCA_ERROR_NO_MEMORY")
                if call != "entry_completion" and call != expect_call:
                    problems.append(f"{what}: {call} failed, but allocation {n} belongs to {expect_call}")
                if retry and code != "ENTRY_STATUS_ERROR" and (r["rc"] != 0 or not r["retried"]):
                    problems.append(f"{what}: retrying {call} did not succeed and complete (exit {r['rc']})")
                if not retry and r["rc"] != 3:
                    problems.append(f"{what}: {call} failed but the exit status is {r['rc']}")
            elif r["rc"] != 0:
                problems.append(f"{what}: exit {r['rc']} without a failed call")
            if not retry:
                outcome = f"{r['failed'][0]} -> {r['failed'][1]}" if r["failed"] else "absorbed"
                print(f"N={n} [{expect_call or 'teardown'}] {outcome}; log: {short(recs[0] if recs else '')}")
    return runs


def main():
    scenario = sys.argv[1]
    source_root = os.environ.get("FLOWDPA_TEST_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "../../.."))
    pcap = os.path.normpath(os.path.join(source_root, "samples/data/path_failover.pcap"))
    # Port 1 never gets a root pipe in the scenario, so its source is set up (at port
    # start) but never plays: the counts stay deterministic. The pcap configuration is
    # swept whole; the generator one only over doca_flow_port_start, where the two differ.
    configs = [({"FLOWDPA_PORT1_RX": f"pcap:{pcap}"}, None),
               ({"FLOWDPA_PORT1_RX": "gen:flows=8,pkts=8,zipf=1.1"}, "doca_flow_port_start")]
    t0 = time.monotonic()
    problems = []
    runs = sum(sweep(scenario, config, only, problems) for config, only in configs)
    for site, (call, code, warning) in DRIVER_SITES.items():
        what = f"FLOWDPA_FAULTS={site}"
        r = run(scenario, {"FLOWDPA_FAULTS": site})
        recs = common_checks(r, what, problems, warning)
        got = r["failed"]
        if got is None or got[1] != code or not (got[0] == call or got[0].startswith(call + "(")):
            problems.append(f"{what}: expected {call} to fail with {code}, got {got}")
        if r["rc"] != 3:
            problems.append(f"{what}: exit status {r['rc']}, expected 3")
        print(f"{what}: {got}; log: {short(recs[0] if recs else '')}")
    # The device heap exhausted at each point where the scenario takes device memory.
    for kib in range(4, 36, 4):
        what = f"FLOWDPA_DPA_HEAP_SIZE={kib}K"
        r = run(scenario, {"FLOWDPA_DPA_HEAP_SIZE": f"{kib}K"})
        if r["failed"] is None and r["rc"] == 0 and not RECORD.search(r["stderr"]):
            print(f"{what}: the scenario fits")
            continue
        recs = common_checks(r, what, problems)
        if r["failed"] is None or r["failed"][1] != "DOCA_ERROR_NO_MEMORY" or r["rc"] != 3:
            problems.append(f"{what}: expected a call to fail with NO_MEMORY (exit 3), got {r['failed']} "
                            f"(exit {r['rc']})")
        print(f"{what}: {r['failed']}; log: {short(recs[0] if recs else '')}")
    elapsed = time.monotonic() - t0
    print(f"{runs} allocation-fault runs, {len(DRIVER_SITES)} driver-site runs and 8 device-heap sizes "
          f"in {elapsed:.1f} s")
    for p in problems:
        print("FAIL " + p)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
