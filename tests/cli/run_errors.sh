#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Failed I/Os: `iolat run` with an injected-error engine (ioengine=faulty:null,
# --faults kind=eio) finishes, still prints its report, and exits 1 with the
# failed-I/O count of each group on stderr; the JSON counts the same errors.
# Uses $IOLAT, $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-cli

cat >"$dir/faulty.fio" <<JOB
[global]
runtime=500ms
time_based=1
size=1m

[group:main]
target=5ms

[group:bulk]

[web]
group=main
ioengine=faulty:null
rw=randread
bs=4k
iodepth=4
rate_iops=2000

[copy]
group=bulk
ioengine=null
rw=write
bs=64k
iodepth=2
rate_iops=500
JOB

"$IOLAT" run -q --faults kind=eio,rate=0.25,seed=3 "$dir/faulty.fio" >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/out" "$dir/err"
[ $rc -eq 1 ] || fail "exit $rc, want 1"
grep -qE '^main +[0-9]' "$dir/out" || fail "no report"
grep -qE 'I/Os failed' "$dir/err" || fail "no failure summary"
grep -qE 'group main +[1-9][0-9]* failed I/Os' "$dir/err" || fail "no failed count for main"
grep -qE 'group bulk +0 failed I/Os' "$dir/err" || fail "bulk should have no failures"
grep -q 'Input/output error' "$dir/err" || fail "the first error is not named"

# Bad fault options are a bad job: exit 2, one line.
"$IOLAT" run -q --faults kind=gremlins "$dir/faulty.fio" >"$dir/out" 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] || { cat "$dir/err"; fail "bad --faults: exit $rc"; }
# Without faults the same file is clean.
"$IOLAT" run -q "$dir/faulty.fio" >"$dir/out" 2>"$dir/err" || { cat "$dir/err"; fail "clean run failed"; }
echo ok
