#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `iolat demo --cgroups`: bad usage is one line and exit 2; then, as root with
# fio, a throttling cgroup hierarchy and iolatd built with BPF, a short run
# prints the three modes' rows (no control, static cap, iolatd) with the
# writer's MiB/s, and leaves no cgroup, data file or iolatd process behind.
# About 20 s; skipped under sanitizers.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat

"$IOLAT" demo --cgroups --seconds 1 2>"${TMPDIR:-/tmp}/iolat-dcg-err.$$"; rc=$?
err=$(cat "${TMPDIR:-/tmp}/iolat-dcg-err.$$"); rm -f "${TMPDIR:-/tmp}/iolat-dcg-err.$$"
[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "--seconds 1: exit $rc: $err"
"$IOLAT" demo --cgroups --help | grep -q 'iolatd' || fail "--cgroups --help"

[ -z "${SAN:-}" ] || { echo "skip: the real run is for the plain build (SAN=$SAN; usage checks passed)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "skip: the run needs root (usage checks passed)"; exit 77; }
command -v fio >/dev/null || { echo "skip: fio not installed (usage checks passed)"; exit 77; }
IOLATD=$(dirname "$IOLAT")/iolatd
"$IOLATD" --version 2>/dev/null | grep -q 'measurement: built' || { echo "skip: iolatd without BPF (usage checks passed)"; exit 77; }
grep -qE ' cgroup .*blkio|^cgroup2 ' /proc/self/mounts || { echo "skip: no cgroup hierarchy (usage checks passed)"; exit 77; }

cli_tmpdir iolat-dcg
"$IOLAT" demo --cgroups --seconds 2 --dir "$dir" >"$dir/out" 2>"$dir/err" &
pid=$!
wait "$pid"; rc=$?
cat "$dir/out"
if [ "$rc" -ne 0 ] && grep -q 'BPF: cannot\|iolatd did not start' "$dir/err"; then
	echo "skip: $(grep -m1 'iolatd did not start' "$dir/err")"; exit 77
fi
[ "$rc" -eq 0 ] || fail "exit $rc: $(cat "$dir/err")"
for row in 'no control' 'static cap (' 'iolatd (target 1ms)'; do
	awk -v r="$row" 'index($0, r) == 1 && /[0-9]/ { found = 1 } END { exit !found }' "$dir/out" || fail "no '$row' row"
done
awk '/^no control/ { if ($(NF-1) + 0 <= 0) exit 1 }' "$dir/out" || fail "the writer moved nothing without control"
for r in /sys/fs/cgroup/blkio /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -d "$r/iolat-demo-$pid" ] && fail "cgroup $r/iolat-demo-$pid left behind"
done
ls "$dir" | grep -q 'iolat-demo-' && fail "data files left in $dir"
ls -d /tmp/iolat-demo-cg-* 2>/dev/null | while read -r t; do
	grep -q "iolat-demo-$pid" "$t"/* 2>/dev/null && fail "temp dir $t left behind"
done
echo "PASS"
