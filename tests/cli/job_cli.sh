#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI dispatcher (tools/iolat.c): --version, help, `help keys` lists every
# job-file key, unknown commands and no arguments exit 2 with usage on stderr.
# Run by tests/runtests.sh with IOLAT=build/iolat.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$IOLAT" --version >"$tmp/out" 2>&1 || fail "--version exit $?"
grep -Eq '^iolat [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" || fail "--version printed: $(cat "$tmp/out")"

"$IOLAT" -V >"$tmp/out" 2>&1 || fail "-V exit $?"
grep -Eq '^iolat [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" || fail "-V printed: $(cat "$tmp/out")"

"$IOLAT" help >"$tmp/out" 2>&1 || fail "help exit $?"
grep -q -- "-V, --version" "$tmp/out" || fail "help lacks -V, --version"
# every flag is in its command's usage lines
for f in --output-format --output= --log --no-control --kernel-compat --faults --parse-only -q; do
	"$IOLAT" run --help | sed -n '1,/^$/p' | grep -q -- "$f" || fail "run usage lacks $f"
done
for f in --seed --output-format --output= --log --no-control --kernel-compat --parse-only -v -q; do
	"$IOLAT" sim --help | sed -n '1,/^$/p' | grep -q -- "$f" || fail "sim usage lacks $f"
done
for c in run sim demo help; do grep -q "  $c " "$tmp/out" || fail "help lacks $c"; done

"$IOLAT" help keys >"$tmp/keys" 2>&1 || fail "help keys exit $?"
for k in filename size offset rw rwmixread bs iodepth runtime time_based startdelay rate_iops \
	 rate rate_process thinktime direct ioengine numjobs verify group cgroup burst_on burst_off ioflags \
	 target device nr_requests rotational control kernel_compat seed 'hdd_\*' 'ssd_\*' 'badssd_\*' \
	 blocksize name ramp_time randrepeat norandommap percentile_list allow_mounted_write \
	 allow_signature_write throttle_slice actuate_period actuate_delay throttle_bps; do
	grep -Eq "(^|\|)$k( |\|)" "$tmp/keys" || fail "help keys lacks $k"
done
# fio's keys: the accepted aliases and what to use instead of the others
grep -q "^fio keys: blocksize = bs, readwrite = rw; cgroup= as fio.s" "$tmp/keys" || fail "help keys lacks the fio aliases"
grep -Eq "^  randseed +fio's randseed is seed= here" "$tmp/keys" || fail "help keys lacks randseed"
grep -Eq "^  latency_target +.*target= in a \[group:PATH\]" "$tmp/keys" || fail "help keys lacks latency_target"
grep -q "max or 0: none" "$tmp/keys" || fail "help keys does not say target=0 means none"

"$IOLAT" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "no arguments: exit $rc, want 2"
grep -q usage "$tmp/err" || fail "no arguments: no usage on stderr"

"$IOLAT" frobnicate >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "unknown command: exit $rc, want 2"
grep -q "unknown command 'frobnicate'" "$tmp/err" || fail "unknown command message: $(cat "$tmp/err")"

"$IOLAT" help nosuchtopic >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "help of an unknown topic: exit $rc, want 2"
echo "ok"
