#!/usr/bin/env python3
"""layercheck: who calls whom, read from the object files' symbols.

For every component (a library or program whose objects live in one CMake
object directory) it builds the file graph "a.c uses a global symbol that
b.c defines" from `nm` and fails when

  * files of one component call each other in a cycle (any strongly connected
    set of more than one file), or
  * a file of a layered component (a LAYERS file beside its sources, see
    docs/architecture.md) uses a symbol of a file in a layer above its own.

Usage: layercheck.py --build BUILD_DIR [--source SOURCE_DIR] [--nm NM] [--graph] [-v]
       layercheck.py --self-test CC   (the check finds a cycle and an upward call
                                       in objects it compiles itself)
Exit: 0 clean, 1 a cycle or an upward call, 2 usage or no objects found.
"""
import argparse
import os
import subprocess
import sys

VERSION = "1.0"

# component name -> (CMake object directory under the build tree, source dir)
COMPONENTS = [
    ("codec", "codec/CMakeFiles/pmicodec_objects.dir", "codec/src"),
    ("trace", "trace/CMakeFiles/pmitrace.dir", "trace/src"),
    ("mockserver", "mockserver/CMakeFiles/pmiserver.dir", "mockserver/src"),
    ("client", "client/CMakeFiles/pmiclient_objects.dir", "client/src"),
    ("mockclient", "mockclient/CMakeFiles/pmisession.dir", "mockclient/src"),
    ("conformance", "conformance/CMakeFiles/pmi2-conform.dir", "conformance"),
    ("pmifuzz", "pmifuzz/CMakeFiles/pmifuzz.dir", "pmifuzz/src"),
]

DEFINED = set("TDBRCGSVWiu")
NM = "nm"


def objects(objdir):
    out = []
    for root, _dirs, files in os.walk(objdir):
        for f in files:
            if f.endswith(".o"):
                out.append(os.path.join(root, f))
    return sorted(out)


def source_name(obj, objdir):
    rel = os.path.relpath(obj, objdir)
    if rel.endswith(".o"):
        rel = rel[:-2]
    # generated sources land under the build tree: keep the file name
    for marker in ("__/__/", "__/"):
        if marker in rel:
            rel = rel.split(marker)[-1]
    return rel


def symbols(obj):
    r = subprocess.run([NM, "-P", obj], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("layercheck: nm failed on %s: %s" % (obj, r.stderr.strip()))
    defs, uses = set(), set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            uses.add(name)
        elif kind in DEFINED:
            defs.add(name)
    return defs, uses


def graph(objdir):
    files = {}
    for o in objects(objdir):
        files[source_name(o, objdir)] = symbols(o)
    owner = {}
    for f, (defs, _u) in files.items():
        for s in defs:
            owner.setdefault(s, f)
    edges = {f: {} for f in files}
    for f, (_d, uses) in files.items():
        for s in uses:
            g = owner.get(s)
            if g and g != f:
                edges[f].setdefault(g, []).append(s)
    return edges


def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        # iterative Tarjan
        work = [(v, iter(sorted(edges[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def read_layers(path):
    """LAYERS: '<n> <name>: file file ...' lines, '#' comments; higher n may
    call lower n, never the reverse.  'only F: G H': F's symbols are for G
    and H alone."""
    layer_of, names, only = {}, {}, {}
    with open(path) as fh:
        for ln, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            head, _, rest = line.partition(":")
            hp = head.split()
            if len(hp) == 2 and hp[0] == "only":
                only[hp[1]] = set(rest.split())
                continue
            if len(hp) != 2 or not hp[0].isdigit():
                raise SystemExit("layercheck: %s:%d: expected '<n> <name>: files'" % (path, ln))
            n = int(hp[0])
            names[n] = hp[1]
            for f in rest.split():
                layer_of[f] = n
    return layer_of, names, only


def check(name, od, lp, show_graph=False, verbose=False, out=print):
    """Problems of one component: its object dir od, its LAYERS file lp (or None)."""
    bad = 0
    edges = graph(od)
    if not edges:
        return None
    if show_graph:
        for f in sorted(edges):
            out("%s: %s -> %s" % (name, f, " ".join(sorted(edges[f])) or "-"))
    for comp in sccs(edges):
        if len(comp) > 1:
            bad += 1
            out("%s: call cycle among %d files: %s" % (name, len(comp), " ".join(comp)))
            if verbose:
                for f in comp:
                    for g in sorted(edges[f]):
                        if g in comp:
                            out("    %s -> %s: %s" % (f, g, " ".join(sorted(edges[f][g])[:8])))
    if not lp or not os.path.exists(lp):
        return bad
    layer_of, names, only = read_layers(lp)
    for f in layer_of:
        if not any(os.path.basename(g) == f for g in edges):
            bad += 1
            out("%s: %s names %s, which has no object file" % (name, lp, f))
    for f in sorted(edges):
        base = os.path.basename(f)
        if base not in layer_of:
            bad += 1
            out("%s: %s is in no layer of %s" % (name, base, lp))
            continue
        for g, syms in sorted(edges[f].items()):
            gb = os.path.basename(g)
            if gb in only and base not in only[gb]:
                bad += 1
                out("%s: %s calls %s, which only %s may call: %s" %
                    (name, base, gb, " ".join(sorted(only[gb])), " ".join(sorted(syms)[:6])))
            if gb in layer_of and layer_of[gb] > layer_of[base]:
                bad += 1
                out("%s: %s (layer %d %s) calls up into %s (layer %d %s): %s" %
                    (name, base, layer_of[base], names[layer_of[base]], gb, layer_of[gb],
                     names[layer_of[gb]], " ".join(sorted(syms)[:6])))
    return bad


SELF_TEST = {
    # a <-> b is a cycle; low.c (layer 0) calls up into top.c; top.c calls
    # a.c, which only b.c may call
    "a.c": "void b(void); void a(void) { b(); }",
    "b.c": "void a(void); void b(void) { a(); }",
    "low.c": "void top(void); void low(void) { top(); }",
    "top.c": "void a(void); void top(void) { a(); }",
}
SELF_LAYERS = "0 low: low.c a.c b.c\n1 top: top.c\nonly a.c: b.c\n"


def self_test(cc):
    """The check must fail where it should: a cycle, an upward call and a
    forbidden caller in four object files made here."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for f, text in SELF_TEST.items():
            with open(os.path.join(d, f), "w") as fh:
                fh.write(text + "\n")
            r = subprocess.run([cc, "-c", "-o", os.path.join(d, f + ".o"), os.path.join(d, f)],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print("layercheck: self-test: %s does not compile: %s" % (f, r.stderr.strip()))
                return 2
        with open(os.path.join(d, "LAYERS"), "w") as fh:
            fh.write(SELF_LAYERS)
        lines = []
        check("selftest", d, os.path.join(d, "LAYERS"), out=lines.append)
    want = ["call cycle among 2 files: a.c b.c", "low.c (layer 0 low) calls up into top.c",
            "top.c calls a.c, which only b.c may call"]
    missing = [w for w in want if not any(w in l for l in lines)]
    for l in lines:
        print("  " + l)
    if missing or len(lines) != len(want):
        print("layercheck: self-test FAILED: expected %s" % want)
        return 1
    print("layercheck: self-test: a cycle, an upward call and a forbidden caller are found")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", help="the CMake build directory")
    ap.add_argument("--source", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                    help="the source tree (for LAYERS files)")
    ap.add_argument("--graph", action="store_true", help="print every file's calls")
    ap.add_argument("-v", "--verbose", action="store_true", help="name the symbols of each bad edge")
    ap.add_argument("--nm", default="nm", help="the nm program (default: nm)")
    ap.add_argument("--self-test", metavar="CC", help="check the checker with objects built by CC")
    ap.add_argument("--version", action="version", version="layercheck " + VERSION)
    a = ap.parse_args()
    global NM
    NM = a.nm
    if a.self_test:
        return self_test(a.self_test)
    if not a.build:
        ap.error("--build is required")
    bad, seen = 0, 0
    for name, objdir, srcdir in COMPONENTS:
        od = os.path.join(a.build, objdir)
        if not os.path.isdir(od):
            continue
        r = check(name, od, os.path.join(a.source, srcdir, "LAYERS"), a.graph, a.verbose)
        if r is None:
            continue
        seen += 1
        bad += r
    if not seen:
        print("layercheck: no object directories under %s" % a.build, file=sys.stderr)
        return 2
    if not bad:
        print("layercheck: %d components, no call cycle, no upward call" % seen)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
