#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fastpath_instructions.sh - instructions per admission + completion pair of the
# controller's fast path, counted by valgrind's callgrind (no hardware counters
# needed). For each case, bench_fastpath runs single-threaded on the virtual
# clock twice, with N1 and N2 pairs; the difference of the two totals divided by
# N2 - N1 removes the set-up cost (process start, controller creation).
#
#   bench/fastpath_instructions.sh [CASE...]        default: group1 disabled
#   env: BENCH=path/to/bench_fastpath (default build/bench/bench_fastpath)
#        N1, N2 (default 100000, 300000); CLOCK=virt|real (default virt)
#        ANNOTATE=1: also print the functions of the N2 run (callgrind_annotate)
#        IOLAT_BENCH_ADAPTIVE=1: the adaptive mode, the pace gate asked before each
#        admission (cases are then named NAME+gate)
# Output: one line per case, "case=NAME clock=virt instructions_per_pair=N
# library=N bench_loop=N": all instructions per pair, those in the library (and
# for mutex, the limiter and pthread), and the benchmark loop's own.
# Runs on one thread of the calling machine; writes only to a temporary folder.
set -euo pipefail

BENCH=${BENCH:-build/bench/bench_fastpath}
N1=${N1:-100000}
N2=${N2:-300000}
CLOCK=${CLOCK:-virt}
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(group1 disabled)

if ! command -v valgrind >/dev/null; then
	echo "fastpath_instructions.sh: valgrind is not installed" >&2
	exit 77
fi
if [ ! -x "$BENCH" ]; then
	echo "fastpath_instructions.sh: $BENCH not found (run: make bench)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One callgrind run: prints "TOTAL LOOP", the program's instructions (Ir) and
# those of the benchmark's own loop function (self cost of bench_fastpath.c's
# loop_*: the for loop and the calls, not the library).
count_ir() {
	local out=$tmp/cg.$1.$2 total loop
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$BENCH" --iterations "$2" --case "$1" --clock "$CLOCK" >"$out.log" 2>&1 || {
		echo "fastpath_instructions.sh: callgrind run failed:" >&2
		cat "$out.log" >&2
		exit 1
	}
	total=$(awk '/^(summary|totals):/ { print $2; exit }' "$out")
	loop=0
	if command -v callgrind_annotate >/dev/null; then
		loop=$(callgrind_annotate --auto=no --inclusive=no "$out" 2>/dev/null |
		       awk '/bench_fastpath\.c:loop_/ && $2 !~ /^=>/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
	fi
	echo "$total $loop"
}

for c in "${cases[@]}"; do
	read -r a la < <(count_ir "$c" "$N1")
	read -r b lb < <(count_ir "$c" "$N2")
	name=$c
	[ "${IOLAT_BENCH_ADAPTIVE:-0}" = 1 ] && name="$c+gate"
	awk -v c="$name" -v k="$CLOCK" -v a="$a" -v b="$b" -v la="$la" -v lb="$lb" \
	    -v n1="$N1" -v n2="$N2" 'BEGIN {
		per = (b - a) / (n2 - n1); loop = (lb - la) / (n2 - n1)
		printf "case=%s clock=%s instructions_per_pair=%.1f library=%.1f bench_loop=%.1f " \
		       "(Ir %s at %d pairs, %s at %d)\n", c, k, per, per - loop, loop, a, n1, b, n2 }'
	if [ "${ANNOTATE:-0}" = 1 ] && command -v callgrind_annotate >/dev/null; then
		callgrind_annotate --inclusive=no "$tmp/cg.$c.$N2" 2>/dev/null | sed -n '1,40p'
	fi
done
