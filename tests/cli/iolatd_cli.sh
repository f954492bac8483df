#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iolatd's command line: --help says that cgroup v1 cannot throttle buffered
# writeback; --version says the Makefile's VERSION and whether BPF is built;
# bad configurations (missing file, bad key, bad target, unknown
# device, bad option) give one line and exit 2 and create nothing;
# --check-config gives one FILE:LINE line per problem (every one of a file
# that does not parse; several at once when it parses), exit 1, creates
# nothing; a file it would start with is exit 0 with its warnings marked, also while a daemon holds the run dir
# (no lock taken, nothing written); then, as
# root with BPF, a dry run on a fake cgroup tree in a temp dir: it starts,
# writes its status file, reloads on SIGHUP (a bad file refused with the
# running configuration kept, a good one taken), exits 0 on SIGTERM and
# removes its status file, having written no limit; a second daemon on the
# same run dir is refused with one line naming the first.
set -u
. "$(dirname "$0")/lib.sh"
need_iolatd
dir=$(mktemp -d "${TMPDIR:-/tmp}/iolatd-cli-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
fail_hook() { [ -f "$dir/log" ] && sed 's/^/  iolatd| /' "$dir/log"; }

"$IOLATD" --help | grep -q 'cannot throttle background writeback' || fail "--help lacks the v1 writeback note"
version=$(sed -n 's/^VERSION *:= *//p' Makefile)
"$IOLATD" --version | grep -q "^iolatd $version (libiolatency), BPF measurement: \(built\|not built\)" ||
	fail "--version: $("$IOLATD" --version), want iolatd $version and whether BPF is built"

# --check-config: exit 1 and one line per problem, FILE:LINE first; nothing created.
checked() { # config text, expected exit, expected error lines, expected parts...
	printf '%b' "$1" >"$dir/chk.conf"
	"$IOLATD" --check-config "$dir/chk.conf" >"$dir/out" 2>"$dir/err"
	local rc=$? want=$2 lines=$3 part
	shift 3
	[ "$rc" -eq "$want" ] || fail "check-config '$(head -c 80 "$dir/chk.conf")': exit $rc, want $want: $(cat "$dir/err")"
	# (the host's cgroups may add warnings: the errors are counted)
	[ "$(grep -vc ': warning: ' "$dir/err")" -eq "$lines" ] || fail "check-config: $lines error line(s) wanted: $(cat "$dir/err")"
	for part; do grep -q -- "$part" "$dir/err" || fail "check-config: '$(cat "$dir/err")' lacks '$part'"; done
	[ -e "$dir/run-bad" ] && fail "check-config created a run directory"
	return 0
}
checked '[global]\ndevice=vda\n[group:a]\ntarget=fast\n' 1 1 "^$dir/chk.conf:4: key 'target': expected a duration"
checked '[global]\ndevice=vda\nstrcit=1\n[group:a]\ntarget=fast\n' 1 2 \
	"^$dir/chk.conf:3: key 'strcit': unknown key in \\[global\\].*did you mean 'strict'" \
	"^$dir/chk.conf:5: key 'target': expected a duration"
checked '[global]\ndevice=no-such-disk-9\ntextfile=/nonexistent-iolatd/x.prom\n[group:a]\ntarget=1ms\n' 1 2 \
	"^$dir/chk.conf:2: key 'device': device 'no-such-disk-9': no such block device" \
	"^$dir/chk.conf:3: key 'textfile': /nonexistent-iolatd: not a writable directory"
checked '[global]\ndevice=vda\n[group:a]\nweight=0\n[group:b]\nweight=heavy\n[group:c]\nwieght=5\n' 1 3 \
	"^$dir/chk.conf:4: key 'weight': expected an integer from 1 to 10000 (got '0')" \
	"^$dir/chk.conf:6: key 'weight': expected an integer (got 'heavy')" \
	"^$dir/chk.conf:8: key 'wieght': unknown key in a \\[group:\\] section (target, weight); did you mean 'weight'"
[ -s "$dir/out" ] && fail "check-config said ok about a bad file: $(cat "$dir/out")"
"$IOLATD" --check-config "$dir/none.conf" 2>"$dir/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "none.conf: cannot open" "$dir/err" || fail "check-config, missing file: exit $rc: $(cat "$dir/err")"
"$IOLATD" --check-config "$dir/a.conf" "$dir/b.conf" 2>/dev/null; [ $? -eq 2 ] || fail "check-config with two files: want exit 2"

bad() { # config text, expected message part
	printf '%b' "$1" >"$dir/bad.conf"
	"$IOLATD" --config "$dir/bad.conf" --run-dir "$dir/run-bad" --foreground 2>"$dir/err"
	local rc=$?
	[ "$rc" -eq 2 ] || fail "config '$1': exit $rc, want 2"
	[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "config '$1': not one line: $(cat "$dir/err")"
	grep -q -- "$2" "$dir/err" || fail "config '$1': '$(cat "$dir/err")' lacks '$2'"
	[ -e "$dir/run-bad" ] && fail "config '$1': the run dir was created"
	return 0
}
bad '[global]\ndevice=vda\n[group:a]\ntarget=fast\n' "bad.conf:4: key 'target': expected a duration"
bad '[global]\ndevice=vda\nspeed=1\n' "bad.conf:3: key 'speed'"
bad '[group:a]\ntarget=1ms\n' "key 'device': missing"
bad '[global]\ndevice=vda\n[group:/sys/fs/cgroup/blkio/app/main]\ntarget=1ms\n' "bad.conf:3: section .*: an absolute path"
bad '[global]\ndevice=vda\n[group:app/../etc]\ntarget=1ms\n' "'..' is not allowed"
bad '[global]\ndevice=vda\n[group:a]\ntarget=10000h\n' "bad.conf:4: key 'target': expected a duration up to 10s"
bad '[global]\ndevice=vda\ntextfile=iolatd.txt\n[group:a]\ntarget=1ms\n' "bad.conf:3: key 'textfile': expected an absolute path ending in .prom"
"$IOLATD" --config "$dir/none.conf" --run-dir "$dir/run-bad" 2>"$dir/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q 'none.conf: cannot open' "$dir/err" || fail "missing config: exit $rc: $(cat "$dir/err")"
"$IOLATD" --bogus 2>/dev/null; [ $? -eq 2 ] || fail "bad option: want exit 2"
printf '[global]\ndevice=no-such-disk-9\n[group:a]\ntarget=1ms\n' >"$dir/nodev.conf"
mkdir "$dir/run-nodev"
"$IOLATD" --config "$dir/nodev.conf" --run-dir "$dir/run-nodev" --foreground 2>"$dir/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "device 'no-such-disk-9'" "$dir/err" || fail "unknown device: exit $rc: $(cat "$dir/err")"
[ -z "$(ls "$dir/run-nodev")" ] || fail "unknown device: files written in the run dir"

# The dry run needs root and BPF; the rest above does not.
[ "$(id -u)" -eq 0 ] || { echo "skip: the dry run needs root (the rest passed)"; exit 77; }
"$IOLATD" --version | grep -q 'measurement: built' || { echo "skip: iolatd built without BPF (the rest passed)"; exit 77; }
[ -r /sys/kernel/btf/vmlinux ] || { echo "skip: no kernel BTF (the rest passed)"; exit 77; }
devno=$(python3 -c 'import os,sys; s=os.stat(sys.argv[1]).st_dev; print(f"{os.major(s)}:{os.minor(s)}")' "$dir" 2>/dev/null) || devno=
[ -n "$devno" ] && [ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")
[ -n "$devno" ] && [ -e "/sys/dev/block/$devno/queue" ] || { echo "skip: $dir is not on a plain disk (the rest passed)"; exit 77; }
# Configurations that would protect nothing: refused with one line, exit 2, no limit written.
refused() { # config text, expected message part
	printf '%b' "$1" >"$dir/ref.conf"
	mkdir -p "$dir/run-ref"
	"$IOLATD" --config "$dir/ref.conf" --run-dir "$dir/run-ref" --foreground 2>"$dir/err"
	local rc=$?
	[ "$rc" -eq 2 ] || fail "config '$1': exit $rc, want 2: $(cat "$dir/err")"
	[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q -- "$2" "$dir/err" || fail "config '$1': '$(cat "$dir/err")' lacks '$2'"
	[ -e "$dir/run-ref/limits" ] && fail "config '$1': limits recorded"
	return 0
}
mkdir -p "$dir/plain/app"
refused "[global]\ndevice=$devno\ntextfile=$dir/nodir/iolatd.prom\n[group:app]\ntarget=1ms\n" "key 'textfile': $dir/nodir: not a writable directory"
refused "[global]\ndevice=$devno\ncgroup_root=$dir/plain\n[group:app]\ntarget=1ms\n" "not a cgroup filesystem"
if [ -e /sys/fs/cgroup/memory/cgroup.procs ] && [ ! -e /sys/fs/cgroup/memory/blkio.throttle.read_bps_device ]; then
	refused "[global]\ndevice=$devno\ncgroup_root=/sys/fs/cgroup/memory\n[group:app]\ntarget=1ms\n" "without blkio throttling"
fi
if [ -e /sys/block/zram0 ] && [ ! -e /sys/block/zram0/mq ]; then
	refused "[global]\ndevice=zram0\n[group:app]\ntarget=1ms\n" "device 'zram0': bio-based"
fi
if [ -e /sys/fs/cgroup/blkio/blkio.throttle.read_bps_device ]; then
	refused "[global]\ndevice=$devno\nstrict=1\ncgroup_root=/sys/fs/cgroup/blkio\n[group:iolat-no-such-$$]\ntarget=1ms\n" "no cgroup /sys/fs/cgroup/blkio/iolat-no-such-$$ (strict=1"
fi

cg=$dir/cg
mkdir -p "$cg/app/web" "$cg/app/batch" "$dir/run"
for c in "$cg" "$cg/app" "$cg/app/web" "$cg/app/batch"; do
	for f in read_bps write_bps read_iops write_iops; do : >"$c/blkio.throttle.${f}_device"; done
done
mkdir "$dir/textfiles"
conf() { printf '[global]\ndevice=%s\ncgroup_root=%s\ntextfile=%s\n[group:app/web]\ntarget=%s\n[group:app/mian]\ntarget=1ms\n' "$devno" "$cg" "$dir/textfiles/iolatd.prom" "$1" >"$dir/ok.conf"; }
conf 2ms
IOLATD_TEST_PLAIN_CGROUP_ROOT=1 "$IOLATD" --config "$dir/ok.conf" --run-dir "$dir/run" --foreground --dry-run \
	--log-file "$dir/log" 2>"$dir/stderr" &
pid=$!
# (the status file and the textfile are written one after the other: wait for both)
for _ in $(seq 50); do
	[ -f "$dir/run/status" ] && [ -f "$dir/textfiles/iolatd.prom" ] && break
	kill -0 "$pid" 2>/dev/null || break; sleep 0.1
done
if ! kill -0 "$pid" 2>/dev/null && grep -q 'BPF: cannot' "$dir/stderr"; then
	pid=
	echo "skip: $(grep -m1 'BPF: cannot' "$dir/stderr") (the rest passed)"; exit 77
fi
[ -f "$dir/run/status" ] || fail "no status file within 5 s"
grep -q "^iolatd .* dry_run=1 " "$dir/run/status" || fail "status: not a dry run"
grep -q "^group path=app/web .* target_us=2000 " "$dir/run/status" || fail "status: no app/web with its target"
grep -q "^group path=app/batch " "$dir/run/status" || fail "status: the sibling app/batch was not discovered"
grep -q "ok.conf:7: group app/mian: no cgroup $cg/app/mian: waiting for it to appear" "$dir/log" || fail "no warning for the missing group app/mian"
grep -q "^waiting path=app/mian " "$dir/run/status" || fail "status does not say it waits for app/mian"
[ -f "$dir/textfiles/iolatd.prom" ] || fail "no node_exporter textfile"
python3 scripts/promcheck.py "$dir/textfiles/iolatd.prom" || fail "the textfile is not valid exposition text"
if command -v promtool >/dev/null; then
	promtool check metrics <"$dir/textfiles/iolatd.prom" || fail "promtool check metrics refuses the textfile"
fi
# The disk as the kernel (and node_exporter's device= label) names it, though configured as MAJ:MIN.
disk=$(sed -n 's/^DEVNAME=//p' "/sys/dev/block/$devno/uevent")
grep -q '^iolatd_group_target_seconds{group="app/web",device="'"$disk"'"} 0.002$' "$dir/textfiles/iolatd.prom" ||
	fail "the textfile lacks app/web's target: $(head -20 "$dir/textfiles/iolatd.prom")"
grep -q 'group="app/batch"' "$dir/textfiles/iolatd.prom" && fail "the textfile has series for app/batch, neither configured nor limited"
grep -q "disk $disk ($devno): .* rule (" "$dir/log" || fail "the start-up log does not say which rule judges the disk"
# A second daemon on the same run dir: refused, naming the first; nothing of the first's touched.
IOLATD_TEST_PLAIN_CGROUP_ROOT=1 "$IOLATD" --config "$dir/ok.conf" --run-dir "$dir/run" --foreground --dry-run 2>"$dir/err2"; rc=$?
[ "$rc" -eq 1 ] && grep -q "in use by iolatd pid $pid " "$dir/err2" || fail "second daemon: exit $rc: $(cat "$dir/err2")"
[ "$(wc -l <"$dir/err2")" -eq 1 ] || fail "second daemon: not one line: $(cat "$dir/err2")"
[ -f "$dir/run/status" ] || fail "the second daemon removed the first one's status file"
printf '[global]\ndevice=%s\n[group:x]\ntarget=soon\n' "$devno" >"$dir/ok.conf.bad"
cp "$dir/ok.conf" "$dir/ok.conf.good"
# --check-config while the daemon runs on this tree: no lock, no write; the missing group a warning.
cp "$dir/run/status" "$dir/status.before"
IOLATD_TEST_PLAIN_CGROUP_ROOT=1 "$IOLATD" --config "$dir/ok.conf" --check-config >"$dir/out" 2>"$dir/err"; rc=$?
[ "$rc" -eq 0 ] || fail "check-config of the running configuration: exit $rc: $(cat "$dir/err")"
grep -q "^$dir/ok.conf: ok (1 device(s), 2 group(s))$" "$dir/out" || fail "check-config: no ok line: $(cat "$dir/out")"
grep -q "^$dir/ok.conf:7: warning: group app/mian: no cgroup $cg/app/mian: iolatd waits for it$" "$dir/err" ||
	fail "check-config: no warning for app/mian: $(cat "$dir/err")"
[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "check-config: more than the one warning: $(cat "$dir/err")"
kill -0 "$pid" || fail "check-config disturbed the running daemon"
printf '[global]\ndevice=%s\ncgroup_root=%s\nstrict=1\n[group:app/mian]\ntarget=1ms\n' "$devno" "$cg" >"$dir/strict.conf"
IOLATD_TEST_PLAIN_CGROUP_ROOT=1 "$IOLATD" --check-config "$dir/strict.conf" 2>"$dir/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "^$dir/strict.conf:5: group app/mian: no cgroup $cg/app/mian (strict=1" "$dir/err" ||
	fail "check-config, strict=1 and a missing cgroup: exit $rc: $(cat "$dir/err")"
for f in "$cg"/app/*/blkio.throttle.*; do [ -s "$f" ] && fail "check-config wrote $f"; done
cp "$dir/ok.conf.bad" "$dir/ok.conf"
kill -HUP "$pid"
for _ in $(seq 30); do grep -q 'reload refused' "$dir/log" && break; sleep 0.1; done
grep -q "reload refused.*ok.conf:4: key 'target'" "$dir/log" || fail "a bad reload was not refused with its line"
kill -0 "$pid" || fail "iolatd died on a bad reload"
conf 5ms
kill -HUP "$pid"
for _ in $(seq 30); do grep -q 'target_us=5000 ' "$dir/run/status" 2>/dev/null && break; sleep 0.1; done
grep -q "^group path=app/web .* target_us=5000 " "$dir/run/status" || fail "the good reload's target is not in force"
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ "$rc" -eq 0 ] || fail "exit $rc on SIGTERM"
[ -e "$dir/run/status" ] && fail "status file left after SIGTERM"
[ -e "$dir/textfiles/iolatd.prom" ] && fail "textfile left after SIGTERM"
grep -qE '^[0-9T:-]+ iolatd\[[0-9]+\]: controlling 1 device' "$dir/log" || fail "--log-file lacks the time-stamped start line"
grep -q 'Terminated: removed 0 limit(s), exiting' "$dir/log" || fail "--log-file lacks the shutdown line"
[ -s "$dir/stderr" ] && fail "with --log-file, lines went to stderr: $(cat "$dir/stderr")"
[ -e "$dir/run/limits" ] && fail "a dry run recorded limits"
for f in "$cg"/app/*/blkio.throttle.*; do [ -s "$f" ] && fail "a dry run wrote $f"; done

# Detached without a syslog socket: the log goes to RUN_DIR/iolatd.log, said before detaching.
if [ ! -S /dev/log ]; then
	IOLATD_TEST_PLAIN_CGROUP_ROOT=1 "$IOLATD" --config "$dir/ok.conf" --run-dir "$dir/run" --dry-run 2>"$dir/stderr"
	grep -q "no syslog (/dev/log): logging to $dir/run/iolatd.log" "$dir/stderr" || fail "detached: no word on where it logs: $(cat "$dir/stderr")"
	for _ in $(seq 50); do grep -q 'controlling 1 device' "$dir/run/iolatd.log" 2>/dev/null && break; sleep 0.1; done
	pid=$(sed -n '1s/^iolatd pid=\([0-9]*\) .*/\1/p' "$dir/run/status") # the detached one's, by then
	[ -n "$pid" ] || fail "detached: no status"
	grep -q 'controlling 1 device' "$dir/run/iolatd.log" || fail "detached: nothing in $dir/run/iolatd.log"
	kill -TERM "$pid"
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && fail "detached: still running after SIGTERM"
	pid=
	grep -q "removed 0 limit(s), exiting" "$dir/run/iolatd.log" || fail "detached: no shutdown line in the log: $(cat "$dir/run/iolatd.log")"
fi
echo "PASS"
