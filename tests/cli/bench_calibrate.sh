#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rules of BENCHMARKS.md section 10 (bench/bench_calibrate.py,
# bench/gen_calibrate.py), on made-up figures, no disk: the oracle judges a
# cap by calibrate's rules (threshold 3 x the solo p90 and at least + 100 us;
# within: p90 under it and half the solo reads/s) and those are the constants
# of src/calib/calibrate.c; its bisection halves [0, uncapped] as calibrate's
# does and keeps the highest cap within; its knee is fitted as
# src/calib/calib_fit.c fits (the figures of tests/calib/test_calibrate.c give
# the same knees); its jobs are calibrate's reader and
# writer (iolat parses them, nothing written); calibrate's JSON is read; the
# order alternates; the generator judges the knee ratio (+-15 %) and the wall
# time (<= 90 s) repetition by repetition (held n/N); bad options exit 2;
# run_all.sh lists section 10.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
bash bench/run_all.sh --help | grep -q "10 is iolat calibrate" ||
	{ echo "FAIL: run_all.sh --help: no section 10"; exit 1; }
grep -qE '^SECTIONS=([0-9]+,)*10(,[0-9]+)*$' bench/run_all.sh ||
	{ echo "FAIL: 10 not in the default sections"; exit 1; }
echo "ok: run_all.sh lists section 10 (default and --help)"
# The rules mirrored in python are calibrate's (a change there must show here).
c=src/calib/calibrate.c
for pat in 'CALIB_BISECT_DEF    6u' 'CALIB_READ_BS       4096u' 'CALIB_WRITE_BS      (1u << 20)' \
	'CALIB_WRITE_QD      32u' 'uint64_t t = 3 \* solo->p90_ns' 'solo->p90_ns + 100 \* NSEC_PER_USEC' \
	'pt->reads_s \* 2 >= solo->reads_s' 'uint64_t mid = lo + (hi - lo) / 2'; do
	grep -q "$pat" "$c" || { echo "FAIL: $c lacks '$pat': bench/bench_calibrate.py's rules may differ"; exit 1; }
done
grep -q 'IOLAT_CALIB_READ_SIZE  (256ull << 20)' src/calib/calib_place.h &&
	grep -q 'IOLAT_CALIB_WRITE_SIZE (1ull << 30)' src/calib/calib_place.h ||
	{ echo "FAIL: calibrate's scratch sizes changed"; exit 1; }
f=src/calib/calib_fit.c
for pat in '#define FIT_BAND_LO 0.7' '#define FIT_BAND_HI 1.4' '#define MARGIN_CAP 2.0' \
	'if (!r->contradicting)' 'in_band(&p\[i\], centre) && p\[i\].x <= k && p\[i\].m >= 1'; do
	grep -q "$pat" "$f" || { echo "FAIL: $f lacks '$pat': bench/bench_calibrate.py's fit may differ"; exit 1; }
done
grep -q 'curve_pm\[\] = { 500, 800, 900, 1000, 1100, 1250 }' "$c" ||
	{ echo "FAIL: calibrate's curve changed: bench_calibrate.py's CURVE mirrors its 0.8-1.25"; exit 1; }
echo "ok: calibrate.c's rules and sizes are the ones bench_calibrate.py mirrors"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-calib-XXXXXX") || skip "no temp dir"
trap 'rm -rf "$tmp"' EXIT
IOLAT_BIN=${IOLAT:-build/iolat} TMPD=$tmp exec python3 -B - <<'PY'
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, "bench")
import bench_calibrate as C
import gen_benchmarks
import gen_calibrate
import genlib as G

MB = 10 ** 6
TMP = os.environ["TMPD"]


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


# ------------------------------------------------------------ the rules
check(C.threshold_us(50) == 150 and C.threshold_us(20) == 120 and C.threshold_us(45.5) == 145.5,
      "threshold: 3 x the solo p90 (50 -> 150 us), at least + 100 us (20 -> 120)")
check(C.within(150, 4000, 8000, 150) and not C.within(151, 8000, 8000, 150),
      "within: p90 at the threshold yes, 1 us over no")
check(not C.within(60, 3999, 8000, 150), "a starved reader (under half its solo reads/s) whose "
      "p90 looks solo is not within")


def bisect(hi, knee, steps):
    b = C.Bisection(hi, steps)
    caps = []
    cap = b.next_cap()
    while cap is not None:
        caps.append(cap)
        b.record(cap, cap <= knee)
        cap = b.next_cap()
    return b.knee_bps, caps


k, caps = bisect(1000 * MB, 600 * MB, 6)
check(caps[:3] == [500 * MB, 750 * MB, 625 * MB] and len(caps) == 6 and
      600 * MB - 1000 * MB / 64 <= k <= 600 * MB, "6 steps from [0, 1000]: 500, 750, 625... "
      "the knee %d MB/s, within 1/64 of 1000 under 600" % (k // MB))
k, caps = bisect(1000 * MB, 0, 6)
check(k == 0 and caps[-1] < 1000 * MB / 32, "no cap within: knee 0 (no knee; the ratio is None)")
k, caps = bisect(1000 * MB, 2000 * MB, 6)
check(k == caps[-1] and k > 980 * MB, "every cap within: the knee just under the uncapped rate")
check(C.ratio(575 * MB, 500 * MB) == 1.15 and C.held(C.ratio(575 * MB, 500 * MB)) and
      not C.held(C.ratio(576 * MB, 500 * MB)) and C.held(0.85) and not C.held(0.849) and
      C.ratio(None, 500) is None and C.ratio(500, 0) is None and not C.held(None),
      "ratio calibrate / oracle, held within +-15 % (1.15 and 0.85 held), none without a knee")
check([C.order(r)[0] for r in (1, 2, 3, 4)] == ["calibrate", "oracle", "calibrate", "oracle"],
      "which runs first alternates")
check(abs(C.margin(100, 15000, 20000, 150) - 1.5) < 1e-9 and
      abs(C.margin(300, 15000, 20000, 150) - 0.5) < 1e-9 and C.margin(1, 1e6, 20000, 150) == 2.0,
      "margin: the lower of reads/s over half solo and threshold over p90, at most 2")
step = [(x, x, 50, 12000 if x <= 1000 else 8000) for x in (800, 900, 1000, 1100, 1200)]
k, pace, lo, hi, against, used = C.fit_knee(step, 20000, 150, 2000, 1000, 1000)
check(1033 < k < 1034 and (lo, hi, against, used) == (1000, 1100, 0, 5),
      "fit: a step of the margin, no contradiction: the line's 1 033 MB/s in the range 1 000-1 100")
moved = [(1257.9, 52.5, 13822), (1885.4, 56.6, 5050), (1561.9, 63.2, 7832), (1411.3, 80.4, 6051),
         (1335.9, 78.3, 9294), (1283.4, 86.5, 4835), (630.3, 83.5, 11004), (1003.5, 81.4, 8451),
         (1127.3, 82.4, 8137), (1256.1, 73.2, 7887), (1375.6, 74.2, 7762), (1559.0, 86.5, 6374)]
k, pace, lo, hi, against, used = C.fit_knee([(x, x * 1.01, p9, rd) for x, p9, rd in moved],
                                            17327, 192.8, 2536, 1257.9, 1268)
check(1148 < k < 1150 and (lo, hi, against, used) == (630.3, 1003.5, 2, 10),
      "fit: a disk that moved (2 contradictions): the line's 1 149 MB/s, outside the range")
flat = [(x, x, 50, 10000 + x) for x in (800, 900, 1000, 1100, 1200)]
k, pace, lo, hi, against, used = C.fit_knee(flat, 20000, 150, 2000, 1000, 1000)
check(used == 0 and k == 1200 and (lo, hi) == (1200, 2000),
      "fit: rising margins: no line, the bisection's knee brought into the range")

# ------------------------------------------------------------ the driver's parts
def args(*argv):
    ap = argparse.ArgumentParser()
    C.add_args(ap)
    return ap.parse_args(list(argv))


def exits2(*argv):
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            C.settings(args(*argv))
    except SystemExit as e:
        return e.code == 2
    return False


st = C.settings(args())
check(st["reps"] == 4 and st["seconds"] == 5 and st["steps"] == 6 and st["calib_step"] is None
      and st["read_size"] == 256 << 20 and st["write_size"] == 1 << 30,
      "defaults: 4 repetitions, 5 s oracle runs, 6 steps, calibrate's sizes and step")
q = C.settings(args("--quick"))
check(q["reps"] == 2 and q["seconds"] == 2 and q["calib_step"] == "1s", "--quick: 2 repetitions, "
      "2 s runs, calibrate --step 1s")
for bad in (("--seconds", "0.5"), ("--steps", "0"), ("--steps", "17"), ("--reps", "0"),
            ("--retries", "-1"), ("--quiet-wait", "-1"), ("--budget", "-2")):
    check(exits2(*bad), "%s: exit 2" % " ".join(bad))
rj = C.reader_job(os.path.join(TMP, "r.dat"), 256 << 20, 5)
wj = C.writer_job(os.path.join(TMP, "w.dat"), 1 << 30, 36)
check(all(x in rj.split("\n") for x in ("direct=1", "rw=randread", "bs=4k", "iodepth=1",
                                         "runtime=5000ms")) and "ioengine" not in rj,
      "the reader's job: calibrate's reader, its default engine")
check(all(x in wj.split("\n") for x in ("direct=1", "rw=write", "bs=1m", "iodepth=32")) and
      "rate" not in wj and "ioengine" not in wj, "the writer's job: calibrate's writer, no rate= "
      "(the kernel paces it)")
iolat = os.environ["IOLAT_BIN"]
if os.access(iolat, os.X_OK):
    for name, text in (("r.ini", rj), ("w.ini", wj)):
        p = os.path.join(TMP, name)
        with open(p, "w") as f:
            f.write(text)
        r = subprocess.run([iolat, "run", p, "--parse-only"], capture_output=True, text=True)
        check(r.returncode == 0, "iolat run --parse-only accepts the %s job (%s)" % (
            name[0], (r.stderr or r.stdout).strip().splitlines()[-1:]))
    check(not os.path.exists(os.path.join(TMP, "r.dat")), "--parse-only wrote nothing")
else:
    print("skip: %s not built: the jobs not parsed" % iolat)

cal_json = {
    "schema": "iolat-calibrate/1", "device": "vda", "config_device": "vda", "rotational": 1,
    "virtual_time": False, "interrupted": False, "elapsed_s": 36.1,
    "solo": {"pace_bps": 0, "writer_mb_s": 0.0, "reads_s": 8000.0, "p50_ns": 60000,
             "p90_ns": 110000, "p99_ns": 800000, "within": True},
    "unpaced": {"pace_bps": "unpaced", "writer_mb_s": 2000.0, "reads_s": 50.0, "p50_ns": 1e7,
                "p90_ns": 20000000, "p99_ns": 50000000, "within": False},
    "bisect": [{"pace_bps": 1000000000, "writer_mb_s": 990.0, "reads_s": 7000.0, "p50_ns": 60000,
                "p90_ns": 200000, "p99_ns": 900000, "within": True}],
    "curve": [], "threshold_ns": 330000, "no_knee": False, "knee_pace_bps": 1000000000,
    "knee_mb_s": 990.0, "target_ns": 500000, "target_given": False,
    "sim_profile": {"device": "vdisk"}}
c = C.parse_calibrate(json.dumps(cal_json))
check(c["knee_bps"] == 1000 * MB and c["knee_mb_s"] == 990 and c["target_us"] == 500 and
      c["threshold_us"] == 330 and c["unpaced_mb_s"] == 2000 and c["bisect"][0][4] is True,
      "calibrate's JSON: knee pace and delivered, target, threshold, its bisection")
cal_json.update(no_knee=True, knee_pace_bps="unpaced")
check(C.parse_calibrate(json.dumps(cal_json))["knee_bps"] is None, "no knee: None")


# ------------------------------------------------------------ the generator
def rep(n, cal_knee, ora_knee, wall, disturbed=False):
    ob = [{"phase": "solo", "cap_bps": None, "p90_us": 100.0, "reads_s": 8000.0,
           "writer_mb_s": 0.0, "within": True, "disturbed": False}]
    ob.append({"phase": "uncapped", "cap_bps": 0, "p90_us": 2e4, "reads_s": 50.0,
               "writer_mb_s": 2000.0, "within": False, "disturbed": disturbed})
    ob.append({"phase": "bisect", "cap_bps": ora_knee, "p90_us": 150.0, "reads_s": 7000.0,
               "writer_mb_s": ora_knee / MB * 0.9, "within": True, "disturbed": False})
    cal = dict(c, knee_bps=cal_knee, knee_mb_s=cal_knee / MB * 0.8, no_knee=False, wall_s=wall,
               disturbed=False)
    ora = {"solo_p90_us": 100.0, "solo_reads_s": 8000.0, "threshold_us": 300.0,
           "unpaced_mb_s": 2000.0, "no_knee": False, "knee_bps": ora_knee,
           "knee_mb_s": ora_knee / MB * 0.9, "runs": ob}
    return {"rep": n, "order": list(C.order(n)), "calibrate": cal, "oracle": ora, "load1": 2.5,
            "ratio": C.ratio(cal_knee, ora_knee),
            "ratio_delivered": C.ratio(cal["knee_mb_s"], ora["knee_mb_s"])}


runs = [rep(1, 950 * MB, 1000 * MB, 50.0), rep(2, 1100 * MB, 1000 * MB, 60.0, True),
        rep(3, 1300 * MB, 1000 * MB, 95.0)]
d = {"runs": runs, "reps": 3, "settings": st, "disk_name": "vda", "rotational": "1",
     "cgroup": "v1", "cmd": "bench/bench_calibrate.py", "goal_ratio": 0.15, "goal_seconds": 90,
     "quiet_waited_s": 12.0, "disturbance": {"thrown_away": [{"what": "calibrate"}],
                                             "mean_limit_mb_s": 20, "burst_limit_mb_s": 40}}
vs = gen_calibrate.verdicts(d)
check([round(v["ratio"], 2) for v in vs] == [0.95, 1.1, 1.3] and
      [v["held"] for v in vs] == [True, True, False] and
      [round(v["ratio_delivered"], 3) for v in vs] == [0.844, 0.978, 1.156] and
      [v["held_delivered"] for v in vs] == [False, True, False] and [v["on_time"] for v in vs] ==
      [True, True, False] and [v["disturbed"] for v in vs] == [False, True, False],
      "verdicts per repetition: ratio and delivered ratio (0.8 / 0.9 of the knees), held, on "
      "time, disturbed")
with open(os.path.join(TMP, "calibrate.json"), "w") as f:
    json.dump(d, f)
doc = G.Doc()
gen_calibrate.section(doc, TMP)
text = "\n".join(doc.parts)
goals = {g[1]: g for g in doc.goals}
g = goals[gen_calibrate.GOAL_KNEE]
check(g[3] == "**not met**" and "held 2/3" in g[2] and "rep 3 1.30× ✗" in g[2] and
      "cap" in g[4], "the knee goal: not met, held 2/3, why given: %s" % g[2])
g = goals[gen_calibrate.GOAL_DELIVERED]
check(g[3] == "**not met**" and "held 1/3" in g[2] and "rep 1 0.84× ✗" in g[2] and
      "writer (the kernel's throttle) delivered 0.80× of its pace" in g[4] and
      "0.90× of its cap" in g[4] and st["calib_pace"] == "throttle",
      "the delivered goal: not met, held 1/3, why given: %s" % g[2])
g = goals[gen_calibrate.GOAL_TIME]
check(g[3] == "**not met**" and "held 2/3" in g[2] and "95.0 s" in g[2],
      "the time goal: 95 s in rep 3 misses 90 s: %s" % g[2])
check("## 10. Calibrate" in text and "| 1 | calibrate | 950 (760) MB/s |" in text and
      "| 2 | oracle |" in text and "1 measurement thrown away" in text and
      "repetitions with a measurement kept disturbed: 1" in text and
      "repetition's start: 2.5, 2.5, 2.5" in text and "1\u2009000: 200 µs, 7\u2009000/s, 990 MB/s ✓" in text,
      "the section: one row per repetition, who went first, the disturbance said")
head = gen_calibrate.headline(TMP)
check(head and "0.95×, 1.10×, 1.30×" in head and "2/3" in head and "1/3" in head,
      "the headline: %s" % head)
out = os.path.join(TMP, "B.md")
gen_benchmarks.generate(TMP, out, False)
with open(out) as f:
    md = f.read()
check("## 10. Calibrate" in md and "**Calibrate** (section 10" in md and
      "| 10 | `iolat calibrate` ≤ 90 s" in md, "gen_benchmarks.py writes section 10, its goals "
      "and its headline")
with open(os.path.join(TMP, "timing.txt"), "w") as f:
    f.write('section=0 name=build seconds=9\n'
            'section=1 name=a seconds=1 date="2026-12-07 02:36 UTC" git=1234567\n'
            'section=2 name=b seconds=1 date="2026-12-07 02:40 UTC" git=1234567\n'
            'section=3 name=c seconds=1 date="2026-12-07 02:50 UTC" git=1234567\n'
            'section=8 name=d date="2026-12-07 06:05 UTC" git=1e81234\n'
            'section=9 name=e seconds=5\n')
prov = gen_benchmarks.provenance(TMP)
check(prov == "sections 1–3 on 2026-12-07 at 02:36–02:50 UTC, commit 1234567; section 8 on "
      "2026-12-07 at 06:05 UTC, commit 1e81234; section 9: when not recorded (each section's "
      "figures are those of its last run)", "the header says when and from which commit each "
      "section was measured (commits kept as written): %s" % prov)
gen_benchmarks.generate(TMP, out, False)
with open(out) as f:
    md = f.read()
check("Measured sections 1–3 on 2026-12-07" in md, "the header from timing.txt")
os.unlink(os.path.join(TMP, "timing.txt"))
check(gen_benchmarks.provenance(TMP) is None, "no timing.txt: the machine's date and commit")
os.unlink(os.path.join(TMP, "calibrate.json"))
doc = G.Doc()
gen_calibrate.section(doc, TMP)
check("_Not run: no `calibrate.json`._" in "\n".join(doc.parts) and
      all(x[3] == "not measured" for x in doc.goals) and len(doc.goals) == 3,
      "no results: not run, the three goals not measured")
PY
