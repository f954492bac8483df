# SPDX-License-Identifier: MIT
# Shared by the guest scenarios (sourced, busybox sh): the workloads (iolat
# run on the scratch disk /dev/vda, no controller of its own) placed in
# cgroups, and readings of a cgroup's io.stat and io.max.
CG=/sys/fs/cgroup
DEV=$(cat /sys/block/vda/dev)
WORK=/tmp/work
mkdir -p $WORK

now_ms() { awk '{printf "%d\n", $1 * 1000}' /proc/uptime; }

# Enable io from the root down to cgroup $1 (a path under $CG), creating it.
cg_make() {
	local path=$1 cur=$CG part
	for part in $(echo "$path" | tr '/' ' '); do
		grep -qw io $cur/cgroup.subtree_control || echo +io >$cur/cgroup.subtree_control || return 1
		cur=$cur/$part
		mkdir -p $cur || return 1
	done
}

# Run job file $2 with iolat run in cgroup $1, in the background; $! is its pid.
# Output (JSON) goes to $WORK/$3.json, messages to $WORK/$3.err.
run_in_cg() {
	local cg=$1 job=$2 name=$3
	sh -c "echo \$\$ >$CG/$cg/cgroup.procs && exec iolat run $job --no-control -q --output-format=json --output=$WORK/$name.json" \
		2>$WORK/$name.err &
}

# A 1 MiB sequential O_DIRECT writer at QD 32 over the first 768 MiB, for $1 s.
writer_job() {
	cat >$WORK/writer.ini <<EOF
[global]
filename=/dev/vda
size=768m
direct=1
ioengine=uring
time_based=1
runtime=$1
[writer]
rw=write
bs=1m
iodepth=32
EOF
	echo $WORK/writer.ini
}

# A 4 KiB random O_DIRECT reader at QD 1 over the last 256 MiB, for $1 s.
reader_job() {
	cat >$WORK/reader.ini <<EOF
[global]
filename=/dev/vda
offset=768m
size=256m
direct=1
ioengine=uring
time_based=1
runtime=$1
[reader]
rw=randread
bs=4k
iodepth=1
EOF
	echo $WORK/reader.ini
}

# Bytes written (wbytes) by cgroup $1 on the scratch disk, from io.stat.
cg_wbytes() {
	awk -v d="$DEV" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^wbytes=/) { sub("wbytes=", "", $i); print $i; exit } } END { }' \
		$CG/$1/io.stat | grep . || echo 0
}

# The wbps limit in cgroup $1's io.max on the scratch disk (0: none).
cg_wbps() {
	awk -v d="$DEV" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^wbps=/) { sub("wbps=", "", $i); v = $i } }
		END { print (v == "" || v == "max") ? 0 : v }' $CG/$1/io.max
}

# Every $2 ms until file $3 exists: "ms wbytes wbps wios wiops" of cgroup $1
# (0 for no limit), to stdout.
sample_cg() {
	local cg=$1 every=$2 stop=$3
	while [ ! -e "$stop" ]; do
		awk -v d="$DEV" -v t="$(now_ms)" '
			FILENAME ~ /io.stat$/ && $1 == d { for (i = 2; i <= NF; i++) { split($i, kv, "="); st[kv[1]] = kv[2] } }
			FILENAME ~ /io.max$/ && $1 == d { for (i = 2; i <= NF; i++) { split($i, kv, "="); mx[kv[1]] = kv[2] == "max" ? 0 : kv[2] } }
			END { printf "%.0f %.0f %.0f %.0f %.0f\n", t, st["wbytes"], mx["wbps"], st["wios"], mx["wiops"] }' \
			$CG/$cg/io.stat $CG/$cg/io.max
		usleep $((every * 1000))
	done
}

# Kill every task in cgroup $1 and wait until it is empty.
cg_kill() {
	local t
	[ -e $CG/$1/cgroup.procs ] || return 0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -s $CG/$1/cgroup.procs ] || return 0
		for t in $(cat $CG/$1/cgroup.procs); do kill -9 $t 2>/dev/null; done
		sleep 0.3
	done
}
