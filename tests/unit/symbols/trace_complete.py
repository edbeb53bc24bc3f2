#!/usr/bin/env python3
"""trace_complete: every public host DOCA function of every library records a
FLOWDPA_TRACE event (docs/logging.md, "Trace file").

A function is covered when the library holds its implementation under flowdpa_impl_<name>
(src/core/trace_wrap.py renamed it and generated the exported wrapper), or, for a variadic
function that cannot be wrapped, when its source records the event itself with
CORE_TRACE_CALL_END("api", "<name>", ...). Device-side functions (doca_dpa_dev_*) run in
kernels and are not host calls. --self-test feeds the check a listing with one wrapper
missing and fails unless that is caught, so the check is known to be able to fail.

usage: trace_complete.py --nm NM --source-root DIR [--self-test] LIB.so...
"""
import argparse
import glob
import os
import re
import subprocess
import sys


def symbols(nm, lib):
    exported = subprocess.run([nm, '-D', '--defined-only', lib], check=True, capture_output=True,
                              text=True).stdout
    public = {l.split()[2].split('@')[0] for l in exported.splitlines() if len(l.split()) == 3
              and l.split()[1] == 'T'}
    public = {s for s in public if s.startswith('doca_') and not s.startswith('doca_dpa_dev_')}
    local = subprocess.run([nm, lib], check=True, capture_output=True, text=True).stdout
    impl = {l.split()[-1][len('flowdpa_impl_'):] for l in local.splitlines()
            if l.split() and l.split()[-1].startswith('flowdpa_impl_')}
    return public, impl


def traced_by_hand(source_root):
    names = set()
    for path in glob.glob(os.path.join(source_root, 'src', '*', '*.c')):
        text = re.sub(r'/\*.*?\*/|//[^\n]*', '', open(path).read(), flags=re.S)  # not in comments
        for call in re.findall(r'CORE_TRACE_CALL_END\(\s*"api"\s*,([^;]*)', text):
            names |= set(re.findall(r'"(doca_\w+)"', call))
    return names


def missing(public, impl, by_hand):
    return sorted(n for n in public if n not in impl and n not in by_hand)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--nm', required=True)
    ap.add_argument('--source-root', required=True)
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('libs', nargs='+')
    a = ap.parse_args()
    by_hand = traced_by_hand(a.source_root)
    failed = False
    total = 0
    for lib in a.libs:
        public, impl = symbols(a.nm, lib)
        if not public:
            sys.exit(f'{lib}: no public doca_* symbol found (wrong library?)')
        total += len(public)
        if a.self_test:
            dropped = sorted(impl & public)[0]
            if missing(public, impl - {dropped}, by_hand) != [dropped]:
                sys.exit(f'self-test: {lib}: a missing wrapper for {dropped} was not reported')
            continue
        for n in missing(public, impl, by_hand):
            print(f'{os.path.basename(lib)}: {n} records no FLOWDPA_TRACE event: it is neither wrapped '
                  f'(src/core/trace_wrap.py) nor traced with CORE_TRACE_CALL_END("api", "{n}", ...)')
            failed = True
    if failed:
        sys.exit(1)
    print(f'{total} public host DOCA functions, each records a trace event')


if __name__ == '__main__':
    main()
