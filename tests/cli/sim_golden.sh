#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden outputs of `iolat sim`: for a few scenarios the table and the JSON
# must match tests/sim/golden/ byte for byte (the simulator is deterministic
# for a job file and seed). After an intended change to the controller, the
# models or the report, regenerate them with
#     UPDATE_GOLDEN=1 IOLAT=build/iolat tests/cli/sim_golden.sh
# and review the diff. Run from the repository root. Uses $IOLAT.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
gold=tests/sim/golden
cli_tmpdir iolat-gold
failed=0

# case NAME ARGS...: compare the output of `iolat sim ARGS` with $gold/NAME
case_() {
	local name=$1; shift
	"$IOLAT" sim "$@" >"$dir/$name" 2>"$dir/err" || { echo "FAIL $name: exit $?: $(cat "$dir/err")"; failed=1; return; }
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$dir/$name" "$gold/$name"; echo "updated $gold/$name"; return
	fi
	if cmp -s "$dir/$name" "$gold/$name"; then
		echo "ok   $name"
	else
		echo "FAIL $name differs from $gold/$name:"; diff -u "$gold/$name" "$dir/$name" | head -40
		failed=1
	fi
}
# article mode named: its outputs stay bit for bit whatever the default mode is
case_ protect-ssd.txt examples/sim-protect-ssd.ini --control article
case_ protect-ssd-nocontrol.txt examples/sim-protect-ssd.ini --no-control
case_ protect-ssd.json examples/sim-protect-ssd.ini --output-format=json --control article
case_ hdd.txt examples/sim-hdd.ini --control article
case_ bad-ssd-seed7.txt examples/sim-bad-ssd.ini --seed 7 --control article
case_ release-compat.txt examples/sim-release.ini --kernel-compat
# the default mode (adaptive) on the knee model
case_ knee-default.txt examples/sim-knee.ini
# weights (docs/weights.md): two writers 100:300, and four stacked workloads
case_ weights.txt examples/sim-weights.ini
case_ weights-stacked.json examples/sim-weights-stacked.ini --output-format=json
# the kernel-throttle plant (docs/simulator-scenarios.md section 6): the adaptive mode
# through iolatd's round and the block throttle's 100 ms slices, on the calibrated vdisk
case_ openloop-throttle.txt examples/sim-openloop-throttle.ini
exit $failed
