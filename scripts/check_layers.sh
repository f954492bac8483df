#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_layers.sh - the floor plan of docs/design.md, enforced: every include
# (quoted or angled, of a file of this repository), every header a file
# reaches through the headers it includes (a tool may not reach the
# simulator through a runner's header), and every call between object files
# must point down the layers, never up and never past the one door of a
# layer:
#
#   tools -> scen -> job -> engine -> util               tools -> daemon
#   tools -> calib -> {run, report, job, engine} (a disk measured through the runner)
#   job, daemon, engine, sim -> conf -> util
#   tools -> run -> {report, job, engine, sim};  report -> job
#   scen -> sim (a scenario's machine)
#   run -> sync -> core        (run reaches them through include/iolatency.h)
#   scen, engine, sim, daemon -> include/iolatency.h (the public API) only
#   inside src/daemon, its rooms, each a folder, one way (docs/design.md,
#   "The daemon cut"):
#     daemon (loop.c, life.c, checkconf.c) -> status -> round -> tree
#       -> limits -> log -> sys -> config
#   control_priv.h (struct iolatd) may be included by every room from the
#   top to the log and names the types of the round, the tree and the
#   limits; what a room reaches through it is not judged (the struct holds
#   every room's state), what it calls is. control.h is the door for the
#   tools: they call the rooms only through the functions it declares, and
#   include from src/daemon only control.h, checkconf.h and the status, log,
#   sys and config folders, never a room's inside.
#   include/iolatency.h is the only way into src/core from outside src/core
#   and src/sync, plus include/iolatency_internal.h for src/job and src/run
#   (marked internal: the invariant check, the window formula, durations)
#   conf (the configuration grammar: INI reader, option tables, values,
#   suggestions) sits on util, below everyone who reads a configuration;
#   it reaches the core only for durations (iolatency_internal.h)
#   util is the floor: anyone may include it; it includes nothing of ours.
#
# usage: scripts/check_layers.sh [-o OBJDIR] [ROOT]
#   ROOT    the tree to check (default: the repository holding this script)
#   -o DIR  also check calls: the undefined symbols of the objects under DIR/src and
#           DIR/tools/*.o against the layer of the object defining them
# Tests and benchmarks (tests/, bench/, fuzz/) may look inside any layer and
# are not checked. Prints one line per violation; exit 1 if any, else 0.
set -u
objdir=
while getopts o: opt; do
	case $opt in
	o) objdir=$OPTARG ;;
	*) echo "usage: $0 [-o OBJDIR] [ROOT]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# The rules, for awk: layer of a path, and the layers each layer may reach.
read -r -d '' RULES <<'AWK'
function layer(p) {
	if (p ~ /^src\/util\//) return "util"
	if (p ~ /^src\/conf\//) return "conf"
	if (p ~ /^src\/core\//) return "core"
	if (p ~ /^src\/sync\//) return "sync"
	if (p ~ /^src\/engine\//) return "engine"
	if (p ~ /^src\/sim\//) return "sim"
	if (p ~ /^src\/job\//) return "job"
	if (p ~ /^src\/report\//) return "report"
	if (p ~ /^src\/run\//) return "run"
	if (p ~ /^src\/scen\//) return "scen"
	if (p ~ /^src\/calib\//) return "calib"
	if (p == "src/daemon/control.h") return "daemon/control.h"
	if (p == "src/daemon/control_priv.h") return "daemon/control_priv.h"
	if (p ~ /^src\/daemon\/(status|round|tree|limits|log|sys|config)\//) {
		split(p, part, "/"); return "daemon/" part[3]
	}
	if (p ~ /^src\/daemon\//) return "daemon"
	if (p ~ /^tools\//) return "tools"
	if (p == "include/iolatency.h") return "api"
	if (p == "include/iolatency_internal.h") return "internal"
	return "outside"
}
function allowed(l) {
	if (l == "util") return "util"
	if (l == "conf") return "conf util api internal"
	if (l == "core") return "core util api internal"
	if (l == "sync") return "sync core util api internal"
	if (l == "engine") return "engine conf util api"
	if (l == "sim") return "sim conf util api"
	if (l == "job") return "job engine conf util api internal"
	if (l == "report") return "report job conf util api"
	if (l == "run") return "run report job engine sim conf util api internal"
	if (l == "scen") return "scen job sim conf util api"
	if (l == "calib") return "calib run report job engine conf util api"
	if (l == "daemon") return "daemon daemon/control.h daemon/control_priv.h daemon/status daemon/round daemon/tree daemon/limits daemon/log daemon/sys daemon/config conf util api"
	if (l == "daemon/status") return "daemon/status daemon/control_priv.h daemon/round daemon/tree daemon/limits daemon/log daemon/sys daemon/config conf util api"
	if (l == "daemon/round") return "daemon/round daemon/control_priv.h daemon/tree daemon/limits daemon/log daemon/sys daemon/config conf util api"
	if (l == "daemon/tree") return "daemon/tree daemon/control_priv.h daemon/limits daemon/log daemon/sys daemon/config conf util api"
	if (l == "daemon/limits") return "daemon/limits daemon/control_priv.h daemon/log daemon/sys daemon/config conf util api"
	if (l == "daemon/log") return "daemon/log daemon/control_priv.h daemon/sys daemon/config conf util api"
	if (l == "daemon/sys") return "daemon/sys daemon/config conf util api"
	if (l == "daemon/config") return "daemon/config conf util api"
	if (l == "daemon/control_priv.h") return "daemon/control_priv.h daemon/control.h daemon/round daemon/tree daemon/limits daemon/sys daemon/config conf util api"
	if (l == "daemon/control.h") return "daemon/control.h daemon/config conf util api"
	if (l == "tools") return "tools calib scen run report job daemon daemon/control.h daemon/status daemon/log daemon/sys daemon/config conf util api"
	if (l == "api") return "api"
	if (l == "internal") return "api internal"
	return ""
}
function may(from, to) { return index(" " allowed(from) " ", " " to " ") > 0 }
# normalize: resolve "." and ".." components of a relative path
function normalize(p,    n, a, i, out, k) {
	n = split(p, a, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (a[i] == "" || a[i] == ".") continue
		if (a[i] == "..") { if (k > 0) k--; continue }
		out[++k] = a[i]
	}
	p = ""
	for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
	return p
}
AWK

bad=0

# ---- includes ----
files=$(find src tools include -type f -name '*.[ch]' 2>/dev/null | sort)
inc_out=$(
	{ printf '%s\n' $files | sed 's/^/F /'; grep -HE '^[[:space:]]*#[[:space:]]*include' $files /dev/null; } |
	awk "$RULES"'
	$1 == "F" && NF == 2 && !seen_inc { exists[$2] = 1; next }
	{
		seen_inc = 1
		file = $0; sub(/:.*/, "", file)
		text = substr($0, length(file) + 2)
		if (match(text, /"[^"]+"/)) { q = 1; name = substr(text, RSTART + 1, RLENGTH - 2) }
		else if (match(text, /<[^>]+>/)) { q = 0; name = substr(text, RSTART + 1, RLENGTH - 2) }
		else next
		dir = file; sub(/\/[^\/]*$/, "", dir)
		target = ""
		if (q && ((dir "/" name) in exists || normalize(dir "/" name) in exists))
			target = normalize(dir "/" name)
		else if (("include/" name) in exists) target = "include/" name
		else if (("src/" name) in exists) target = "src/" name
		if (target == "") {
			if (q) printf "%s: includes \"%s\", not a file of this repository\n", file, name
			next
		}
		from = layer(file); to = layer(target)
		if (to == "outside") { printf "%s: includes %s, outside the layers\n", file, target; next }
		if (!may(from, to)) {
			printf "%s: includes %s: %s may not reach %s (allowed: %s)\n", file, target, from, to, allowed(from)
			next
		}
		edges[file] = edges[file] " " target
	}
	# Transitive: what a file reaches through the headers it may include,
	# each header of the closure judged as if the file included it.
	END {
		for (f in edges) {
			delete seen; delete via; n = 0
			k = split(edges[f], d, " ")
			for (i = 1; i <= k; i++) if (!(d[i] in seen)) { seen[d[i]] = 1; via[d[i]] = d[i]; queue[++n] = d[i] }
			for (q = 1; q <= n; q++) {
				h = queue[q]
				# struct iolatd: its own includes are judged at it, not at each room
				if (!(h in edges) || layer(h) == "daemon/control_priv.h") continue
				m = split(edges[h], e, " ")
				for (j = 1; j <= m; j++) if (!(e[j] in seen)) {
					seen[e[j]] = 1; via[e[j]] = via[h]; queue[++n] = e[j]
				}
			}
			for (q = 1; q <= n; q++) {
				h = queue[q]; from = layer(f); to = layer(h)
				if (via[h] != h && !may(from, to))
					printf "%s: reaches %s through %s: %s may not reach %s (allowed: %s)\n", f, h, via[h], from, to, allowed(from)
			}
		}
	}' | sort)
[ -n "$inc_out" ] && { sed 's/^/check-layers: /' <<<"$inc_out"; bad=1; }

# ---- calls ----
if [ -n "$objdir" ]; then
	# The objects of this tree's sources (a build folder may hold stale ones).
	objs=()
	for f in $files; do
		case $f in *.c) [ -f "$objdir/${f%.c}.o" ] && objs+=("$objdir/${f%.c}.o") ;; esac
	done
	[ ${#objs[@]} -gt 0 ] || { echo "check-layers: no objects under $objdir (build first)"; exit 2; }
	call_out=$(
		{
			grep -ohE '\biolat_[a-z0-9_]+\(' include/iolatency.h | tr -d '(' | sed 's/^/A /'
			grep -ohE '\biolat_[a-z0-9_]+\(' include/iolatency_internal.h 2>/dev/null | tr -d '(' | sed 's/^/I /'
			grep -ohE '\biolatd_[a-z0-9_]+\(' src/daemon/control.h 2>/dev/null | tr -d '(' | sed 's/^/C /'
			nm -A -g --defined-only "${objs[@]}" | awk '{ print "D", $1, $NF }'
			nm -A -u "${objs[@]}" | awk '{ print "U", $1, $NF }'
		} | awk -v objdir="$objdir/" "$RULES"'
		function src(o) { sub(/:.*$/, "", o); o = substr(o, length(objdir) + 1); sub(/\.o$/, ".c", o); return o }
		$1 == "A" { api[$2] = 1; next }
		$1 == "I" { internal[$2] = 1; next }
		$1 == "C" { door[$2] = 1; next }
		$1 == "D" { def[$3] = layer(src($2)); next }
		$1 == "U" {
			if (!($3 in def)) next
			from = layer(src($2)); to = def[$3]
			# Into core and sync through the door: the public API, or the internal header where allowed.
			if ((to == "core" || to == "sync") && !may(from, to)) {
				if ($3 in api) to = "api"
				else if ($3 in internal) to = "internal"
			}
			# Into the rooms of the daemon through their door: a function of control.h.
			if (to ~ /^daemon/ && !may(from, to) && ($3 in door)) to = "daemon/control.h"
			if (!may(from, to))
				printf "%s calls %s (%s): %s may not reach %s (allowed: %s)\n", src($2), $3, to, from, to, allowed(from)
		}')
	[ -n "$call_out" ] && { sed 's/^/check-layers: /' <<<"$call_out"; bad=1; }
fi

[ $bad = 0 ] && echo "check-layers: includes${objdir:+ and calls} follow the layers (docs/design.md), includes also through headers"
exit $bad
