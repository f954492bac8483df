#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iolatd under systemd, without systemd: the unit file passes
# `systemd-analyze verify` (when installed); the readiness protocol is
# spoken to a socket of our own as $NOTIFY_SOCKET: READY=1 with MAINPID once
# it runs, RELOADING=1 then READY=1 around SIGHUP (what `systemctl reload`
# sends), STOPPING=1 on SIGTERM; a group named as a unit is resolved through
# the systemctl found in $IOLATD_SYSTEMCTL (a fake here). The daemon part
# needs root and BPF (a dry run on a fake cgroup tree); it skips without.
set -u
IOLATD=${IOLATD:-${O:-build}/iolatd}
[ -x "$IOLATD" ] || { echo "skip: $IOLATD not built"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/iolatd-sd-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
pid=; rpid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/log" ] && sed 's/^/  iolatd| /' "$dir/log"; exit 1; }

if command -v systemd-analyze >/dev/null; then
	sed "s|@BINDIR@|$(cd "$(dirname "$IOLATD")" && pwd)|g; s|@DOCDIR@|/usr/share/doc/iolatency|g" \
		contrib/iolatd.service >"$dir/iolatd.service"
	systemd-analyze verify "$dir/iolatd.service" >"$dir/verify" 2>&1 ||
		{ grep -v -e 'ConditionPathExists' -e "Command 'man " "$dir/verify" | grep -q . && fail "systemd-analyze verify: $(cat "$dir/verify")"; }
	grep -q '^Type=notify$' "$dir/iolatd.service" || fail "the unit is not Type=notify"
fi

[ "$(id -u)" -eq 0 ] || { echo "skip: the daemon part needs root (the unit checks passed)"; exit 77; }
"$IOLATD" --version | grep -q 'measurement: built' || { echo "skip: iolatd built without BPF"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
devno=$(python3 -c 'import os,sys; s=os.stat(sys.argv[1]).st_dev; print(f"{os.major(s)}:{os.minor(s)}")' "$dir")
[ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")
[ -e "/sys/dev/block/$devno/mq" ] || { echo "skip: $dir is not on a plain disk"; exit 77; }

cg=$dir/cg
mkdir -p "$cg/system.slice/web.service" "$cg/system.slice/backup.service" "$dir/run"
for c in "$cg" "$cg/system.slice" "$cg"/system.slice/*; do
	for f in read_bps write_bps read_iops write_iops; do : >"$c/blkio.throttle.${f}_device"; done
done
printf 'Id=web.service\nLoadState=loaded\nControlGroup=/system.slice/web.service\n' >"$dir/show.out"
printf '#!/bin/sh\n[ "$1" = show ] || exit 1\ncat "%s"\n' "$dir/show.out" >"$dir/systemctl"
chmod +x "$dir/systemctl"
printf '[global]\ndevice=%s\ncgroup_root=%s\nsystemd=0\n[group:web.service]\ntarget=2ms\n' "$devno" "$cg" >"$dir/iolatd.conf"

# The notification socket: every datagram, one line each ("|" for newlines).
python3 - "$dir/notify" >"$dir/notes" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    print(s.recv(4096).decode().replace("\n", "|"), flush=True)
PY
rpid=$!
for _ in $(seq 50); do [ -S "$dir/notify" ] && break; sleep 0.1; done
NOTIFY_SOCKET=$dir/notify IOLATD_SYSTEMCTL=$dir/systemctl IOLATD_TEST_PLAIN_CGROUP_ROOT=1 \
	"$IOLATD" --config "$dir/iolatd.conf" --run-dir "$dir/run" --foreground --dry-run 2>"$dir/log" &
pid=$!
for _ in $(seq 50); do grep -q 'READY=1' "$dir/notes" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if ! kill -0 "$pid" 2>/dev/null && grep -q 'BPF: cannot' "$dir/log"; then
	pid=; echo "skip: $(grep -m1 'BPF: cannot' "$dir/log")"; exit 77
fi
grep -q "^READY=1|MAINPID=$pid|STATUS=controlling 1 device" "$dir/notes" || fail "no READY=1 with MAINPID: $(cat "$dir/notes")"
grep -q '^group path=system.slice/web.service .* unit=web.service target_us=2000 ' "$dir/run/status" ||
	fail "web.service not resolved to its cgroup: $(cat "$dir/run/status")"
kill -HUP "$pid"
for _ in $(seq 30); do grep -q 'configuration reloaded' "$dir/notes" && break; sleep 0.1; done
grep -A1 '^RELOADING=1' "$dir/notes" | grep -q '^READY=1|STATUS=configuration reloaded' || fail "reload not notified: $(cat "$dir/notes")"
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ "$rc" -eq 0 ] || fail "exit $rc on SIGTERM"
grep -q '^STOPPING=1' "$dir/notes" || fail "no STOPPING=1: $(cat "$dir/notes")"
echo "PASS"
