#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Engine options as job-file keys (ENGINE.OPTION=VALUE, src/job/jobfile_engopt.c):
#  - a job with faulty.* keys injects exactly what --faults with the same
#    values injects (faulty:null, size-bound, one I/O in flight: the fault
#    picker's draws are deterministic), and another seed changes the count,
#    so the keys really reach the engine; the job key rate= (a bandwidth cap)
#    and faulty.rate= (the fault chance) live side by side;
#  - [global] faulty.* keys are defaults for the faulty jobs below;
#  - both given: --faults wins key by key, the keys it does not name stay;
#  - the JSON's "injected" names the engine and the options it ran with
#    (--faults over the job's keys);
#  - `iolat help keys` lists every option the faulty engine declares (the
#    names are taken from `iolat run --help`, which prints the engine's table);
#  - bad values, unknown options (with did you mean), a misspelled engine, an
#    option of an engine the job does not use, a [global] one no job uses:
#    exit 2 with one line FILE:LINE: key 'KEY': ..., for run, --parse-only and
#    sim alike, before anything is done.
# About 1 s. Uses $IOLAT, $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
cli_tmpdir iolat-engkeys
cli_collect_failures

# job NAME [GLOBAL_LINES] [JOB_LINES]: a faulty:null job of 1024 reads of 4k.
job() {
	printf '[global]\n%b\n[j]\nioengine=faulty:null\nsize=4m\nbs=4k\nrw=randread\n%b\n' \
		"${2:-}" "${3:-}" >"$dir/$1.fio"
}
# injected NAME [ARGS...]: the EIO count the JSON reports for job j.
injected() {
	local f="$dir/$1.fio"; shift
	"$IOLAT" run -q --output-format=json "$@" "$f" 2>"$dir/err" >"$dir/out.json"
	sed -n 's/^      "injected": {"errors": [0-9]*, "eio": \([0-9]*\),.*/\1/p' "$dir/out.json" |
		head -1
}
# same WHAT A B: the two counts are equal and above 0
same() {
	if [ -n "$2" ] && [ "$2" = "$3" ] && [ "$2" -gt 0 ]; then
		echo "ok   $1: $2 = $3"
	else
		fail "$1: '$2' vs '$3' ($(cat "$dir/err"))"
	fi
}

job plain
job keys "" 'faulty.kind=eio\nfaulty.rate=0.3\nfaulty.seed=5\nrate=1g'
job global 'faulty.kind=eio\nfaulty.rate=0.3\nfaulty.seed=5'
job keys6 "" 'faulty.kind=eio\nfaulty.rate=0.3\nfaulty.seed=6'
by_opt=$(injected plain --faults kind=eio,rate=0.3,seed=5)
by_opt6=$(injected plain --faults kind=eio,rate=0.3,seed=6)
same "faulty.* keys = --faults" "$(injected keys)" "$by_opt"
same "[global] faulty.* keys = --faults" "$(injected global)" "$by_opt"
same "faulty.seed=6 = --faults seed=6" "$(injected keys6)" "$by_opt6"
[ "$by_opt" != "$by_opt6" ] && echo "ok   another seed, another count ($by_opt, $by_opt6)" ||
	fail "seeds 5 and 6 inject the same count: the test cannot tell the seed was used"
same "--faults seed=6 wins over faulty.seed=5" "$(injected keys --faults seed=6)" "$by_opt6"
job countdown "" 'faulty.kind=eio\nfaulty.after=100\nfaulty.count=40'
n=$(injected countdown)
[ "$n" = 40 ] && echo "ok   faulty.after=100, faulty.count=40: 40 injected" ||
	fail "count=40: got '$n'"
n=$(injected countdown --faults count=7)
[ "$n" = 7 ] && echo "ok   --faults count=7 over faulty.count=40, faulty.kind kept: 7" ||
	fail "--faults count=7 over keys: got '$n'"
# The report names the engine with the options it ran with: the job's, --faults over them.
engine=$(sed -n 's/^      "injected": {.*"engine": "\([^"]*\)"}.*/\1/p' "$dir/out.json" | head -1)
[ "$engine" = "faulty:null kind=eio,after=100,count=7" ] &&
	echo "ok   the JSON names the engine it ran: $engine" ||
	fail "injected.engine: got '$engine', want 'faulty:null kind=eio,after=100,count=7'"

# help keys: every option of the faulty engine, as faulty.NAME.
"$IOLAT" help keys >"$dir/keys" 2>&1 || fail "help keys exit $?"
"$IOLAT" run --help >"$dir/runhelp" 2>&1
names=$(grep -A1 -- '^  --faults OPTS' "$dir/runhelp" | tail -1 | grep -o '[a-z]*=' | tr -d '=')
[ -n "$names" ] || fail "no faulty options found in iolat run --help"
for k in $names; do
	grep -Eq "^faulty\.$k +" "$dir/keys" && echo "ok   help keys lists faulty.$k" ||
		fail "help keys lacks faulty.$k"
done

# bad NAME REGEX GLOBAL_LINES JOB_LINES [ENGINE]: exit 2, one line matching REGEX, for
# run, run --parse-only and sim; run creates nothing (filename= is never made).
bad() {
	printf '[global]\n%b\n[j]\nioengine=%s\nfilename=%s\nsize=4m\nruntime=1s\n%b\n' \
		"$3" "${5:-faulty:psync}" "$dir/never.dat" "$4" >"$dir/$1.fio"
	local mode rc
	for mode in run "run --parse-only" sim; do
		# shellcheck disable=SC2086
		"$IOLAT" $mode "$dir/$1.fio" >"$dir/out" 2>"$dir/err"; rc=$?
		if [ $rc -ne 2 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -qE -- "$2" "$dir/err" ||
		   [ -e "$dir/never.dat" ]; then
			fail "$1 ($mode): rc=$rc, want /$2/, stderr: $(cat "$dir/err")"
			return
		fi
	done
	echo "ok   $1: $(cat "$dir/err")"
}
bad bad_rate "\.fio:8: key 'faulty\.rate': expected a number from 0 to 1 \(got '2'\)" \
	"" 'faulty.rate=2'
bad bad_kind ":8: key 'faulty\.kind': expected eio, enospc, .* \(got 'eio\+bogus'\)" \
	"" 'faulty.kind=eio+bogus'
bad bad_dir ":8: key 'faulty\.dir': expected one of read, write or any" "" 'faulty.dir=up'
bad bad_ms ":8: key 'faulty\.ms': expected an integer from 0 to 3600000 \(got '-1'\)" \
	"" 'faulty.ms=-1'
bad bare_key ":8: key 'faulty\.ms': expected a value \(faulty\.ms=\.\.\.\)" "" 'faulty.ms'
bad two_values ":8: key 'faulty\.kind': expected one value: each faulty option on its own line" \
	"" 'faulty.kind=eio,rate=0.1'
bad unknown_opt ":8: key 'faulty\.rat': expected an option of ioengine=faulty:<engine> \
\(kind, .*\); did you mean 'faulty\.rate'\?" \
	"" 'faulty.rat=0.1'
bad misspelt_engine ":8: key 'fualty\.rate': expected a known key; did you mean 'faulty\.rate'\?" \
	"" 'fualty.rate=0.1'
bad wrong_engine ":8: key 'faulty\.kind': expected ioengine=faulty:<engine> in job 'j' \
for faulty\.\* keys \(it has ioengine=psync\)" \
	"" 'faulty.kind=eio' psync
bad unused_global ":2: key 'faulty\.kind': expected a job below this \[global\] \
that takes it \(one with ioengine=faulty:<engine> that does not set faulty\.kind itself\)" \
	'faulty.kind=eio' "" psync
bad overridden_global ":2: key 'faulty\.kind': expected a job below this \[global\]" \
	'faulty.kind=eio' 'faulty.kind=short'
bad in_group ":3: key 'faulty\.kind': expected only target in a \[group:PATH\] section" \
	'[group:a]\nfaulty.kind=eio' ""
bad plain_rate_is_the_job_key ":8: key 'rate': expected a rate in bytes/s" "" 'rate=low'

[ $failed -eq 0 ] || exit 1
echo "engine keys: all ok"
