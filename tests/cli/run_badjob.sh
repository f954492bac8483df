#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad job files make `iolat run` exit 2 with exactly one line on stderr that
# names the file, the line and the key: an unknown key, a bad size, a target
# outside a group section, a bad target, a job with no file, and an
# unreadable job file (missing, a directory). Uses $IOLAT, $TMPDIR or /var/tmp.
set -u
IOLAT=${IOLAT:-build/iolat}
[ -x "$IOLAT" ] || { echo "skip: $IOLAT not built"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/iolat-cli-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
trap 'rm -rf "$dir"' EXIT
failed=0

# check NAME EXPECTED-REGEX: run on $dir/NAME.fio, want rc 2 and one matching line
check() {
	local name=$1 want=$2 job=${3:-$dir/$1.fio}
	"$IOLAT" run -q "$job" >"$dir/out" 2>"$dir/err"
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
check sim_engine "sim_engine\.fio:1: key 'ioengine'"

check missing_file "does-not-exist\.fio.*No such file" "$dir/does-not-exist.fio"
check directory "$dir.*(directory|cannot read)" "$dir"

[ -e "$dir/never-made" ] && { echo "FAIL: a bad job created a file"; failed=1; }
exit $failed
