#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_all.sh - the one command behind BENCHMARKS.md: builds from clean, runs
# every benchmark section one after the other (never two at once), keeps the
# raw outputs in bench/results/ and regenerates BENCHMARKS.md with
# bench/gen_benchmarks.py.
#
#   bench/run_all.sh            the full suite (~2 h 30 on 2 cores: sections 4, 7, 8, 9 and 10
#                               take ~17, ~12, ~85, ~9 and ~8 min, more when runs disturbed by
#                               other traffic on the disk are run again), writes BENCHMARKS.md
#   bench/run_all.sh --quick    a smoke run (~15 min; sections 8 and 9 ~8 and ~2): short runs,
#                               fewer repeats; results and markdown go to bench/results/quick/
#                               (BENCHMARKS.md is left alone)
# options:
#   --sections LIST   run only these sections (e.g. 1,5; 1-10, all by default: 9 is
#                     iolatd's weights, bench_weights.py; 10 is iolat calibrate against
#                     the oracle sweep, bench_calibrate.py); the others are taken
#                     from the results already in the results folder
#   --dir D           where the real-disk files go (default /var/tmp/iolat-bench;
#                     up to about 6 GiB, removed at the end)
#   --no-build        reuse the build in $BENCH_O (default build-bench)
#   --gen-only        only regenerate the markdown from existing results
#
# The build goes to its own folder (O=build-bench), cleaned first, so that a
# clean build never removes the build/ that other work on this tree uses.
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=0
SECTIONS=1,2,3,4,5,6,7,8,9,10
DIR=/var/tmp/iolat-bench
BUILD=1
GEN_ONLY=0
O=${BENCH_O:-build-bench}
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) QUICK=1 ;;
	--sections) SECTIONS=$2; shift ;;
	--sections=*) SECTIONS=${1#*=} ;;
	--dir) DIR=$2; shift ;;
	--dir=*) DIR=${1#*=} ;;
	--no-build) BUILD=0 ;;
	--gen-only) GEN_ONLY=1; BUILD=0 ;;
	-h|--help) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run_all.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done

if [ "$QUICK" = 1 ]; then
	RES=bench/results/quick
	MD=$RES/BENCHMARKS.md
	Q=--quick
else
	RES=bench/results
	MD=BENCHMARKS.md
	Q=
fi
RAW=$RES/raw
mkdir -p "$RAW"
PY=${PYTHON:-python3}
IOLAT=$O/iolat
CMDS=$RES/commands.txt
TIMES=$RES/timing.txt

want() { case ",$SECTIONS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
say() { printf '[run_all %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# One step of a section: "section N NAME CMD...". Records the command line
# (the script itself for "sh -c SCRIPT"), its wall time and the load average
# around it.
section() {
	local n=$1 name=$2; shift 2
	local t0 t1 l0 shown
	if [ "$1" = sh ] && [ "$2" = -c ]; then shown=$3; else shown=$(printf '%q ' "$@"); fi
	shown=$(printf '%s' "$shown" | tr -s ' ')
	l0=$(cut -d' ' -f1-3 /proc/loadavg)
	say "section $n ($name): $shown"
	printf '%s\t%s\n' "$n" "$shown" >>"$CMDS.new"
	t0=$(date +%s.%N)
	"$@"
	t1=$(date +%s.%N)
	printf 'section=%s name=%s seconds=%.1f load_before="%s" load_after="%s" date="%s" git=%s\n' \
		"$n" "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$l0" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" "$(date -u -d "@${t0%.*}" '+%Y-%m-%d %H:%M UTC')" \
		"$(source_rev)" >>"$TIMES.new"
}

# The commit the figures come from (the build's source), "+dirty" when the tree has changes
# outside the documentation (BENCHMARKS.md, docs/ and the results do not change a figure).
source_rev() {
	local rev
	rev=$(git rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
	git diff --quiet HEAD -- . ':!*.md' ':!docs' ':!bench/results' 2>/dev/null &&
		echo "$rev" || echo "$rev+dirty"
}

if [ "$GEN_ONLY" = 0 ]; then
	: >"$CMDS.new"
	: >"$TIMES.new"
	# Keep the other sections' records when running a subset.
	if [ -f "$CMDS" ]; then
		for s in 0 1 2 3 4 5 6 7 8 9 10; do
			want "$s" && continue
			[ "$s" = 0 ] && [ "$BUILD" = 1 ] && continue
			grep -P "^$s\t" "$CMDS" >>"$CMDS.new" || true
			grep "^section=$s " "$TIMES" >>"$TIMES.new" || true
		done
	fi
fi

if [ "$BUILD" = 1 ]; then
	say "clean build in $O"
	t0=$(date +%s.%N)
	rm -rf "$O"
	{
		make O="$O" -j2 all
		make O="$O" -j2 bench
	} >"$RAW/build.log" 2>&1 || { tail -30 "$RAW/build.log" >&2; exit 1; }
	t1=$(date +%s.%N)
	printf '0\trm -rf %s; make O=%s -j2 all; make O=%s -j2 bench\n' "$O" "$O" "$O" >>"$CMDS.new"
	printf 'section=0 name=build seconds=%.1f load_before="" load_after="%s"\n' \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$TIMES.new"
fi

if [ "$GEN_ONLY" = 0 ]; then
	[ -x "$IOLAT" ] || { echo "run_all.sh: $IOLAT missing (drop --no-build)" >&2; exit 1; }
	$PY bench/gen_benchmarks.py --machine-json "$RES/machine.json" --dir "$DIR" --build "$O"
	mkdir -p "$DIR"

	if want 1; then
		section 1 bench_fastpath sh -c "$O/bench/bench_fastpath $Q >$RES/fastpath.txt"
		if command -v valgrind >/dev/null; then
			if [ "$QUICK" = 1 ]; then NI="N1=20000 N2=60000"; else NI="N1=100000 N2=300000"; fi
			section 1 callgrind sh -c "env BENCH=$O/bench/bench_fastpath $NI bash bench/fastpath_instructions.sh group1 tree3 disabled >$RES/fastpath_instructions.txt && env IOLAT_BENCH_ADAPTIVE=1 BENCH=$O/bench/bench_fastpath $NI bash bench/fastpath_instructions.sh group1 >>$RES/fastpath_instructions.txt"
		else
			echo "valgrind not installed" >"$RES/fastpath_instructions.txt"
		fi
	fi
	if want 2; then
		section 2 engines $PY bench/bench_engines.py $Q --iolat "$IOLAT" --dir "$DIR" --out "$RES"
	fi
	if want 3; then
		section 3 control $PY bench/bench_control.py $Q --iolat "$IOLAT" --out "$RES"
	fi
	if want 4; then
		section 4 oracle $PY bench/bench_disk.py $Q --iolat "$IOLAT" --dir "$DIR" --out "$RES"
	fi
	if want 5; then
		section 5 bench_scale sh -c "$O/bench/bench_scale $Q >$RES/scale.txt"
		section 5 simspeed $PY bench/bench_simspeed.py $Q --iolat "$IOLAT" --out "$RES"
	fi
	if want 6; then
		section 6 memleak $PY bench/bench_memleak.py $Q --bench "$O/bench/bench_memleak" --iolat "$IOLAT" --out "$RES"
	fi
	if want 7; then
		# root, fio, a cgroup hierarchy with the block throttle, iolatd with BPF; else it says why
		section 7 oracle $PY bench/bench_iolatd.py $Q --iolatd "$O/iolatd" --dir "$DIR" --out "$RES"
	fi
	if want 8; then
		# the same needs as 7; iolat run's own open-loop reader joins when iolat knows rate_process;
		# the readers at nice -10: on a shared machine a reader waiting for a CPU counts that wait
		section 8 openloop $PY bench/bench_openloop.py $Q --iolatd "$O/iolatd" --iolat "$IOLAT" \
			--dir "$DIR" --out "$RES" --reader-nice -10
	fi
	if want 9; then
		# the same needs as 7: two sibling cgroups weighted by iolatd.conf, unmodified fio
		section 9 weights $PY bench/bench_weights.py $Q --iolatd "$O/iolatd" --dir "$DIR" --out "$RES"
	fi
	if want 10; then
		# root and a cgroup hierarchy with the block throttle: iolat calibrate against the
		# oracle sweep (the kernel's throttle bisected), 4 repetitions, ~8 min
		section 10 calibrate $PY bench/bench_calibrate.py $Q --iolat "$IOLAT" --dir "$DIR" --out "$RES"
	fi
	rm -f "$DIR/engine.dat"
	rmdir "$DIR" 2>/dev/null || true
	sort -s -n -k1,1 "$CMDS.new" >"$CMDS"
	sort -s -t= -k2,2n "$TIMES.new" >"$TIMES"
	rm -f "$CMDS.new" "$TIMES.new"
fi

$PY bench/gen_benchmarks.py --results "$RES" --out "$MD" $Q
say "wrote $MD"
