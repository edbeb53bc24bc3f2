#!/usr/bin/env python3
"""Checks a flowdpa trace or report file: loads as JSON and holds the expected items.

usage: check_json.py trace FILE NAME...    every NAME is an event (X or i) in the trace
       check_json.py report FILE NAME...   every NAME is a report section
"""
import json
import sys


def check_trace(path, names):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    seen = {e["name"] for e in events if e.get("ph") in ("X", "i")}
    missing = [n for n in names if n not in seen]
    if missing:
        sys.exit(f"{path}: events missing: {missing}; present: {sorted(seen)}")
    for e in events:
        if e.get("ph") == "X" and not (isinstance(e["ts"], int) and isinstance(e["dur"], int)):
            sys.exit(f"{path}: complete event without integer ts/dur: {e}")
        if "pid" not in e or "tid" not in e:
            sys.exit(f"{path}: event without pid/tid: {e}")
    meta = [e for e in events if e.get("ph") == "M"]
    if not any(e["name"] == "process_name" and e["pid"] == 1 for e in meta):
        sys.exit(f"{path}: no process_name for device pid 1")
    if not any(e["name"] == "thread_name" for e in meta):
        sys.exit(f"{path}: no thread_name metadata")


def check_report(path, names):
    with open(path) as f:
        doc = json.load(f)
    sections = {s["name"]: s for s in doc["sections"]}
    missing = [n for n in names if n not in sections]
    if missing:
        sys.exit(f"{path}: sections missing: {missing}; present: {sorted(sections)}")
    print(json.dumps(doc))


if __name__ == "__main__":
    kind, path, *names = sys.argv[1:]
    {"trace": check_trace, "report": check_report}[kind](path, names)
