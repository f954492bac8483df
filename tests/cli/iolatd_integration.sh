#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iolatd end to end on this machine, with unmodified programs: an fio 4 KiB
# random reader at QD 1 (target 1 ms) in app/main and an fio 1 MiB O_DIRECT
# writer at QD 32 two levels down, in app/batch/a (as systemd puts a service
# below its slice), in a blkio (v1) tree created for the test; only app/main
# is configured. v1's throttle is flat: the clamped app/batch's budget must
# be written on app/batch/a, where the writer is.
#   1. without iolatd: the reader's p90 beside the writer;
#   2. with iolatd: app/batch is clamped and app/batch/a receives limits
#      within a few windows (app/batch itself none), status says so, and the
#      reader's p90 drops (required ≥ 2x only when step 1 showed real
#      contention, p90 ≥ 2 ms; otherwise reported);
#   3. SIGTERM: no limit of iolatd's remains, and an administrator's limit
#      set before it started is back;
#   4. SIGKILL leaves a limit; the next start removes it before anything else.
# The subtree, the files and the processes are removed on every path (trap).
# Skips (77) without root, BTF, a v1 blkio hierarchy with throttling, fio, or
# an iolatd built with BPF. Takes about 40 s.
set -u
. "$(dirname "$0")/lib.sh"
BLKIO=${IOLAT_BLKIO_ROOT:-/sys/fs/cgroup/blkio}
[ -z "${SAN:-}" ] || skip "runs in the plain build only (40 s of real disk I/O; SAN=$SAN)"
[ "$(id -u)" -eq 0 ] || skip "needs root (cgroups, BPF)"
[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
[ -e "$BLKIO/blkio.throttle.write_bps_device" ] || skip "no cgroup v1 blkio hierarchy with throttling at $BLKIO"
command -v fio >/dev/null || skip "fio not installed"
command -v python3 >/dev/null || skip "python3 not installed"
need_iolatd
"$IOLATD" --version | grep -q 'BPF measurement: built' || skip "iolatd built without BPF (clang, bpftool, libbpf-dev)"

base=iolat-test-$$
cg=$BLKIO/$base
R=app/main      # the reader's cgroup, configured with a target
W=app/batch/a   # the writer's, two levels down, not configured
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/iolatd-it-XXXXXX") || skip "no temp dir"
run=$dir/run
mkdir -p "$run"
pids=()
dpid=
# Stop every task in cgroup $1 (fio and its workers) with SIGTERM, then SIGKILL.
stop_cg() {
	local sig t
	[ -e "$cg/$1/cgroup.procs" ] || return 0
	for sig in TERM TERM TERM KILL KILL; do
		[ -s "$cg/$1/cgroup.procs" ] || return 0
		while read -r t; do kill -"$sig" "$t" 2>/dev/null; done <"$cg/$1/cgroup.procs"
		for _ in $(seq 20); do [ -s "$cg/$1/cgroup.procs" ] || return 0; sleep 0.1; done
	done
}
cleanup() {
	[ -n "$dpid" ] && kill -TERM "$dpid" 2>/dev/null && sleep 0.5
	[ -n "$dpid" ] && kill -KILL "$dpid" 2>/dev/null
	for c in $R $W; do stop_cg "$c"; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	for c in $R $W app/batch app; do
		[ -d "$cg/$c" ] || continue
		for _ in $(seq 100); do rmdir "$cg/$c" 2>/dev/null && break; sleep 0.1; done # a zombie leaves late
	done
	[ -d "$cg" ] && { rmdir "$cg" || echo "cleanup: could not remove $cg"; }
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail_hook() { [ -f "$dir/iolatd.log" ] && sed 's/^/  iolatd| /' "$dir/iolatd.log" | tail -n 20; }

mkdir -p "$cg/$R" "$cg/$W" || skip "cannot create cgroups under $BLKIO"

# The whole disk under the temp dir (throttling applies to disks, not partitions).
devno=$(python3 -c 'import os,sys; s=os.stat(sys.argv[1]).st_dev; print(f"{os.major(s)}:{os.minor(s)}")' "$dir")
[ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")
[ -e "/sys/dev/block/$devno/queue" ] || skip "temp dir $dir is not on a plain block device ($devno)"

cat >"$dir/iolatd.conf" <<EOF
[global]
device=$devno

[group:$base/$R]
target=1ms
EOF

# Lay out the reader's file once.
fio --name=layout --filename="$dir/read.dat" --size=256m --rw=write --bs=1m --direct=1 \
	--output=/dev/null || fail "fio could not lay out $dir/read.dat"

# fio in a cgroup: the shell moves itself there, then becomes fio.
in_cg() { local c=$1; shift; sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg/$c" "$@"; }

start_writer() { # sh (then fio) is our direct child: $writer is fio itself
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg/$W" fio --name=writer --filename="$dir/write.dat" --size=512m --rw=write --bs=1m \
		--iodepth=32 --ioengine=libaio --direct=1 --time_based --runtime=60 \
		--output=/dev/null &
	pids+=($!)
	writer=$!
}
stop_writer() { kill -TERM "$writer" 2>/dev/null; wait "$writer" 2>/dev/null; }

# Reader: $2 s of warm-up (not counted), then $1 s; prints its p90 completion latency in µs.
reader_p90() {
	in_cg $R fio --name=reader --filename="$dir/read.dat" --size=256m --rw=randread --bs=4k \
		--iodepth=1 --ioengine=psync --direct=1 --time_based --runtime="$1" --ramp_time="${2:-0}" \
		--output-format=json --output="$dir/reader.json" || return 1
	python3 -c 'import json,sys
j=json.load(open(sys.argv[1]))["jobs"][0]["read"]
print(int(j["clat_ns"]["percentile"]["90.000000"]/1000))' "$dir/reader.json"
}

limits_of() { # the values of the four throttle files for the disk in cgroup $1
	local f out=
	for f in read_bps write_bps read_iops write_iops; do
		out+="$(awk -v d="$devno" '$1==d {print $2}' "$cg/$1/blkio.throttle.${f}_device") "
	done
	echo "$out"
}
has_limit() { [ -n "$(limits_of "$1" | tr -d ' ')" ]; }
limit_of() { awk -v d="$devno" '$1==d {print $2}' "$cg/$1/blkio.throttle.$2_device"; } # cgroup, kind

start_iolatd() { # returns once this start logged that it runs
	local before
	before=$(grep -c 'controlling' "$dir/iolatd.log" 2>/dev/null)
	"$IOLATD" --config "$dir/iolatd.conf" --run-dir "$run" --foreground >>"$dir/iolatd.log" 2>&1 &
	dpid=$!
	for _ in $(seq 50); do
		[ "$(grep -c 'controlling' "$dir/iolatd.log")" -gt "${before:-0}" ] && return 0
		if ! kill -0 "$dpid" 2>/dev/null; then
			# A kernel or container that refuses the BPF program: say so, do not fail.
			grep -q 'BPF: cannot' "$dir/iolatd.log" && skip "$(grep -m1 'BPF: cannot' "$dir/iolatd.log")"
			fail "iolatd exited at start"
		fi
		sleep 0.1
	done
	fail "iolatd did not start in 5 s"
}

echo "[${SECONDS}s] set up"
# 1. Without control.
start_writer
sleep 1
p90_none=$(reader_p90 6 3) || fail "reader failed"
stop_writer
echo "[${SECONDS}s] reader p90 without iolatd: ${p90_none} us"

# 2. With iolatd; an administrator's own (high) write limit on the writer first.
admin=8000000000
echo "$devno $admin" >"$cg/$W/blkio.throttle.write_bps_device" || fail "cannot set the admin limit"
start_iolatd
start_writer
sleep 1
t0=$(date +%s.%N)
reader_p90 6 3 >"$dir/p90_ctl" &
reader=$!
pids+=($reader)
for _ in $(seq 100); do
	wl=$(awk -v d="$devno" '$1==d {print $2}' "$cg/$W/blkio.throttle.write_bps_device")
	[ -n "$wl" ] && [ "$wl" != "$admin" ] && break
	sleep 0.1
done
[ -n "$wl" ] && [ "$wl" != "$admin" ] || fail "no limit on the writer's cgroup within 10 s of the reader's start"
echo "[${SECONDS}s] writer limited $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s after the reader started: write_bps=$wl"
has_limit $R && fail "the protected reader's cgroup got limits: $(limits_of $R)"
has_limit app/batch && fail "a limit on app/batch binds nothing on v1, yet it got one: $(limits_of app/batch)"
sleep 1.2 # the status file is rewritten every second
[ -f "$run/status" ] || fail "no status file in $run"
grep -q "^group path=$base/app/batch " "$run/status" || fail "status file lacks the writer's parent group"
if [ -x "${IOLAT:-$O/iolat}" ]; then
	"${IOLAT:-$O/iolat}" status --run-dir "$run" --json >"$dir/status.json" || fail "iolat status failed"
	python3 -c 'import json,sys
j=json.load(open(sys.argv[1])); b=sys.argv[2]; g={x["path"]:x for x in j["groups"]}
l={x["path"]:x for x in j["limits"]}
assert g[b+"/app/batch"]["limited"]==1 and g[b+"/app/main"]["limited"]==0, g
assert l[b+"/app/batch/a"]["for"]==b+"/app/batch", l' "$dir/status.json" "$base" ||
		fail "iolat status --json: app/batch should be limited through app/batch/a, the reader not"
	"${IOLAT:-$O/iolat}" status --run-dir "$run" | sed 's/^/  status| /'
fi
wait "$reader" || fail "reader failed"
p90_ctl=$(cat "$dir/p90_ctl")
echo "[${SECONDS}s] reader p90 with iolatd: ${p90_ctl} us (without: ${p90_none} us)"
if [ "$p90_none" -ge 2000 ]; then
	if [ $((p90_ctl * 2)) -gt "$p90_none" ]; then
		# Another tenant on the disk (I/O of no cgroup of the test) is not iolatd's to stop:
		# the daemon says so; then the run proves nothing either way.
		other=$(grep -o 'the misses come from elsewhere (I/O of no configured group on this disk: [0-9.]* MiB/s' \
			"$dir/iolatd.log" | grep -oE '[0-9.]+ MiB/s' | sort -n | tail -n1)
		[ -n "$other" ] && [ "${other%%.*}" -ge 100 ] &&
			skip "inconclusive: another tenant's I/O on the disk ($other of no test cgroup): reader p90 $p90_ctl us vs $p90_none us"
		fail "reader p90 did not halve: $p90_ctl us vs $p90_none us"
	fi
else
	echo "note: little contention without control (p90 $p90_none us < 2 ms): no drop required"
fi

# 3. SIGTERM: nothing of ours remains; the administrator's limit is back.
kill -TERM "$dpid"; wait "$dpid"; rc=$?; dpid=
[ "$rc" -eq 0 ] || fail "iolatd exited $rc on SIGTERM"
[ "$(limit_of $W write_bps)" = "$admin" ] && [ -z "$(limit_of $W read_bps)$(limit_of $W read_iops)$(limit_of $W write_iops)" ] ||
	fail "writer limits after SIGTERM: '$(limits_of $W)' (want only write_bps=$admin)"
has_limit $R && fail "reader limits after SIGTERM: $(limits_of $R)"
[ -e "$run/limits" ] && fail "record of written limits left after SIGTERM"
grep -q 'removed [0-9]* limit' "$dir/iolatd.log" || fail "no shutdown line saying what was removed"
echo "$devno 0" >"$cg/$W/blkio.throttle.write_bps_device"
echo "[${SECONDS}s] SIGTERM: limits removed, the administrator's restored"

# 4. SIGKILL leaves a limit; a restart removes it first.
start_iolatd
reader_p90 5 >/dev/null &
pids+=($!)
for _ in $(seq 100); do has_limit $W && break; sleep 0.1; done
has_limit $W || fail "no limit on the writer before SIGKILL"
echo "[${SECONDS}s] limited again"
kill -KILL "$dpid"; wait "$dpid" 2>/dev/null; dpid=
stop_cg $R; wait "${pids[-1]}" 2>/dev/null
stop_writer
has_limit $W || fail "the limit vanished with SIGKILL: nothing to test"
[ -s "$run/limits" ] || fail "no record of written limits after SIGKILL"
echo "[${SECONDS}s] SIGKILL left: $(limits_of $W)"
start_iolatd
has_limit $W && fail "stale limit after restart: $(limits_of $W)"
grep -q 'stale limit' "$dir/iolatd.log" || fail "restart did not report the stale limits it removed"
kill -TERM "$dpid"; wait "$dpid"; dpid=
echo "[${SECONDS}s] restart after SIGKILL: stale limits removed"
echo "PASS"
