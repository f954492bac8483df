#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `--control MODE` of iolat sim (and control=MODE in a job file): the mode in
# effect is the one named (the heading and the "controller" line say so);
# adaptive adds its CSV columns (pace, limit, step, decision, hold) while article's
# CSV keeps the old header; a bad mode exits 2 with one line. Uses $IOLAT.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-ctl
cli_collect_failures
job=examples/sim-protect-ssd.ini

"$IOLAT" sim --help 2>&1 | grep -q -- '--control MODE' || fail "--help lacks --control"
"$IOLAT" sim "$job" --control adaptive --log "$dir/ad" >"$dir/ad.txt" 2>&1 || fail "adaptive exit $?"
grep -q 'controller on (adaptive)' "$dir/ad.txt" || fail "adaptive not in effect: $(head -3 "$dir/ad.txt")"
head -1 "$dir/ad/system.csv" | grep -q ',pace_mib_s,limit_mib_s,step,decision,hold_ms$' ||
	fail "adaptive CSV header"
# The writer's group was really paced, by a limit its parent set.
grep -Eq ',pace,(limit|hold|probe|probe_ok|probe_fail|backoff),' "$dir/ad/system.csv" ||
	fail "no adaptive steps in system.csv"
"$IOLAT" sim "$job" --control article --log "$dir/ar" >"$dir/ar.txt" 2>&1 || fail "article exit $?"
grep -q 'controller on$' "$dir/ar.txt" || fail "article: $(head -3 "$dir/ar.txt")"
head -1 "$dir/ar/system.csv" | grep -q 'pace_mib_s' && fail "article CSV has adaptive columns"
"$IOLAT" sim "$job" --control kernel >"$dir/k.txt" 2>&1 || fail "kernel exit $?"
grep -q 'kernel compat' "$dir/k.txt" || fail "--control kernel not in effect"
# The same through the job file.
sed 's/^\[global\]$/[global]\ncontrol=adaptive/' "$job" >"$dir/job.ini"
"$IOLAT" sim "$dir/job.ini" >"$dir/jf.txt" 2>&1 || fail "control=adaptive exit $?"
grep -q 'controller on (adaptive)' "$dir/jf.txt" || fail "control=adaptive not in effect"
# Bad values: exit 2, one line.
"$IOLAT" sim "$job" --control fast >"$dir/o" 2>"$dir/e"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$dir/e")" -eq 1 ] || fail "--control fast: rc=$rc $(cat "$dir/e")"
sed 's/^\[global\]$/[global]\ncontrol=fast/' "$job" >"$dir/bad.ini"
"$IOLAT" sim "$dir/bad.ini" >"$dir/o" 2>"$dir/e"; rc=$?
[ $rc -eq 2 ] && grep -q "key 'control': expected 0, 1, article, kernel or adaptive" "$dir/e" ||
	fail "control=fast: rc=$rc $(cat "$dir/e")"
# A target below what the reader gets alone: adaptive says it is unattainable
# (table note, JSON), article mode has no such field.
sed 's/^target=300us.*/target=30us/' examples/sim-knee.ini >"$dir/un.ini"
"$IOLAT" sim "$dir/un.ini" --control adaptive -q >"$dir/un.txt" 2>&1 || fail "unattainable run: $?"
grep -Eq '^note: main: target unattainable: p90 [0-9.]+us at sibling rate [0-9]+ MiB/s' "$dir/un.txt" ||
	fail "no unattainable note: $(tail -2 "$dir/un.txt")"
"$IOLAT" sim "$dir/un.ini" --control adaptive -q --output-format=json >"$dir/un.json" 2>&1
grep -q '"unattainable": true' "$dir/un.json" || fail "JSON lacks unattainable: true"
"$IOLAT" sim examples/sim-knee.ini --control adaptive -q >"$dir/at.txt" 2>&1
grep -q 'unattainable' "$dir/at.txt" && fail "a 300us target said unattainable"
"$IOLAT" sim "$dir/un.ini" --control article -q --output-format=json >"$dir/ar.json" 2>&1
grep -q 'unattainable' "$dir/ar.json" && fail "article JSON has adaptive fields"
[ $failed -eq 0 ] && echo "ok   sim --control article|kernel|adaptive"
exit $failed
