#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs each test program given on the command line (and tests/cli/*.sh, but
# not lib.sh, which the scripts source) under a timeout. Exit 0 = pass,
# 77 = skip (the program prints why), anything else = fail.
# Prints one line per test and a closing "N passed, N failed, N skipped" line.
# TEST_SKIP_SLOW=1 leaves out the real-time CLI tests that take seconds of wall
# clock each (the list below): CI's clang pass uses it, since the gcc, ASan and
# TSan passes run them all; every other test still runs.
set -u
O=${O:-build}
TIMEOUT=${TEST_TIMEOUT:-300}
pass=0; fail=0; skip=0; failed=()
logdir="$O/test-logs"; mkdir -p "$logdir"
run_one() {
	local name=$1; shift
	local log="$logdir/$(echo "$name" | tr '/' '_').log"
	local t0=$(date +%s.%N)
	timeout -s INT -k 10 "$TIMEOUT" "$@" >"$log" 2>&1
	local rc=$?
	local dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
	case $rc in
	0)  pass=$((pass+1)); printf 'PASS  %-44s %6ss\n' "$name" "$dt" ;;
	77) skip=$((skip+1)); printf 'SKIP  %-44s (%s)\n' "$name" "$(tail -n 1 "$log")" ;;
	*)  fail=$((fail+1)); failed+=("$name"); printf 'FAIL  %-44s rc=%d\n' "$name" "$rc"; sed 's/^/    | /' "$log" | tail -n 40 ;;
	esac
}
for t in "$@"; do
	run_one "${t#$O/}" "$t"
done
slow=" calibrate_cli.sh run_cgroup.sh demo_cgroups.sh demo_cleanup.sh fault_stall.sh iolatd_integration.sh run_basic.sh run_stop.sh sample_window.sh sim_cli.sh "
for s in tests/cli/*.sh; do
	[ -e "$s" ] || continue
	[ "${s##*/}" = lib.sh ] && continue   # sourced by the others, not a test
	if [ -n "${TEST_SKIP_SLOW:-}" ] && [[ $slow == *" ${s##*/} "* ]]; then
		skip=$((skip+1)); printf 'SKIP  %-44s (%s)\n' "$s" "slow real-time test; TEST_SKIP_SLOW is set"
		continue
	fi
	run_one "$s" env IOLAT="$O/iolat" O="$O" bash "$s"
done
echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
