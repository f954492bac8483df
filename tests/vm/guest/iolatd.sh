# SPDX-License-Identifier: MIT
# Guest scenario "iolatd": iolatd on cgroup v2 with io, on the stock kernel
# (issue 21 items 0 and 1). A 4 KiB random reader at QD 1 in app/main (the
# configured group, with a target) beside a 1 MiB O_DIRECT writer at QD 32
# in app/batch/a, not configured; io is enabled from the root down. Checks:
#   1. baseline: the reader alone, then beside the writer, without iolatd;
#   2. with iolatd: io.max is written on app/batch (the reader's clamped
#      sibling) for the disk's MAJ:MIN and nowhere else; the writer is held
#      within 1.2x of the limit in force in >= HELD % (80) of the seconds it
#      is limited (the goal, >= 90 %, is judged over many runs: docs/iolatd.md
#      has 98.5 % over 11; one run of 20 s under TCG saw 88 %, and CI must
#      not fail on one such run; main's old actuation gave 33-77 %); the
#      reader's p90 is within its target (x MARGIN for
#      emulation) or, when the writer hurt it, at least halved; a configured
#      group whose parent does not give it io (noio/main) gets one line;
#   3. SIGTERM: no io.max line left anywhere, exit 0;
#   4. a group that disappears (rmdir app/batch) and reappears (a new inode)
#      is limited again;
#   5. SIGKILL leaves the limit; stopped workloads, a restart removes it.
# Args, KEY=VALUE: SECS (the controlled run, 20), MARGIN (3), HELD (80); for the
# actuation's figures: ONLY=held REPEAT=N [OTHER=PROG] (below), TRACE=1 (the
# kernel's time of every io.max write, by ftrace on tg_set_limit).
# The disk is made slow enough for the writer to hurt the reader there, not
# only on the guest's one CPU: QEMU's throttle, 200 MiB/s for reads and
# writes together (vm.sh reads the next line).
# vm-drive: throttling.bps-total=209715200
. /test/lib.sh
for a; do case $a in *=*) eval "${a%%=*}='${a#*=}'" ;; esac; done
SECS=${SECS:-20}
MARGIN=${MARGIN:-3}
RUN=/run/iolatd-test
LOG=$WORK/iolatd.log
CONF=$WORK/iolatd.conf
fails=0
ok() { echo "PASS $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# The p90 (us) in iolat run's JSON $1.
p90_of() { grep -o '"p90": *[0-9.]*' "$1" | head -n 1 | sed 's/.*: *//; s/\..*//'; }
# Every io.max line under app and noio, "cgroup: line".
all_limits() {
	for f in $(find $CG/app $CG/noio -name io.max 2>/dev/null); do
		sed "s|^|${f#$CG/}: |" $f
	done
}
start_daemon() {
	${DAEMON:-iolatd} --foreground --config $CONF --run-dir $RUN --log-file $LOG &
	dpid=$!
}
stop_workloads() {
	cg_kill app/main
	cg_kill app/batch/a
	for p in $(jobs -p); do [ "$p" = "$dpid" ] || wait $p 2>/dev/null; done
}
# Wait up to $1 s for a wbps limit on app/batch (a value, not iolatd's opening
# of 1 TiB/s); 0 when there is one.
wait_limited() {
	local v
	for _ in $(seq $(($1 * 5))); do
		v=$(cg_wbps app/batch)
		[ "$v" != 0 ] && [ "$v" != 1099511627776 ] && return 0
		usleep 200000
	done
	return 1
}

cg_make app/main && cg_make app/batch/a || exit 1
mkdir -p $CG/noio/main # io reaches noio, not its children
echo "iolatd: disk vda $DEV, rotational=$(cat /sys/block/vda/queue/rotational), nr_requests=$(cat /sys/block/vda/queue/nr_requests)"

# 1. Baselines.
run_in_cg app/main "$(reader_job 5)" alone; wait $!
alone=$(p90_of $WORK/alone.json)
run_in_cg app/batch/a "$(writer_job 9)" wbase
run_in_cg app/main "$(reader_job 8)" contended; wait $!
contended=$(p90_of $WORK/contended.json)
wait
TARGET=$(( alone * 2 > 1000 ? alone * 2 : 1000 ))
echo "baseline: reader p90 ${alone} us alone, ${contended} us beside the writer; target ${TARGET} us"

cat >$CONF <<EOF
[global]
device=vda
rotational=0
[group:app/main]
target=${TARGET}us
[group:noio/main]
target=5ms
EOF

# 2. Under iolatd (a function: ONLY=held repeats it).
controlled_run() {
	T=/sys/kernel/tracing
	if [ -n "${TRACE:-}" ]; then # the time of every io.max write, from the kernel
		echo tg_set_limit >$T/set_ftrace_filter && echo function >$T/current_tracer && echo >$T/trace
	fi
	start_daemon
	sleep 2
	run_in_cg app/batch/a "$(writer_job $((SECS + 2)))" writer
	run_in_cg app/main "$(reader_job $SECS)" protected
	rpid=$!
	# The limits while the reader runs, in its last 3 s, once a second: once
	# it stops, the protected group is quiet and the limit is lifted within a
	# second; and between two episodes (released when the reader's windows go
	# quiet, limited again at its next miss) one snapshot can fall in the
	# moment between (CI, 2026-12-07: released 3 s before the end, limited
	# again with the siblings' reads only).
	(sleep $((SECS - 3)); for i in 1 2 3; do all_limits >$WORK/limits.$i; sleep 1; done) &
	lpid=$!
	rm -f $WORK/stop
	sample_cg app/batch 100 $WORK/stop >$WORK/samples &
	spid=$!
	wait $rpid
	protected=$(p90_of $WORK/protected.json)
	touch $WORK/stop; wait $spid
	wait $lpid
	limits=$(cat $WORK/limits.1 $WORK/limits.2 $WORK/limits.3)
	iolat status --run-dir $RUN | head -n 20
	stop_workloads
	echo "limits in force 3, 2 and 1 s before the reader's end:"; echo "$limits"
	echo "$limits" | grep -q "^app/batch/io.max: $DEV .*wbps=[0-9]" && ok "io.max written on app/batch for $DEV" ||
		bad "no wbps limit on app/batch for $DEV"
	echo "$limits" | grep -v "^app/batch/io.max: " | grep -q . && bad "limits elsewhere: $limits" ||
		ok "no limit on any other cgroup"
	held=$(awk -f /test/held.awk -v skip=2 $WORK/samples)
	awk -f /test/held.awk -v skip=2 -v verbose=1 $WORK/samples | sed 's/^/    /'
	echo "held: $held"
	echo "samples (ms wbytes wbps wios wiops):"; sed 's/^/    /' $WORK/samples
	if [ -n "${TRACE:-}" ]; then
		echo "io.max writes (uptime s):"; grep tg_set_limit $T/trace | awk '{sub(":", "", $4); print "    w " $4}'
		echo nop >$T/current_tracer
	fi
	set -- $held
	lim=${1#limited=}; share=${3#share=}
	[ "$lim" -ge 5 ] && [ "$share" -ge "${HELD:-80}" ] && ok "writer held within 1.2x in $share % of $lim limited seconds" ||
		bad "writer held within 1.2x in $share % of $lim limited seconds (want >= ${HELD:-80} % of >= 5)"
	echo "reader p90: ${protected} us under iolatd (target ${TARGET} us, ${contended} us without)"
	if [ "$protected" -le $((TARGET * MARGIN)) ] || [ $((protected * 2)) -le "$contended" ]; then
		ok "reader protected: p90 ${protected} us"
	else
		bad "reader not protected: p90 ${protected} us, target ${TARGET} us x $MARGIN, ${contended} us without"
	fi
}
controlled_run
n=$(grep -c 'noio/main' $LOG)
[ "$n" -eq 1 ] && ok "noio/main: one line: $(grep 'noio/main' $LOG)" ||
	bad "noio/main: $n lines (want 1): $(grep 'noio/main' $LOG)"
# ONLY=held REPEAT=N: the controlled run N times more (each with its own
# daemon), for the actuation's figures; nothing else. With OTHER=PROGRAM
# (an iolatd in the initramfs, see vm.sh) the runs alternate between it and
# iolatd, starting with it.
if [ "${ONLY:-}" = held ]; then
	for i in $(seq ${REPEAT:-3}); do
		kill -TERM $dpid; wait $dpid
		DAEMON=iolatd
		[ -n "${OTHER:-}" ] && [ $((i % 2)) -eq 1 ] && DAEMON=$OTHER
		echo "--- controlled run $((i + 1)): $DAEMON"
		controlled_run
	done
	kill -TERM $dpid; wait $dpid
	echo "iolatd: $fails failed"
	[ $fails -eq 0 ]
	exit
fi

# 3. SIGTERM.
kill -TERM $dpid; wait $dpid; rc=$?
left=$(all_limits)
[ $rc -eq 0 ] && [ -z "$left" ] && ok "SIGTERM: exit 0, no limit left" || bad "SIGTERM: exit $rc, left: $left"

# 4. A group that disappears and reappears.
start_daemon
run_in_cg app/batch/a "$(writer_job 60)" w2
wpid=$!
run_in_cg app/main "$(reader_job 120)" r2 # outlives the writer's drain below
wait_limited 20 && ok "limited again after a restart" || bad "not limited within 20 s"
old_ino=$(stat -c %i $CG/app/batch)
cg_kill app/batch/a
wait $wpid 2>/dev/null # its I/O drains at the limit; a zombie keeps the cgroup busy
rmdir $CG/app/batch/a $CG/app/batch || bad "cannot remove app/batch"
sleep 2
cg_make app/batch/a
new_ino=$(stat -c %i $CG/app/batch)
run_in_cg app/batch/a "$(writer_job 40)" w3
wait_limited 20 && [ "$old_ino" != "$new_ino" ] && ok "app/batch recreated (inode $old_ino -> $new_ino): limited again" ||
	{ bad "app/batch recreated: not limited within 20 s"; iolat status --run-dir $RUN; cat $WORK/w3.err; }

# 5. SIGKILL, then a restart removes what was left.
kill -KILL $dpid; wait $dpid 2>/dev/null
stop_workloads
left=$(all_limits)
echo "$left" | grep -q wbps= && ok "SIGKILL left the limit: $left" || bad "SIGKILL left nothing to clean: $left"
start_daemon
sleep 2
left=$(all_limits)
[ -z "$left" ] && ok "restart after SIGKILL: stale limit removed" || bad "restart after SIGKILL: left $left"
kill -TERM $dpid; wait $dpid
echo "--- iolatd log"; cat $LOG
echo "iolatd: $fails failed"
[ $fails -eq 0 ]
