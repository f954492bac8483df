#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `iolat sim` (tools/cmd_sim.c): --help lists the device models and their keys;
# bad usage and bad job files exit 2 with exactly one line on stderr naming
# the file, line and key; a run prints the table (or JSON with a
# schema_version), twice the same bytes for the same seed, other bytes for
# another seed; --log writes per-group CSV (and plots when gnuplot exists);
# -v reports events and wall time on stderr only. Uses $IOLAT.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-sim
cli_collect_failures

"$IOLAT" sim --help >"$dir/help" 2>&1 || fail "--help exit $?"
for w in 'device=ssd' 'device=hdd' 'device=bad-ssd' ssd_read_us hdd_seek_avg_ms badssd_stall_max_ms \
	 --seed --output-format --log --no-control --kernel-compat; do
	grep -q -- "$w" "$dir/help" || fail "--help lacks $w"
done

# usage ARGS... : exit 2, one line on stderr, nothing on stdout
usage() {
	"$IOLAT" sim "$@" >"$dir/out" 2>"$dir/err"; local rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || [ -s "$dir/out" ]; then
		fail "sim $*: rc=$rc, stderr: $(cat "$dir/err")"
	else
		echo "ok   sim $*: $(cat "$dir/err")"
	fi
}
usage
usage --bogus x.ini
usage --seed abc examples/sim-protect-ssd.ini
usage --output-format=xml examples/sim-protect-ssd.ini
usage examples/sim-protect-ssd.ini examples/sim-hdd.ini
usage "$dir/missing.ini"

# badjob NAME REGEX CONTENT: a bad job file gives rc 2 and one line matching REGEX
badjob() {
	printf '%b' "$3" >"$dir/$1.ini"
	"$IOLAT" sim "$dir/$1.ini" >"$dir/out" 2>"$dir/err"; local rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -qE -- "$2" "$dir/err" || [ -s "$dir/out" ]; then
		fail "$1: rc=$rc, want /$2/, stderr: $(cat "$dir/err")"
	else
		echo "ok   $1: $(cat "$dir/err")"
	fi
}
badjob unknown_key ":3: key 'ssd_unitz': unknown parameter" '[global]\ndevice=ssd\nssd_unitz=4\n[j]\nruntime=1s\n'
badjob other_model ":3: key 'hdd_rpm': a parameter of another" '[global]\ndevice=ssd\nhdd_rpm=5400\n[j]\nruntime=1s\n'
badjob not_number ":3: key 'hdd_rpm': expected a number" '[global]\ndevice=hdd\nhdd_rpm=fast\n[j]\nruntime=1s\n'
badjob out_of_range ":3: key 'ssd_units': 0 is out of range" '[global]\ndevice=ssd\nssd_units=0\n[j]\nruntime=1s\n'
badjob inconsistent ":4: key 'ssd_gc_min_ms': needs" '[global]\ndevice=ssd\nssd_gc_max_ms=1\nssd_gc_min_ms=3\n[j]\nruntime=1s\n'
badjob no_runtime ":2: job 'j': the simulator needs runtime= or size=" '\n[j]\nrw=randread\n'
badjob bad_device ":2: key 'device'" '[global]\ndevice=floppy\n[j]\nruntime=1s\n'

# --parse-only checks what a run would check before any work, device-model keys
# included: the same line as the run (the function above), and nothing on stdout.
badparse() {
	printf '%b' "$3" >"$dir/$1.ini"
	"$IOLAT" sim "$dir/$1.ini" >"$dir/out" 2>"$dir/run_err"
	"$IOLAT" sim --parse-only "$dir/$1.ini" >"$dir/out" 2>"$dir/err"; local rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -qE -- "$2" "$dir/err" ||
	   [ -s "$dir/out" ] || ! cmp -s "$dir/err" "$dir/run_err"; then
		fail "--parse-only $1: rc=$rc, want /$2/ as the run's, stderr: $(cat "$dir/err")"
	else
		echo "ok   --parse-only $1: $(cat "$dir/err")"
	fi
}
badparse unknown_key ":3: key 'ssd_unitz': unknown parameter" '[global]\ndevice=ssd\nssd_unitz=4\n[j]\nruntime=1s\n'
badparse other_model ":3: key 'hdd_rpm': a parameter of another" '[global]\ndevice=ssd\nhdd_rpm=5400\n[j]\nruntime=1s\n'
badparse not_number ":3: key 'hdd_rpm': expected a number" '[global]\ndevice=hdd\nhdd_rpm=fast\n[j]\nruntime=1s\n'
badparse out_of_range ":3: key 'ssd_units': 0 is out of range" '[global]\ndevice=ssd\nssd_units=0\n[j]\nruntime=1s\n'
badparse inconsistent ":4: key 'ssd_gc_min_ms': needs" '[global]\ndevice=ssd\nssd_gc_max_ms=1\nssd_gc_min_ms=3\n[j]\nruntime=1s\n'
badparse no_runtime ":2: job 'j': the simulator needs runtime= or size=" '\n[j]\nrw=randread\n'
badparse plant_weights ":3: key 'weight': group 'a': the simulator's kernel-throttle plant" '[global]\nthrottle_slice=100ms\n[group:a]\nweight=200\n[j]\ngroup=a\nruntime=1s\n'
badparse plant_slice ":2: key 'throttle_slice': expected a duration" '[global]\nthrottle_slice=abc\n[j]\nruntime=1s\n'
for f in examples/sim-*.ini; do
	"$IOLAT" sim --parse-only "$f" >"$dir/out" 2>"$dir/err" && grep -q ': ok (' "$dir/out" ||
		fail "--parse-only $f: $(cat "$dir/err")"
done

# A run: table, then JSON; deterministic per seed.
job=examples/sim-protect-ssd.ini
"$IOLAT" sim "$job" >"$dir/t1" 2>"$dir/err" || fail "run exit $?: $(cat "$dir/err")"
[ -s "$dir/err" ] && fail "run wrote to stderr: $(cat "$dir/err")"
grep -q '^main ' "$dir/t1" || fail "table lacks the main row"
grep -q '^device ssd' "$dir/t1" || fail "no device line"
"$IOLAT" sim "$job" >"$dir/t2" 2>/dev/null
cmp -s "$dir/t1" "$dir/t2" || fail "same seed, different table"
"$IOLAT" sim "$job" --seed 2 >"$dir/t3" 2>/dev/null
cmp -s "$dir/t1" "$dir/t3" && fail "seed 2 gave the same table as seed 1"
"$IOLAT" sim "$job" --output-format=json >"$dir/j1" 2>/dev/null || fail "json exit $?"
"$IOLAT" sim --output-format json "$job" >"$dir/j2" 2>/dev/null
grep -q '"schema_version": *2' "$dir/j1" || fail "json lacks schema_version"
cmp -s "$dir/j1" "$dir/j2" || fail "same seed, different json"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/j1" || fail "json does not parse"
fi
"$IOLAT" sim "$job" --no-control >"$dir/nc" 2>/dev/null || fail "--no-control exit $?"
grep -q 'controller off' "$dir/nc" || fail "--no-control: controller not off"
"$IOLAT" sim examples/sim-release.ini --kernel-compat >"$dir/kc" 2>/dev/null || fail "--kernel-compat exit $?"
grep -q 'kernel compat' "$dir/kc" || fail "--kernel-compat not in effect"

# -v: figures on stderr, stdout unchanged.
"$IOLAT" sim -v "$job" >"$dir/t4" 2>"$dir/err" || fail "-v exit $?"
grep -Eq 'events, 10\.000 virtual s in [0-9.]+ wall s' "$dir/err" || fail "-v: $(cat "$dir/err")"
cmp -s "$dir/t1" "$dir/t4" || fail "-v changed stdout"

# --log: one CSV per group, plots when gnuplot is installed.
"$IOLAT" sim "$job" --log "$dir/log" >/dev/null 2>"$dir/err" || fail "--log exit $?: $(cat "$dir/err")"
for f in main.csv system.csv system.fbpkg.csv; do
	[ -s "$dir/log/$f" ] || fail "--log: no $f ($(ls "$dir/log" 2>&1 | tr '\n' ' '))"
done
[ "$(wc -l <"$dir/log/main.csv")" -ge 100 ] || fail "--log: main.csv has too few rows"
if command -v gnuplot >/dev/null; then
	[ -s "$dir/log/latency.png" ] || fail "--log: gnuplot present but no latency.png"
else
	grep -q gnuplot "$dir/err" || fail "--log: no note that plots were skipped"
fi

# --output=FILE: the same bytes as stdout, nothing on stdout.
"$IOLAT" sim "$job" --output-format=json --output="$dir/out.json" >"$dir/stdout" 2>&1 &&
	"$IOLAT" sim "$job" --output-format=json >"$dir/direct.json" || fail "--output: exit $?"
cmp -s "$dir/out.json" "$dir/direct.json" && [ ! -s "$dir/stdout" ] || fail "--output differs from stdout"

# --log CSVs carry the group path in their "group" column (the last one but
# for the adaptive mode's columns after it).
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "group") g = i; if (!g) bad = 1; next }
	$g != "system/fbpkg" { bad = 1 } END { exit bad }' "$dir/log/system.fbpkg.csv" ||
	fail "--log: system.fbpkg.csv rows lack the group path in the group column"

# fio's ramp_time: the jobs run it first, the report leaves it out; and
# percentile_list adds percentiles to the JSON.
printf '[global]\nruntime=3s\nramp_time=2s\npercentile_list=99.5:99.99\n[group:a]\ntarget=1ms\n[j]\ngroup=a\nrw=randread\n' \
	>"$dir/ramp.ini"
printf '[global]\nruntime=3s\n[group:a]\ntarget=1ms\n[j]\ngroup=a\nrw=randread\n' >"$dir/noramp.ini"
"$IOLAT" sim "$dir/ramp.ini" >"$dir/ramp.txt" && "$IOLAT" sim --output-format=json "$dir/ramp.ini" >"$dir/ramp.json" &&
	"$IOLAT" sim --output-format=json "$dir/noramp.ini" >"$dir/noramp.json" || fail "ramp_time runs failed"
grep -q ' 5.000 s virtual' "$dir/ramp.txt" || fail "ramp_time: the run did not last ramp + runtime"
python3 - "$dir/ramp.json" "$dir/noramp.json" <<'PY' || fail "ramp_time / percentile_list JSON"
import json, sys
r, n = (json.load(open(p)) for p in sys.argv[1:3])
assert r["duration_s"] == 3.0, r["duration_s"]
ri, ni = r["groups"][0]["read"]["ios"], n["groups"][0]["read"]["ios"]
assert abs(ri - ni) <= 0.02 * ni, (ri, ni)   # 3 s measured either way, not 5
assert set(r["groups"][0]["lat_us"]) >= {"p50", "p99"}
assert list(r["groups"][0]["percentiles_us"]) == ["99.5", "99.99"], r["groups"][0]
assert "percentiles_us" not in n["groups"][0]
PY

# A long simulation shows its progress on a terminal (not with -q, not in a pipe).
if command -v script >/dev/null; then
	# a day of virtual time, stopped by SIGINT after 5 s of wall time (room for a
	# slow start on a loaded machine under a sanitizer: the handler must be in place)
	sed 's/^runtime=.*/runtime=86400s/' examples/sim-protect-ssd.ini >"$dir/long.ini"
	script -qefc "timeout -s INT 5 $IOLAT sim $dir/long.ini >/dev/null" /dev/null >"$dir/tty.out" 2>&1
	grep -q 's/86400s virtual, [0-9]*%, [0-9]*s wall\] Ctrl-C stops and reports' "$dir/tty.out" ||
		fail "no progress line on a terminal: $(tr '\r' '\n' <"$dir/tty.out" | tail -2)"
	script -qefc "timeout -s INT 2.5 $IOLAT sim -q $dir/long.ini >/dev/null" /dev/null >"$dir/tty.out" 2>&1
	grep -q 'virtual, ' "$dir/tty.out" && fail "-q still shows progress"
	timeout -s INT 5 "$IOLAT" sim "$dir/long.ini" 2>"$dir/err" >/dev/null
	grep -q 'virtual, ' "$dir/err" && fail "progress written to a non-terminal: $(head -c 100 "$dir/err")"
	# The interruption line is checked here, off the terminal: script(1) may stop
	# reading the terminal before the last lines of a slow (sanitizer) exit reach it.
	grep -q 'interrupted by signal 2: reporting the .* virtual s reached' "$dir/err" ||
		fail "no interruption line: $(tail -c 200 "$dir/err")"
else
	echo "(no 'script' command: the terminal progress line is not checked)"
fi

[ $failed -eq 0 ] && echo "sim_cli: all ok"
exit $failed
