#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `--control MODE` of iolat sim (and control=MODE in a job file): the mode in
# effect is the one named (the heading and the "controller" line say so);
# adaptive adds its CSV columns (pace, limit, step, decision, hold) while article's
# CSV keeps the old header; a bad mode exits 2 with one line. Uses $IOLAT.
set -u
IOLAT=${IOLAT:-build/iolat}
[ -x "$IOLAT" ] || { echo "skip: $IOLAT not built"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/iolat-ctl-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
trap 'rm -rf "$dir"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
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
[ $failed -eq 0 ] && echo "ok   sim --control article|kernel|adaptive"
exit $failed
