#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cgroup= as fio means it: `iolat run` puts the job's threads in that kernel
# cgroup (v1 blkio here; v2 is unit-tested on a fake tree, tests/job/test_jobcg.c):
#  - a missing cgroup (two levels) is created, the job's direct reads are
#    accounted there while it runs (blkio.throttle.io_service_bytes, or
#    io.stat on v2), and both levels are removed after;
#  - a cgroup that exists is used and left, with the I/O accounted in it;
#  - SIGINT mid-run: the cgroup iolat made is removed too;
#  - refused with one line and nothing created: not root, `iolat sim`;
#    FILE:LINE errors for a bad path, the root, and cgroup= naming a
#    [group:PATH] of the file with no group= (the old alias: use group=).
# Needs root and a cgroup hierarchy with the block controller; uses $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/iolat-cgroup-XXXXXX") || skip "no temp dir"
name="iolat-test-$$"
root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/self/mounts)
v=1 stat=blkio.throttle.io_service_bytes
if [ -z "$root" ]; then
	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts) v=2 stat=io.stat
	[ -n "$root" ] && grep -qw io "$root/cgroup.controllers" 2>/dev/null || root=
fi
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	for c in "$root/$name/a" "$root/$name" "$root/$name-pre" "$root/$name-stop"; do
		[ -n "$root" ] && [ -d "$c" ] && rmdir "$c" 2>/dev/null
	done
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
chmod 755 "$dir"

# Refusals that need neither root nor a hierarchy: the simulator, parse errors (FILE:LINE).
printf '[j]\nsize=1m\nruntime=1\ncgroup=%s\n' "$name" >"$dir/sim.fio"
out=$("$IOLAT" sim "$dir/sim.fio" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "iolat sim with cgroup=: rc=$rc, want 2"
echo "$out" | grep -qF "$dir/sim.fio:4: key 'cgroup': job 'j': the simulator runs no threads" || fail "iolat sim: $out"
bad() {   # bad TEXT WANT: the job file TEXT is refused with WANT
	printf "$1" >"$dir/bad.fio"
	out=$("$IOLAT" run "$dir/bad.fio" 2>&1) && fail "accepted: $1"
	echo "$out" | grep -qF "$dir/bad.fio:$2" || fail "for '$1' want '$2', got: $out"
}
bad '[j]\nfilename=/tmp/x\ncgroup=../up\n' "3: key 'cgroup': expected a cgroup path relative to the hierarchy's root"
bad '[j]\nfilename=/tmp/x\ncgroup=/\n' "3: key 'cgroup': expected a cgroup below the root"
bad '[group:web]\ntarget=5ms\n[j]\nfilename=/tmp/x\ncgroup=web\n' \
	"5: key 'cgroup': expected a kernel cgroup for the job's threads, as fio's cgroup= (got 'web', a [group:web] of this file: for iolat's group write group=web"
"$IOLAT" help keys | grep -E '^cgroup ' | grep -q "as fio's: the kernel cgroup" || fail "iolat help keys does not say what cgroup= is"

[ "$(id -u)" -eq 0 ] || skip "not root (the refusals above passed)"
[ -n "$root" ] || skip "no cgroup hierarchy with blkio or io (the refusals above passed)"
devno=$(python3 -c 'import os,sys; s=os.stat(sys.argv[1]).st_dev; print(f"{os.major(s)}:{os.minor(s)}")' "$dir")
[ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")

# Not root: refused before anything is made.
if command -v setpriv >/dev/null; then
	printf '[j]\nfilename=%s/nr\nsize=1m\ncgroup=%s/a\n' "$dir" "$name" >"$dir/nr.fio"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$IOLAT" run "$dir/nr.fio" 2>&1) && fail "not root: accepted"
	echo "$out" | grep -qF "$dir/nr.fio:4: key 'cgroup': job 'j': moving threads into a cgroup needs root" || fail "not root: $out"
	[ -e "$root/$name" ] && fail "not root: $root/$name created"
	[ -e "$dir/nr" ] && fail "not root: the job's file was laid out"
fi

# Bytes read from the test's disk as cgroup $1 accounts them (0: none, or no cgroup).
read_bytes() {
	if [ $v = 1 ]; then
		awk -v d="$devno" '$1 == d && $2 == "Read" { print $3; exit }' "$root/$1/$stat" 2>/dev/null
	else
		awk -v d="$devno" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^rbytes=/) { sub(/rbytes=/, "", $i); print $i } }' \
			"$root/$1/$stat" 2>/dev/null
	fi
}
job() {   # job NAME CGROUP RUNTIME: a job file of direct reads in cgroup CGROUP
	printf '[global]\ndirect=1\nsize=32m\nbs=64k\nrw=randread\ntime_based=1\nruntime=%s\n[r]\nfilename=%s/f\ncgroup=%s\n' \
		"$3" "$dir" "$2" >"$dir/$1.fio"
}

# 1. Made, accounted while it runs, removed after.
job made "$name/a" 3
"$IOLAT" run -q "$dir/made.fio" >"$dir/made.out" 2>&1 & pid=$!
seen=0
for _ in $(seq 100); do
	b=$(read_bytes "$name/a"); [ -n "$b" ] && [ "$b" -gt "$seen" ] && seen=$b
	kill -0 $pid 2>/dev/null || break; sleep 0.05
done
wait $pid; rc=$? pid=
[ $rc -eq 0 ] || fail "run with cgroup=$name/a: rc=$rc: $(cat "$dir/made.out")"
[ "$seen" -gt 0 ] || fail "no read accounted to $root/$name/a ($stat) while the job ran"
[ -e "$root/$name/a" ] && fail "$root/$name/a left after the run"
[ -e "$root/$name" ] && fail "$root/$name (made for cgroup=$name/a) left after the run"

# 2. An existing cgroup is used and left, with the reads in its counters.
mkdir "$root/$name-pre" || fail "cannot mkdir $root/$name-pre"
job pre "$name-pre" 1
"$IOLAT" run -q "$dir/pre.fio" >"$dir/pre.out" 2>&1 || fail "run in an existing cgroup: $(cat "$dir/pre.out")"
[ -d "$root/$name-pre" ] || fail "an existing cgroup was removed"
b=$(read_bytes "$name-pre")
[ -n "$b" ] && [ "$b" -gt 0 ] || fail "no read accounted to the existing $root/$name-pre"

# 3. A stop signal mid-run: the cgroup made is removed all the same.
job stop "$name-stop" 30
"$IOLAT" run -q "$dir/stop.fio" >"$dir/stop.out" 2>&1 & pid=$!
for _ in $(seq 100); do [ -d "$root/$name-stop" ] && break; sleep 0.05; done
[ -d "$root/$name-stop" ] || fail "the cgroup for the stop test never appeared: $(cat "$dir/stop.out")"
sleep 0.3
kill -INT $pid
wait $pid; rc=$? pid=
[ $rc -eq 130 ] || fail "SIGINT: rc=$rc, want 130: $(cat "$dir/stop.out")"
[ -e "$root/$name-stop" ] && fail "$root/$name-stop left after SIGINT"
echo "PASS (cgroup v$v at $root, $seen bytes read accounted in $name/a)"
exit 0
