#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The unit's SystemCallFilter= lets iolatd do its work: every system call a
# dry run makes (start, BPF load and attach, a second of polling, the status
# file, systemctl show through a fake, SIGHUP reload, SIGTERM and the removal
# of its limits), and those of iolatd --check-config, traced with strace -f,
# must be in the unit's filter as systemd expands it (systemd-analyze
# syscall-filter, groups expanded). A call outside it would fail with EPERM
# under systemd (SystemCallErrorNumber=). Needs root, BPF, strace and
# systemd-analyze; skips (77) without them.
set -u
. "$(dirname "$0")/lib.sh"
need_iolatd
# A sanitizer adds its own calls (and LeakSanitizer cannot run under ptrace): the filter is for the plain build.
[ -z "${SAN:-}" ] || { echo "skip: traced in the plain build only (SAN=$SAN)"; exit 77; }
command -v strace >/dev/null || { echo "skip: strace not installed"; exit 77; }
command -v systemd-analyze >/dev/null || { echo "skip: systemd-analyze not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root (BPF)"; exit 77; }
"$IOLATD" --version | grep -q 'measurement: built' || { echo "skip: iolatd built without BPF"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/iolatd-sc-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

devno=$(python3 -c 'import os,sys; s=os.stat(sys.argv[1]).st_dev; print(f"{os.major(s)}:{os.minor(s)}")' "$dir")
[ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")
[ -e "/sys/dev/block/$devno/mq" ] || { echo "skip: $dir is not on a plain disk"; exit 77; }

# The filter as the unit says it, expanded the way systemd expands it.
filter=$(sed -n 's/^SystemCallFilter=//p' contrib/iolatd.service)
[ -n "$filter" ] || fail "contrib/iolatd.service has no SystemCallFilter="
expand() {
	local item
	for item in "$@"; do
		if [[ $item == @* ]]; then
			expand $(systemd-analyze syscall-filter --no-pager "$item" | sed -n 's/^ \{4\}\([@a-z0-9_-]*\)$/\1/p')
		else
			echo "$item"
		fi
	done
}
expand $filter | sort -u >"$dir/allowed"
[ "$(wc -l <"$dir/allowed")" -gt 100 ] || fail "the filter expanded to too few calls: $(wc -l <"$dir/allowed")"

cg=$dir/cg
. tests/helpers/iolatd_fake_units.bash
fake_units "$dir" || fail "cannot build the fake tree in $dir"
printf '[global]\ndevice=%s\ncgroup_root=%s\nsystemd=0\n[group:web.service]\ntarget=2ms\n' "$devno" "$cg" >"$dir/iolatd.conf"
export IOLATD_SYSTEMCTL=$dir/systemctl IOLATD_TEST_PLAIN_CGROUP_ROOT=1

strace -f -qq -o "$dir/trace.check" "$IOLATD" --check-config "$dir/iolatd.conf" >/dev/null 2>&1 ||
	fail "check-config under strace failed"
strace -f -qq -o "$dir/trace.run" "$IOLATD" --config "$dir/iolatd.conf" --run-dir "$dir/run" --foreground \
	--dry-run 2>"$dir/log" &
pid=$! # strace's; the signals go to iolatd itself (its pid from the status file)
for _ in $(seq 100); do [ -f "$dir/run/status" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
[ -f "$dir/run/status" ] || { grep -q 'BPF: cannot' "$dir/log" && { echo "skip: $(grep -m1 'BPF' "$dir/log")"; exit 77; }; fail "no status: $(cat "$dir/log")"; }
daemon=$(sed -n '1s/^iolatd pid=\([0-9]*\) .*/\1/p' "$dir/run/status")
[ -n "$daemon" ] || fail "no pid in the status file"
sleep 1.2
kill -HUP "$daemon"
for _ in $(seq 30); do grep -q 'configuration reloaded' "$dir/log" && break; sleep 0.1; done
kill -TERM "$daemon"; wait "$pid"; rc=$?; pid=
[ "$rc" -eq 0 ] || fail "iolatd under strace: exit $rc: $(cat "$dir/log")"
grep -q 'configuration reloaded' "$dir/log" || fail "no reload under strace: $(cat "$dir/log")"

# strace's "NAME(" at a line's start (after the pid), its resumptions and exits left out.
sed -n 's/^[0-9]\+ \+\([a-z_0-9]\+\)(.*/\1/p' "$dir/trace.check" "$dir/trace.run" | sort -u >"$dir/used"
[ "$(grep -cx bpf "$dir/used")" -eq 1 ] || fail "no bpf(2) in the trace: the program was not loaded?"
outside=$(comm -23 "$dir/used" "$dir/allowed")
[ -z "$outside" ] || fail "system calls outside SystemCallFilter=$filter: $(echo $outside)"
echo "PASS ($(wc -l <"$dir/used") distinct system calls, all within SystemCallFilter=$filter)"
