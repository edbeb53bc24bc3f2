#!/usr/bin/env python3
"""doca_caps --list-devs [--json] under several device configurations and bad input."""
import json
import os
import subprocess
import sys

caps = sys.argv[1]


def run(*args, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("FLOWDPA_") or k.startswith("FLOWDPA_TEST_")}
    e.update(env)
    return subprocess.run([caps, *args], env=e, capture_output=True, text=True)


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


r = run("--list-devs")
check(r.returncode == 0, "default list")
check("mlx5_0  pci 0000:03:00.0" in r.stdout and "model bf3  ports 2" in r.stdout, r.stdout)
check("dpa: yes (16 cores x 16 EUs = 256 EUs" in r.stdout, r.stdout)

r = run("--list-devs", "--json", FLOWDPA_DEVICES="bf3,bf2:1,cx7:4,cx6", FLOWDPA_DPA_CORES="2")
check(r.returncode == 0, "json list")
devs = json.loads(r.stdout)
check([d["model"] for d in devs] == ["bf3", "bf2", "cx7", "cx6"], r.stdout)
check([d["ports"] for d in devs] == [2, 1, 4, 2], r.stdout)
check([d["caps"]["dpa"] for d in devs] == [True, False, True, False], r.stdout)
check(devs[2]["caps"]["dpa_eus"] == 32 and devs[1]["caps"]["dpa_eus"] == 0, r.stdout)
check(all(d["caps"]["flow"] for d in devs), r.stdout)
check([d["pci_addr"] for d in devs] == ["0000:03:00.0", "0000:04:00.0", "0000:05:00.0", "0000:06:00.0"], r.stdout)

r = run("--list-devs", FLOWDPA_DEVICES="bf9")
check(r.returncode == 2, "bad model exit code")
check('FLOWDPA_DEVICES="bf9"' in r.stderr and "allowed: bf3, cx7" in r.stderr, r.stderr)

r = run("--version")
check(r.returncode == 0 and r.stdout.startswith("doca_caps (flowdpa) "), r.stdout)

for bad in (["--bogus"], [], ["--list-devs", "extra"]):
    r = run(*bad)
    check(r.returncode == 1 and "usage:" in r.stderr, f"{bad}: {r.returncode} {r.stderr}")
print("doca_caps: ok")
