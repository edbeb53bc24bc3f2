#!/usr/bin/env python3
"""gen_supported_api.py - regenerate docs/supported-api.md from the public headers.

Every function declared in include/*.h and include/dpa/*.h is looked up in src/:
  implemented    defined in src/ outside src/flow/flow_stubs.c
  implemented*   as above, and its body (or a helper it names in the same file does not
                 count) returns DOCA_ERROR_NOT_SUPPORTED in some case: see the docs
  stub           defined in src/flow/flow_stubs.c: logs "not supported by flowdpa's
                 software NIC" and returns DOCA_ERROR_NOT_SUPPORTED (or the neutral
                 value of its type)
  real (stubs)   defined in flow_stubs.c but does real work (no UNSUPPORTED())
  declared only  declared, defined nowhere (a link error if a program calls it)

Usage (from the repository root or anywhere):
  python3 docs/gen_supported_api.py            # rewrite docs/supported-api.md
  python3 docs/gen_supported_api.py --check    # exit 1 if the file is out of date
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "supported-api.md")
STUBS = os.path.join("src", "flow", "flow_stubs.c")

DECL = re.compile(r"\b((?:doca|flowdpa)_\w+)\s*\(([^;{}()]*(?:\([^()]*\)[^;{}()]*)*)\)"
                  r"\s*(?:__attribute__\s*\(\((?:[^;()]|\([^;()]*\))*\)\)\s*)*;")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def header_decls(path):
    """Function names declared in a header, in order (macros and typedefs excluded)."""
    text = strip_comments(open(path, encoding="utf-8").read())
    text = re.sub(r"^\s*#.*?(?<!\\)$", " ", text, flags=re.M | re.S)  # preprocessor lines
    names = []
    for stmt in text.split(";"):
        s = " ".join(stmt.split()) + ";"
        if s.startswith("typedef") or " typedef " in s:
            continue
        m = DECL.search(s)
        if not m:
            continue
        before = s[: m.start(1)]
        if "(" in before or "=" in before:  # a function pointer or an initializer
            continue
        if not re.search(r"[\w\*]\s*$", before):
            continue
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


def header_inlines(path):
    """Functions defined (static inline) in a header."""
    text = strip_comments(open(path, encoding="utf-8").read())
    return re.findall(r"\b((?:doca|flowdpa)_\w+)\s*\([^;{}()]*(?:\([^()]*\)[^;{}()]*)*\)\s*\{", text)


def src_definitions():
    """{name: (relative file, body)} for every non-static top-level function in src/."""
    defs = {}
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src")):
        for fn in sorted(files):
            if not fn.endswith(".c"):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, ROOT)
            lines = open(path, encoding="utf-8").read().split("\n")
            i = 0
            while i < len(lines):
                line = lines[i]
                if line and not line[0].isspace() and line[0] not in "#/}*" and "(" in line \
                        and not line.startswith("typedef"):
                    head = [line]
                    j = i
                    while not head[-1].rstrip().endswith("{") and not head[-1].rstrip().endswith(";") \
                            and j + 1 < len(lines) and lines[j + 1] != "{":
                        j += 1
                        head.append(lines[j])
                    if j + 1 < len(lines) and lines[j + 1] == "{":
                        j += 1
                        head.append("{")
                    if head[-1].rstrip().endswith("{"):
                        sig = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", " ".join(head))
                        names = [x for x in re.findall(r"\b(\w+)\s*\)?\s*\(", sig)
                                 if not x.endswith("_t") and x not in ("static", "inline")]
                        k = j + 1
                        while k < len(lines) and lines[k] != "}":
                            k += 1
                        if names:
                            key = names[0] if not line.startswith("static") else (rel, names[0])
                            defs.setdefault(key, (rel, "\n".join(lines[j + 1:k])))
                        i = k + 1
                        continue
                i += 1
    return defs


def may_not_support(body, rel, defs, seen, depth):
    """Whether body, or a function of src/ it calls (static ones of its file at any depth,
    internal ones of other files one level deep), returns DOCA_ERROR_NOT_SUPPORTED."""
    if "DOCA_ERROR_NOT_SUPPORTED" in body:
        return True
    for callee in set(re.findall(r"\b(\w+)\s*\(", body)):
        if callee in seen or callee.startswith(("doca_", "flowdpa_")):
            continue
        seen.add(callee)
        if (rel, callee) in defs:
            if may_not_support(defs[(rel, callee)][1], rel, defs, seen, depth):
                return True
        elif callee in defs and depth == 0:
            crel, cbody = defs[callee]
            if "DOCA_ERROR_NOT_SUPPORTED" in cbody:
                return True
    return False


def status(name, defs):
    if name not in defs:
        return "declared only"
    rel, body = defs[name]
    if rel == STUBS:
        if "UNSUPPORTED()" in body:
            return "stub: NOT_SUPPORTED"
        if re.search(r"return\s+(0|NULL)\s*;", body) or "return" not in body:
            return "stub: neutral value"
        return "implemented"
    if may_not_support(body, rel, defs, set(), 0):
        return "implemented, NOT_SUPPORTED in some cases"
    return "implemented"


def headers():
    out = []
    for sub in ("include", os.path.join("include", "dpa")):
        d = os.path.join(ROOT, sub)
        for fn in sorted(os.listdir(d)):
            if fn.endswith(".h"):
                out.append(os.path.join(sub, fn))
    return out


def render():
    defs = src_definitions()
    rows, totals = [], {}
    for h in headers():
        names = header_decls(os.path.join(ROOT, h))
        inl = [n for n in header_inlines(os.path.join(ROOT, h)) if n not in names]
        if not names and not inl:
            continue
        items = [(n, status(n, defs), defs.get(n, ("", ""))[0]) for n in names]
        items += [(n, "implemented", h) for n in inl]
        rows.append((h, items))
    for _, items in rows:
        for _, st, _ in items:
            totals[st] = totals.get(st, 0) + 1
    o = []
    o.append("# Supported API")
    o.append("")
    o.append("<!-- Generated by docs/gen_supported_api.py from include/ and src/: do not edit by hand. -->")
    o.append("")
    o.append("Every function declared in flowdpa's public headers (`include/`, `include/dpa/`) and")
    o.append("where it is implemented. Status:")
    o.append("")
    o.append("- **implemented**: does what DOCA documents, on the emulated devices (see")
    o.append("  [differences-from-hardware.md](differences-from-hardware.md) for where it differs).")
    o.append("- **implemented, NOT_SUPPORTED in some cases**: implemented; some arguments or devices")
    o.append("  get `DOCA_ERROR_NOT_SUPPORTED` with a log line naming what (a device without a DPA,")
    o.append("  a pipe type or field the software NIC does not model, a queue type not created, ...).")
    o.append("  The cases are in [provider.md](provider.md), [flow.md](flow.md) and [dpa.md](dpa.md).")
    o.append("- **stub: NOT_SUPPORTED**: declared so programs compile; in `src/flow/flow_stubs.c`,")
    o.append("  logs `<call>: not supported by flowdpa's software NIC` and returns")
    o.append("  `DOCA_ERROR_NOT_SUPPORTED` (after checking its arguments where it has some).")
    o.append("- **stub: neutral value**: a stub whose type has no error code; it does nothing.")
    o.append("- **declared only**: a header declaration with no definition (a link error if used).")
    o.append("")
    o.append("Totals: " + "; ".join("%d %s" % (totals[k], k) for k in sorted(totals)) + ".")
    o.append("")
    stubs = [(n, st) for _, items in rows for n, st, _ in items if st.startswith("stub")]
    if stubs:
        o.append("The stubs at a glance: " + ", ".join("`%s`" % n for n, _ in stubs) + ".")
        o.append("")
    o.append("Regenerate with `python3 docs/gen_supported_api.py`; `--check` exits 1 when this")
    o.append("file is out of date.")
    for h, items in rows:
        o.append("")
        o.append("## `%s`" % h.replace(os.sep, "/"))
        o.append("")
        o.append("| Call | Status | Defined in |")
        o.append("| --- | --- | --- |")
        for n, st, rel in items:
            o.append("| `%s` | %s | %s |" % (n, st, ("`%s`" % rel.replace(os.sep, "/")) if rel else "-"))
    return "\n".join(o) + "\n"


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        cur = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if cur != text:
            print("docs/supported-api.md is out of date: run python3 docs/gen_supported_api.py")
            return 1
        print("docs/supported-api.md is up to date")
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote " + os.path.relpath(OUT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
