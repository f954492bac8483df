#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Open-loop jobs on a real engine: `iolat run` with a poisson reader
# (rate_iops=, rate_process=poisson) on a small file finishes and reports,
# in the table and the JSON, the rate asked, the arrivals started and late
# and the backlog; the same with rate= as the arrival rate, and with
# rate_iops=R,W (reads and writes apart) on a mixed job. Bad values are
# refused with one line naming the file, line and key, exit 2. The example
# job files parse. No timing asserted beyond sanity (the machine is shared).
# Uses $IOLAT, $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-cli

cat >"$dir/open.fio" <<JOB
[global]
runtime=1s
time_based=1
filename=$dir/data
size=8m

[group:main]
target=5ms

[reader]
group=main
rw=randread
bs=4k
rate_iops=500
rate_process=poisson
iodepth=16

[bytes]
rw=randread
bs=4k
rate=1m
rate_process=poisson
iodepth=4

[mixed]
rw=randrw
bs=4k
rate_iops=150,50
rate_process=linear
iodepth=4
JOB

"$IOLAT" run -q --output-format=json "$dir/open.fio" >"$dir/out.json" 2>"$dir/err" ||
	{ cat "$dir/err"; fail "run failed"; }
python3 - "$dir/out.json" <<'PY' || fail "JSON: open_loop figures"
import json, sys
doc = json.load(open(sys.argv[1]))
jobs = {j["name"]: j for j in doc["jobs"]}
for name, asked in (("reader", 500.0), ("bytes", 256.0), ("mixed", 200.0)):
    ol = jobs[name]["open_loop"]
    assert ol["asked_iops"] == asked, (name, ol)
    assert 0 <= ol["started"] <= ol["arrivals"], (name, ol)
    assert ol["late"] <= ol["started"], (name, ol)
    assert ol["never_started"] == ol["arrivals"] - ol["started"], (name, ol)
    assert ol["max_backlog"] >= 1, (name, ol)
    assert 0 <= ol["started_iops"] < asked * 3, (name, ol)
    # the schedule's, not the machine's: a second's arrivals at the asked rate
    # (what started depends on the machine: a sanitizer build may start none)
    assert asked * 0.3 < ol["arrivals"] < asked * 3, (name, ol)
m = jobs["mixed"]
if m["open_loop"]["started"] >= 40:   # 150 reads, 50 writes a second
    assert m["read"]["ios"] > m["write"]["ios"], m
print("json ok")
PY
"$IOLAT" run -q "$dir/open.fio" >"$dir/out" 2>"$dir/err" || { cat "$dir/err"; fail "table run failed"; }
grep -qE "^open loop: job 'reader': asked 500.0 IOPS, started [0-9.]+; [0-9]+ of [0-9]+ started late, max backlog [0-9]+, [0-9]+ never started" "$dir/out" ||
	{ cat "$dir/out"; fail "no open-loop line for reader"; }
grep -q "^open loop: job 'bytes': asked 256.0 IOPS" "$dir/out" || { cat "$dir/out"; fail "no line for bytes"; }

# Bad values: one line, FILE:LINE, exit 2, nothing run.
bad() { # bad LINE_NO EXPECTED_TEXT: the job file in $dir/bad.fio
	"$IOLAT" run -q "$dir/bad.fio" >"$dir/out" 2>"$dir/err"
	local rc=$?
	[ $rc -eq 2 ] || { cat "$dir/err"; fail "exit $rc for $(cat "$dir/bad.fio" | tr '\n' ' ')"; }
	[ "$(wc -l <"$dir/err")" -eq 1 ] || { cat "$dir/err"; fail "not one line"; }
	grep -q "bad.fio:$1: key '$2'" "$dir/err" || { cat "$dir/err"; fail "want line $1 key $2"; }
}
printf '[r]\nfilename=%s/data\nrw=randread\nrate_iops=100\nrate_process=bursty\n' "$dir" >"$dir/bad.fio"
bad 5 rate_process
printf '[r]\nfilename=%s/data\nrate_iops=-5\n' "$dir" >"$dir/bad.fio"
bad 3 rate_iops
printf '[r]\nfilename=%s/data\nrate=1m\nrate_iops=10\nrate_process=poisson\n' "$dir" >"$dir/bad.fio"
bad 5 rate_process
printf '[r]\nfilename=%s/data\nrw=randread\nrate_iops=10,20\n' "$dir" >"$dir/bad.fio"
bad 4 rate_iops
printf '[r]\nfilename=%s/data\nrate_proces=linear\n' "$dir" >"$dir/bad.fio"
bad 3 rate_proces
grep -q "did you mean 'rate_process'" "$dir/err" || { cat "$dir/err"; fail "no did-you-mean"; }

# The examples parse (the real-disk one is only checked, not run: 2 GiB, 20 s).
"$IOLAT" run --parse-only examples/openloop-reader.ini >/dev/null || fail "examples/openloop-reader.ini"
"$IOLAT" sim --parse-only examples/sim-openloop-reader.ini >/dev/null || fail "examples/sim-openloop-reader.ini"
echo ok
