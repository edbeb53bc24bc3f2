#!/usr/bin/env python3
"""check.py - run index_selector_spray in both NIC modes and assert that the per-entry
counters match the index-selector states the kernel set.

RANDOM picks an index per packet, so per-entry counts vary from run to run. What does
not vary, and is asserted exactly:
  - every kernel modify_range completed (one request per 32 slots), none failed;
  - packets are conserved: sum of the entry deltas + miss == sent; forwarded == sum;
  - a DISABLE'd slot's entry forwards nothing, and (no SELECT_ENABLED) each packet that
    chose it is a miss, so B's misses == sent - the enabled entries' packets;
  - all ENABLE: no miss at all (A, D);
  - SKIP_ONCE/SKIP_TWICE: exactly 1/2 misses per slot, the slot ends ENABLE (C: miss == 6).
The only assertions that depend on the random choice are that the 4 disabled slots of B
got some packets (P(fail) = 2^-800) and that each skip slot of C was chosen at least twice
in 800 packets (P(fail) < 1e-40). argv[1]: the sample binary."""
import os
import re
import subprocess
import sys

exe = os.path.abspath(sys.argv[1])
SENT = 800
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def parse(out):
    """{phase: {'rows': [(index, before, packets, after)], 'sent', 'forwarded', 'miss', 'kernel': [...]}}"""
    phases = {}
    for block in re.split(r"^phase (?=[A-D]: )", out, flags=re.M)[1:]:
        name = block[0]
        rows = [(int(i), b, int(p), a) for i, b, p, a in
                re.findall(r"^\s+(\d+)\s+(ENABLE|SKIP_ONCE|SKIP_TWICE|DISABLE)\s+(\d+)\s+(\w+)$", block, flags=re.M)]
        m = re.search(r"phase %s: sent (\d+), forwarded (\d+), miss (\d+)" % name, block)
        kernel = re.findall(r"kernel: modify_range\(first (\d+), nr (\d+), (\w+)\): (\w+), (\d+) request\(s\) "
                            r"completed, (\d+) failed", block)
        phases[name] = {"rows": rows, "kernel": kernel,
                        "sent": int(m.group(1)) if m else -1, "forwarded": int(m.group(2)) if m else -1,
                        "miss": int(m.group(3)) if m else -1}
    return phases


def check(mode, out):
    ph = parse(out)
    expect(sorted(ph) == ["A", "B", "C", "D"], "%s: phases %s" % (mode, sorted(ph)))
    for name, p in ph.items():
        tag = "%s phase %s" % (mode, name)
        expect(len(p["rows"]) == 8, tag + ": 8 rows")
        total = sum(r[2] for r in p["rows"])
        expect(p["sent"] == SENT, tag + ": sent")
        expect(total + p["miss"] == SENT, tag + ": entries %d + miss %d != %d" % (total, p["miss"], SENT))
        expect(p["forwarded"] == total, tag + ": forwarded %d != entries %d" % (p["forwarded"], total))
        for first, nr, op, err, done, failed in p["kernel"]:
            expect(err == "DOCA_SUCCESS" and int(done) == (int(nr) + 31) // 32 and failed == "0",
                   tag + ": kernel modify_range(%s, %s, %s): %s %s %s" % (first, nr, op, err, done, failed))
    a, b, c, d = (ph.get(x, {"rows": [], "miss": -1, "kernel": []}) for x in "ABCD")
    # A: all ENABLE, no miss.
    expect(all(r[1] == "ENABLE" == r[3] for r in a["rows"]) and a["miss"] == 0, mode + " A: all ENABLE, miss 0")
    # B: 4..7 DISABLE forward nothing and stay DISABLE; 0..3 ENABLE; the misses are theirs.
    expect([k[:3] for k in b["kernel"]] == [("4", "4", "DISABLE")], mode + " B: kernel call")
    for i, before, pkts, after in b["rows"]:
        if i >= 4:
            expect(before == after == "DISABLE" and pkts == 0, mode + " B: index %d %s %d %s" % (i, before, pkts, after))
        else:
            expect(before == after == "ENABLE", mode + " B: index %d %s/%s" % (i, before, after))
    expect(b["miss"] > 0, mode + " B: the disabled slots were chosen (miss > 0)")
    # C: 4,5 SKIP_ONCE and 6,7 SKIP_TWICE before, all ENABLE after: exactly 1+1+2+2 misses.
    want_before = ["ENABLE"] * 4 + ["SKIP_ONCE"] * 2 + ["SKIP_TWICE"] * 2
    expect([r[1] for r in c["rows"]] == want_before, mode + " C: states before %s" % [r[1] for r in c["rows"]])
    expect(all(r[3] == "ENABLE" for r in c["rows"]), mode + " C: every skip consumed (all ENABLE after)")
    expect(c["miss"] == 6, mode + " C: miss %d, want 6 (1 per SKIP_ONCE slot, 2 per SKIP_TWICE slot)" % c["miss"])
    # D: DISABLE then ENABLE of all 8: the last op wins, no miss.
    expect([k[:3] for k in d["kernel"]] == [("0", "8", "DISABLE"), ("0", "8", "ENABLE")], mode + " D: kernel calls")
    expect(all(r[1] == "ENABLE" == r[3] for r in d["rows"]) and d["miss"] == 0, mode + " D: all ENABLE, miss 0")


for mode, env in (("sync", {"FLOWDPA_NIC_MODE": "sync"}),
                  ("async", {"FLOWDPA_NIC_MODE": "async", "FLOWDPA_NIC_LATENCY_US": "1000"})):
    e = dict(os.environ)
    e.update(env)
    p = subprocess.run([exe], env=e, capture_output=True, text=True, timeout=120)
    sys.stdout.write(p.stdout)
    expect(p.returncode == 0, "%s: exit %d, stderr:\n%s" % (mode, p.returncode, p.stderr))
    expect("[ERR]" not in p.stderr and "[WRN]" not in p.stderr, "%s: flowdpa logged:\n%s" % (mode, p.stderr))
    check(mode, p.stdout)

if failures:
    print("index_selector_spray check FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("index_selector_spray: counters match the selector states (sync, async): ok")
