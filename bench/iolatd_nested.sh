#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iolatd_nested.sh - the nested case of docs/iolatd.md, measured: unmodified
# fio in a cgroup v1 blkio tree made for the run, a 4 KiB random reader at
# QD 1 (psync, O_DIRECT) in app/main, a 1 MiB O_DIRECT writer at QD 32
# (libaio) two levels down in app/batch/a, as systemd puts a service below
# its slice. Modes, alternated within each repetition: no control; iolatd
# with [group:app/main] target=T (it clamps app/batch and, v1's throttle
# being flat, writes the limit on app/batch/a). Prints one line per run and
# the medians. Root, fio, python3 and an iolatd built with BPF are needed.
# usage: bench/iolatd_nested.sh [-r REPS] [-s SECONDS] [-t TARGET] [-O BUILD]
set -u
reps=3 secs=15 target=1ms O=${O:-build}
while getopts r:s:t:O: opt; do
	case $opt in r) reps=$OPTARG ;; s) secs=$OPTARG ;; t) target=$OPTARG ;; O) O=$OPTARG ;;
	*) echo "usage: $0 [-r REPS] [-s SECONDS] [-t TARGET] [-O BUILD]" >&2; exit 2 ;; esac
done
BLKIO=/sys/fs/cgroup/blkio
[ "$(id -u)" -eq 0 ] && [ -e "$BLKIO/blkio.throttle.write_bps_device" ] && command -v fio >/dev/null ||
	{ echo "needs root, fio and the v1 blkio hierarchy at $BLKIO" >&2; exit 77; }
base=iolat-nested-$$ cg=$BLKIO/iolat-nested-$$
dir=$(mktemp -d /var/tmp/iolat-nested-XXXXXX) || exit 1
dpid=
cleanup() {
	[ -n "$dpid" ] && kill -TERM "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	for c in app/main app/batch/a; do
		[ -e "$cg/$c/cgroup.procs" ] && while read -r t; do kill -KILL "$t" 2>/dev/null; done <"$cg/$c/cgroup.procs"
	done
	sleep 0.5
	for c in app/batch/a app/batch app/main app ""; do rmdir "$cg/$c" 2>/dev/null; done
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$cg/app/main" "$cg/app/batch/a" "$dir/run"
devno=$(python3 -c 'import os,sys; s=os.stat(sys.argv[1]).st_dev; print(f"{os.major(s)}:{os.minor(s)}")' "$dir")
[ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")
printf '[global]\ndevice=%s\n[group:%s/app/main]\ntarget=%s\n' "$devno" "$base" "$target" >"$dir/iolatd.conf"
fio --name=layout --filename="$dir/read.dat" --size=256m --rw=write --bs=1m --direct=1 --output=/dev/null

in_cg() { local c=$1; shift; sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg/$c" "$@"; }
one_run() { # mode; prints "p50 p90 p99 (us) writer_MBps unattributed_MiBps"
	local mode=$1 w r
	if [ "$mode" = iolatd ]; then
		"$O/iolatd" --config "$dir/iolatd.conf" --run-dir "$dir/run" --foreground 2>>"$dir/iolatd.log" &
		dpid=$!
		for _ in $(seq 50); do [ -f "$dir/run/status" ] && break; sleep 0.1; done
	fi
	in_cg app/batch/a fio --name=writer --filename="$dir/write.dat" --size=512m --rw=write --bs=1m \
		--iodepth=32 --ioengine=libaio --direct=1 --time_based --runtime=$((secs + 2)) \
		--output-format=json --output="$dir/w.json" &
	w=$!
	sleep 1
	in_cg app/main fio --name=reader --filename="$dir/read.dat" --size=256m --rw=randread --bs=4k \
		--iodepth=1 --ioengine=psync --direct=1 --time_based --runtime="$secs" \
		--output-format=json --output="$dir/r.json"
	other=$(awk '/^device /{for(i=1;i<=NF;i++) if($i ~ /^unattributed_bps=/){split($i,a,"="); print a[2]/1048576}}' "$dir/run/status" 2>/dev/null)
	wait "$w"
	if [ -n "$dpid" ]; then kill -TERM "$dpid"; wait "$dpid"; dpid=; fi
	python3 - "$dir/r.json" "$dir/w.json" "${other:--}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]["clat_ns"]["percentile"]
w = json.load(open(sys.argv[2]))["jobs"][0]["write"]
print("%d %d %d %.0f %s" % (r["50.000000"] / 1000, r["90.000000"] / 1000, r["99.000000"] / 1000,
                            w["bw_bytes"] / 1e6, sys.argv[3]))
PY
}
echo "# disk $devno, reader app/main 4k randread QD1, writer app/batch/a 1M write QD32, ${secs}s, target $target"
echo "# rep mode p50_us p90_us p99_us writer_MBps other_MiBps(iolatd runs)"
for rep in $(seq "$reps"); do
	for mode in none iolatd; do
		echo "$rep $mode $(one_run $mode)"
	done
done | tee "$dir/runs"
echo "# medians"
for mode in none iolatd; do
	awk -v m="$mode" '$2==m {print $3, $4, $5, $6}' "$dir/runs" | python3 -c '
import sys, statistics as st
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
cols = list(zip(*rows))
print(sys.argv[1], "p50 %d us, p90 %d us, p99 %d us, writer %d MB/s (n=%d)" %
      tuple([st.median(c) for c in cols] + [len(rows)]))' "$mode"
done
grep -m3 'limited\|does not hold\|elsewhere' "$dir/iolatd.log" | sed 's/^/# iolatd: /'
