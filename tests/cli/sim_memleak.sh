#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The leaking-service scenario from the command line (docs/memleak-model.md):
# `iolat sim` runs a job file with rw=hashd/memhog/bgservice and prints its
# figures (table or one JSON object), twice the same for the same seed;
# --log writes the per-second CSV; bad shapes of such a file exit 2 with one
# line naming the file, line and key; `iolat run` refuses it; `iolat demo
# --memleak` tells the requested modes' story (a timeline per mode, the
# table, what happened in full and stock mode), writes the plot with --log
# (an SVG with a line per mode and the kill markers) and rejects bad options.
# Uses $IOLAT.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-memleak
cli_collect_failures

# A small, fast version of examples/sim-memleak.ini.
job() {
	cat <<EOT
[global]
device=hdd
memory=4g
swap=1g
memleak_mode=${1:-full}
[group:${2:-workload}]
[group:system/hog]
[group:system/bg]
[web]
rw=hashd
group=${2:-workload}
rps=100
[hog]
rw=memhog
group=system/hog
speed=50
startdelay=5s
runtime=30s
[bg]
rw=bgservice
group=system/bg
EOT
}
job >"$dir/ok.ini"
"$IOLAT" sim "$dir/ok.ini" >"$dir/t1" 2>"$dir/e1" || fail "sim ok.ini: rc=$? $(cat "$dir/e1")"
grep -q '^full ' "$dir/t1" || fail "no 'full' row: $(cat "$dir/t1")"
"$IOLAT" sim --output-format=json "$dir/ok.ini" >"$dir/j1" || fail "json rc=$?"
"$IOLAT" sim --output-format=json "$dir/ok.ini" >"$dir/j2" || fail "json rc=$?"
cmp -s "$dir/j1" "$dir/j2" || fail "two runs with the same seed differ"
"$IOLAT" sim --output-format=json --seed 2 "$dir/ok.ini" >"$dir/j3" || fail "json --seed rc=$?"
cmp -s "$dir/j1" "$dir/j3" && fail "--seed 2 gives the same figures"
grep -q '"seed":2,' "$dir/j3" || fail "--seed not applied: $(cat "$dir/j3")"
"$IOLAT" sim --output-format=json --no-control "$dir/ok.ini" | grep -q '"mode":"none"' || fail "--no-control: not mode none"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["mode"]=="full" and d["device"]=="hdd" and d["base_rps"]>0' "$dir/j1" \
	|| fail "json: $(cat "$dir/j1")"
"$IOLAT" sim --log "$dir/log" "$dir/ok.ini" >/dev/null || fail "--log rc=$?"
head -1 "$dir/log/memleak_full.csv" | grep -q '^t_s,rps,p95_ms,' || fail "--log: no CSV header"
[ "$(wc -l <"$dir/log/memleak_full.csv")" -gt 30 ] || fail "--log: too few rows"

# badjob NAME REGEX CONTENT: rc 2, one line on stderr matching REGEX
badjob() {
	printf '%s\n' "$3" >"$dir/$1.ini"
	"$IOLAT" sim "$dir/$1.ini" >"$dir/out" 2>"$dir/err"; local rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -Eq "$2" "$dir/err"; then
		fail "$1: rc=$rc, stderr: $(cat "$dir/err")"
	else
		echo "ok   $1: $(cat "$dir/err")"
	fi
}
badjob mixed "mixed.ini:[0-9]+: key 'rw'" "$(job; printf '[other]\nrw=randread\nsize=1m\n')"
badjob group "group.ini:[0-9]+: key 'group': rw=hashd runs in group workload" "$(job full web)"
badjob mode "mode.ini:[0-9]+: key 'memleak_mode'" "$(job half)"
badjob nohog "nohog.ini: the leaking-service scenario needs" \
	"$(printf '[group:workload]\n[web]\nrw=hashd\ngroup=workload\n')"
badjob huge "huge.ini: key 'memory': at most 256g" "$(job | sed 's/^memory=4g/memory=300t/')"
badjob tiny "tiny.ini: key 'memory': at least 3g" "$(job | sed 's/^memory=4g/memory=2g/')"
badjob speed "speed.ini:[0-9]+: key 'speed'" "$(job | sed 's/^speed=50/speed=0/')"

# iolat run refuses it before doing anything
"$IOLAT" run "$dir/ok.ini" >"$dir/out" 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "key 'rw'.*iolat sim" "$dir/err" || fail "run: rc=$rc $(cat "$dir/err")"

# the demo
"$IOLAT" demo --memleak --modes none,full -q --timeout 10 >"$dir/demo" 2>&1 || fail "demo rc=$?"
grep -q '^none ' "$dir/demo" && grep -q '^full ' "$dir/demo" || fail "demo rows: $(cat "$dir/demo")"
grep -Eq '^none +\|[0-9K.]+$' "$dir/demo" && grep -Eq '^full +\|[0-9K.]+$' "$dir/demo" ||
	fail "demo timelines: $(cat "$dir/demo")"
grep -q '^full: ' "$dir/demo" || fail "demo: no full-mode story: $(cat "$dir/demo")"
# the whole story (hdd at 0.5x): stock reboots (R), full's leak is killed (K)
"$IOLAT" demo --memleak --modes full,stock --log "$dir/plot" >"$dir/demo2" 2>&1 || fail "demo --log rc=$?"
grep -Eq '^stock +\|[0-9.]*R' "$dir/demo2" || fail "demo: stock's reboot not on its timeline: $(cat "$dir/demo2")"
grep -Eq '^full +\|[0-9]*K' "$dir/demo2" || fail "demo: full's kill not on its timeline: $(cat "$dir/demo2")"
grep -q '^stock: .*rebooted' "$dir/demo2" || fail "demo: no stock story: $(cat "$dir/demo2")"
grep -q 'min to rejoin' "$dir/demo2" || fail "demo: the rejoin is not counted: $(cat "$dir/demo2")"
[ "$(grep -c '<polyline' "$dir/plot/memleak_rps.svg" 2>/dev/null)" = 2 ] || fail "demo --log: no SVG with 2 lines"
grep -q 'percgroup:R4 system/\* pressure&gt;60' "$dir/plot/memleak_rps.svg" || fail "demo --log: the SVG lacks the rule"
for m in full stock; do [ -s "$dir/plot/memleak_$m.csv" ] || fail "demo --log: no memleak_$m.csv"; done
for bad in "--speed x" "--modes none,half" "--device floppy" "--oomd mine" "--bogus"; do
	"$IOLAT" demo --memleak $bad >"$dir/out" 2>"$dir/err"; rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "demo $bad: rc=$rc $(cat "$dir/err")"
done
exit $failed
