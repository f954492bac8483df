#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs each fuzz target built by fuzz/build.sh for SECONDS (default 60) on a
# temporary copy of its seed corpus (fuzz/corpus/<target>/; with the
# dictionary fuzz/<target>.dict when there is one), so the repository
# is never modified. Prints the executions of each target; on a crash or a
# broken invariant, prints the input (hex) and exits 1. Crash inputs are kept
# in ${O:-build}/fuzz/artifacts/<target>/.
# Usage: fuzz/run.sh [SECONDS] [TARGET...]; FUZZ_NO_BUILD=1 skips the build.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
secs=${1:-60}; [ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_duration fuzz_ctl fuzz_jobfile)

if [ -z "${FUZZ_NO_BUILD:-}" ]; then
	bash fuzz/build.sh "${targets[@]}" || exit 1
fi

declare -A maxlen=([fuzz_duration]=128 [fuzz_ctl]=4096 [fuzz_jobfile]=8192)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rc=0
for t in "${targets[@]}"; do
	bin="$O/fuzz/$t"
	if [ ! -x "$bin" ]; then
		echo "fuzz/run.sh: $t: not built, skipped"
		continue
	fi
	mkdir -p "$tmp/$t" "$O/fuzz/artifacts/$t"
	[ -d "fuzz/corpus/$t" ] && cp fuzz/corpus/"$t"/* "$tmp/$t/" 2>/dev/null
	log="$O/fuzz/$t.log"
	dict=(); [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
	"$bin" -max_total_time="$secs" -max_len="${maxlen[$t]:-4096}" -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" \
		-artifact_prefix="$O/fuzz/artifacts/$t/" "$tmp/$t" >"$log" 2>&1
	st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ $st -ne 0 ]; then
		rc=1
		echo "fuzz/run.sh: $t: FAILED (exit $st) after ${execs:-?} executions; log $log"
		grep -E 'ERROR|invariant|SUMMARY|fuzz_' "$log" | head -n 20 | sed 's/^/    | /'
		for a in $(grep -o "$O/fuzz/artifacts/$t/[a-z]*-[0-9a-f]*" "$log" | sort -u); do
			echo "    input $a:"
			od -An -tx1 -v "$a" | head -n 20 | sed 's/^/    | /'
		done
	else
		echo "fuzz/run.sh: $t: ${execs:-?} executions in ${secs} s, no crash"
	fi
done
exit $rc
