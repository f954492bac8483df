#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 28's VM anchor: iolatd's weights against the kernel's io.weight under
# io.cost, and no control, side by side in one stock-kernel guest (Debian 12's
# 6.1 under QEMU, tests/vm/vm.sh, scenario tests/vm/guest/weights.sh), with
# unmodified fio (this host's, copied into the guest with its libraries).
#   bench/vm_weights.sh [KEY=VALUE...]   passed to the scenario: SECS (8, measured
#                                        seconds a run), SKIP (2), REPS (3),
#                                        CASES (w100_300+w100_100+alone)
# Builds iolat and iolatd (make) when missing, boots the guest (TCG: about 10
# minutes with the defaults), then bench/vm_weights.py reads the console and
# writes bench/results/vm_weights.json (OUT=FILE: elsewhere), which
# bench/gen_weights.py (BENCHMARKS.md section 9) reports. A benchmark: not run
# by make test. Exit: 0 done, 1 failed, 77 skipped (says why; the old
# results are kept).
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
OUT=${OUT:-bench/results/vm_weights.json}
fio=$(command -v fio) || { echo "skip: fio not installed on the host (apt-get install fio)"; exit 77; }
if ! [ -x "$O/iolatd" ] || ! [ -x "$O/iolat" ]; then
	nice -n 19 make -j2 O="$O" >/dev/null || { echo "vm_weights: make failed" >&2; exit 1; }
fi
t0=$(date +%s)
VM_EXTRA=$fio VM_MEM=${VM_MEM:-1536} VM_TIMEOUT=${VM_TIMEOUT:-1500} O=$O \
	bash tests/vm/vm.sh weights "$@" >"$O/vm-weights.log" 2>&1
rc=$?
wall=$(( $(date +%s) - t0 ))
grep -E '^(skip|vm: )' "$O/vm-weights.log"
[ $rc -eq 77 ] && exit 77
# The accelerator of the boot that ran (qemu_boot's last "booting ... (ACCEL)":
# a KVM that could not start the guest is followed by a TCG boot).
accel=$(sed -n 's/^vm: booting .* (\([a-z]*\))$/\1/p' "$O/vm-weights.log" | tail -n 1)
accel=${accel:-tcg}
python3 bench/vm_weights.py --console "$O/vm/console-weights.log" --out "$OUT" --wall "$wall" --accel $accel \
	--cmd "bench/vm_weights.sh${*:+ $*}" || exit 1
echo "vm_weights: guest exit $rc after $wall s; wrote $OUT"
exit $rc
