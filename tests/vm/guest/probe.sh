# SPDX-License-Identifier: MIT
# Guest scenario "probe": which sequences of io.max writes does this kernel's
# block throttle enforce? (issue 21 item 0; docs/iolatd.md "cgroup v2".)
# A 1 MiB O_DIRECT writer at QD 32 runs in w/a; the limits go on w, its
# parent, as iolatd puts them on a clamped group. Each sequence runs for
# SECS seconds with a fresh writer; a sampler reads w's io.stat and io.max
# every 100 ms and held.awk says in how many limited seconds the writer stayed
# within 1.2x of the limit in force. Args, KEY=VALUE: SECS (seconds per
# sequence, 10), L (the base limit in MiB/s, 20), PRIME_MS (70), SEQS (the
# sequences joined with '+'; default: every one below).
. /test/lib.sh
for a; do case $a in *=*) eval "${a%%=*}='${a#*=}'" ;; esac; done
SECS=${SECS:-10}
MiB=1048576
L=$(( ${L:-20} * MiB ))
SEQS=$(echo "${SEQS:-free+once+same300+same100+down300+up300+halving+maxfirst+down300p+halvingp}" | tr '+' ' ')

setmax() { echo "$DEV $1" >$CG/w/io.max; }

# The sequences: each runs for $SECS s against the running writer.
seq_free() { sleep $SECS; }
seq_once() { setmax "wbps=$L"; sleep $SECS; }
rewrite_every() { # $1 ms, then values to cycle through
	local every=$1 end=$(( $(now_ms) + SECS * 1000 )) i=0 v
	shift
	while [ "$(now_ms)" -lt $end ]; do
		eval v=\${$(( i % $# + 1 ))}
		setmax "wbps=$v"
		i=$((i + 1))
		usleep $((every * 1000))
	done
}
seq_same300() { rewrite_every 300 $L; }
seq_same100() { rewrite_every 100 $L; }
seq_down300() { rewrite_every 300 $L $((L * 3 / 4)); }
seq_up300() { rewrite_every 300 $((L * 3 / 4)) $L; }
# As iolatd did: halve every 500 ms from 8 L down to 1 MiB/s, then hold there.
seq_halving() {
	local v=$((8 * L)) end=$(( $(now_ms) + SECS * 1000 ))
	while [ "$(now_ms)" -lt $end ]; do
		setmax "wbps=$v"
		[ $v -gt $MiB ] && v=$((v / 2))
		[ $v -lt $MiB ] && v=$MiB
		usleep 500000
	done
}
# The same, each write primed: the value in force written again, the new
# one PRIME_MS later (before the throttle's next 100 ms slice boundary).
PRIME_MS=${PRIME_MS:-70}
primed() { setmax "wbps=$1"; usleep $((PRIME_MS * 1000)); setmax "wbps=$2"; }
seq_down300p() {
	local end=$(( $(now_ms) + SECS * 1000 )) cur=$L next
	setmax "wbps=$cur"
	while [ "$(now_ms)" -lt $end ]; do
		usleep 300000
		if [ $cur -eq $L ]; then next=$((L * 3 / 4)); else next=$L; fi
		primed $cur $next
		cur=$next
	done
}
seq_halvingp() {
	local v=$((8 * L)) cur end=$(( $(now_ms) + SECS * 1000 ))
	setmax "wbps=$v"
	while [ "$(now_ms)" -lt $end ]; do
		usleep 430000
		cur=$v
		[ $v -gt $MiB ] && v=$((v / 2))
		[ $v -lt $MiB ] && v=$MiB
		[ $v -ne $cur ] && primed $cur $v
	done
}
# IOPS limits rewritten (the same value) every 300 ms: 15/s allows 1.5 I/Os
# per 100 ms slice, 20/s exactly 2.
iops_same() { local end=$(( $(now_ms) + SECS * 1000 )); while [ "$(now_ms)" -lt $end ]; do setmax "wiops=$1"; usleep 300000; done; }
seq_iops15() { iops_same 15; }
seq_iops20() { iops_same 20; }
seq_maxfirst() {
	local end=$(( $(now_ms) + SECS * 1000 )) i=0
	while [ "$(now_ms)" -lt $end ]; do
		setmax "wbps=max"
		if [ $((i % 2)) -eq 0 ]; then setmax "wbps=$L"; else setmax "wbps=$((L * 3 / 4))"; fi
		i=$((i + 1))
		usleep 300000
	done
}

cg_make w/a || exit 1
echo "probe: disk $DEV, limit L=$((L / MiB)) MiB/s, $SECS s per sequence"
for s in $SEQS; do
	setmax "wbps=max wiops=max"
	run_in_cg w/a "$(writer_job $((SECS + 3)))" "writer-$s"
	wpid=$!
	sleep 1
	rm -f $WORK/stop
	sample_cg w 100 $WORK/stop >$WORK/samples-$s &
	spid=$!
	seq_$s
	touch $WORK/stop
	wait $spid
	setmax "wbps=max wiops=max" # first: bios held by the throttle would keep the writer alive
	kill $wpid 2>/dev/null
	cg_kill w/a
	wait $wpid 2>/dev/null
	if [ "$s" = free ]; then
		awk 'NR == 1 { t = $1; b = $2 } END { printf "PROBE free: %.0f MiB/s unlimited\n", ($2 - b) / ($1 - t) * 1000 / 1048576 }' $WORK/samples-$s
	else
		case $s in # IOPS sequences: judged on I/Os (bios) against wiops
		iops*) awk '{ print $1, $4, $5 }' $WORK/samples-$s >$WORK/judged ;;
		*) cp $WORK/samples-$s $WORK/judged ;;
		esac
		echo "PROBE $s: $(awk -f /test/held.awk -v skip=1 $WORK/judged)"
		awk -f /test/held.awk -v verbose=1 $WORK/judged | sed 's/^/    /'
	fi
	sleep 1
done
exit 0
