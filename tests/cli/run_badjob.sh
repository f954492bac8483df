#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad job files make `iolat run` exit 2 with exactly one line on stderr that
# names the file, the line and the key: an unknown key, a bad size, a target
# outside a group section, a bad target, a job with no file, and an
# unreadable job file (missing, a directory). Then what must be refused before
# any file is created (direct=1 with bs=513, --faults unused or bad, --log and
# --output unusable, filename= a directory or a character device, a size over
# the free space or the file-size limit), a misspelled group= and fio's key
# names, with suggestions. Uses $IOLAT, $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-cli
failed=0

# check NAME EXPECTED-REGEX [JOBFILE [OPTIONS...]]: run on $dir/NAME.fio (or JOBFILE)
# with OPTIONS, want rc 2 and one matching line
check() {
	local name=$1 want=$2 job=${3:-$dir/$1.fio}
	shift 3 2>/dev/null || shift $#
	"$IOLAT" run -q "$job" "$@" >"$dir/out" 2>"$dir/err"
	local rc=$? lines
	lines=$(wc -l <"$dir/err")
	if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qE -- "$want" "$dir/err"; then
		echo "FAIL $name: rc=$rc, $lines lines, want /$want/:"; sed 's/^/    /' "$dir/err"
		failed=1
	else
		echo "ok   $name: $(cat "$dir/err")"
	fi
	[ -s "$dir/out" ] && { echo "FAIL $name: printed a report"; failed=1; }
}

printf '[global]\nfilename=%s/x\nsize=1m\n\n[j]\nrw=randread\nbogus=1\n' "$dir" >"$dir/unknown_key.fio"
check unknown_key "unknown_key\.fio:7: key 'bogus'"

printf '[j]\nfilename=%s/x\nsize=12q\n' "$dir" >"$dir/bad_size.fio"
check bad_size "bad_size\.fio:3: key 'size'"

printf '[group:main]\ntarget=5ms\n[j]\nfilename=%s/x\nsize=1m\ngroup=main\ntarget=5ms\n' "$dir" >"$dir/target_in_job.fio"
check target_in_job "target_in_job\.fio:7: key 'target'"

printf '[group:main]\ntarget=soon\n[j]\nfilename=%s/x\nsize=1m\n' "$dir" >"$dir/bad_target.fio"
check bad_target "bad_target\.fio:2: key 'target'"

printf '[j]\nsize=1m\nruntime=1s\n' >"$dir/no_file.fio"
check no_file "no_file\.fio:1: key 'filename'"

printf '[j]\nfilename=%s/never-made\nruntime=1s\n' "$dir" >"$dir/no_size.fio"
check no_size "no_size\.fio:1: key 'size'"

printf '[j]\nfilename=%s/x\nsize=1m\nioengine=sim\n' "$dir" >"$dir/sim_engine.fio"
check sim_engine "sim_engine\.fio:4: key 'ioengine'"   # the key's own line

# Everything is checked before any file is created (issue 9, defect 4); each
# message names the key's own line, not the section's.
nm=$dir/never-made
printf '[global]\nfilename=%s\nsize=1m\n[j]\nrw=randread\ndirect=1\nbs=513\n' "$nm" >"$dir/direct_bs.fio"
check direct_bs "direct_bs\.fio:7: key 'bs': a multiple of [0-9]+ with direct=1"

printf '[j]\nfilename=%s\nsize=1m\nruntime=1\n' "$nm" >"$dir/faults_unused.fio"
check faults_unused "^iolat run: --faults: no job has ioengine=faulty" "$dir/faults_unused.fio" --faults kind=eio
printf '[j]\nfilename=%s\nsize=1m\nruntime=1\nioengine=faulty:psync\n' "$nm" >"$dir/faults_bad.fio"
check faults_bad "^iolat run: --faults: faulty: bad value in 'kind=bogus'" "$dir/faults_bad.fio" --faults kind=bogus
: >"$dir/a-file"
check log_not_dir "^iolat run: --log $dir/a-file: not a directory" "$dir/faults_unused.fio" --log "$dir/a-file"
check log_no_parent "^iolat run: --log $dir/no/such: No such file" "$dir/faults_unused.fio" --log "$dir/no/such"
check output_dir "^iolat run: --output $dir: is a directory" "$dir/faults_unused.fio" --output "$dir"

printf '[j]\nrw=read\nfilename=%s\n' "$dir" >"$dir/file_is_dir.fio"
check file_is_dir "file_is_dir\.fio:3: key 'filename': a file or a block device: .* is a directory"
printf '[j]\nrw=write\nfilename=/dev/null\nsize=1m\n' >"$dir/file_is_chr.fio"
check file_is_chr "file_is_chr\.fio:3: key 'filename': .*/dev/null is a character device"

printf '[global]\nfilename=%s\n[j]\nrw=write\nsize=1p\n' "$nm" >"$dir/huge.fio"
check huge "huge\.fio:5: key 'size': a size that fits: .* needs 1.00 PiB more, and its filesystem has .* free"
printf '[j]\nfilename=%s\nsize=64m\n' "$nm" >"$dir/fsize.fio"
(ulimit -f 1024; check fsize "fsize\.fio:3: key 'size': a file within the file-size limit")
[ -e "$nm" ] && { echo "FAIL: a refused job created $nm"; failed=1; }

# A misspelled group= (defect 7) and fio's key names (defect 8).
printf '[group:main]\ntarget=5ms\n[j]\nfilename=%s\nsize=1m\ngroup=mian\n' "$nm" >"$dir/group_typo.fio"
check group_typo "group_typo\.fio:6: key 'group': expected a group declared by a \[group:PATH\] section \(got 'mian'; did you mean 'main'\?\)"
printf '[j]\nfilename=%s\nsize=1m\niodetph=4\n' "$nm" >"$dir/key_typo.fio"
check key_typo "key_typo\.fio:4: key 'iodetph': expected a known key; did you mean 'iodepth'\?"
printf '[global]\nrandseed=3\n[j]\nfilename=%s\nsize=1m\n' "$nm" >"$dir/fio_key.fio"
check fio_key "fio_key\.fio:2: key 'randseed': expected a known key: fio's randseed is seed= here"

# --parse-only: every check, what the layout would do, nothing touched.
printf '[group:a]\n[j]\ngroup=a\nfilename=%s\nsize=1m\n' "$nm" >"$dir/parse_ok.fio"
out=$("$IOLAT" run --parse-only "$dir/parse_ok.fio" 2>&1); rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q "ok (1 jobs, 1 groups)" &&
   echo "$out" | grep -q "$nm: would be created, 1.00 MiB" && [ ! -e "$nm" ]; then
	echo "ok   --parse-only: $(echo "$out" | tr '\n' '|')"
else
	echo "FAIL --parse-only: rc=$rc: $out"; failed=1
fi
check parse_only_bad "huge\.fio:5: key 'size': a size that fits" "$dir/huge.fio" --parse-only
"$IOLAT" sim --parse-only "$dir/group_typo.fio" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL sim --parse-only accepted a misspelled group"; failed=1; }

check missing_file "does-not-exist\.fio.*No such file" "$dir/does-not-exist.fio"
check directory "$dir.*(directory|cannot read)" "$dir"

[ -e "$dir/never-made" ] && { echo "FAIL: a bad job created a file"; failed=1; }
exit $failed
