#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iolat run and sim refuse an --output or --log that is one of the run's own
# inputs (issue 20, defect 5: --output=the job file or its data file used to
# replace it with the report, exit 0): the job file, an existing data file
# (also by another path to it), a data file yet to be laid out. Each is one
# line, exit 2, and the input is left byte for byte. Also: fio's
# 'filename=a.dat:b.dat' gets its own message, and a report that cannot be
# written says why (/dev/full: no space), not EIO.
set -u
. "$(dirname "$0")/lib.sh"
IOLAT=$(realpath "${IOLAT:-build/iolat}" 2>/dev/null) || IOLAT=
[ -n "$IOLAT" ] || skip "${IOLAT:-build/iolat} not built"
need_iolat
cli_tmpdir iolat-outin /tmp
cd "$dir" || exit 1

head -c 1048576 /dev/urandom >data.dat
mkdir sub
cat >job.ini <<JOB
[global]
filename=$dir/data.dat
size=1m
runtime=1s
time_based=1
ioengine=psync
[group:g]
target=1ms
[reader]
group=g
rw=randread
bs=4k
[late]
group=g
filename=$dir/new.dat
rw=read
bs=4k
JOB
sum_job=$(md5sum <job.ini); sum_data=$(md5sum <data.dat)

refused() { # cmd, option, expected message part
	"$IOLAT" "$1" job.ini "$2" -q >out 2>err
	local rc=$?
	[ "$rc" -eq 2 ] || fail "$1 $2: exit $rc, want 2 ($(cat err))"
	[ "$(wc -l <err)" -eq 1 ] && grep -q -- "$3" err || fail "$1 $2: '$(cat err)' lacks '$3'"
	[ "$(md5sum <job.ini)" = "$sum_job" ] || fail "$1 $2: the job file changed"
	[ "$(md5sum <data.dat)" = "$sum_data" ] || fail "$1 $2: the data file changed"
	[ -e new.dat ] && fail "$1 $2: a data file was laid out"
	return 0
}
for cmd in run sim; do
	refused $cmd --output=job.ini "is the job file"
	refused $cmd --output="$dir/data.dat" "is job 'reader''s filename"
	refused $cmd --output=./sub/../data.dat "is job 'reader''s filename"
	refused $cmd --output=new.dat "is job 'late''s filename"
	refused $cmd --log=new.dat "is job 'late''s filename"
done
ln -s data.dat link.dat
refused run --output=link.dat "is job 'reader''s filename"

printf '[global]\nfilename=a.dat:b.dat\nsize=1m\nruntime=1s\n[group:g]\ntarget=1ms\n[j]\ngroup=g\nrw=read\n' >colon.ini
"$IOLAT" run colon.ini --parse-only 2>err; rc=$?
[ "$rc" -eq 2 ] && grep -q "one file per job: 'a.dat:b.dat' looks like fio's list" err || fail "a:b filename: exit $rc: $(cat err)"

if [ -w /dev/full ]; then
	printf '[global]\nioengine=null\nruntime=200ms\ntime_based=1\nsize=1m\n[group:g]\ntarget=1ms\n[j]\ngroup=g\nrw=read\n' >null.ini
	"$IOLAT" run null.ini --output=/dev/full -q 2>err; rc=$?
	[ "$rc" -ne 0 ] && grep -q 'No space left on device' err || fail "/dev/full: exit $rc: $(cat err)"
fi
echo "PASS"
