#!/usr/bin/env python3
"""check_gdb_thread_names.py PROGRAM - the DPA thread running a kernel carries a readable
OS name that gdb's `info threads` shows: runs the index_selector_spray sample under gdb,
stops in its kernel (spray_kernel, rank 0) and expects the stopped thread, and so the
listing, to be named "dpa:spray_ker/0" (Linux keeps 15 characters: the kernel name is cut,
the rank kept), with the launch dispatcher and port 0's NIC worker named too.
Exit 77 (skipped) without gdb."""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    prog = sys.argv[1]
    gdb = shutil.which("gdb")
    if gdb is None:
        print("gdb not found: skipped")
        sys.exit(77)
    # Paced to outlive the stop in the kernel: the NIC worker is still there to be listed.
    env = dict(os.environ, FLOWDPA_PORT0_RX="gen:flows=2,pkts=1000000,rate=1000")
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([gdb, "-q", "-batch", "-nx", "-ex", "set breakpoint pending on", "-ex",
                            "set pagination off", "-ex", "break spray_kernel", "-ex", "run", "-ex",
                            "info threads", "-ex", "kill", "--args", prog], env=env, cwd=d,
                           capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    out = p.stdout + p.stderr
    listing = out[out.find("Id   Target Id"):] if "Id   Target Id" in out else ""
    if 'hit Breakpoint 1' not in out or not listing:
        sys.exit("FAIL: gdb did not stop in the kernel:\n" + out)
    for name in ('"dpa:spray_ker/0"', '"dpa:dispatch"', '"nic:rx/0"'):
        if name not in listing:
            sys.exit("FAIL: no thread %s in info threads:\n%s" % (name, listing))
    current = [l for l in listing.splitlines() if l.startswith("*")]
    if len(current) != 1 or '"dpa:spray_ker/0"' not in current[0]:
        sys.exit("FAIL: the thread stopped in the kernel is not dpa:spray_ker/0: %r" % current)
    print("gdb info threads:\n" + listing)


if __name__ == "__main__":
    main()
