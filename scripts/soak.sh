#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Soak test (not in CI; docs/reliability.md "Soak"): for MINUTES (default 10)
# two long-lived iolat processes loop side by side, each in one process
# (the hidden --loop option):
#   iolat sim  examples/sim-bad-ssd.ini     simulated I/O, the stalling drive
#   iolat run  (a job file made here)       real I/O on a temp file, IOLAT_CHECK=1,
#       through faulty:uring and faulty:psync with EIO, ENOSPC, short I/O,
#       20 ms spikes and 20 ms stalls injected (0.5% of the I/Os), a
#       verify=crc32c writer whose half of the file is read back after every
#       run, a 2 s run per iteration
# Every 2 s it samples each process's resident set (VmRSS) and open file
# descriptors (/proc/PID/fd). It prints them at the start (after a warm-up of
# 10% of the time, at least 20 s), the middle and the end, and fails when,
# between the first and the last quarter after the warm-up, a process's
# lowest or highest RSS grew by more than SOAK_RSS_KB (default 4096 KiB) or
# its lowest fd count grew at all; also when a run failed otherwise than by
# the injected faults (a broken invariant, a block read back wrong, a crash).
# Usage: scripts/soak.sh [MINUTES]   (env: IOLAT=build/iolat, TMPDIR, SOAK_RSS_KB)
set -u
cd "$(dirname "$0")/.."
MIN=${1:-10}
IOLAT=${IOLAT:-build/iolat}
RSS_BOUND=${SOAK_RSS_KB:-4096}
[ -x "$IOLAT" ] || { echo "soak: $IOLAT not built (make)" >&2; exit 2; }
secs=$(awk -v m="$MIN" 'BEGIN { s = int(m * 60); print (s > 0 ? s : 0) }')
[ "$secs" -gt 0 ] || { echo "soak: MINUTES must be positive" >&2; exit 2; }
warm=$(( secs / 10 < 20 ? 20 : secs / 10 ))
[ "$warm" -lt "$secs" ] || warm=$(( secs / 2 ))
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/iolat-soak-XXXXXX") || exit 2
sim_pid=; run_pid=
cleanup() {
	[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null
	[ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

cat >"$dir/soak.fio" <<JOB
[global]
filename=$dir/soak.dat
size=16m
time_based=1
runtime=2s

[group:fg]
target=2ms

[group:bg]

[group:bg/verify]

[reader]
group=fg
ioengine=faulty:uring
rw=randread
bs=4k
iodepth=4
rate_iops=2000

[writer]
group=bg
ioengine=faulty:psync
rw=randrw
bs=64k
iodepth=4
rate_iops=300
size=8m

[checked]
group=bg/verify
ioengine=faulty:psync
rw=randwrite
bs=4k
iodepth=2
rate_iops=500
verify=crc32c
offset=8m
size=8m
JOB

echo "soak: ${MIN} min; iolat sim and iolat run looping in one process each; samples every 2 s in $dir"
"$IOLAT" sim --loop "$secs" examples/sim-bad-ssd.ini >"$dir/sim.out" 2>"$dir/sim.err" &
sim_pid=$!
IOLAT_CHECK=1 "$IOLAT" run -q --loop "$secs" \
	--faults kind=eio+enospc+short+spike+stall,rate=0.005,ms=20,seed=7 \
	"$dir/soak.fio" >"$dir/run.out" 2>"$dir/run.err" &
run_pid=$!

sample() {  # PID -> "rss_kb fds", or nothing once it is gone
	local rss fds
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return
	fds=$(ls "/proc/$1/fd" 2>/dev/null | wc -l)
	[ -n "$rss" ] && echo "$rss $fds"
}
t0=$(date +%s)
: >"$dir/samples"
while kill -0 "$sim_pid" 2>/dev/null || kill -0 "$run_pid" 2>/dev/null; do
	t=$(( $(date +%s) - t0 ))
	s=$(sample "$sim_pid"); r=$(sample "$run_pid")
	[ -n "$s" ] && echo "$t sim $s" >>"$dir/samples"
	[ -n "$r" ] && echo "$t run $r" >>"$dir/samples"
	sleep 2
done
wait "$sim_pid"; sim_rc=$?
wait "$run_pid"; run_rc=$?
sim_pid=; run_pid=

status=0
cat "$dir/sim.err"
grep -v 'I/Os failed$\|^  group \|^  first: ' "$dir/run.err" | tail -n 3
# sim: exit 0. run: exit 1 is the injected faults; it must have finished its
# loop, with no block read back wrong and no broken check.
[ "$sim_rc" -eq 0 ] || { echo "soak: iolat sim exited $sim_rc"; status=1; }
if ! grep -q ' blocks read back wrong, in all' "$dir/run.err" || [ "$run_rc" -gt 1 ]; then
	echo "soak: iolat run did not finish its loop (exit $run_rc):"; tail -n 5 "$dir/run.err"; status=1
fi
grep -q ' 0 blocks read back wrong, in all' "$dir/run.err" || { echo "soak: blocks read back wrong"; status=1; }
grep -q 'invariant broken\|completed twice' "$dir/run.err" && { echo "soak: a check failed"; status=1; }

# Figures: start (first sample after the warm-up), middle, end. The bound
# compares the first and the last quarter after the warm-up: the lowest RSS
# and the highest RSS may each grow by SOAK_RSS_KB at most, the lowest fd
# count not at all (a leak raises the floor; the highest count also catches
# the file the verify pass opens for a moment after each run).
for p in sim run; do
	awk -v p="$p" -v warm="$warm" -v bound="$RSS_BOUND" 'BEGIN { n = 0 }
	$2 == p && $1 >= warm { t[n] = $1; rss[n] = $3; fd[n] = $4; n++ }
	function span(a, b, arr, want_max,    i, v) {
		v = arr[a]
		for (i = a; i < b; i++) if (want_max ? arr[i] > v : arr[i] < v) v = arr[i]
		return v
	}
	END {
		if (n < 4) { printf "soak: %s: too few samples (%d)\n", p, n; exit 1 }
		q = int(n / 4); m = int(n / 2)
		r0 = span(0, q, rss, 0); R0 = span(0, q, rss, 1); f0 = span(0, q, fd, 0); F0 = span(0, q, fd, 1)
		r1 = span(n - q, n, rss, 0); R1 = span(n - q, n, rss, 1); f1 = span(n - q, n, fd, 0); F1 = span(n - q, n, fd, 1)
		printf "soak: iolat %s: %d samples; RSS %d -> %d -> %d KiB, fds %d -> %d -> %d (t=%ds, %ds, %ds)\n", \
			p, n, rss[0], rss[m], rss[n-1], fd[0], fd[m], fd[n-1], t[0], t[m], t[n-1]
		printf "soak: iolat %s: first vs last quarter: RSS %d..%d -> %d..%d KiB, fds %d..%d -> %d..%d\n", \
			p, r0, R0, r1, R1, f0, F0, f1, F1
		bad = 0
		if (r1 - r0 > bound || R1 - R0 > bound) {
			printf "soak: iolat %s: RSS grew by more than %d KiB\n", p, bound; bad = 1
		}
		if (f1 > f0) { printf "soak: iolat %s: open fds grew from %d to %d\n", p, f0, f1; bad = 1 }
		exit bad
	}' "$dir/samples" || status=1
done
[ $status -eq 0 ] && echo "soak: ok" || echo "soak: FAILED"
exit $status
