#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `iolat run` and `iolat sim` sample a job file at the same interval: the
# controller's own window of the group with the smallest target,
# clamp(16 x target, 100 ms, 1 s) (docs/controller.md, "The window"), also
# for targets where 16 x target overflows 64 bits (the real-time runner once
# had its own copy of the formula that wrapped to 100 ms there). The expected
# interval is computed here from the formula, independently of the code.
# Runs on the null engine (no disk I/O), a quarter second each. Uses $IOLAT.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
cli_tmpdir iolat-win
failed=0

# expect TARGET_NS: the window the controller uses, in seconds
expect() {
	python3 -c 'import sys; t=int(sys.argv[1]); print(min(max(16*t, 10**8), 10**9) / 1e9)' "$1"
}
# interval MODE FILE: sample_interval_s of the JSON report
interval() {
	"$IOLAT" "$1" "$2" --output-format=json 2>"$dir/err" |
		python3 -c 'import json, sys; print(float(json.load(sys.stdin)["sample_interval_s"]))'
}

for t in 1000000 10000000 50000000 1152921504606846976 18446744073709551615; do
	cat >"$dir/job.ini" <<INI
[global]
runtime=250ms
[group:g]
target=${t}ns
[j]
group=g
ioengine=null
bs=4k
rw=randread
size=1m
INI
	want=$(expect "$t")
	for mode in run sim; do
		got=$(interval "$mode" "$dir/job.ini")
		if [ "$got" = "$want" ]; then
			echo "ok   $mode target=${t}ns: samples every ${got}s"
		else
			echo "FAIL $mode target=${t}ns: samples every '${got}'s, want ${want}s ($(cat "$dir/err"))"
			failed=1
		fi
	done
done
exit $failed
