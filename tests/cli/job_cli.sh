#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI dispatcher (tools/iolat.c): --version, help, `help keys` lists every
# job-file key, unknown commands and no arguments exit 2 with usage on stderr.
# Run by tests/runtests.sh with IOLAT=build/iolat.
set -u
IOLAT=${IOLAT:-build/iolat}
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$IOLAT" ] || { echo "no $IOLAT"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$IOLAT" --version >"$tmp/out" 2>&1 || fail "--version exit $?"
grep -Eq '^iolat [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" || fail "--version printed: $(cat "$tmp/out")"

"$IOLAT" help >"$tmp/out" 2>&1 || fail "help exit $?"
for c in run sim demo help; do grep -q "  $c " "$tmp/out" || fail "help lacks $c"; done

"$IOLAT" help keys >"$tmp/keys" 2>&1 || fail "help keys exit $?"
for k in filename size offset rw rwmixread bs iodepth runtime time_based startdelay rate_iops \
	 rate thinktime direct ioengine numjobs verify group cgroup burst_on burst_off ioflags \
	 target device nr_requests rotational control kernel_compat seed 'hdd_\*' 'ssd_\*' 'badssd_\*'; do
	grep -Eq "(^|\|)$k( |\|)" "$tmp/keys" || fail "help keys lacks $k"
done

"$IOLAT" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "no arguments: exit $rc, want 2"
grep -q usage "$tmp/err" || fail "no arguments: no usage on stderr"

"$IOLAT" frobnicate >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "unknown command: exit $rc, want 2"
grep -q "unknown command 'frobnicate'" "$tmp/err" || fail "unknown command message: $(cat "$tmp/err")"

"$IOLAT" help nosuchtopic >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "help of an unknown topic: exit $rc, want 2"
echo "ok"
