#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make check-layers` (scripts/check_layers.sh) passes on this tree and fails
# on each kind of violation planted in a copy of it: an include up a layer,
# past a layer's door (engine -> core/ctl.h, tools -> engine, job ->
# "../core/ctl.h" spelled relatively, angled <core/ctl.h>), run or sim
# reaching a scenario (src/scen), the job-file parser reaching a runner, a
# report or the simulator, a report reaching a runner, a scenario reaching
# an engine, a daemon reaching the internal header or the job layer; a tool
# reaching the simulator, an engine or the internal header through headers
# it may include (two levels deep); and a call from an engine into the
# core's internals with no include at all (seen in the object's symbols).
# Inside the daemon: a room including a room above it (the tree the round),
# a room calling one above it with no include (the limits the tree), a tool
# including struct iolatd or a room's header, a tool calling a room past
# control.h, and the interfaces below the rooms (sys) including struct
# iolatd all fail; the real tool's iolatd_observe() through control.h passes.
# A daemon through the public header, tools through the daemon, and the real
# tree's tools -> scen -> {job, sim}, tools -> run -> {report, job, engine,
# sim} pass. scripts/file_cycles.sh (also run by `make check-layers`) finds
# no circle in the tree; fails on a new circle between two files of a
# folder, by includes or by calls, and on each cut crossed upward (a model
# reaching its registry, the simulator backend reaching run_sim.c, the
# round's throttle counters reaching the round); passes a circle listed in its
# allow-list and fails one that grows beyond its entry.
# Uses the objects of $O (the build being tested) for the call checks.
set -u
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
[ -d "$O/src" ] || skip "$O not built"
command -v nm >/dev/null || skip "nm (binutils) not installed"
cli_tmpdir iolat-layers
failed=0
check=scripts/check_layers.sh

# fresh [objects]: a copy of the sources in $dir/t; with "objects", of the
# objects too (in $dir/t/obj), and the calls are checked as well
objs=
fresh() {
	rm -rf "$dir/t"; mkdir -p "$dir/t"
	cp -r src include tools scripts "$dir/t/"
	objs=
	if [ "${1:-}" = objects ]; then
		mkdir -p "$dir/t/obj"; objs=$dir/t/obj
		(cd "$O" && find src tools -name '*.o' -print0 | xargs -0 cp --parents -t "$objs")
	fi
}
# expect RC WHAT PATTERN: check the copy; want exit RC and PATTERN in the output
expect() {
	local want=$1 what=$2 pat=$3 out rc
	out=$("$dir/t/scripts/check_layers.sh" ${objs:+-o "$objs"} "$dir/t" 2>&1); rc=$?
	if [ $rc -eq "$want" ] && grep -q -- "$pat" <<<"$out"; then
		echo "ok   $what: $(grep -- "$pat" <<<"$out" | head -n 1)"
	else
		echo "FAIL $what: exit $rc (want $want), output:"; sed 's/^/    /' <<<"$out"
		failed=1
	fi
}

out=$("$check" -o "$O" 2>&1) || { echo "FAIL the real tree: $out"; failed=1; }
[ $failed = 0 ] && echo "ok   the real tree: $out"

fresh; echo '#include "core/ctl.h"' >>"$dir/t/src/engine/eng_null.c"
expect 1 "engine includes core/ctl.h" 'src/engine/eng_null.c: includes src/core/ctl.h: engine may not reach core'

fresh; echo '#include "engine/engine.h"' >>"$dir/t/tools/cmd_run.c"
expect 1 "tools include an engine header" 'tools/cmd_run.c: includes src/engine/engine.h: tools may not reach engine'

fresh; echo '#include "../core/ctl.h"' >>"$dir/t/src/job/mode.c"
expect 1 "job includes ../core/ctl.h" 'src/job/mode.c: includes src/core/ctl.h: job may not reach core'

fresh; echo '#include <core/ctl.h>' >>"$dir/t/src/sim/event.c"
expect 1 "sim includes <core/ctl.h>" 'src/sim/event.c: includes src/core/ctl.h: sim may not reach core'

fresh; echo '#include "job/jobfile.h"' >>"$dir/t/src/sim/device.c"
expect 1 "sim includes a job header (up a layer)" 'src/sim/device.c: includes src/job/jobfile.h: sim may not reach job'

fresh; echo '#include "scen/memleak/memleak.h"' >>"$dir/t/src/run/run_sim.c"
expect 1 "run includes a scenario header (up a layer)" 'src/run/run_sim.c: includes src/scen/memleak/memleak.h: run may not reach scen'

fresh; echo '#include "run/workload.h"' >>"$dir/t/src/job/jobfile_parse.c"
expect 1 "the job-file parser includes a runner header (up a layer)" 'src/job/jobfile_parse.c: includes src/run/workload.h: job may not reach run'

fresh; echo '#include "report/report.h"' >>"$dir/t/src/job/jobfile_apply.c"
expect 1 "the job-file parser includes a report header (up a layer)" 'src/job/jobfile_apply.c: includes src/report/report.h: job may not reach report'

fresh; echo '#include "sim/device.h"' >>"$dir/t/src/job/jobfile_table.c"
expect 1 "the job-file parser includes a simulator header" 'src/job/jobfile_table.c: includes src/sim/device.h: job may not reach sim'

fresh; echo '#include "run/run.h"' >>"$dir/t/src/report/report_json.c"
expect 1 "a report includes a runner header (up a layer)" 'src/report/report_json.c: includes src/run/run.h: report may not reach run'

fresh; echo '#include "scen/scenarios.h"' >>"$dir/t/src/sim/mm.c"
expect 1 "sim includes a scenario header (up a layer)" 'src/sim/mm.c: includes src/scen/scenarios.h: sim may not reach scen'

fresh; echo '#include "engine/engine.h"' >>"$dir/t/src/scen/memleak/memleak_run.c"
expect 1 "a scenario includes an engine header" 'src/scen/memleak/memleak_run.c: includes src/engine/engine.h: scen may not reach engine'

fresh; echo '#include "engine/engine.h"' >>"$dir/t/src/core/stat.c"
expect 1 "core includes an engine header" 'src/core/stat.c: includes src/engine/engine.h: core may not reach engine'

fresh; echo '#include "util/units.h"' >>"$dir/t/src/util/rng.c"; echo '#include "iolatency.h"' >>"$dir/t/src/util/grow.c"
expect 1 "util includes the public header" 'src/util/grow.c: includes include/iolatency.h: util may not reach api'

fresh; mkdir -p "$dir/t/src/daemon"
printf '#include "iolatency.h"\n#include "util/units.h"\nint d(void);\n' >"$dir/t/src/daemon/d.h"
printf '#include "daemon/d.h"\n#include "iolatency.h"\n' >"$dir/t/tools/iolatd.c"
expect 0 "daemon through the public header, tools through the daemon" 'follow the layers'
echo '#include "iolatency_internal.h"' >>"$dir/t/src/daemon/d.h"
echo '#include "job/jobfile.h"' >>"$dir/t/src/daemon/d.h"
expect 1 "daemon includes the internal header" 'src/daemon/d.h: includes include/iolatency_internal.h: daemon may not reach internal'
expect 1 "daemon includes a job header" 'src/daemon/d.h: includes src/job/jobfile.h: daemon may not reach job'

# Through headers: a runner's header may include the simulator's (run may
# reach sim), but a tool including that header would reach the simulator too.
fresh; echo '#include "run/workload.h"' >>"$dir/t/src/run/run.h"; echo '#include "sim/event.h"' >>"$dir/t/src/run/workload.h"
expect 1 "a tool reaches the simulator through two runner headers" 'tools/cmd_run.c: reaches src/sim/event.h through src/run/run.h: tools may not reach sim'
fresh; echo '#include "engine/engspec.h"' >>"$dir/t/src/job/jobfile.h"
expect 1 "a tool reaches an engine through a job header" 'tools/cli_opts.c: reaches src/engine/engspec.h through src/job/jobfile.h: tools may not reach engine'
fresh; echo '#include "iolatency_internal.h"' >>"$dir/t/src/job/jobfile.h"
expect 1 "a tool reaches the internal header through a job header" 'tools/cli_opts.c: reaches include/iolatency_internal.h through src/job/jobfile.h: tools may not reach internal'

fresh; echo '#include "nowhere/missing.h"' >>"$dir/t/src/report/report.c"
expect 1 "a quoted include of no file of ours" 'includes "nowhere/missing.h", not a file of this repository'

# A call with no include: an engine declares a core internal itself.
fresh objects
expect 0 "the copy with its objects" 'includes and calls follow the layers'
cat >>"$dir/t/src/engine/eng_null.c" <<'C'
void iolat_wake(void *g);
void planted_call(void);
void planted_call(void) { iolat_wake(0); }
C
if "$CC" -std=c11 -D_GNU_SOURCE -I"$dir/t/include" -I"$dir/t/src" -c "$dir/t/src/engine/eng_null.c" \
	-o "$dir/t/obj/src/engine/eng_null.o" 2>"$dir/cc.err"; then
	expect 1 "engine calls a core internal" 'src/engine/eng_null.c calls iolat_wake (core): engine may not reach core'
else
	echo "FAIL compiling the planted call: $(cat "$dir/cc.err")"; failed=1
fi

# The daemon's rooms, one way (the order in scripts/check_layers.sh).
fresh; echo '#include "daemon/round/round.h"' >>"$dir/t/src/daemon/tree/tree.c"
expect 1 "the daemon's tree includes the round (up a room)" 'src/daemon/tree/tree.c: includes src/daemon/round/round.h: daemon/tree may not reach daemon/round'
fresh; echo '#include "daemon/control_priv.h"' >>"$dir/t/src/daemon/sys/cgroupfs.c"
expect 1 "the daemon's interfaces include struct iolatd" 'src/daemon/sys/cgroupfs.c: includes src/daemon/control_priv.h: daemon/sys may not reach daemon/control_priv.h'
fresh; echo '#include "daemon/control_priv.h"' >>"$dir/t/tools/iolatd.c"
expect 1 "a tool includes struct iolatd" 'tools/iolatd.c: includes src/daemon/control_priv.h: tools may not reach daemon/control_priv.h'
fresh; echo '#include "daemon/tree/tree.h"' >>"$dir/t/tools/iolatd.c"
expect 1 "a tool includes a room's header" 'tools/iolatd.c: includes src/daemon/tree/tree.h: tools may not reach daemon/tree'
# plant_call FILE SYMBOL: a new source FILE calling SYMBOL, declared by itself, compiled into the copy's objects
plant_call() {
	printf 'void %s(void);\nvoid planted_call(void);\nvoid planted_call(void) { %s(); }\n' "$2" "$2" >"$dir/t/$1"
	mkdir -p "$(dirname "$objs/$1")"
	"$CC" -std=c11 -c "$dir/t/$1" -o "$objs/${1%.c}.o" 2>"$dir/cc.err" ||
		{ echo "FAIL compiling the planted call: $(cat "$dir/cc.err")"; failed=1; }
}
fresh objects; plant_call src/daemon/limits/planted.c iolatd_weights_act
expect 1 "the daemon's limits call the tree (up a room)" 'src/daemon/limits/planted.c calls iolatd_weights_act (daemon/tree): daemon/limits may not reach daemon/tree'
fresh objects; plant_call tools/planted.c iolatd_round
expect 1 "a tool calls the round past control.h" 'tools/planted.c calls iolatd_round (daemon/round): tools may not reach daemon/round'

# Circles between the files of one folder (scripts/file_cycles.sh): none in
# the tree; a new one fails, by includes or by calls; a listed one passes,
# and fails when it grows.
expect_cycles() {
	local want=$1 what=$2 pat=$3 out rc
	out=$("$dir/t/scripts/file_cycles.sh" -o "$objs" "$dir/t" 2>&1); rc=$?
	if [ $rc -eq "$want" ] && grep -q -- "$pat" <<<"$out"; then
		echo "ok   $what: $(grep -- "$pat" <<<"$out" | tail -n 1)"
	else
		echo "FAIL $what: exit $rc (want $want), output:"; sed 's/^/    /' <<<"$out"
		failed=1
	fi
}
fresh objects
expect_cycles 0 "no circle in the tree" 'no circle between the files of one folder'
for u in a b; do
	v=$([ $u = a ] && echo b || echo a)
	printf 'void cyc_%s(void);\n' $u >"$dir/t/src/report/cyc_$u.h"
	printf '#include "report/cyc_%s.h"\nvoid cyc_%s(void) { }\n' $v $u >"$dir/t/src/report/cyc_$u.c"
done
expect_cycles 1 "two files that include each other" 'src/report: cyc_a cyc_b: a new circle'
sed -i "/^read -r -d '' ALLOWED/a src/report: cyc_a cyc_b" "$dir/t/scripts/file_cycles.sh"
expect_cycles 0 "a circle on the allow-list" 'src/report: cyc_a cyc_b (known, allowed'
printf 'void cyc_e(void);\n' >"$dir/t/src/report/cyc_e.h"
printf '#include "report/cyc_a.h"\nvoid cyc_e(void) { }\n' >"$dir/t/src/report/cyc_e.c"
echo '#include "report/cyc_e.h"' >>"$dir/t/src/report/cyc_a.c"
expect_cycles 1 "a listed circle that grows" 'src/report: cyc_a cyc_b cyc_e: a new circle'
fresh objects
for u in c d; do
	v=$([ $u = c ] && echo d || echo c)
	printf 'void cyc_%s(int n);\nvoid cyc_%s(int n);\nvoid cyc_%s(int n) { if (n) cyc_%s(n - 1); }\n' \
		$u $v $u $v >"$dir/t/src/util/cyc_$u.c"
	"$CC" -std=c11 -c "$dir/t/src/util/cyc_$u.c" -o "$objs/src/util/cyc_$u.o" 2>>"$dir/cc.err" ||
		{ echo "FAIL compiling the planted circle: $(cat "$dir/cc.err")"; failed=1; }
done
expect_cycles 1 "two files that call each other" 'src/util: cyc_c cyc_d: a new circle'
fresh objects
echo '#include "sim/registry.h"' >>"$dir/t/src/sim/dev_hdd.c"
expect_cycles 1 "a device model reaching its registry" 'src/sim: dev_hdd registry: a new circle'
fresh objects
echo '#include "engine/registry.h"' >>"$dir/t/src/engine/eng_null.c"
expect_cycles 1 "an engine reaching its registry" 'src/engine: eng_null registry: a new circle'
fresh objects
echo '#include "run/run_sim.h"' >>"$dir/t/src/run/be_sim.c"
expect_cycles 1 "the simulator backend reaching run_sim.c" 'src/run: be_sim be_sim_setup run_sim: a new circle'
fresh objects
echo '#include "daemon/round/round.h"' >>"$dir/t/src/daemon/round/round_served.c"
expect_cycles 1 "the round's cut, crossed upward" 'src/daemon/round: round round_served: a new circle'
exit $failed
