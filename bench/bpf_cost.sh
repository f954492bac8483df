#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf_cost.sh - what iolatd's BPF completion program costs per request on
# this machine: iolatd runs with control=0 (it measures, writes no limit) on
# the disk holding --dir while fio issues 4 KiB O_DIRECT random reads (libaio,
# QD 8, at most IOPS a second) for SECONDS; the program's run time over its
# run count (kernel.bpf_stats_enabled, set for the run and put back after;
# the program is the one this iolatd loaded: the new id) is printed per
# repetition. With several builds (-O A,B) the repetitions alternate
# between them, so a loaded machine hits both alike.
# Root, fio, python3, bpftool and an iolatd built with BPF are needed.
# usage: bench/bpf_cost.sh [-r REPS] [-s SECONDS] [-i IOPS] [-O BUILD[,BUILD...]] [-d DIR]
set -u
reps=3 secs=10 iops=8000 builds=${O:-build} where=/var/tmp
while getopts r:s:i:O:d: opt; do
	case $opt in r) reps=$OPTARG ;; s) secs=$OPTARG ;; i) iops=$OPTARG ;; O) builds=$OPTARG ;;
	d) where=$OPTARG ;; *) sed -n '/^# usage/p' "$0" >&2; exit 2 ;; esac
done
STATS=/proc/sys/kernel/bpf_stats_enabled
[ "$(id -u)" -eq 0 ] && [ -w "$STATS" ] && command -v fio >/dev/null && command -v bpftool >/dev/null ||
	{ echo "needs root, $STATS, fio and bpftool" >&2; exit 77; }
dir=$(mktemp -d "$where/iolat-bpfcost-XXXXXX") || exit 1
old=$(cat "$STATS") dpid=
cleanup() {
	[ -n "$dpid" ] && kill -TERM "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	echo "$old" >"$STATS"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
devno=$(python3 -c 'import os,sys; s=os.stat(sys.argv[1]).st_dev; print(f"{os.major(s)}:{os.minor(s)}")' "$dir")
[ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")
printf '[global]\ndevice=%s\ncontrol=0\n[group:iolat-bpfcost-none]\ntarget=1ms\n' "$devno" >"$dir/iolatd.conf"
fio --name=layout --filename="$dir/read.dat" --size=256m --rw=write --bs=1m --direct=1 --output=/dev/null
echo 1 >"$STATS"

prog_ids() { # the ids of every loaded iolatd completion program
	bpftool prog show --json | python3 -c '
import json, sys
print(" ".join(str(p["id"]) for p in json.load(sys.stdin) if p.get("name", "").startswith("iolatd_rq_comp")))'
}
prog_stats() { # "run_time_ns run_cnt" of the first program in $1 not in $2 (the one our daemon loaded)
	bpftool prog show --json | python3 -c '
import json, sys
now, before = sys.argv[1].split(), sys.argv[2].split()
mine = [i for i in now if i not in before]
for p in json.load(sys.stdin):
    if mine and str(p["id"]) == mine[0]:
        print(p.get("run_time_ns", 0), p.get("run_cnt", 0))
        break
else:
    print("0 0")' "$1" "$2"
}
echo "# disk $devno; fio 4k randread QD8 at most ${iops}/s, ${secs}s a run; ns per request of the program"
for rep in $(seq "$reps"); do
	for b in ${builds//,/ }; do
		rm -rf "$dir/run"; mkdir -p "$dir/run" # the program's cost does not depend on where this is
		before=$(prog_ids)
		"$b/iolatd" --config "$dir/iolatd.conf" --run-dir "$dir/run" --foreground 2>"$dir/log" &
		dpid=$!
		for _ in $(seq 100); do
			mine=$(prog_ids)
			[ -n "$(comm -13 <(tr ' ' '\n' <<<"$before" | sort) <(tr ' ' '\n' <<<"$mine" | sort))" ] && break
			sleep 0.1
		done
		s0=$(prog_stats "$mine" "$before")
		fio --name=r --filename="$dir/read.dat" --size=256m --rw=randread --bs=4k --iodepth=8 \
			--ioengine=libaio --direct=1 --rate_iops="$iops" --time_based --runtime="$secs" --output=/dev/null
		s1=$(prog_stats "$mine" "$before")
		kill -TERM "$dpid"; wait "$dpid"; dpid=
		echo "$rep $b $s0 $s1" | awk '{n = $6 - $4; c = n > 0 ? ($5 - $3) / n : 0
			printf "%s %-24s %7.0f ns/request over %d requests\n", $1, $2, c, n}'
	done
done
