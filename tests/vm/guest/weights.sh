# SPDX-License-Identifier: MIT
# Guest scenario "weights": issue 28's anchor, side by side in one guest and
# one boot (bench/vm_weights.sh boots it and judges what it prints). Two
# sibling cgroups a and b under the v2 root, each running unmodified fio
# (the host's, copied in with its libraries: VM_EXTRA): 1 MiB sequential
# O_DIRECT writes at QD 32 (libaio), a on the disk's first 384 MiB, b on the
# next. Cases: w100_300 (a 100, b 300), w100_100, alone (a writes, b weighted
# 300 idle). Modes: none (no control), iocost (the kernel's io.weight with
# io.cost enabled on the disk: "MAJ:MIN enable=1" in the root's io.cost.qos,
# its default model and QoS, the weights in each group's io.weight), iolatd
# (io.cost disabled again; iolatd with weight= per group, nothing else).
# Each repetition runs every case in every mode, the cases' order rotated and
# the modes' rotated per case, so no mode always goes first.
# Prints, for the host's parser (bench/vm_weights.py), lines starting "VMW ":
#   VMW info KEY=VALUE...          the disk and the kernel
#   VMW iocost.model LINE / VMW iocost.qos LINE   as io.cost shows them, enabled
#   VMW run rep=N case=K mode=M    a run begins
#   VMW s MS A B [BUDGET_A BUDGET_B]  every ~100 ms: uptime ms, each group's
#                                  bytes read+written (io.stat), iolatd's budgets
#   VMW started / busy ...         fio started; every group did I/O
#   VMW cpu busy_pm=N iolatd_ticks=N ticks=N   over the judged seconds: the
#                                  guest's CPU busy (per mille), iolatd's ticks
#   VMW iocost.stat PATH LINE      io.cost: io.stat at the end (cost.vrate...)
#   VMW status LINE                iolatd: its status file's device and groups
#   VMW stuck ... / stack ...      a fio that did not stop (see stop_fios)
#   VMW end rep=N case=K mode=M t_end_ms=MS ok=0|1 [why=...]
#   VMW done                       every run finished
# Args, KEY=VALUE: SECS (8, measured seconds after SKIP), SKIP (2), REPS (3),
# CASES (w100_300+w100_100+alone), MODES (none+iocost+iolatd): '+' between
# names (vmargs splits on ',').
# The disk: QEMU's throttle, 200 MiB/s for reads and writes together (as the
# iolatd scenario's), so the device, not the host's disk, is the shared limit.
# vm-drive: throttling.bps-total=209715200
. /test/lib.sh
for a; do case $a in *=*) eval "${a%%=*}='${a#*=}'" ;; esac; done
SECS=${SECS:-8}
SKIP=${SKIP:-2}
REPS=${REPS:-3}
CASES=$(echo "${CASES:-w100_300 w100_100 alone}" | tr '+' ' ')
MODES=$(echo "${MODES:-none iocost iolatd}" | tr '+' ' ')
RUN=/run/iolatd-w
CONF=$WORK/weights.conf
HALF=$((384 * 1024 * 1024))

command -v fio >/dev/null || { echo "weights: no fio in the guest (VM_EXTRA=/usr/bin/fio)"; exit 77; }
[ -e $CG/io.cost.qos ] || { echo "weights: no io.cost.qos (CONFIG_BLK_CGROUP_IOCOST)"; exit 77; }
cg_make a && cg_make b || exit 1

# The words of $2 rotated left by $1.
rotate() {
	local n=$1 w i=0 head="" tail=""
	shift
	set -- $*
	n=$((n % $#))
	for w; do
		if [ $i -lt $n ]; then head="$head $w"; else tail="$tail $w"; fi
		i=$((i + 1))
	done
	echo $tail $head
}
weight_of() { # case group
	case $1.$2 in *.a) echo 100 ;; w100_300.b | alone.b) echo 300 ;; *) echo 100 ;; esac
}
# fio for group $1 (a: the first half, b: the second), for long enough; we stop it.
start_fio() {
	local off=0
	[ "$1" = b ] && off=$HALF
	sh -c "echo \$\$ >$CG/$1/cgroup.procs && exec fio --name=w$1 --filename=/dev/vda --rw=write --bs=1m \
		--iodepth=32 --ioengine=libaio --direct=1 --offset=$off --size=$HALF --time_based --runtime=120 \
		--eta=never --output=$WORK/fio.$1.out" >/dev/null 2>$WORK/fio.$1.err &
}
# Every 100 ms until file $1 exists: "VMW s ms a b [budget_a budget_b]".
sampler() {
	while [ ! -e "$1" ]; do
		awk -v d="$DEV" '
			FILENAME == "/proc/uptime" { t = $1 * 1000 }
			FILENAME ~ /io.stat$/ && $1 == d { n = 0
				for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "rbytes" || kv[1] == "wbytes") n += kv[2] }
				by[FILENAME] = n }
			FILENAME ~ /status$/ && /budget_bps=/ { p = ""; v = ""
				for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "path") p = kv[2]; if (kv[1] == "budget_bps") v = kv[2] }
				if (p == "a" || p == "b") bud[p] = v }
			END { a = by[ENVIRON["CG"] "/a/io.stat"]; b = by[ENVIRON["CG"] "/b/io.stat"]
				printf "VMW s %.0f %.0f %.0f", t, a, b
				if ("a" in bud || "b" in bud) printf " %s %s", ("a" in bud) ? bud["a"] : "-", ("b" in bud) ? bud["b"] : "-"
				printf "\n" }' /proc/uptime $CG/a/io.stat $CG/b/io.stat $( [ -e $RUN/status ] && echo $RUN/status)
		usleep 100000
	done
}
# Stop the fio of every group: SIGTERM (fio reaps what it has in flight and
# exits), up to 10 s; then say where a task still waits (writers were seen
# waiting in io_getevents for their last I/Os for over 10 s, in every mode),
# SIGKILL it and wait until its cgroup is empty (up to 60 s more), so
# that its last I/Os do not count in the next run. The run's figures end at
# t_end, before this.
stop_fios() {
	local t g t0=$(now_ms)
	for g in a b; do for t in $(cat $CG/$g/cgroup.procs); do kill -TERM $t 2>/dev/null; done; done
	for _ in $(seq 50); do [ -z "$(cat $CG/a/cgroup.procs $CG/b/cgroup.procs)" ] && return 0; usleep 200000; done
	for g in a b; do
		for t in $(cat $CG/$g/cgroup.procs); do
			echo "VMW stuck $g pid=$t state=$(awk '{print $3}' /proc/$t/stat) wchan=$(cat /proc/$t/wchan)"
			sed "s/^/VMW stack /" /proc/$t/stack 2>/dev/null | head -n 3
			kill -KILL $t
		done
	done
	for _ in $(seq 300); do [ -z "$(cat $CG/a/cgroup.procs $CG/b/cgroup.procs)" ] && break; usleep 200000; done
	echo "VMW stuck gone=$([ -z "$(cat $CG/a/cgroup.procs $CG/b/cgroup.procs)" ] && echo 1 || echo 0) after_ms=$(( $(now_ms) - t0 ))"
}
# "busy total" jiffies of the guest's CPUs so far (/proc/stat), and "T" the
# clock ticks process $1 used (0: none).
cpu_now() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat; }
proc_ticks() { [ -n "$1" ] && [ -r /proc/$1/stat ] && awk '{ print $14 + $15 }' /proc/$1/stat || echo 0; }
bytes_of() { awk -v d="$DEV" '$1 == d { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "rbytes" || kv[1] == "wbytes") n += kv[2] } } END { print n + 0 }' $CG/$1/io.stat; }
iocost() { # on|off [case]
	if [ "$1" = on ]; then
		echo "default $(weight_of $2 a)" >$CG/a/io.weight && echo "default $(weight_of $2 b)" >$CG/b/io.weight &&
			echo "$DEV enable=1" >$CG/io.cost.qos
	else
		echo "$DEV enable=0" >$CG/io.cost.qos
		echo "default 100" >$CG/a/io.weight; echo "default 100" >$CG/b/io.weight
	fi
}

export CG
echo 1 >/sys/module/blk_cgroup/parameters/blkcg_debug_stats 2>/dev/null
echo "VMW info kernel=$(uname -r) dev=$DEV rotational=$(cat /sys/block/vda/queue/rotational) \
scheduler=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/vda/queue/scheduler) nr_requests=$(cat /sys/block/vda/queue/nr_requests) \
fio=$(fio --version) secs=$SECS skip=$SKIP reps=$REPS"
echo "VMW iocost.before.qos $(grep "^$DEV " $CG/io.cost.qos)"
# The model and QoS io.cost picks for this disk (its defaults: only enable=1 written).
iocost on w100_300 || { echo "weights: cannot enable io.cost on $DEV"; exit 1; }
sed "s/^/VMW iocost.model /" $CG/io.cost.model
sed "s/^/VMW iocost.qos /" $CG/io.cost.qos
echo "VMW iocost.weights a=$(cat $CG/a/io.weight | tr '\n' ' ') b=$(cat $CG/b/io.weight | tr '\n' ' ')"
iocost off
# Every block written once (a sparse image's first writes allocate on the host).
dd if=/dev/zero of=/dev/vda bs=1M count=768 oflag=direct 2>/dev/null

one_run() { # rep case mode
	local rep=$1 c=$2 m=$3 ok=1 why="" dpid="" t0 groups="a b"
	[ "$c" = alone ] && groups=a
	echo "VMW run rep=$rep case=$c mode=$m"
	rm -f $WORK/stop $RUN/status
	case $m in
	iocost) iocost on $c || { ok=0; why=iocost; } ;;
	iolatd)
		printf '[global]\ndevice=vda\n\n[group:a]\nweight=%s\n\n[group:b]\nweight=%s\n' \
			"$(weight_of $c a)" "$(weight_of $c b)" >$CONF
		iolatd --foreground --config $CONF --run-dir $RUN --log-file $WORK/iolatd.$rep.$c.log &
		dpid=$!
		for _ in $(seq 50); do [ -e $RUN/status ] && break; usleep 200000; done
		[ -e $RUN/status ] || { ok=0; why=no_status; } ;;
	esac
	sampler $WORK/stop &
	spid=$!
	base_a=$(bytes_of a); base_b=$(bytes_of b)
	for g in $groups; do start_fio $g; done
	t0=$(now_ms)
	echo "VMW started base=$base_a,$base_b ms=$t0"
	while :; do # until every group did I/O (at most 30 s)
		busy=1
		[ "$(bytes_of a)" -gt "$base_a" ] || busy=0
		[ "$c" = alone ] || [ "$(bytes_of b)" -gt "$base_b" ] || busy=0
		[ $busy = 1 ] && break
		[ $(( $(now_ms) - t0 )) -gt 30000 ] && { ok=0; why=no_io; break; }
		usleep 100000
	done
	echo "VMW busy ok=$ok ms=$(now_ms)"
	if [ $ok = 1 ]; then # the CPU over the judged seconds: is the guest's CPU the limit?
		sleep $SKIP
		c0=$(cpu_now); d0=$(proc_ticks "$dpid")
		sleep $SECS && usleep 300000
		c1=$(cpu_now); d1=$(proc_ticks "$dpid")
		set -- $c0 $c1
		echo "VMW cpu busy_pm=$(( ($3 - $1) * 1000 / ($4 - $2 + 1) )) iolatd_ticks=$((d1 - d0)) ticks=$(($4 - $2))"
	fi
	for g in $groups; do [ -n "$(cat $CG/$g/cgroup.procs)" ] || { ok=0; why=fio_exited_$g; }; done
	t_end=$(now_ms)
	touch $WORK/stop; wait $spid
	if [ "$m" = iocost ]; then # io.cost's own view at the end (vrate: blkcg_debug_stats)
		for f in $CG/io.stat $CG/a/io.stat $CG/b/io.stat; do
			grep "^$DEV " $f | sed "s|^|VMW iocost.stat ${f#$CG/} |"
		done
		# Measured; now io.cost off before fio stops (see stop_fios).
		iocost off
	fi
	[ -n "$dpid" ] && grep -E '^(group path=(a|b)|device) ' $RUN/status | sed 's/^/VMW status /'
	stop_fios
	[ $ok = 1 ] || for g in $groups; do sed "s/^/VMW fio.$g /" $WORK/fio.$g.err | head -n 5; done
	if [ -n "$dpid" ]; then
		kill -TERM $dpid; wait $dpid || { ok=0; why=iolatd_exit; }
		grep -iE 'error|warn|stand' $WORK/iolatd.$rep.$c.log | head -n 5 | sed 's/^/VMW iolatd.log /'
		if grep "^$DEV " $CG/a/io.max $CG/b/io.max | grep -q '=[0-9]'; then ok=0; why=io_max_left; fi
	fi
	echo "VMW end rep=$rep case=$c mode=$m t_end_ms=$t_end ok=$ok${why:+ why=$why}"
	sleep 1
}

for rep in $(seq $REPS); do
	i=0
	for c in $(rotate $((rep - 1)) $CASES); do
		for m in $(rotate $((rep - 1 + i)) $MODES); do one_run $rep $c $m; done
		i=$((i + 1))
	done
done
echo "VMW done"
