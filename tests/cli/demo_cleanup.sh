#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `iolat demo` on real files says how much it will write, refuses a
# directory without the room for it, and leaves nothing behind on every way
# out: a SIGTERM (exit 143, its report of what ran), a second signal that
# kills it (SIGINT then SIGTERM), a failed run. Uses $IOLAT; the files go
# to a mktemp directory (1.25 GiB at most while it runs). The "no room" case
# mounts a 16 MiB tmpfs, as root only.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/iolat-demo-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
free_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
[ "${free_kb:-0}" -ge $((4 * 1024 * 1024)) ] || { rm -rf "$dir"; echo "skip: less than 4 GiB free in $dir"; exit 77; }
small=$dir/small pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	mountpoint -q "$small" 2>/dev/null && umount "$small"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
cli_collect_failures
mkdir "$dir/files"
leftovers() { ls -A "$dir/files"; }

# The demo on files, stopped after SECONDS by SIGNALS...; sets rc.
demo_stopped() {
	local after=$1; shift
	"$IOLAT" demo --dir "$dir/files" --seconds 3 -q >"$dir/out" 2>"$dir/err" &
	pid=$!
	sleep "$after"
	for s in "$@"; do kill -"$s" "$pid" 2>/dev/null; done
	wait "$pid"; rc=$?; pid=
}

demo_stopped 4 TERM
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc, want 143: $(cat "$dir/err")"
grep -q "two temporary files, 1.25 GiB in all, in $dir/files" "$dir/err" || fail "the size is not stated"
grep -q "interrupted by signal 15; its temporary files are removed" "$dir/err" || fail "SIGTERM: no line"
[ -z "$(leftovers)" ] && echo "ok   SIGTERM: exit 143, nothing left: $(tr '\n' '|' <"$dir/err")" ||
	fail "SIGTERM left: $(leftovers)"

demo_stopped 2 INT TERM
# Sent back to back, the two signals may be handled on two threads at once:
# whichever takes the first place, the other kills (130 or 143), with no report.
{ [ $rc -eq 143 ] || [ $rc -eq 130 ]; } && [ ! -s "$dir/out" ] ||
	fail "SIGINT then SIGTERM: exit $rc, want 143 or 130 (killed) and no report: $(cat "$dir/out")"
[ -z "$(leftovers)" ] && echo "ok   killed by a second signal: nothing left" || fail "killed: left $(leftovers)"

# `iolat demo --sim` stops on SIGINT too, and marks the mode it cut short.
# A mode takes ~2 s here: a signal that lands between two modes cuts none
# short (the next is "interrupted before the jobs started": no row), so
# another time, the signal later.
for wait_s in 2 3.3 4.6; do
	"$IOLAT" demo --sim --seconds 3600 >"$dir/out" 2>"$dir/err" &
	pid=$!; sleep "$wait_s"; kill -INT "$pid"; wait "$pid"; rc=$?; pid=
	[ $rc -eq 130 ] && grep -q ' (stopped) ' "$dir/out" && break
done
[ $rc -eq 130 ] && grep -q ' (stopped) ' "$dir/out" && echo "ok   demo --sim: SIGINT, exit 130" ||
	fail "demo --sim: exit $rc, want 130 and a '(stopped)' row: $(cat "$dir/out" "$dir/err")"

# A run that fails: a bad --cap is refused before anything; a bad --target too.
"$IOLAT" demo --dir "$dir/files" --cap nope >/dev/null 2>"$dir/err"
[ $? -eq 2 ] && [ -z "$(leftovers)" ] || fail "--cap nope: $(cat "$dir/err"), left $(leftovers)"

# No room: refused before writing anything.
if [ "$(id -u)" = 0 ] && mkdir "$small" && mount -t tmpfs -o size=16m iolat-demo-test "$small" 2>/dev/null; then
	"$IOLAT" demo --dir "$small" --seconds 1 >"$dir/out" 2>"$dir/err"; rc=$?
	if [ $rc -eq 2 ] && grep -q "needs 1.25 GiB for two temporary files and the filesystem has 16.0 MiB free" "$dir/err" &&
	   [ -z "$(ls -A "$small")" ]; then
		echo "ok   no room: $(cat "$dir/err")"
	else
		fail "no room: exit $rc: $(cat "$dir/err"); left $(ls -A "$small")"
	fi
else
	echo "(no tmpfs: the 'no room' case needs root)"
fi
exit $failed
