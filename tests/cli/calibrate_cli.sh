#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `iolat calibrate`: bad usage gets one line and exit 2 before anything is
# written (a mounted disk, an existing file, an unknown option or model key);
# --sim finds the simulated disk's knee and prints JSON that parses, with the
# knee within 5 % of the model's write pipe; on a real directory it runs end
# to end with 1 s steps and leaves no scratch file, also when SIGTERM stops it
# (exit 143, what ran reported). As root with a block cgroup hierarchy its
# writer is paced by the kernel's throttle on a cgroup it makes (delivered
# at most 1.1 x the pace; the cgroup gone after, also after SIGTERM);
# --pace=throttle is refused with one line where it cannot be (not root); a
# --cgroup that exists is used and left without a cap. Uses $IOLAT; files in a mktemp directory.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/iolat-calib-XXXXXX") || { echo "skip: no temp dir"; exit 77; }
pid=
cgroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/self/mounts)
if [ -z "$cgroot" ]; then
	cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	grep -qw io "$cgroot/cgroup.subtree_control" 2>/dev/null || cgroot=
fi
throttle=; [ "$(id -u)" -eq 0 ] && [ -n "$cgroot" ] && throttle=1
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	[ -n "$cgroot" ] && rmdir "$cgroot/iolat-test-calib-$$" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
cli_collect_failures

# refused ARGS... -- PATTERN: exit 2, one line matching PATTERN, nothing on stdout.
refused() {
	local pat=${*: -1} rc
	"$IOLAT" calibrate "${@:1:$#-1}" >"$dir/out" 2>"$dir/err"; rc=$?
	[ $rc -eq 2 ] || fail "calibrate ${*:1:$#-1}: exit $rc, want 2"
	[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "calibrate ${*:1:$#-1}: not one line: $(cat "$dir/err")"
	grep -q -- "$pat" "$dir/err" || fail "calibrate ${*:1:$#-1}: '$(cat "$dir/err")' lacks '$pat'"
	[ ! -s "$dir/out" ] || fail "calibrate ${*:1:$#-1}: printed a result"
}

refused "expected a disk, a directory"
refused --bogus "unknown option '--bogus'"
refused --sim "$dir" "no disk"
refused "$dir" --device ssd "goes with --sim"
refused --sim --device floppy "is not ssd, hdd, bad-ssd or vdisk"
refused --sim --set vdisk_nope=1 "vdisk_nope"
refused --sim --step 0.5s "from 1s to 60s"
refused --sim --target fast "not a latency"
refused "$dir" --pace fast "is not auto, throttle or rate"
refused --sim --pace=throttle "paces a real disk's writer: not with --sim"
refused "$dir" --cgroup /abs "is not a cgroup path under the hierarchy's root"
refused "$dir" --cgroup a/../b "is not a cgroup path"
refused "$dir" --pace=rate --cgroup x "not with --pace=rate"
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$IOLAT" calibrate "$dir/np" --pace=throttle \
		>"$dir/out" 2>"$dir/err"; rc=$?
	[ $rc -eq 2 ] && grep -q -- "--pace=throttle: making a cgroup needs root" "$dir/err" ||
		fail "--pace=throttle not as root: exit $rc: $(cat "$dir/err")"
fi
touch "$dir/taken"
refused "$dir/taken" "exists, and calibrate would overwrite it"
refused /dev/null "expected a block device"
# The disk under / (when it is a block device here): mounted, so refused with the way out.
rootdev=$(awk '$5 == "/" { print $10; exit }' /proc/self/mountinfo)
if [ -b "$rootdev" ]; then
	refused "$rootdev" "mounted on /.*give a directory on it instead"
fi
left=$(ls -A "$dir" | grep -vxE 'taken|out|err')
[ -n "$cgroot" ] && ls -d "$cgroot"/iolat-calibrate-* >/dev/null 2>&1 && fail "a refused calibration made a cgroup"
[ -z "$left" ] || fail "a refused calibration left files: $left"

# The simulator: the knee is vdisk's write pipe.
"$IOLAT" calibrate --sim --set vdisk_mbps=1200 --output-format=json -q >"$dir/sim.json" 2>"$dir/err" ||
	fail "calibrate --sim: exit $?: $(cat "$dir/err")"
python3 - "$dir/sim.json" <<'PY' || fail "calibrate --sim JSON: see above"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "iolat-calibrate/1", d["schema"]
assert d["virtual_time"] is True
assert 1200 * 0.95 <= d["knee_mb_s"] <= 1200 * 1.001, d["knee_mb_s"]
assert d["unpaced"]["pace_bps"] == "unpaced"
assert len(d["bisect"]) == 6 and len(d["curve"]) == 6
assert d["solo_after"]["reads_s"] > 0 and d["solo_ref_reads_s"] > 0
lo, hi = d["knee_range_mb_s"]
assert lo <= d["knee_mb_s"] <= hi, (lo, d["knee_mb_s"], hi)
assert d["knee_bisect_mb_s"] > 0 and d["knee_fit_points"] >= 0
assert d["sim_profile"]["device"] == "vdisk"
assert d["target_ns"] >= 2 * d["solo"]["p90_ns"]
PY
"$IOLAT" calibrate --sim -q >"$dir/sim.txt" 2>&1 || fail "calibrate --sim text: exit $?"
for w in "^knee: " "^target: " "control=adaptive" "vdisk_mbps="; do
	grep -q "$w" "$dir/sim.txt" || fail "calibrate --sim text lacks '$w'"
done

free_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((3 * 1024 * 1024)) ]; then
	echo "skip the real-disk runs: less than 3 GiB free in $dir"
	exit $failed
fi
mkdir "$dir/files"
# A real directory, end to end (about 15 s of 1 s steps plus the layout).
# As root, in a cgroup that exists (the test's): used and left, its cap taken off after.
cg=(); [ -n "$throttle" ] && mkdir "$cgroot/iolat-test-calib-$$" && cg=(--cgroup "iolat-test-calib-$$")
"$IOLAT" calibrate "$dir/files" --step 1s --output-format=json -q "${cg[@]}" >"$dir/real.json" 2>"$dir/err" ||
	fail "calibrate DIR: exit $?: $(cat "$dir/err")"
if [ -n "$throttle" ]; then
	[ -d "$cgroot/iolat-test-calib-$$" ] || fail "calibrate DIR removed the cgroup it was given"
	capf=$cgroot/iolat-test-calib-$$/blkio.throttle.write_bps_device
	[ -e "$capf" ] || capf=$cgroot/iolat-test-calib-$$/io.max
	grep -qE ' [1-9][0-9]*$|wbps=[0-9]' "$capf" && fail "calibrate DIR left a cap: $(cat "$capf")"
fi
python3 - "$dir/real.json" "${throttle:-0}" <<'PY' || fail "calibrate DIR: bad JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["virtual_time"] is False and d["solo"]["reads_s"] > 0, d
want = "throttle" if sys.argv[2] == "1" else "rate"
assert d["pacer"] == want, (d["pacer"], want)
if want == "throttle":   # the kernel's throttle holds the writer to its pace
    for p in d["bisect"] + d["curve"]:
        assert p["writer_mb_s"] * 1e6 <= 1.1 * p["pace_bps"], p
PY
[ -n "$cgroot" ] && ls -d "$cgroot"/iolat-calibrate-* >/dev/null 2>&1 && fail "calibrate DIR left a cgroup"
[ -z "$(ls -A "$dir/files")" ] || fail "calibrate DIR left $(ls -A "$dir/files")"

# Stopped by SIGTERM once its first phase ran (a slow build on a busy machine may
# still be laying out after 5 s): exit 143, what ran printed, no file left.
"$IOLAT" calibrate "$dir/files" --step 1s >"$dir/out" 2>"$dir/err" &
pid=$!
for _ in $(seq 600); do grep -q "calibrate: solo " "$dir/err" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
grep -q "calibrate: solo " "$dir/err" || fail "no solo phase within 60 s: $(cat "$dir/err")"
kill -TERM "$pid"
wait "$pid"; rc=$?; pid=
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc, want 143: $(cat "$dir/err")"
grep -q "interrupted by signal 15; its scratch files are removed" "$dir/err" || fail "SIGTERM: not said"
grep -q "^solo " "$dir/out" || fail "SIGTERM: what ran is not reported"
[ -z "$(ls -A "$dir/files")" ] || fail "SIGTERM left $(ls -A "$dir/files")"
[ -n "$cgroot" ] && ls -d "$cgroot"/iolat-calibrate-* >/dev/null 2>&1 && fail "SIGTERM left a cgroup"
exit $failed
