#!/usr/bin/env python3
"""check.py - run lifecycle_mistakes and assert that flowdpa's diagnosis of each mistake
appears in its section, in both NIC modes; then once under FLOWDPA_STRICT=1, where the
late prepare is refused. argv[1]: the sample binary."""
import json
import os
import re
import subprocess
import sys
import tempfile

exe = os.path.abspath(sys.argv[1])
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def run(extra_env, report=None):
    env = dict(os.environ)
    env.update(extra_env)
    if report:
        env["FLOWDPA_REPORT"] = report
    p = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def sections(out):
    """{mistake number: its text} from the '== mistake N:' headings."""
    parts = re.split(r"^== mistake (\d):", out, flags=re.M)
    return {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def has(sec, *subs):
    return all(s in sec for s in subs)


for mode, env in (("sync", {"FLOWDPA_NIC_MODE": "sync"}),
                  ("async", {"FLOWDPA_NIC_MODE": "async", "FLOWDPA_NIC_LATENCY_US": "1000"})):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        rc, out, err = run(env, report)
        sys.stdout.write(out)
        expect(rc == 0, "%s: exit %d, stderr:\n%s" % (mode, rc, err))
        s = sections(out)
        expect(sorted(s) == [1, 2, 3, 4], "%s: sections %s, want 1..4" % (mode, sorted(s)))
        m1, m2, m3, m4 = (s.get(i, "") for i in (1, 2, 3, 4))
        # 1: prepare succeeds with one WARNING naming the pipe and the count; a request on an
        # early entry completes with failure and an ERROR naming the cause; a later one works.
        expect(has(m1, "returned: doca_flow_dpa_pipe_export_prepare: DOCA_SUCCESS"), mode + " 1: prepare result")
        expect(re.search(r"flowdpa says: .*\[WRN\].*doca_flow_dpa_pipe_export_prepare: pipe 'EARLY_PIPE' already "
                         r"holds 3 entries; entries added before export_prepare are not exported", m1),
               mode + " 1: prepare WARNING")
        expect(has(m1, "entry 1 (added before prepare): DOCA_SUCCESS, completed 1, failed 1"),
               mode + " 1: early entry's request must complete with failure")
        expect(re.search(r"flowdpa says: .*\[ERR\].*disable of 'EARLY_PIPE' index 1 .*failed at execution: the entry "
                         r"was added before doca_flow_dpa_pipe_export_prepare", m1), mode + " 1: execution ERROR")
        expect(has(m1, "entry 5 (added after prepare): DOCA_SUCCESS, completed 1, failed 0"),
               mode + " 1: later entry's request must succeed")
        # 2: BAD_STATE, address 0, the line says why; after the export the address comes.
        expect(has(m2, "doca_flow_dpa_pipe_get_device_addr: DOCA_ERROR_BAD_STATE (address 0)"), mode + " 2: result")
        expect(re.search(r"flowdpa says: .*\[ERR\].*doca_flow_dpa_pipe_get_device_addr: pipe 'LATE_PIPE' is prepared "
                         r"but not exported yet \(call doca_flow_dpa_pipe_export first\)", m2), mode + " 2: ERROR line")
        expect(has(m2, "after doca_flow_dpa_pipe_export: DOCA_SUCCESS (address non-zero)"), mode + " 2: fix")
        # 3: the export works, the read is NOT_SUPPORTED and the line names the missing queue type.
        expect(has(m3, "doca_flow_dpa_external_resource_export(MEMORY): DOCA_SUCCESS"), mode + " 3: export")
        expect(has(m3, "kernel doca_flow_external_resource_memory_read: DOCA_ERROR_NOT_SUPPORTED"), mode + " 3: result")
        expect(re.search(r"flowdpa says: .*\[ERR\].*doca_flow_external_resource_memory_read: port 0 has no "
                         r"RESOURCES_READ queues", m3), mode + " 3: ERROR line")
        # 4: queue_size posts accepted, the next AGAIN, no log line; after a poll all complete
        # and posting works again; the report counts the AGAIN.
        expect(has(m4, "8 posts accepted, post 9: DOCA_ERROR_AGAIN"), mode + " 4: AGAIN after queue_size posts")
        expect(has(m4, "flowdpa says: (nothing at WARNING or above)") and "[ERR]" not in m4 and "[WRN]" not in m4,
               mode + " 4: AGAIN must not be logged")
        expect(has(m4, "after polling: DOCA_SUCCESS, completed 8, failed 0"), mode + " 4: poll reaps all 8")
        expect(has(m4, "the next post: DOCA_SUCCESS, completed 1, failed 0"), mode + " 4: post after poll")
        teardown = out.split("teardown, in reverse:", 1)[-1]
        expect("[ERR]" not in teardown and "[WRN]" not in teardown, mode + ": teardown must be quiet")
        try:
            secs = json.load(open(report))["sections"]
            pv = [x["data"] for x in secs if x["name"] == "provider"]
            q = [x for x in pv[0]["queues"] if x["type"] == "GENERAL"][0]
            expect(q["again"] == 1 and q["failed"] == 1 and q["outstanding"] == 0,
                   "%s: report GENERAL queue %s" % (mode, q))
            early = [x for x in pv[0]["exports"] if x["name"] == "EARLY_PIPE"][0]
            expect(early["entries_not_exported"] == 3 and early["failed_requests"] == 1,
                   "%s: report EARLY_PIPE %s" % (mode, early))
        except (OSError, ValueError, KeyError, IndexError) as e:
            failures.append("%s: report: %r" % (mode, e))

# Under FLOWDPA_STRICT=1 the late prepare itself is refused.
rc, out, err = run({"FLOWDPA_STRICT": "1"})
s1 = sections(out).get(1, "")
expect(rc == 2, "strict: exit %d, want 2" % rc)
expect(has(s1, "doca_flow_dpa_pipe_export_prepare: DOCA_ERROR_BAD_STATE"), "strict: prepare must be BAD_STATE")
expect(re.search(r"flowdpa says: .*\[ERR\].*'EARLY_PIPE' already holds 3 entries.*BAD_STATE because FLOWDPA_STRICT=1",
                 s1), "strict: ERROR line")

if failures:
    print("lifecycle_mistakes check FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("lifecycle_mistakes: every mistake printed its documented diagnosis (sync, async, strict): ok")
