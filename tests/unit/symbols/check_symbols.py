#!/usr/bin/env python3
"""Check what flowdpa's shared libraries export (modeled on DPDK's buildtools/check-symbols.sh).

For each library (given with its version map) the dynamic symbols it defines, as
`nm -D --defined-only` lists them, are compared with

  (a) the functions and variables declared in the public headers, include/**/*.h and
      the generated doca_version.h, which belong in the public version node DOCA_3.3, and
  (b) the prototypes marked FLOWDPA_INTERNAL_API in src/**/*.h, which belong in the
      internal node FLOWDPA_INTERNAL,

and with the library's map. It fails, naming the symbol and the library, on

  - an exported symbol that is in neither (a) nor (b): an internal symbol leaked;
  - an exported symbol in the wrong version node, or not listed in the map;
  - a map entry that the library does not define;
  - a wildcard in a map (the maps list every symbol by name);
  - a symbol exported by two libraries (two copies of one layer's state);
  - a function or variable declared in a header that a checked library installs, or a
    prototype marked FLOWDPA_INTERNAL_API in its layer's src/ folder, that no library
    exports (hidden visibility hides a definition whose declaration lacks DOCA_STABLE /
    DOCA_EXPERIMENTAL / FLOWDPA_INTERNAL_API). Headers of a layer whose library is not
    built yet are only noted.

Usage:
  check_symbols.py --source-root DIR [--nm NM] [--generated HEADER] --lib LIB MAP [HEADER ...] ...
      check the libraries (exit 1 on any failure, listing all of them); HEADERs are the
      public headers the library installs
  ... --self-test
      feed the checks doctored nm listings and maps (a leaked nic_* symbol, a missing
      map entry, a wildcard, ...) and fail unless each one is caught and named
  ... --generate LIB
      print the global lists for LIB's map: the symbols its objects define (nm on the
      symbol table, hidden ones included) that a header declares, by node
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

PUBLIC_NODE = "DOCA_3.3"
INTERNAL_NODE = "FLOWDPA_INTERNAL"
INTERNAL_MARK = "FLOWDPA_INTERNAL_API"
# Declared by a public header but defined by the C library (include/dpa/dpaintrin.h).
C_LIBRARY = {"clock_gettime"}

# ------------------------------------------------------------------ header declarations

C_KEYWORDS = {
    "sizeof", "_Alignof", "_Alignas", "__typeof__", "typeof", "_Static_assert", "static_assert",
    "__attribute__", "__declspec", "if", "while", "for", "return", "_Generic",
}


def _strip_balanced(text, start):
    """Index just past the parenthesised group that starts at text[start] == '('."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _remove_attributes(text):
    out = []
    pos = 0
    for m in re.finditer(r"\b__attribute__\s*\(", text):
        if m.start() < pos:
            continue
        out.append(text[pos:m.start()])
        pos = _strip_balanced(text, m.end() - 1)
    out.append(text[pos:])
    return " ".join(out)


def _preprocess(text):
    """Comments, preprocessor lines (with continuations), attributes and extern "C" out."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"\\\n", " ", text)
    text = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))
    text = re.sub(r'\bextern\s*"C"\s*\{', " ", text)
    return _remove_attributes(text)


def _statements(text):
    """Top-level declarations, braces collapsed; function definitions dropped."""
    stmts, buf, depth, body_is_function = [], [], 0, False
    for ch in text:
        if depth == 0:
            if ch == ";":
                stmts.append("".join(buf))
                buf = []
            elif ch == "{":
                depth = 1
                body_is_function = "".join(buf).rstrip().endswith(")")
                buf.append(" {} ")
            elif ch == "}":
                pass  # the end of an extern "C" block
            else:
                buf.append(ch)
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and body_is_function:
                buf = []  # an inline function's definition: nothing is exported
    return [" ".join(s.split()) for s in stmts if s.strip()]


def _declared_name(stmt):
    """The name a function or extern-variable declaration declares, else None."""
    if re.search(r"\b(typedef|static|__forceinline|_Static_assert|static_assert)\b", stmt):
        return None
    paren = stmt.find("(")
    fp = re.match(r"[^(]*\(\s*\*\s*(\w+)\s*\)\s*\(", stmt)  # a function-pointer variable
    if fp:
        return fp.group(1) if re.search(r"\bextern\b", stmt) else None
    if paren >= 0 and not re.search(r"[\[=]", stmt[:paren]):
        m = re.search(r"([A-Za-z_]\w*)\s*$", stmt[:paren])
        return m.group(1) if m and m.group(1) not in C_KEYWORDS else None
    if re.search(r"\bextern\b", stmt):
        m = re.match(r"(.*?)\s*(\[|=|$)", stmt)
        m = re.search(r"([A-Za-z_]\w*)\s*$", m.group(1))
        return m.group(1) if m else None
    return None


def header_declarations(path, marked_only=False):
    """{name: path} of the functions and variables a header declares (or marks internal)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = _preprocess(f.read())
    found = {}
    for stmt in _statements(text):
        if marked_only and not re.search(r"\b%s\b" % INTERNAL_MARK, stmt):
            continue
        name = _declared_name(stmt)
        if name:
            found.setdefault(name, path)
    return found


def _rel(path, source_root):
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(source_root))
    return path if rel.startswith("..") else rel


def collect_declarations(source_root, generated=()):
    """public {name: {headers}} from include/ and the generated headers, internal
    {name: {headers}} of the FLOWDPA_INTERNAL_API prototypes in src/."""
    public, internal = {}, {}
    for sub, marked_only, into in (("include", False, public), ("src", True, internal)):
        paths = []
        for dirpath, dirnames, filenames in os.walk(os.path.join(source_root, sub)):
            dirnames.sort()
            paths += [os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith(".h")]
        if sub == "include":
            paths += list(generated)  # doca_version.h, made from include/doca_version.h.in
        for path in paths:
            for sym in header_declarations(path, marked_only):
                into.setdefault(sym, set()).add(_rel(path, source_root))
    return public, internal


# ------------------------------------------------------------------ maps and nm

def parse_map(text):
    """{node: [global names]} and a list of problems (wildcards, unknown syntax)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"#[^\n]*", " ", text)
    nodes, problems = {}, []
    for m in re.finditer(r"([A-Za-z_][\w.]*)\s*\{(.*?)\}\s*[\w.]*\s*;", text, flags=re.S):
        node, body = m.group(1), m.group(2)
        names = nodes.setdefault(node, [])
        scope = "global"
        for tok in re.split(r";", body):
            tok = tok.strip()
            if not tok:
                continue
            sm = re.match(r"(global|local)\s*:\s*(.*)$", tok, flags=re.S)
            if sm:
                scope, tok = sm.group(1), sm.group(2).strip()
                if not tok:
                    continue
            if scope == "local":
                if tok != "*":
                    problems.append("node %s: local entry '%s' (only 'local: *;' is used)" % (node, tok))
                continue
            if re.search(r"[*?\[\]]", tok):
                problems.append("node %s: wildcard '%s' (list every symbol by name)" % (node, tok))
                continue
            names.append(tok)
    return nodes, problems


def parse_nm(text):
    """{name: version or ''} of the defined dynamic symbols in `nm -D --defined-only` output."""
    syms = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[-1], parts[-2]
        if kind == "U":
            continue
        base, version = name, ""
        if "@" in name:
            base, _, version = name.partition("@")
            version = version.lstrip("@")
        if kind == "A" and (base == version or version == ""):
            # The version definitions themselves (DOCA_3.3, FLOWDPA_INTERNAL).
            syms.setdefault("\0node:" + base, base)
            continue
        syms[base] = version
    return syms


def run_nm(nm, lib, dynamic=True):
    args = [nm, "-D", "--defined-only", lib] if dynamic else [nm, "--defined-only", lib]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


# ------------------------------------------------------------------ the checks

class Library:
    """One shared library: its nm -D listing, its map, and what it owns: the public
    headers it installs and the src/ folder of its layer (where its map lives)."""

    def __init__(self, name, mapname, syms, maptext, headers):
        self.name, self.mapname, self.syms, self.maptext = name, mapname, syms, maptext
        self.headers = set(headers)
        self.layer_dir = os.path.dirname(mapname) + "/"

    def doctored(self, edit_syms=None, edit_map=None):
        syms = dict(self.syms)
        if edit_syms:
            edit_syms(syms)
        maptext = edit_map(self.maptext) if edit_map else self.maptext
        return Library(self.name, self.mapname, syms, maptext, self.headers)


def _first(paths):
    return sorted(paths)[0]


def check(libs, public, internal):
    """Every failure, one line each, naming the symbol and the library or map."""
    errors = []
    exporters = {}
    for lib in libs:
        nodes, problems = parse_map(lib.maptext)
        errors += ["%s: %s" % (lib.mapname, p) for p in problems]
        in_map = {}
        for node, names in nodes.items():
            for n in names:
                if n in in_map:
                    errors.append("%s: %s is listed twice (%s and %s)" % (lib.mapname, n, in_map[n], node))
                in_map[n] = node
        for n, node in sorted(in_map.items()):
            if node not in (PUBLIC_NODE, INTERNAL_NODE):
                errors.append("%s: %s is in node %s; flowdpa's nodes are %s and %s" %
                              (lib.mapname, n, node, PUBLIC_NODE, INTERNAL_NODE))
            if n not in lib.syms:
                errors.append("%s lists %s (%s), which %s does not define" % (lib.mapname, n, node, lib.name))
        for n, version in sorted(lib.syms.items()):
            if n.startswith("\0"):
                continue
            exporters.setdefault(n, []).append(lib.name)
            if n in public:
                want, where = PUBLIC_NODE, "declared in %s" % _first(public[n])
            elif n in internal:
                want, where = INTERNAL_NODE, "marked %s in %s" % (INTERNAL_MARK, _first(internal[n]))
            else:
                errors.append("%s exports %s%s, which no public header (include/) declares and no src/ header "
                              "marks %s" % (lib.name, n, "@" + version if version else "", INTERNAL_MARK))
                continue
            if version != want:
                errors.append("%s exports %s in version node '%s', but it is %s, so it belongs in %s" %
                              (lib.name, n, version, where, want))
            if n not in in_map:
                errors.append("%s exports %s, which %s does not list" % (lib.name, n, lib.mapname))
    for n, owners in sorted(exporters.items()):
        if len(owners) > 1:
            errors.append("%s is exported by %s (one definition per symbol)" % (n, " and ".join(owners)))
    # Declared for a checked library but exported by none: hidden by mistake (or not written).
    owned = set().union(*(lib.headers for lib in libs)) if libs else set()
    dirs = [lib.layer_dir for lib in libs]
    for n, where in sorted(internal.items()):
        mine = sorted(w for w in where if any(w.startswith(d) for d in dirs))
        if mine and n not in exporters:
            errors.append("%s is marked %s in %s, but no library exports it (list it in the %s node of "
                          "%s's map)" % (n, INTERNAL_MARK, mine[0], INTERNAL_NODE, _lib_of(libs, mine[0])))
    for n, where in sorted(public.items()):
        mine = sorted(where & owned)
        if mine and n not in exporters and n not in internal and n not in C_LIBRARY:
            errors.append("%s is declared in %s, but %s does not export it (is it marked DOCA_STABLE or "
                          "DOCA_EXPERIMENTAL, and listed in the %s node of its map?)" %
                          (n, mine[0], _lib_of(libs, mine[0]), PUBLIC_NODE))
    return errors


def _lib_of(libs, header):
    for lib in libs:
        if header in lib.headers or header.startswith(lib.layer_dir):
            return lib.name
    return "its library"


def unchecked_headers(libs, public, internal):
    """Headers that declare symbols no checked library owns (a layer still being written)."""
    owned = set().union(*(lib.headers for lib in libs)) if libs else set()
    dirs = [lib.layer_dir for lib in libs]
    exported = set().union(*(set(lib.syms) for lib in libs)) if libs else set()
    out = set()
    for n, where in public.items():
        if n not in exported and n not in C_LIBRARY and not where & owned:
            out |= where
    for n, where in internal.items():
        if n not in exported and not any(w.startswith(d) for w in where for d in dirs):
            out |= where
    return sorted(out)


def self_test(libs, public, internal):
    """Doctored inputs that the checks must reject, each with the symbol and library named."""
    failures = []
    base = check(libs, public, internal)
    if base:
        failures.append("the real libraries do not pass, so the self-test proves nothing:\n  " + "\n  ".join(base))
    flow = next((lib for lib in libs if lib.name.startswith("libdoca_flow.")), libs[0])
    other = next((lib for lib in libs if lib is not flow), None)

    def swap(old, new):
        return [new if lib is old else lib for lib in libs]

    def expect(what, cases, needles, pub=public, intl=internal):
        errs = check(cases, pub, intl)
        hit = [e for e in errs if all(n in e for n in needles)]
        print("self-test: %-56s %s" % (what, ("caught: " + hit[0]) if hit else "MISSED"))
        if not hit:
            failures.append("%s: no failure naming %s (got: %s)" % (what, ", ".join(needles), errs or "none"))

    # 1. An internal NIC symbol leaks: through a wildcard in the map, or with no version.
    expect("leaked variable nic_port_hot@@FLOWDPA_INTERNAL",
           swap(flow, flow.doctored(lambda s: s.__setitem__("nic_port_hot", INTERNAL_NODE))),
           ["nic_port_hot", flow.name])
    expect("leaked function nic_dp_enter (no version)",
           swap(flow, flow.doctored(lambda s: s.__setitem__("nic_dp_enter", ""))), ["nic_dp_enter", flow.name])
    # 2. A map entry the library does not define.
    pub = next((n for n in sorted(flow.syms) if n in public and re.search(r"\b%s\s*;" % n, flow.maptext)), None)
    if pub is None:
        failures.append("%s lists no public symbol that %s defines" % (flow.mapname, flow.name))
        return failures
    expect("map entry %s, not defined" % pub, swap(flow, flow.doctored(lambda s: s.pop(pub))), [pub, flow.name])
    expect("map entry for a function that is gone",
           swap(flow, flow.doctored(edit_map=lambda t: t.replace("global:", "global:\n\t\tflow_gone;", 1))),
           ["flow_gone", flow.mapname])
    # 3. A wildcard in the map.
    expect("wildcard in a map",
           swap(flow, flow.doctored(edit_map=lambda t: t.replace("global:", "global:\n\t\tnic_*;", 1))),
           ["nic_*", flow.mapname])
    # 4. A public function in the internal node.
    expect("public %s in node FLOWDPA_INTERNAL" % pub,
           swap(flow, flow.doctored(lambda s: s.__setitem__(pub, INTERNAL_NODE))), [pub, flow.name, INTERNAL_NODE])
    # 5. One symbol exported by two libraries.
    if other:
        expect("%s exported twice" % pub, swap(other, other.doctored(lambda s: s.__setitem__(pub, PUBLIC_NODE))),
               [pub, flow.name, other.name])
    # 6. A public function hidden: its DOCA_EXPERIMENTAL and its map entry lost.
    expect("public %s exported by no library" % pub,
           swap(flow, flow.doctored(lambda s: s.pop(pub), lambda t: re.sub(r"\b%s\s*;" % pub, "", t))),
           [pub, _first(public[pub]), flow.name])
    # 7. A prototype marked FLOWDPA_INTERNAL_API that no library exports.
    marked = dict(internal)
    marked["flow_marked_only"] = {flow.layer_dir + "flow_provider.h"}
    expect("marked FLOWDPA_INTERNAL_API, exported by no library", libs, ["flow_marked_only", flow.name],
           intl=marked)
    # 8. The header parser, on the shapes the headers use.
    snippet = """
        #define FLOWDPA_INTERNAL_API __attribute__((visibility("default")))
        #ifdef __cplusplus
        extern "C" {
        #endif
        struct s { int (*cb)(int); };
        typedef void (*fn_t)(int);
        enum e { A = (1U << 0) };
        _Static_assert(sizeof(int) == 4, "int");
        static inline int inl(int x) { return x + (int)sizeof(int); }
        #define __forceinline static inline __attribute__((always_inline))
        __forceinline void forced(void) { }
        DOCA_EXPERIMENTAL doca_error_t pub_fn(struct s *a,
                                             int b) __attribute__((format(printf, 1, 2)));
        DOCA_STABLE
        const char *pub_fn2(void);
        extern _Atomic bool pub_var;
        extern void (*pub_hook)(int);
        FLOWDPA_INTERNAL_API extern int marked_var[4];
        FLOWDPA_INTERNAL_API const char *marked_fn(void);
        void plain_fn(void);
        #ifdef __cplusplus
        }
        #endif
    """
    with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as f:
        f.write(snippet)
    try:
        got_all, got_marked = set(header_declarations(f.name)), set(header_declarations(f.name, marked_only=True))
    finally:
        os.unlink(f.name)
    want_all = {"pub_fn", "pub_fn2", "pub_var", "pub_hook", "marked_var", "marked_fn", "plain_fn"}
    want_marked = {"marked_var", "marked_fn"}
    ok = got_all == want_all and got_marked == want_marked
    print("self-test: %-56s %s" % ("header parser", "ok" if ok else "WRONG"))
    if not ok:
        failures.append("header parser: declared %s (want %s), marked %s (want %s)" %
                        (sorted(got_all), sorted(want_all), sorted(got_marked), sorted(want_marked)))
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"))
    ap.add_argument("--lib", nargs="+", action="append", default=[], metavar=("LIB", "MAP HEADER"),
                    help="a shared library, its version map, the public headers it installs")
    ap.add_argument("--generated", action="append", default=[], metavar="HEADER",
                    help="a generated public header (doca_version.h)")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--generate", metavar="LIB")
    a = ap.parse_args()

    public, internal = collect_declarations(a.source_root, a.generated)

    if a.generate:
        syms = parse_nm(run_nm(a.nm, a.generate, dynamic=False))
        for node, decls in ((PUBLIC_NODE, public), (INTERNAL_NODE, internal)):
            print("%s:" % node)
            for n in sorted(s for s in syms if s in decls):
                print("\t\t%s;" % n)
        return 0

    libs = []
    for spec in a.lib:
        if len(spec) < 2:
            ap.error("--lib needs the library and its map")
        path, mapfile, headers = spec[0], spec[1], spec[2:]
        with open(mapfile, encoding="utf-8") as f:
            maptext = f.read()
        libs.append(Library(re.sub(r"(\.so)(\.\d+)+$", r"\1", os.path.basename(path)), _rel(mapfile, a.source_root),
                            parse_nm(run_nm(a.nm, path)), maptext,
                            [_rel(h, a.source_root) for h in headers]))
    if not libs:
        ap.error("no --lib given")

    if a.self_test:
        failures = self_test(libs, public, internal)
        for f in failures:
            print("FAIL: " + f)
        return 1 if failures else 0

    errors = check(libs, public, internal)
    for lib in libs:
        names = [n for n in lib.syms if not n.startswith("\0")]
        pub = sum(1 for n in names if lib.syms[n] == PUBLIC_NODE)
        print("%s: %d symbols exported (%d %s, %d %s), map %s" %
              (lib.name, len(names), pub, PUBLIC_NODE, len(names) - pub, INTERNAL_NODE, lib.mapname))
    for h in unchecked_headers(libs, public, internal):
        print("note: %s declares symbols that no checked library exports or owns (not checked)" % h)
    for e in errors:
        print("FAIL: " + e)
    if errors:
        print("%d problem(s); what each check means: %s" % (len(errors), _rel(__file__, a.source_root)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
