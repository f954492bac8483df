#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A stalled device through the engine path (docs/reliability.md): `iolat run`
# on a real temp file, IOLAT_CHECK=1. "main" reads through faulty:psync with
# a target no I/O can meet (1us), so it keeps asking for throttling and its
# sibling "bulk" (a plain psync writer, 4000 random 4k writes a second,
# iodepth 8, nr_requests=8) is clamped to depth 1 and queues. After 300
# reads (~1.5 s) main's engine stalls for 5 s (--faults
# kind=stall,ms=5000,after=300,count=1): main completes nothing.
# Asserted from the --log time series (100 ms samples) and the JSON:
#  - before the stall bulk was clamped and its I/O waited (throttled time > 0);
#  - during it the controller's timer kept running: within 3.5 s of the stall's
#    start the tick saw main quiet and unclamped bulk (depth max), its waiters
#    were granted and bulk kept completing I/O at full depth until the stall's end;
#  - main's held read completed once the stall ended (about 5 s latency) and,
#    as a miss, clamped bulk again; main then stopped (runtime 5 s), the tick
#    released bulk again: its final depth is max;
#  - every I/O completed once and the invariants held (IOLAT_CHECK's line),
#    no I/O failed (exit 0), the run lasted until bulk's runtime (9.5 s).
# About 10 s. Uses $IOLAT, $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-fault

cat >"$dir/stall.fio" <<JOB
[global]
filename=$dir/stall.dat
size=16m
time_based=1
nr_requests=8
rotational=0

[group:main]
target=1us

[group:bulk]

[reader]
group=main
ioengine=faulty:psync
rw=randread
bs=4k
iodepth=1
rate_iops=200
runtime=5s

[bulk]
group=bulk
ioengine=psync
rw=randwrite
bs=4k
iodepth=8
rate_iops=4000
runtime=9500ms
JOB

IOLAT_CHECK=1 "$IOLAT" run -q --control article --faults kind=stall,ms=5000,after=300,count=1 \
	--log "$dir/log" --output-format=json "$dir/stall.fio" >"$dir/out.json" 2>"$dir/err"
rc=$?
cat "$dir/err"
[ $rc -eq 0 ] || { cat "$dir/out.json"; fail "exit $rc, want 0"; }
grep -q 'IOLAT_CHECK: the controller.s invariants held' "$dir/err" || fail "no IOLAT_CHECK verdict"
[ -s "$dir/log/main.csv" ] && [ -s "$dir/log/bulk.csv" ] || fail "no time series"

# CSV columns: 1 time_s, 2 ios, 8 max_us, 9 depth (-1: max), 10 inflight, 13 throttled_ms.
# The stall: main's first sample with no completion and its read in flight,
# after it had completed some; it ends at the sample where the held read completes.
# (A gap shorter than 4 s is a slow read on a loaded machine, not the stall: skip it.)
read -r s0 s1 held <<<"$(awk -F, 'NR > 1 {
	if (!s0 && seen && $2 == 0 && $10 == 1) s0 = $1
	if ($2 > 0) {
		seen = 1
		if (s0 && !s1) { s1 = $1; held = $8 }
		if (s1 && s1 - s0 < 4) s0 = s1 = held = 0
	}
} END { print s0 + 0, s1 + 0, held + 0 }' "$dir/log/main.csv")"
echo "stall: from ${s0}s to ${s1}s, the held read took ${held}us"
awk -v a="$s0" -v b="$s1" 'BEGIN { exit !(a > 0 && b - a >= 4.5 && b - a <= 6.5) }' ||
	fail "no 5 s stall in main's series (from $s0 to $s1)"
awk -v h="$held" 'BEGIN { exit !(h >= 4500000) }' || fail "main's held read took ${held}us"

# bulk, before / during / after the stall.
read -r clamped throttled rel during_ios reclamp ended_max <<<"$(awk -F, -v s0="$s0" -v s1="$s1" 'NR > 1 {
	if ($1 <= s0) { if ($9 != -1) clamped = 1; throttled = $13 }
	if ($1 > s0 && $1 < s1) {
		if (!rel && $9 == -1) rel = $1
		if (rel && $1 > rel) { ios += $2; if ($9 != -1) back = 1 }
	}
	if ($1 > s1 && $9 != -1) reclamp = 1
	last = $9
} END { print clamped + 0, throttled + 0, (back ? -rel : rel) + 0, ios + 0, reclamp + 0, (last == -1) }' \
	"$dir/log/bulk.csv")"
echo "bulk: clamped before=$clamped throttled_ms=$throttled released_at=${rel}s ios_after=$during_ios reclamped_after=$reclamp final_max=$ended_max"
[ "$clamped" = 1 ] || fail "bulk was not clamped before the stall"
awk -v t="$throttled" 'BEGIN { exit !(t > 0) }' || fail "bulk's I/O never waited before the stall"
awk -v r="$rel" -v a="$s0" 'BEGIN { exit !(r > 0 && r <= a + 3.5) }' ||
	fail "the tick did not unclamp bulk during the stall (released at $rel, stall from $s0)"
[ "$during_ios" -gt 0 ] || fail "bulk completed nothing at full depth during the stall"
[ "$reclamp" = 1 ] || fail "the held read's miss did not clamp bulk after the stall"
[ "$ended_max" = 1 ] || fail "bulk's depth did not recover at the end"

# The JSON: bulk's final depth, main's injected stall, nothing failed.
awk '/"name": "bulk"/ { b = 1 } b && /"depth_final"/ { print; exit }' "$dir/out.json" |
	grep -q '": -1,' || fail "bulk's depth_final is not max (-1)"
grep -q '"stalls": 1' "$dir/out.json" || fail "no injected stall in the JSON"
grep -q '"errors": [1-9]' "$dir/out.json" && fail "failed I/Os in a stall run"
awk -F': ' '/"duration_s"/ { exit !($2 + 0 >= 9.4) }' "$dir/out.json" || fail "the run ended early"
echo ok
