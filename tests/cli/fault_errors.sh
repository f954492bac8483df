#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Injected errors under load, counted exactly (docs/reliability.md): `iolat
# run` with IOLAT_CHECK=1 on a real temp file, two groups, both jobs through a
# faulty engine (faulty:uring, which falls back to psync where io_uring is
# refused, and faulty:psync) with --faults kind=eio+short,rate=0.02: about 1%
# of the I/Os fail with EIO and 1% transfer half their length.
#  - exit 1; stderr says how many I/Os failed in all and per group, with what
#    was injected there; the first error is named;
#  - per group and per job the JSON's "errors" equals its "injected" errors
#    (EIO + ENOSPC + short), and both are > 0: every injected fault is reported
#    once, nothing else failed;
#  - the controller still completed every I/O exactly once (IOLAT_CHECK: no
#    double completion, admitted = completed per group, idle at the end).
# About 3 s (2 s with IOLAT_TEST_SHORT=1). Uses $IOLAT, $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-fault
runtime=3s
[ "${IOLAT_TEST_SHORT:-0}" = 1 ] && runtime=1500ms

cat >"$dir/errors.fio" <<JOB
[global]
filename=$dir/errors.dat
size=16m
time_based=1
runtime=$runtime

[group:web]
target=2ms

[group:batch]

[web]
group=web
ioengine=faulty:uring
rw=randread
bs=4k
iodepth=8
rate_iops=4000

[copy]
group=batch
ioengine=faulty:psync
rw=randrw
bs=16k
iodepth=4
rate_iops=1000
JOB

IOLAT_CHECK=1 "$IOLAT" run -q --faults kind=eio+short,rate=0.02,seed=11 --output-format=json \
	"$dir/errors.fio" >"$dir/out.json" 2>"$dir/err"
rc=$?
cat "$dir/err"
[ $rc -eq 1 ] || { cat "$dir/out.json"; fail "exit $rc, want 1"; }
grep -qE '^iolat run: [1-9][0-9]* I/Os failed' "$dir/err" || fail "no failure summary"
grep -q 'first: job .*: .* at offset' "$dir/err" || fail "the first error is not named"
grep -q 'IOLAT_CHECK: the controller.s invariants held' "$dir/err" || fail "no IOLAT_CHECK verdict"

# Each group and job object: its name, "errors", and "injected" {"errors": N, "eio", "enospc", "short"}.
awk '
/^  "groups"/ { sect = "group" } /^  "jobs"/ { sect = "job" }
/^      "name": / { name = $2; gsub(/[",]/, "", name) }
/^      "errors": / { err = $2 + 0 }
/^      "injected": / {
	line = $0; sub(/.*"injected": \{"errors": /, "", line); inj = line + 0
	printf "%s %s %d failed, %d injected (%s)\n", sect, name, err, inj, \
		$0 ~ /"eio": [1-9]/ && $0 ~ /"short": [1-9]/ ? "EIO and short" : "a kind is missing"
	if (err != inj || inj == 0 || $0 !~ /"eio": [1-9]/ || $0 !~ /"short": [1-9]/) bad = 1
	seen++
}
END { exit bad || seen != 4 }' "$dir/out.json" >"$dir/counts"
ok=$?
cat "$dir/counts"
[ $ok -eq 0 ] || fail "reported errors differ from injected ones (or a kind was never injected)"

# stderr's per-group lines carry the same numbers as the JSON.
for g in web batch; do
	n=$(awk -v g="$g" '$1 == "group" && $2 == g { print $3 }' "$dir/counts")
	grep -qE "^  group $g +$n failed I/Os \(injected: [0-9]+ EIO, 0 ENOSPC, [0-9]+ short\)" "$dir/err" ||
		fail "stderr does not say group $g: $n failed I/Os"
done
echo ok
