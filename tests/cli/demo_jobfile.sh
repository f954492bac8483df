#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `iolat demo -v` prints, for each mode, the job file that mode ran; the demo
# builds its jobs in code (no text parsed), so this checks that the printed
# text is that job file: run with `iolat sim`, each printed file gives the
# demo's own figures for its mode (reader p50/p90/p99, writer MiB/s: the
# simulator is deterministic). The target is the demo's default or --target
# (given as 1.5ms, written back as 1500us), the cap appears only in the
# static-cap mode, --device in every mode; a bad --device is refused before
# anything runs. Uses $IOLAT and python3.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
cli_tmpdir iolat-demojob
cli_collect_failures

# check ARGS...: the demo with ARGS, then each printed job file through iolat sim.
check() {
	local name=$1; shift
	"$IOLAT" demo --sim --seconds 2 -q -v "$@" >"$dir/$name.out" 2>"$dir/$name.err" ||
		{ fail "$name: demo exit $?: $(tail -3 "$dir/$name.err")"; return; }
	rm -f "$dir/$name".mode*.ini
	awk -v base="$dir/$name" '/^---- .* ----$/ { n++; f = base ".mode" n ".ini"; next }
		n { print > f }' "$dir/$name.err"
	local k
	for k in 1 2 3 4; do
		[ -s "$dir/$name.mode$k.ini" ] || { fail "$name: no job file for mode $k"; return; }
		"$IOLAT" sim "$dir/$name.mode$k.ini" >"$dir/$name.sim$k" 2>&1 ||
			{ fail "$name: mode $k's job file: $(tail -2 "$dir/$name.sim$k")"; return; }
	done
	python3 - "$dir/$name" <<'PY' || fail "$name: the printed job files do not give the demo's figures"
import sys
base = sys.argv[1]
lines = open(base + ".out").read().splitlines()
head = next(i for i, l in enumerate(lines) if l.startswith("mode "))
rows = [l for l in lines[head + 1:] if l.strip()][:4]
bad = 0
for k, row in enumerate(rows, 1):
    # fixed widths from the right: p50 p90 p99 (11 each), MiB/s (13), depth (13)
    depth_at = len(row) - 13
    mib = float(row[depth_at - 14:depth_at])
    p = row[:depth_at - 14].split()[-3:]
    sim = {}
    for l in open(f"{base}.sim{k}").read().splitlines():
        f = l.split()
        if f and f[0] in ("main", "system/fbpkg"):
            sim[f[0]] = f
    want = (p, round(mib, 1))
    got = (sim["main"][3:6], round(float(sim["system/fbpkg"][2]), 1))
    if want != got:
        print(f"mode {k}: demo {want}, sim of its job file {got}")
        bad = 1
sys.exit(bad)
PY
}

check default
grep -q '^target=150us$' "$dir/default.mode1.ini" || fail "default: the ssd model's default target"
check hdd --device hdd --target 1.5ms --cap 50m
grep -q '^target=1500us$' "$dir/hdd.mode3.ini" || fail "hdd: --target 1.5ms"
[ "$(cat "$dir"/hdd.mode*.ini | grep -c '^device=hdd$')" = 4 ] || fail "hdd: device= in every mode"
[ "$(grep -l '^rate=52428800$' "$dir"/hdd.mode*.ini)" = "$dir/hdd.mode2.ini" ] ||
	fail "hdd: rate= only in the static cap mode"
grep -q 'static cap (50 MiB/s)' "$dir/hdd.out" || fail "hdd: the cap's row"
grep -q '^control=adaptive$' "$dir/hdd.mode4.ini" && grep -q '^control=article$' "$dir/hdd.mode3.ini" &&
	grep -q '^control=0$' "$dir/hdd.mode1.ini" || fail "hdd: control= per mode"
[ $failed -eq 0 ] && echo "ok   the printed job files give the demo's figures (ssd default, hdd 1.5ms, cap)"

"$IOLAT" demo --sim --device floppy >"$dir/out" 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && [ ! -s "$dir/out" ] &&
	grep -q "device: 'floppy' is not ssd, hdd or bad-ssd" "$dir/err" &&
	echo "ok   --device floppy: $(cat "$dir/err")" || fail "--device floppy: rc=$rc $(cat "$dir/err")"
exit $failed
