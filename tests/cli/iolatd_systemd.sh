#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iolatd under systemd, without systemd: the unit file passes
# `systemd-analyze verify` (when installed); the readiness protocol is
# spoken to a socket of our own as $NOTIFY_SOCKET: READY=1 with MAINPID once
# it runs, RELOADING=1 then READY=1 around SIGHUP (what `systemctl reload`
# sends), STOPPING=1 on SIGTERM; WATCHDOG=1 every half $WATCHDOG_USEC (none
# without it); with $JOURNAL_STREAM naming its stderr, lines carry journald's
# "<N>" priorities (a missing group a warning, a refused reload an error); the
# unit's ExecReload= lines, run as systemd runs them (in order, the first
# failure ends the reload), fail on a bad file before any signal is sent; a
# group named as a unit is resolved through the systemctl found in
# $IOLATD_SYSTEMCTL (a fake here). The unit checks its file before start and
# reload, has a watchdog and a system call filter. The daemon part needs root
# and BPF (a dry run on a fake cgroup tree); it skips without.
set -u
. "$(dirname "$0")/lib.sh"
need_iolatd
dir=$(mktemp -d "${TMPDIR:-/tmp}/iolatd-sd-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
pid=; rpid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
fail_hook() { [ -f "$dir/log" ] && sed 's/^/  iolatd| /' "$dir/log"; }

sed "s|@SBINDIR@|$(cd "$(dirname "$IOLATD")" && pwd)|g; s|@DOCDIR@|/usr/share/doc/iolatency|g" \
	contrib/iolatd.service >"$dir/iolatd.service"
start_bin=$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$dir/iolatd.service")
grep -q "^ExecStartPre=$start_bin --check-config /etc/iolatd.conf$" "$dir/iolatd.service" || fail "the unit does not check the file before start"
grep -A1 "^ExecReload=$start_bin --check-config /etc/iolatd.conf$" "$dir/iolatd.service" | grep -q '^ExecReload=/bin/kill -HUP $MAINPID$' ||
	fail "the unit's reload is not: check, then SIGHUP"
grep -q '^WatchdogSec=[1-9]' "$dir/iolatd.service" || fail "the unit has no WatchdogSec="
grep -q '^SystemCallFilter=@system-service bpf$' "$dir/iolatd.service" || fail "the unit has no SystemCallFilter="
if command -v systemd-analyze >/dev/null; then
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
. tests/helpers/iolatd_fake_units.bash
fake_units "$dir" || fail "cannot build the fake tree in $dir"
printf '[global]\ndevice=%s\ncgroup_root=%s\nsystemd=0\n[group:web.service]\ntarget=2ms\n[group:nope]\ntarget=1ms\n' "$devno" "$cg" >"$dir/iolatd.conf"

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
: >"$dir/log"
export IOLATD_SYSTEMCTL=$dir/systemctl IOLATD_TEST_PLAIN_CGROUP_ROOT=1
NOTIFY_SOCKET=$dir/notify WATCHDOG_USEC=1000000 JOURNAL_STREAM=$(stat -c '%d:%i' "$dir/log") \
	"$IOLATD" --config "$dir/iolatd.conf" --run-dir "$dir/run" --foreground --dry-run 2>>"$dir/log" &
pid=$!
for _ in $(seq 50); do grep -q 'READY=1' "$dir/notes" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if ! kill -0 "$pid" 2>/dev/null && grep -q 'BPF: cannot' "$dir/log"; then
	pid=; echo "skip: $(grep -m1 'BPF: cannot' "$dir/log")"; exit 77
fi
grep -q "^READY=1|MAINPID=$pid|STATUS=controlling 1 device" "$dir/notes" || fail "no READY=1 with MAINPID: $(cat "$dir/notes")"
grep -q '^group path=system.slice/web.service .* unit=web.service target_us=2000 ' "$dir/run/status" ||
	fail "web.service not resolved to its cgroup: $(cat "$dir/run/status")"
# WATCHDOG_USEC=1000000: one WATCHDOG=1 every 0.5 s.
for _ in $(seq 50); do [ "$(grep -c '^WATCHDOG=1$' "$dir/notes")" -ge 3 ] && break; sleep 0.1; done
[ "$(grep -c '^WATCHDOG=1$' "$dir/notes")" -ge 3 ] || fail "no WATCHDOG=1 every 0.5 s: $(cat "$dir/notes")"
grep -q '^<5>controlling 1 device' "$dir/log" || fail "journal: the start line is not <5> (notice): $(cat "$dir/log")"
grep -q '^<4>.*group nope: no cgroup .*: waiting for it to appear' "$dir/log" || fail "journal: a missing group is not <4> (warning)"
grep -q '^<6>group system.slice/web.service of web.service: cgroup .* found, controlled' "$dir/log" || fail "journal: routine lines are not <6> (info)"
grep -v '^<[0-7]>' "$dir/log" | grep . && fail "journal: lines without a priority"

# systemctl reload with a bad file: the unit's ExecReload= lines, in order; the check fails, no signal.
reload() { # what systemd does for `systemctl reload`: each ExecReload= until one fails
	local line
	while read -r line; do
		line=${line//\/etc\/iolatd.conf/$dir\/iolatd.conf}
		line=${line//\$MAINPID/$pid}
		$line >>"$dir/reload.out" 2>&1 || return 1
	done < <(sed -n 's/^ExecReload=//p' "$dir/iolatd.service")
}
cp "$dir/iolatd.conf" "$dir/iolatd.conf.good"
printf '[global]\ndevice=%s\n[group:web.service]\ntarget=2 ms\n' "$devno" >"$dir/iolatd.conf"
reload && fail "systemctl reload would succeed with a bad file"
grep -q "iolatd.conf:4: key 'target'" "$dir/reload.out" || fail "the failed reload does not say why: $(cat "$dir/reload.out")"
sleep 0.3
grep -q '^RELOADING=1' "$dir/notes" && fail "a bad file was signalled to the daemon: $(cat "$dir/notes")"
# A refused reload inside the daemon (a HUP without the check) is an error line.
kill -HUP "$pid"
for _ in $(seq 30); do grep -q 'reload refused' "$dir/log" && break; sleep 0.1; done
grep -q "^<3>reload refused, the running configuration is kept: .*iolatd.conf:4: key 'target'" "$dir/log" ||
	fail "journal: a refused reload is not <3> (error): $(cat "$dir/log")"
cp "$dir/iolatd.conf.good" "$dir/iolatd.conf"
reload || fail "systemctl reload failed with a good file: $(cat "$dir/reload.out")"
for _ in $(seq 30); do [ "$(grep -c 'configuration reloaded' "$dir/notes")" -ge 1 ] && break; sleep 0.1; done
grep -A1 '^RELOADING=1' "$dir/notes" | grep -q '^READY=1|STATUS=configuration reloaded' || fail "reload not notified: $(cat "$dir/notes")"
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ "$rc" -eq 0 ] || fail "exit $rc on SIGTERM"
grep -q '^STOPPING=1' "$dir/notes" || fail "no STOPPING=1: $(cat "$dir/notes")"
echo "PASS"
