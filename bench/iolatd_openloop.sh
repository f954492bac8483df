#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iolatd_openloop.sh - issue 26's open-loop case, measured: unmodified fio in
# a cgroup v1 blkio tree made for the run, a reader issuing 4 KiB random
# reads at a fixed rate (rate_iops, rate_process=poisson, libaio, a deep
# queue; fio's total latency `lat`, which counts from the submission, so a
# stall shows in the percentiles) in `main`, and a 1 MiB O_DIRECT writer at
# QD 32 (libaio) in its sibling `batch`. Modes, alternated in each
# repetition: none (no control), cap-N (the kernel's throttle at N MB/s on
# `batch`), and iolatd (control=MODE, [group:main] target=T). Every 100 ms a
# sampler records the write limit in force on `batch` and both cgroups'
# bytes (blkio.throttle.io_service_bytes); iolatd's log and a copy of its
# status each second are kept. One line per run; with -k DIR everything is
# kept in DIR (samples, logs, fio JSON), else removed. iolatd's run directory is on /dev/shm
# when that is a tmpfs (RUN_ON_DISK=1: beside the files, on the disk).
# Root, fio, python3 and an iolatd built with BPF are needed.
# usage: bench/iolatd_openloop.sh [-r REPS] [-s SECONDS] [-t TARGET] [-i IOPS] [-c CAPS_MB]
#                                 [-m MODES] [-C CONTROL] [-O BUILD] [-k KEEPDIR] [-L]
#                                 [-y ON,OFF,N]
# -L: the reader's latency of every read in a fio log (KEEPDIR/REP.MODE.rl_lat.log, times in ms
# from REP.MODE.t0, the CLOCK_MONOTONIC ns at the reader's start, as iolatd's clock).
# -y ON,OFF,N: a reader that comes and goes (issue 26 item 6): busy ON s at the rate, then idle
# OFF s, N times (one fio job per busy spell, reported together); -s is then N * (ON + OFF);
# a -L log's times are then unix ms (bench/spells.py reads them per spell).
set -u
reps=2 secs=12 target=1ms iops=3000 caps=520 control=adaptive O=${O:-build} keep= modes= latlog= cyc=
while getopts r:s:t:i:c:m:C:O:k:Ly: opt; do
	case $opt in r) reps=$OPTARG ;; s) secs=$OPTARG ;; t) target=$OPTARG ;; i) iops=$OPTARG ;;
	c) caps=$OPTARG ;; m) modes=$OPTARG ;; C) control=$OPTARG ;; O) O=$OPTARG ;; k) keep=$OPTARG ;; L) latlog=1 ;; y) cyc=$OPTARG ;;
	*) sed -n '/^# usage/,/^set/p' "$0" >&2; exit 2 ;; esac
done
spells=() # the reader's fio jobs: one steady job, or one per busy spell (-y)
if [ -n "$cyc" ]; then
	IFS=, read -r on off n extra <<<"$cyc"
	for v in "$on" "$off" "$n"; do
		[[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "-y: expected ON,OFF,N (whole numbers >= 1), got '$cyc'" >&2; exit 2; }
	done
	[ -z "$extra" ] || { echo "-y: expected ON,OFF,N, got '$cyc'" >&2; exit 2; }
	secs=$((n * (on + off)))
	spells=(--group_reporting --log_unix_epoch=1) # global (before the jobs); a -L log: unix ms
	for i in $(seq 0 $((n - 1))); do
		spells+=(--name="busy$i" --startdelay="$((i * (on + off)))" --runtime="$on")
	done
else
	spells=(--name=reader --runtime="$secs")
fi
BLKIO=/sys/fs/cgroup/blkio
[ "$(id -u)" -eq 0 ] && [ -e "$BLKIO/blkio.throttle.write_bps_device" ] && command -v fio >/dev/null ||
	{ echo "needs root, fio and the v1 blkio hierarchy at $BLKIO" >&2; exit 77; }
[ -x "$O/iolatd" ] || { echo "no $O/iolatd: build it first" >&2; exit 77; }
base=iolat-openloop-$$ cg=$BLKIO/iolat-openloop-$$
dir=$(mktemp -d /var/tmp/iolat-openloop-XXXXXX) || exit 1
# iolatd's run directory on a tmpfs: on the disk it controls its status writes wait behind the
# writer, and its loop with them (docs/iolatd.md, issue 26). RUN_ON_DISK=1 keeps it on the disk.
run=$dir/run
[ -z "${RUN_ON_DISK:-}" ] && grep -q '^[^ ]* /dev/shm tmpfs ' /proc/self/mounts && run=$(mktemp -d /dev/shm/iolat-openloop-XXXXXX)
dpid= spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	[ -n "$dpid" ] && kill -TERM "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	for c in main batch; do
		[ -e "$cg/$c/cgroup.procs" ] && while read -r t; do kill -KILL "$t" 2>/dev/null; done <"$cg/$c/cgroup.procs"
	done
	sleep 0.5
	[ -e "$cg/batch" ] && echo "$devno 0" >"$cg/batch/blkio.throttle.write_bps_device" 2>/dev/null
	for c in main batch ""; do rmdir "$cg/$c" 2>/dev/null; done
	rm -f "$dir/read.dat" "$dir/write.dat"
	if [ -n "$keep" ]; then mkdir -p "$keep" && cp -r "$dir"/. "$keep"/; fi
	rm -rf "$dir"
	[ "$run" != "$dir/run" ] && rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$cg/main" "$cg/batch" "$run"
devno=$(python3 -c 'import os,sys; s=os.stat(sys.argv[1]).st_dev; print(f"{os.major(s)}:{os.minor(s)}")' "$dir")
[ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")
printf '[global]\ndevice=%s\ncontrol=%s\n[group:%s/main]\ntarget=%s\n' "$devno" "$control" "$base" \
	"$target" >"$dir/iolatd.conf"
fio --name=layout --filename="$dir/read.dat" --size=1g --rw=write --bs=1m --direct=1 --output=/dev/null
[ -n "$modes" ] || modes="none $(for c in ${caps//,/ }; do printf 'cap-%s ' "$c"; done)iolatd"

in_cg() { local c=$1; shift; sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg/$c" "$@"; }
bytes_of() { # cgroup direction: its own bytes on the disk
	awk -v d="$devno" -v w="$2" '$1==d && $2==w {print $3; f=1} END {if (!f) print 0}' \
		"$cg/$1/blkio.throttle.io_service_bytes"
}
sampler() { # t_ns wbps_in_force writer_bytes reader_bytes, every 100 ms
	while :; do
		printf '%s %s %s %s\n' "$(date +%s%N)" \
			"$(awk -v d="$devno" '$1==d {print $2; f=1} END {if (!f) print 0}' \
				"$cg/batch/blkio.throttle.write_bps_device")" \
			"$(bytes_of batch Write)" "$(bytes_of main Read)"
		[ -f "$run/status" ] && cp "$run/status" "$dir/status.$(date +%s)" 2>/dev/null
		sleep 0.1
	done
}
one_run() { # rep mode; prints the run's line
	local rep=$1 mode=$2 w tag=$1.$2
	echo "$devno 0" >"$cg/batch/blkio.throttle.write_bps_device"
	case $mode in
	cap-*) echo "$devno $((${mode#cap-} * 1000000))" >"$cg/batch/blkio.throttle.write_bps_device" ;;
	iolatd)
		"$O/iolatd" --config "$dir/iolatd.conf" --run-dir "$run" --foreground 2>"$dir/$tag.iolatd.log" &
		dpid=$!
		for _ in $(seq 50); do [ -f "$run/status" ] && break; sleep 0.1; done ;;
	esac
	sampler >"$dir/$tag.samples" &
	spid=$!
	in_cg batch fio --name=writer --filename="$dir/write.dat" --size=2g --rw=write --bs=1m \
		--iodepth=32 --ioengine=libaio --direct=1 --time_based --runtime=$((secs + 3)) \
		--output-format=json --output="$dir/$tag.w.json" &
	w=$!
	sleep 2
	python3 -c 'import time; print(time.monotonic_ns())' >"$dir/$tag.t0"
	in_cg main fio ${latlog:+--write_lat_log="$dir/$tag.rl" --log_avg_msec=0 --per_job_logs=0} --filename="$dir/read.dat" --size=1g --rw=randread --bs=4k \
		--iodepth=64 --ioengine=libaio --direct=1 --rate_iops="$iops" --rate_process=poisson \
		--time_based --lat_percentiles=1 --percentile_list=50:90:99:99.9 \
		--output-format=json --output="$dir/$tag.r.json" "${spells[@]}"
	wait "$w"
	kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; spid=
	if [ -n "$dpid" ]; then
		mkdir -p "$dir/$tag.status"; mv "$dir"/status.* "$dir/$tag.status/" 2>/dev/null
		kill -TERM "$dpid"; wait "$dpid"; dpid=; rm -f "$run/status"
	fi
	echo "$devno 0" >"$cg/batch/blkio.throttle.write_bps_device"
	python3 - "$dir/$tag.r.json" "$dir/$tag.w.json" "$rep" "$mode" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]
p = r["read"]["lat_ns"]["percentile"]
w = json.load(open(sys.argv[2]))["jobs"][0]["write"]
ms = lambda k: p[k] / 1e6
print("%s %-8s p50 %7.2f p90 %7.2f p99 %7.2f p99.9 %8.2f ms  reads/s %5.0f  writer %5.0f MB/s" % (
    sys.argv[3], sys.argv[4], ms("50.000000"), ms("90.000000"), ms("99.000000"), ms("99.900000"),
    r["read"]["iops"], w["bw_bytes"] / 1e6))
PY
}
echo "# disk $devno; reader main: 4k randread libaio QD64 at ${iops}/s poisson (lat)${cyc:+, busy/idle/spells $cyc}; writer batch: 1M write QD32; ${secs}s; iolatd control=$control target=$target"
for rep in $(seq "$reps"); do
	for mode in $modes; do one_run "$rep" "$mode"; done
done
