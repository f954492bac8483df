#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Data integrity under faults (docs/reliability.md): verify=crc32c writers
# through faulty engines with EIO and short writes injected (--faults
# kind=eio+short,rate=0.05), IOLAT_CHECK=1, on a real temp file shared by two
# jobs in two groups (faulty:uring, falling back to psync where io_uring is
# refused, and faulty:psync), so that their writes also overlap. After the run
# `iolat run` reads the file back: every block whose last write was reported
# successful must hold that write (its generation, offset and crc32c), every
# block no write completed on the laid-out data; blocks whose last write
# failed or overlapped another are not checked.
#  - exit 1 (injected failures), the verify pass ran: > 0 blocks checked, > 0
#    of them set by successful writes, > 0 left unspecified by failed writes,
#    0 bad; the normal output says so in one line;
#  - the same file without faults: exit 0, 0 bad.
# About 4 s (2 s with IOLAT_TEST_SHORT=1). Uses $IOLAT, $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-fault
runtime=2s
[ "${IOLAT_TEST_SHORT:-0}" = 1 ] && runtime=1s

cat >"$dir/verify.fio" <<JOB
[global]
filename=$dir/verify.dat
size=4m
time_based=1
runtime=$runtime
verify=crc32c

[group:db]
target=2ms

[group:bulk]

[db]
group=db
ioengine=faulty:uring
rw=randwrite
bs=4k
iodepth=8
rate_iops=3000

[bulk]
group=bulk
ioengine=faulty:psync
rw=randwrite
bs=16k
iodepth=4
rate_iops=500
JOB

# "verify": {"block_bytes": B, "blocks_checked": N, "blocks_written": N, "blocks_bad": N, "blocks_unspecified": N, ...}
field() { sed -n "s/.*\"verify\": {.*\"$1\": \([0-9]*\).*/\1/p" "$dir/out.json"; }

IOLAT_CHECK=1 "$IOLAT" run -q --faults kind=eio+short,rate=0.05,seed=5 --output-format=json \
	"$dir/verify.fio" >"$dir/out.json" 2>"$dir/err"
rc=$?
cat "$dir/err"
grep '"verify"' "$dir/out.json"
[ $rc -eq 1 ] || { cat "$dir/out.json"; fail "exit $rc, want 1 (injected failures)"; }
grep -q 'IOLAT_CHECK: the controller.s invariants held' "$dir/err" || fail "no IOLAT_CHECK verdict"
grep -q '"verify"' "$dir/out.json" || fail "no verify pass in the JSON"
[ "$(field blocks_bad)" = 0 ] || fail "$(field blocks_bad) blocks read back wrong"
[ "$(field blocks_checked)" -gt 0 ] || fail "no block checked"
[ "$(field blocks_written)" -gt 0 ] || fail "no block set by a successful write was checked"
[ "$(field blocks_unspecified)" -gt 0 ] || fail "no failed write left a block unspecified"
grep -q '"short": [1-9]' "$dir/out.json" || fail "no short write injected"
grep -q '"eio": [1-9]' "$dir/out.json" || fail "no EIO injected"
grep -q 'did not read back' "$dir/err" && fail "bad blocks reported"

# Without faults: clean, and the normal output has the verdict line.
"$IOLAT" run -q "$dir/verify.fio" >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/out" "$dir/err"
[ $rc -eq 0 ] || fail "a clean run exited $rc"
grep -qE '^verify: [1-9][0-9]* blocks of 4096 bytes read back after the run \([0-9]+ set by successful writes\): 0 bad' \
	"$dir/out" || fail "no verify line in the normal output"
echo ok
