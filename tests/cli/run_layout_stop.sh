#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Ctrl-C during the layout of a big file stops `iolat run` within a second
# and leaves nothing behind: a file it was creating is removed, a file it
# was extending is truncated back to its old size; exit 130, and stderr says
# what was undone. Lays out (at most) a few hundred MiB before the signal;
# skips when the temp directory has less than 16 GiB free. Uses $IOLAT,
# $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/iolat-layout-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
free_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
[ "${free_kb:-0}" -ge $((16 * 1024 * 1024)) ] || { echo "skip: less than 16 GiB free in $dir"; exit 77; }
cli_collect_failures
now() { date +%s.%N; }

# stop_layout NAME FILE: run a job laying out FILE to 8 GiB, SIGINT once the
# layout has run 0.5 s; sets rc and dt (seconds from the signal to the exit).
stop_layout() {
	local name=$1 file=$2
	printf '[w]\nfilename=%s\nsize=8g\nrw=randread\nruntime=10s\n' "$file" >"$dir/$name.fio"
	"$IOLAT" run "$dir/$name.fio" >"$dir/$name.out" 2>"$dir/$name.err" &
	pid=$!
	for _ in $(seq 100); do grep -q 'laying out' "$dir/$name.err" && break; sleep 0.05; done
	sleep 0.5
	local t0; t0=$(now)
	kill -INT "$pid"
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
	dt=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
	if kill -0 "$pid" 2>/dev/null; then
		rc=timeout; kill -KILL "$pid"; wait "$pid" 2>/dev/null
	else
		wait "$pid"; rc=$?
	fi
	pid=
}

# The promise is a second; sanitizer builds (several times slower, on a
# loaded machine) get two.
case "${O:-build}" in *san*) lim=2.0 ;; *) lim=1.0 ;; esac

stop_layout create "$dir/new.dat"
[ "$rc" = 130 ] || fail "create: exit $rc (want 130): $(cat "$dir/create.err")"
awk -v d="$dt" -v l="$lim" 'BEGIN { exit !(d < l) }' || fail "create: took ${dt}s to stop"
[ -e "$dir/new.dat" ] && fail "create: $dir/new.dat is still there ($(stat -c %s "$dir/new.dat") bytes)"
grep -q "removed $dir/new.dat" "$dir/create.err" || fail "create: stderr does not say it was removed"
[ -s "$dir/create.out" ] && fail "create: printed a report though no job ran"
[ $failed = 0 ] && echo "ok   creating: stopped ${dt}s after SIGINT, file removed: $(tr '\n' '|' <"$dir/create.err")"

head -c 1048576 /dev/urandom >"$dir/old.dat"
sum=$(cksum <"$dir/old.dat")
stop_layout extend "$dir/old.dat"
[ "$rc" = 130 ] || fail "extend: exit $rc (want 130): $(cat "$dir/extend.err")"
awk -v d="$dt" -v l="$lim" 'BEGIN { exit !(d < l) }' || fail "extend: took ${dt}s to stop"
size=$(stat -c %s "$dir/old.dat" 2>/dev/null)
[ "$size" = 1048576 ] || fail "extend: $dir/old.dat is $size bytes, want 1048576"
[ "$(cksum <"$dir/old.dat")" = "$sum" ] || fail "extend: the old 1 MiB changed"
grep -q "truncated $dir/old.dat back to 1.00 MiB" "$dir/extend.err" || fail "extend: stderr does not say so"
[ $failed = 0 ] && echo "ok   extending: stopped ${dt}s after SIGINT, truncated back to 1 MiB, old data intact"
exit $failed
