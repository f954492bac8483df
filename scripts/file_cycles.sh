#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# file_cycles.sh - circles between the files of one folder: a file is a
# unit (foo.c with its foo.h), and unit A points at unit B of the same folder
# when A includes B's header (directly or through a header of no unit, such
# as a folder's private header) or A's object uses a function or table B's
# object defines. A circle (A -> ... ->
# A, found as the strongly connected parts of that graph) means the files
# are one room cut in pieces by size rather than by concern
# (docs/design.md, "No circles in a folder").
#
# src/core is left out: its files share the mode table's state by design.
# Outside it there is no circle today: every folder is cut one way. A circle
# that had to stay would be listed below with why; one not listed (or one
# that grows beyond its entry) fails.
#
# usage: scripts/file_cycles.sh -o OBJDIR [ROOT]
#   -o DIR  the build folder whose objects give the calls (required)
# Prints each circle; exit 1 on a new one, else 0.
set -u
[ $# -ge 2 ] && [ $# -le 3 ] && [ "$1" = -o ] || { echo "usage: $0 -o OBJDIR [ROOT]" >&2; exit 2; }
objdir=$(cd "$2" && pwd) || exit 2
cd "${3:-$(dirname "$0")/..}" || exit 2
command -v python3 >/dev/null || { echo "file-cycles: python3 not installed: not checked"; exit 0; }

# Known circles: FOLDER: UNIT UNIT ... (a circle found must lie within one),
# each after a comment saying why it stays. None: the last ones were cut the
# way the others had been (docs/design.md, "No circles in a folder"): a
# folder's shared types in a header of no file (control_priv.h,
# be_engines_priv.h, jobfile_priv.h, engine/engtypes.h), a registry the only
# file that points at what it lists (engine/registry.c, sim/registry.c),
# what two files both use in a file below them (run/sim_result.c,
# scen/memleak/memleak_config.c).
read -r -d '' ALLOWED <<'EOT'
EOT

files=$(find src tools -type f -name '*.[ch]' ! -path 'src/core/*' 2>/dev/null | sort)
objs=()
for f in $files; do
	case $f in *.c) [ -f "$objdir/${f%.c}.o" ] && objs+=("$objdir/${f%.c}.o") ;; esac
done
[ ${#objs[@]} -gt 0 ] || { echo "file-cycles: no objects under $objdir (build first)"; exit 2; }
{
	grep -HE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files /dev/null | sed 's/^/INC /'
	# One nm for all ("OBJ:VALUE TYPE SYMBOL"), each object named back as its source.
	nm -A -g --defined-only "${objs[@]}" | awk -v o="$objdir/" 'NF == 3 {
		f = $1; sub(/:.*$/, "", f); f = substr(f, length(o) + 1); sub(/\.o$/, ".c", f); print "DEF", f, $3 }'
	nm -A -u "${objs[@]}" | awk -v o="$objdir/" '{
		f = $1; sub(/:.*$/, "", f); f = substr(f, length(o) + 1); sub(/\.o$/, ".c", f); print "USE", f, $NF }'
} | ALLOWED=$ALLOWED python3 -c '
import os, re, sys
allowed, inc, defs, uses = [], [], {}, []
for text in os.environ["ALLOWED"].splitlines():
    text = text.strip()
    if text and not text.startswith("#"):
        folder, units = text.split(":", 1)
        allowed.append((folder.strip(), set(units.split())))
for line in sys.stdin:
    kind, _, rest = line.rstrip("\n").partition(" ")
    if kind == "INC":
        path, _, text = rest.partition(":")
        m = re.search(r"\"([^\"]+)\"", text)
        if m:
            inc.append((path, m.group(1)))
    elif kind == "DEF":
        f, sym = rest.split()
        defs[sym] = f
    elif kind == "USE":
        f, sym = rest.split()
        uses.append((f, sym))

def unit(path):
    return os.path.dirname(path), os.path.splitext(os.path.basename(path))[0]

def owned(path):
    """A header with a .c beside it belongs to that unit; a header without one
    (a folder private header: control_priv.h) is only a way through."""
    return path.endswith(".c") or os.path.isfile(path[:-2] + ".c")

includes = {}
for path, name in inc:
    d = os.path.dirname(path)
    for cand in (os.path.normpath(os.path.join(d, name)), os.path.join("src", name)):
        if os.path.isfile(cand):
            includes.setdefault(path, []).append(cand)
            break

edges = {}
def add(a, b):
    if a != b and a[0] == b[0]:
        edges.setdefault(a, set()).add(b)
        edges.setdefault(b, set())
# Includes: each unit header a file reaches directly or through headers of no unit.
for path in list(includes):
    if not owned(path):
        continue
    seen, todo = set(), list(includes[path])
    while todo:
        h = todo.pop()
        if h in seen:
            continue
        seen.add(h)
        if owned(h):
            add(unit(path), unit(h))
        else:
            todo.extend(includes.get(h, []))
for f, sym in uses:
    if sym in defs:
        add(unit(f), unit(defs[sym]))

# Tarjan, iterative: the strongly connected parts of more than one unit.
index, low, on, stack, sccs, n = {}, {}, set(), [], [], 0
for root in sorted(edges):
    if root in index:
        continue
    work = [(root, iter(sorted(edges[root])))]
    index[root] = low[root] = n; n += 1; stack.append(root); on.add(root)
    while work:
        v, it = work[-1]
        for w in it:
            if w not in index:
                index[w] = low[w] = n; n += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges[w]))))
                break
            if w in on:
                low[v] = min(low[v], index[w])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                part = []
                while True:
                    w = stack.pop(); on.discard(w); part.append(w)
                    if w == v:
                        break
                if len(part) > 1:
                    sccs.append(part)

bad = 0
for part in sorted(sccs):
    folder = part[0][0]
    names = sorted(u[1] for u in part)
    known = any(folder == f and set(names) <= s for f, s in allowed)
    print("file-cycles: %s: %s%s" % (folder, " ".join(names),
          " (known, allowed in scripts/file_cycles.sh)" if known else ": a new circle"))
    bad |= not known
if not sccs:
    print("file-cycles: no circle between the files of one folder (src/core aside)")
elif not bad:
    print("file-cycles: only the known circles")
sys.exit(1 if bad else 0)
'
