#!/usr/bin/env python3
"""run_sample.py - build one NVIDIA DOCA sample unmodified against flowdpa and run it on
pcap traffic (tests/slow/compat, docs/porting.md "Running DOCA's own samples").

  FLOWDPA_DOCA_SAMPLES=/path/to/doca-samples run_sample.py SAMPLE SRC_ROOT BUILD_ROOT

The sample's logic file (samples/doca_flow/<name>/<name>_sample.c) is compiled as it
is, with our shim (shim/: flow_common.h and friends, compat_main.c instead of the
sample's main), against the build tree's headers and libraries through the uninstalled
pkg-config files. expect/<name>.json says how to call it, what traffic enters which
port and what must leave which port (tshark display filters and frame counts). Checks,
each printed as "check <what>: ok|FAIL": build, exit status 0, no ERR/CRIT log line,
expected log lines, expected frames (and, with "stages", that each stage was sent when
the sample logged its line and that all its frames ran). On failure the first ERR or NOT_SUPPORTED line of
the run is printed as "blocking:", so that the reason is on the test's last lines.
Exit 77 (meson: skipped) without FLOWDPA_DOCA_SAMPLES.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pkt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"q": 1, "q_stats": 2, "q_ms": 3, "q_ctx": 4, "q_ports_ctx": 5, "ctx": 6, "resize": 7, "managers": 8}


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ip4(a):
    return bytes(int(x) for x in a.split("."))


def frame(f):
    """One Ethernet frame from a JSON description: l4 udp|tcp, src/dst, sport/dport, vlan, ttl."""
    payload = bytes(f.get("payload_len", 18))
    sport, dport = f.get("sport", 1234), f.get("dport", 80)
    if f.get("l4", "tcp") == "tcp":
        l4 = struct.pack("!HHIIBBHHH", sport, dport, f.get("seq", 1), 0, 5 << 4, f.get("tcp_flags", 0x02), 8192, 0, 0)
        proto = 6
    else:
        l4 = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
        proto = 17
    l4 += payload
    if f.get("ip", 4) == 6:
        import ipaddress
        src = ipaddress.IPv6Address(f.get("src", "2001:db8::1")).packed
        dst = ipaddress.IPv6Address(f.get("dst", "2001:db8::2")).packed
        l3 = struct.pack("!IHBB", (6 << 28) | f.get("flow_label", 0), len(l4), proto, 64) + src + dst
        etype = 0x86DD
    else:
        src, dst = ip4(f.get("src", "1.2.3.4")), ip4(f.get("dst", "8.8.8.8"))
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 0, f.get("frag", 0), f.get("ttl", 64), proto, 0, src, dst)
        hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
        l3 = hdr
        etype = 0x0800
    eth = bytes.fromhex(f.get("dmac", "020000000100").replace(":", "")) + bytes.fromhex(
        f.get("smac", "020000000000").replace(":", ""))
    if "vlan" in f:
        eth += struct.pack("!HH", 0x8100, f["vlan"])
    return eth + struct.pack("!H", etype) + l3 + l4


def write_pcap(path, frames):
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            out.write(struct.pack("<IIII", 1700000000, i, len(fr), len(fr)))
            out.write(fr)


def read_pcap(path):
    frames = []
    if not os.path.exists(path):
        return frames
    with open(path, "rb") as f:
        data = f.read()
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def describe(expected, got):
    """Where the nearest frame that left (same payload) differs from the expected one."""
    same = [g for g in got if g[-16:] == expected[-16:]]
    if not same:
        return "payload %r never left" % expected[-32:]
    g = same[0]
    at = next((i for i in range(min(len(g), len(expected))) if g[i] != expected[i]), min(len(g), len(expected)))
    return "payload %r left with byte %d = %s, expected %s (lengths %d/%d)" % (
        expected[-24:], at, g[at:at + 4].hex(), expected[at:at + 4].hex(), len(g), len(expected))


def pkgconfig(build, mods, what):
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(build, "meson-uninstalled"))
    return subprocess.run(["pkg-config", what] + mods, env=env, check=True, capture_output=True,
                          text=True).stdout.split()


FAILED = []


def check(name, ok, detail=""):
    if not ok:
        FAILED.append(name + ((" (" + detail + ")") if detail else ""))
    print("check %s: %s%s" % (name, "ok" if ok else "FAIL", (" (" + detail + ")") if detail and not ok else ""))
    return ok


def blocking(log):
    for pat in (r"NOT_SUPPORTED|not supported", r"\[(ERR|CRIT)\]"):
        for line in log.splitlines():
            if re.search(pat, line):
                return line.strip()
    return None


def run_staged(args, env, work, exp, staged):
    """Run the sample; send stage k's packets (shim/compat_stage.c injects them) once the
    sample logged exp["stages"][k], and wait until they ran. A trigger that never shows is
    a failed check "stage k sent". Returns (exit status or "timeout", stdout+stderr)."""
    import select
    import threading
    import time
    fifo, ackp = os.path.join(work, "stage.fifo"), os.path.join(work, "stage.ack")
    for p in (fifo, ackp):
        os.mkfifo(p)
    # O_RDWR: neither side's open blocks on the other (Linux FIFOs), so a sample that
    # dies early cannot hang the harness.
    wfd, afd = os.open(fifo, os.O_RDWR), os.open(ackp, os.O_RDWR | os.O_NONBLOCK)
    env = dict(env, COMPAT_STAGE_FIFO=fifo, COMPAT_STAGE_ACK=ackp)
    deadline = time.monotonic() + exp.get("timeout", 40)
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, seen = [], threading.Condition()

    def reader():
        for line in proc.stdout:
            with seen:
                lines.append(line)
                seen.notify_all()
        with seen:
            lines.append(None)
            seen.notify_all()
    threading.Thread(target=reader, daemon=True).start()
    ack, pos = b"", 0  # lines[pos:]: not yet matched (stage k's line comes after stage k-1's)

    def find(trigger):
        return next((i for i in range(pos, len(lines)) if lines[i] is None or trigger in lines[i]), None)
    for k, trigger in enumerate(exp["stages"]):
        with seen:
            seen.wait_for(lambda: find(trigger) is not None, max(0, deadline - time.monotonic()))
            at = find(trigger)
            ok = at is not None and lines[at] is not None
            pos = at + 1 if ok else pos
        sends = [(port, frames) for (st, port, frames) in staged if st == k]
        if not check("stage %d sent (after %r)" % (k + 1, trigger), ok, "the sample never logged it"):
            break
        for i, (port, frames) in enumerate(sends):
            path = os.path.join(work, "rx%d_stage%d_%d.pcap" % (port, k + 1, i))
            write_pcap(path, frames)
            os.write(wfd, ("%d %s\n" % (port, path)).encode())
        want = b"".join(b"done %d %d\n" % (port, len(frames)) for port, frames in sends)
        while not ack.startswith(want) and time.monotonic() < deadline:
            if select.select([afd], [], [], 0.1)[0]:
                ack += os.read(afd, 4096)
        ok = check("stage %d: every frame ran" % (k + 1), ack.startswith(want), "shim answered %r" % ack)
        ack = ack[len(want):]
        if not ok:
            break
    os.close(wfd)
    try:
        rc = proc.wait(max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        rc = "timeout"
    os.close(afd)
    with seen:
        seen.wait_for(lambda: None in lines, 5)
        return rc, "".join(l for l in lines if l)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    name, src, build = sys.argv[1:]
    samples = os.environ.get("FLOWDPA_DOCA_SAMPLES")
    if not samples:
        print("FLOWDPA_DOCA_SAMPLES is not set (a doca-samples checkout): skipped")
        sys.exit(77)
    with open(os.path.join(HERE, "expect", name + ".json")) as f:
        exp = json.load(f)
    work = os.path.join(build, "tests", "slow", "compat", "work", name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # Build: the NVIDIA files copied into the build tree (never into the source tree), unmodified.
    sdir = os.path.join(samples, "samples", exp.get("dir", "doca_flow/" + name))
    srcs = []
    for rel in exp.get("sources", [name + "_sample.c"]):
        shutil.copy(os.path.join(sdir, rel), work)
        srcs.append(os.path.join(work, os.path.basename(rel)))
    main_c = os.path.join(HERE, "shim", exp.get("main", "compat_main.c"))
    cflags = ["-std=gnu17", "-O1", "-g", "-DDOCA_ALLOW_EXPERIMENTAL_API", "-I" + os.path.join(HERE, "shim"),
              "-I" + work, "-DCOMPAT_ENTRY=" + exp.get("entry", name), "-DCOMPAT_KIND=%d" % KINDS[exp.get("kind", "q")]]
    cflags += exp.get("cflags", []) + os.environ.get("COMPAT_CFLAGS", "").split()
    mods = exp.get("modules", ["doca-flow", "doca-common"])
    cc = os.environ.get("CC", "cc")
    srcs = [x for x in srcs if x.endswith(".c")]
    objs = [x.replace("@WORK@", work) for x in exp.get("extra_objs", [])]
    cmd = [cc] + cflags + pkgconfig(build, mods, "--cflags") + srcs + [main_c] + objs
    cmd += [os.path.join(HERE, "shim", s) for s in exp.get("shim_sources", ["flow_common.c"])]
    if "stages" in exp:
        cmd.append(os.path.join(HERE, "shim", "compat_stage.c"))
    exe = os.path.join(work, name)
    cmd += ["-o", exe] + pkgconfig(build, mods, "--libs") + ["-Wl,-rpath," + os.path.join(build, "src")]
    for step in exp.get("prebuild", []):
        r = subprocess.run([x.replace("@WORK@", work).replace("@SRC@", src).replace("@BUILD@", build)
                            .replace("@SAMPLES@", samples) for x in step], capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout + r.stderr)
            check("build", False, "prebuild step failed")
            print("blocking: prebuild: " + (r.stderr.strip().splitlines() or ["?"])[-1])
            sys.exit(1)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(" ".join(cmd))
        print(r.stderr)
        check("build", False)
        first = next((l for l in r.stderr.splitlines() if "error" in l), "compile failed")
        print("blocking: build: " + first.strip())
        sys.exit(1)
    check("build", True)

    # Traffic and expectations: the first use case of NVIDIA's <sample>_sample.yaml (every
    # stage's packets in one pcap per receiving port, the union of the expected frames per
    # forwarding port, "dump" texts as log lines), then what expect/<name>.json adds.
    # With "stages" (one log line per yaml stage: where the sample waits for that stage's
    # packets), each stage is sent when its line appears instead (run_staged), as a tester
    # does; a sample that ages or removes entries between stages needs that.
    env = {k: v for k, v in os.environ.items() if k != "FLOWDPA_DOCA_SAMPLES"}
    env["FLOWDPA_DEVICES"] = exp.get("devices", "bf3:2")
    env.update(exp.get("env", {}))
    rx, want, texts, staged = {}, {}, list(exp.get("log", [])), []
    ydesc = os.path.join(sdir, name + "_sample.yaml")
    if os.path.exists(ydesc) and not exp.get("no_yaml"):
        import yaml  # noqa: needed only with a sample description
        with open(ydesc) as f:
            raw = f.read()
        desc = yaml.safe_load(raw)
        # A packet line may end in "# rate: N" (a comment to YAML): that packet is sent N times.
        rates = {m.group(1): int(m.group(2))
                 for m in re.finditer(r"^\s*-\s*(\S.*?)\s*#\s*rate:\s*(\d+)\s*$", raw, re.M)}
        uc = desc.get("use_cases", [])[exp.get("use_case", 0)]
        if "stages" in exp and len(exp["stages"]) != len(uc.get("stages", [])):
            check("stages", False, "%d trigger lines for %d yaml stages" % (len(exp["stages"]), len(uc.get("stages", []))))
            sys.exit(1)
        for k, st in enumerate(uc.get("stages", [])):
            for ps in st.get("packets_to_send", []) or []:
                frames = []
                for e in ps["packets"]:
                    frames.extend([pkt.build(e)] * rates.get(e, 1))
                if "stages" in exp:
                    staged.append((k, int(ps["receiving_port"]), frames))
                else:
                    rx.setdefault(int(ps["receiving_port"]), []).extend(frames)
            for v in st.get("validation", []) or []:
                if v.get("type") == "packet":
                    for ep in v.get("expected_packets", []) or []:
                        want.setdefault(int(ep["forwarding_port"]), []).extend(ep.get("packets") or [])
                elif v.get("type") == "dump":
                    texts += v.get("expected_text", []) or []
    for port, frames in exp.get("rx", {}).items():
        for f in frames:
            rx.setdefault(int(port), []).extend([frame(f)] * f.get("count", 1))
    for port, frames in rx.items():
        path = os.path.join(work, "rx%d.pcap" % port)
        write_pcap(path, frames)
        env["FLOWDPA_PORT%d_RX" % port] = "pcap:" + path
    tx_ports = sorted(set(range(exp.get("ports", 2))) | {int(t["port"]) for t in exp.get("tx", [])})
    for port in tx_ports:
        env["FLOWDPA_PORT%d_TX" % port] = "pcap:" + os.path.join(work, "tx%d.pcap" % port)
    if "args" in exp:
        args = [exe] + exp["args"]
    else:
        args = [exe, str(exp.get("queues", 1)), str(exp.get("ports", 2)), str(exp.get("managers", 1))]
    if "stages" in exp:
        rc, log = run_staged(args, env, work, exp, staged)
    else:
        try:
            r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=exp.get("timeout", 40))
            rc, log = r.returncode, r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            rc, log = "timeout", (e.stdout or b"").decode() + (e.stderr or b"").decode()
    with open(os.path.join(work, "run.log"), "w") as f:
        f.write(log)
    print("----- run log (%s) -----\n%s----- end of run log -----" % (" ".join(args), log))

    ok = check("exit 0", rc == 0, "exit %s" % rc)
    errs = [l for l in log.splitlines() if re.search(r"\[(ERR|CRIT)\]", l)]
    ok &= check("no ERR line", not errs, errs[0] if errs else "")
    # A text of a random outcome (expect "ranges": {text: {regex, min, max}}) is checked as a
    # range of the regex's first group, not byte for byte: the yaml gives the expected mean.
    ranges = exp.get("ranges", {})
    for t in texts:
        if t in ranges:
            r = ranges[t]
            m = re.search(r["regex"], log)
            v = int(m.group(1)) if m else None
            ok &= check("log has %r with %d..%d for %r" % (r["regex"], r["min"], r["max"], t),
                        v is not None and r["min"] <= v <= r["max"], "got %s" % v)
        else:
            ok &= check("log has %r" % t, t in log)
    # Frames: every expected frame (by its payload) leaves its port byte for byte, nothing else leaves.
    for port in tx_ports:
        got = read_pcap(os.path.join(work, "tx%d.pcap" % port))
        exp_frames = [pkt.build(e) for e in want.get(port, [])]
        missing = [e for e in exp_frames if e not in got]
        extra = [g for g in got if g not in exp_frames]
        if want:
            ok &= check("port %d TX: the %d expected frames" % (port, len(exp_frames)), not missing,
                        "%d missing, e.g. %s; %d left the port" % (len(missing), describe(missing[0], got) if missing else "", len(got)))
            ok &= check("port %d TX: no other frame" % port, not extra,
                        "%d more, e.g. %s" % (len(extra), extra[0][-40:] if extra else ""))
    for t in exp.get("tx", []):
        path = os.path.join(work, "tx%d.pcap" % int(t["port"]))
        n = -1
        if os.path.exists(path):
            q = subprocess.run(["tshark", "-n", "-r", path, "-Y", t.get("filter", "frame")],
                               capture_output=True, text=True)
            n = len([l for l in q.stdout.splitlines() if l.strip()]) if q.returncode == 0 else -1
        lo, hi = t.get("min", t.get("count", 0)), t.get("max", t.get("count", 1 << 30))
        ok &= check("port %s TX frames [%s] in %d..%d" % (t["port"], t.get("filter", "frame"), lo, hi),
                    lo <= n <= hi, "%d frames" % n)
    if not ok:
        why = blocking(log)
        if why is None and rc == "timeout":
            tail = [l for l in log.splitlines() if l.strip()]
            why = "timeout after %ds, last log line: %s" % (exp.get("timeout", 40), tail[-1] if tail else "(none)")
        print("blocking: " + (why or "no ERR/NOT_SUPPORTED line; first failed check: " + FAILED[0]))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
