#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rules of BENCHMARKS.md section 8 (bench/judge.py, bench/openplan.py,
# bench/gen_openloop.py), on made-up results, no disk: the caps are bisected
# geometrically around the knee within each repetition, lowest target first,
# the later targets starting from every result so far; a repetition's oracle
# is its highest cap within target; a cap dominates a controller only with
# the writer >= 1.1x and a p99 no higher; a challenger cap runs only when no
# cap already answered; modes and blocks rotate from one repetition to the
# next, every mode once per repetition; the limit is logged per period;
# the generator judges a controller repetition by repetition (3/3, not a
# median) and counts the repetitions held; bad options exit 2.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
exec python3 -B - <<'PY'
import argparse
import contextlib
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, "bench")
import bench_openloop
import gen_openloop
import genlib as G
import judge as J
import openplan

MB = 10 ** 6


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


# ------------------------------------------------------------ bisection
def knee_p90(knee300, knee1000):
    """A made-up disk: p90 100 µs up to knee300, 600 µs up to knee1000, then 5 ms."""
    return lambda c: 100.0 if c <= knee300 else 600.0 if c <= knee1000 else 5000.0


def bisect(knees, first=5, more=3, lo=20 * MB, hi=3000 * MB):
    b = J.Bisection([1000, 300], lo, hi, first, more)
    p90 = knee_p90(*knees)
    tried = []
    while True:
        c = b.next_cap()
        if c is None:
            return b, tried
        tried.append(c)
        b.record(c, p90(c))


b, tried = bisect((500 * MB, 800 * MB))
check(tried[0] == 245 * MB, "the first cap is the bracket's geometric middle: %s" % tried[:1])
check(len(tried) == 8, "5 steps for 300 µs, then 3 for 1 ms: %d caps" % len(tried))
lo300, hi300 = b.bracket(300)
check(lo300 <= 500 * MB < hi300 and hi300 / lo300 < 1.2,
      "300 µs: the knee (500) inside a bracket narrower than 1.2x: %s" % ((lo300, hi300),))
lo1, hi1 = b.bracket(1000)
check(lo1 <= 800 * MB < hi1 and lo1 >= lo300, "1 ms: the knee (800) bracketed, starting from "
      "300 µs's results: %s" % ((lo1, hi1),))
check(all(c % MB == 0 for c in tried) and len(set(tried)) == len(tried),
      "whole MB/s, no cap twice")
b, tried = bisect((5000 * MB, 5000 * MB))
check(max(tried) < 3000 * MB and b.bracket(300)[1] == 3000 * MB,
      "every cap within: the bracket stays open at hi, never run")
b, tried = bisect((10 * MB, 10 * MB), first=9, more=9)
check(min(tried) > 20 * MB and b.bracket(1000)[0] == 20 * MB and len(tried) < 18,
      "no cap within: stops once the bracket is narrower than %.2fx (%d caps)" % (
          J.BISECT_STOP, len(tried)))
try:
    J.Bisection([300], 10, 5, 1, 1)
    check(False, "lo >= hi refused")
except ValueError:
    check(True, "lo >= hi refused")

# ------------------------------------------------------------ oracle, dominance, challenger
def cap(c, w, p90, p99):
    return {"cap_bps": c * MB, "writer_mb_s": w, "p90_us": p90, "p99_us": p99}


caps = [cap(300, 300, 100, 900), cap(500, 500, 280, 1500), cap(700, 690, 900, 2500),
        cap(900, 880, 250, 3000)]
check(J.rep_oracle(caps, 300)["cap_bps"] == 900 * MB,
      "the oracle: the highest cap within target, even above a cap that missed")
check(J.rep_oracle(caps, 50) is None, "no cap within: no oracle")
ctl = {"writer_mb_s": 450, "p99_us": 1500}
check([c["cap_bps"] // MB for c in J.dominators(ctl, caps)] == [500],
      "dominated by 500 (500 >= 1.1 x 450, p99 equal), not by 700/900 (p99 higher), not "
      "by 300 (less writer)")
check(J.dominators({"writer_mb_s": 455, "p99_us": 1500}, caps) == [],
      "500 < 1.1 x 455: not dominated")
check(J.challenger_cap(ctl, caps) is None, "already dominated: no challenger")
c = J.challenger_cap({"writer_mb_s": 850, "p99_us": 100}, caps)
check(c == 954 * MB, "no cap in [1.1, 1.2] x 850: challenger at 1.1 x 1.02 x 850 = %s" % c)
check(J.challenger_cap({"writer_mb_s": 440, "p99_us": 100}, caps) is None,
      "500 is within [1.1, 1.2] x 440 (its p99 was higher): answered, no challenger")

# ------------------------------------------------------------ rotation, periods
check(J.rotate([1, 2, 3], 1) == [1, 2, 3] and J.rotate([1, 2, 3], 2) == [2, 3, 1] and
      J.rotate([1, 2, 3], 4) == [1, 2, 3], "rotation by repetition")
samples = [(t / 10.0, 500 * MB if t < 25 else 400 * MB, t * 45 * MB) for t in range(0, 61)]
rows = J.periods(samples, 0.0, 6.0)
check(len(rows) == 6 and rows[0] == [1.0, 500 * MB, 450 * MB] and rows[-1][1] == 400 * MB,
      "per 1 s period: the limit in force, the bytes written in it: %s" % rows[:2])
check(rows[2][1] == 450 * MB, "the period of the change: the limit's mean over its samples")
lifted = J.periods([(0.0, 0, 0), (0.5, 300 * MB, 0), (1.0, 300 * MB, 100 * MB)], 0.0, 1.0)
check(lifted == [[1.0, 0, 100 * MB]], "a period with the limit lifted at a sample: 0 (none)")
s = J.period_summary(rows, 4.0)
check(s["changes_per_s"] == 0 and abs(s["delivered_of_limit"] - 450 / 400) < 1e-9,
      "from 4 s: no change, delivered / limit = 1.125")
s = J.period_summary(rows, 1.0)
check(s["changes_per_s"] > 0 and abs(s["hi"] - (500 / 425 - 1)) < 1e-9,
      "from 1 s: the change at 2.5 s counts, 500 against a median of 425")
check(J.held([True, False, None, True]) == (2, 3), "held 2 of 3 judged")

# ------------------------------------------------------------ settings
def args(*argv):
    ap = argparse.ArgumentParser()
    bench_openloop.add_args(ap)
    return ap.parse_args(["--iolat", "/nonexistent"] + list(argv))


def exits2(*argv):
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            bench_openloop.settings(args(*argv))
    except SystemExit as e:
        return e.code == 2
    return False


st = bench_openloop.settings(args())
check(st["rates"] == [1000, 3000] and st["reps"] == 3 and st["targets_us"] == [300, 1000] and
      st["iolat_rates"] == [], "defaults: 1000 and 3000/s, 3 reps; no iolat reader without "
      "rate_process")
check(openplan.readers(st) == ["ol1000", "ol3000", "qd1", "cycle"], "the readers in order")
for bad in (("--cycle", "3000,3,3"), ("--cap-range", "900,100"), ("--bisect", "0,1"),
            ("--bisect", "x"), ("--rates", "-5"), ("--depth", "0"), ("--targets", "a"),
            ("--reader-nice", "-30")):
    check(exits2(*bad), "%s: exit 2" % " ".join(bad))
check(exits2("--iolat-reader", "maybe"), "--iolat-reader maybe: exit 2")

# ------------------------------------------------------------ the plan, with a made-up driver
class FakeDriver:
    """Runs nothing: a made-up disk whose p90 and p99 grow past each reader's knee."""
    name = "fake"

    def __init__(self):
        self.order = []

    def run_mode(self, mode, st):
        self.order.append((self.rep, mode["key"]))
        knee = {"ol": 400, "qd": 900, "cycle": 150}[openplan.kind_of(mode["reader"])]
        if mode["kind"] == "cap":
            w = mode["cap_bps"] / MB
        elif mode["kind"] == "control":  # 300 µs: nothing beats it; 1 ms: 335 MB/s does
            w = 250.0 if mode["target_us"] == 300 else 300.0
        else:
            w = 2000.0 if mode["kind"] == "none" else 0.0
        p90 = 100.0 if w <= knee or mode["kind"] == "control" else 5000.0
        p99 = 200.0 + w
        if mode["kind"] == "control":
            p99 = 450.0 if mode["target_us"] == 300 else 600.0
        return {"p50_us": 50.0, "p90_us": p90, "p99_us": p99, "p999_us": p99 * 2,
                "writer_mb_s": w or None, "reads_s": 2900.0, "reader_ios": 29000,
                "busy_s": 10.0, "rate_target": 3000, "foreign_mb_s": 0.0,
                "foreign_worst_mb_s": 0.0, "cap_bps": mode.get("cap_bps"),
                "periods": [[1.0, 300 * MB, 290 * MB], [4.0, 300 * MB, 280 * MB],
                            [5.0, 310 * MB, 300 * MB]] if mode["kind"] == "control" else None}


st = bench_openloop.settings(args("--reps", "3", "--rates", "3000", "--bisect", "3,1"))
drv = FakeDriver()
with contextlib.redirect_stderr(io.StringIO()):
    modes, runs, thrown = openplan.run_all(drv, st)
per_rep = {}
for rep, key in drv.order:
    per_rep.setdefault(rep, []).append(key)
fixed = ["ol3000.solo", "ol3000.none", "ol3000.adaptive-300us", "ol3000.adaptive-1000us",
         "ol3000.article-1000us"]
check(all(sorted(k for k in per_rep[r] if k.startswith("ol") and ".cap-" not in k) ==
          sorted(fixed) for r in (1, 2, 3)), "every repetition runs every mode once")
check(per_rep[1][0] == "ol3000.solo" and per_rep[2][0] == "qd1.none" and
      per_rep[3][0].startswith("cycle."), "the readers' blocks rotate: %s" % [
          per_rep[r][0] for r in (1, 2, 3)])
ol = {r: [k for k in per_rep[r] if k.startswith("ol")] for r in (1, 2, 3)}
check(ol[1][:2] == ["ol3000.solo", "ol3000.none"] and ol[2][0] == "ol3000.none" and
      ol[3][0] != ol[1][0], "the modes within a block rotate: %s / %s" % (ol[1][:2], ol[2][:2]))
check("cycle.solo" not in [m["key"] for m in modes] and "cycle.article-1000us" not in
      [m["key"] for m in modes], "the coming-and-going reader: no solo, no article run")
caps1 = [k for k in ol[1] if ".cap-" in k]
check(len(caps1) >= 4 and caps1[0] == "ol3000.cap-245",
      "bisected within the repetition (4 steps, then challengers): %s" % caps1)
check(all([k for k in ol[r] if ".cap-" in k][0] == "ol3000.cap-245" for r in (2, 3)),
      "each repetition bisects afresh (its first cap the bracket's middle, not rep 1's oracle)")
check(any(m.get("role") == "challenge" for m in modes),
      "a challenger ran for the adaptive runs no bisected cap answered")

# ------------------------------------------------------------ the generator
d = {"runs": runs, "modes": modes, "reps": 3, "seconds": 10.0, "ramp_s": 1.0, "lead_s": 2.0,
     "targets_us": [300, 1000], "settings": st, "disk": "254:0", "disk_name": "vda",
     "cgroup": "v1", "latency": "fio's lat", "cap_how": "the throttle", "cmd": "x",
     "disturbance": {"thrown_away": [], "mean_limit_mb_s": 20, "burst_limit_mb_s": 40}}
vs = gen_openloop.verdicts(d, "ol3000", "ol3000.adaptive-300us")
check(all(v["within"] for v in vs) and all(v["oracle"]["cap_bps"] <= 400 * MB for v in vs),
      "the controller within 3/3; each repetition's oracle at or under the knee")
check(not any(v["dominators"] for v in vs), "300 µs (250 MB/s, p99 450): no cap dominates")
vs = gen_openloop.verdicts(d, "ol3000", "ol3000.adaptive-1000us")
check(all(v["dominators"] for v in vs), "1 ms (300 MB/s, p99 600): a cap of 330-400 MB/s "
      "(p99 = 200 + its MB/s) dominates in every repetition: %s" % [
          [c["cap_bps"] // MB for c in v["dominators"]] for v in vs])
with tempfile.TemporaryDirectory() as res:
    with open(os.path.join(res, "openloop.json"), "w") as f:
        json.dump(d, f)
    doc = G.Doc()
    gen_openloop.section(doc, res)
    text = "\n".join(doc.parts)
    goals = {g[1]: g for g in doc.goals}


def goal(part):
    return [x for k, x in goals.items() if part in k][0]


check("## 8. Open-loop readers and the Pareto check" in text and "**Pareto check.**" in text,
      "the section and its Pareto table are written")
g = goal("adaptive, target 1 ms: dominated by no cap")
check(g[3] == "**not met**" and "held 0/3" in g[2], "dominated in every repetition: not met, "
      "held 0/3: %s" % g[2])
g = goal("adaptive, target 300 µs: dominated by no cap")
check(g[3] == "**met**" and "held 3/3" in g[2], "never dominated: met, held 3/3")
g = goal("adaptive, target 300 µs: reader p90 within")
check(g[3] == "**met**" and "held 3/3" in g[2], "within 3/3: met")
g = goal("adaptive, target 300 µs: settled")
check("held 3/3" in g[2], "settled from the per-period log: %s" % g[2])
g = goal("closed loop QD 1 (fio); adaptive, target 300 µs: reads/s")
check(g[3] == "**not met**" and "writer 0.2" in g[2],
      "closed loop: reads 1.00x the oracle's but writer 250 ÷ ~900: not met: %s" % g[2])
g = goal("Item 6 (reader comes and goes, knee moves); adaptive, target 1 ms: moonshot")
check(g[3] == "**met**" and "held 3/3" in g[2],
      "item 6: 300 MB/s against an oracle at or under 150: moonshot met 3/3: %s" % g[2])
g = goal("Item 6 (reader comes and goes, knee moves); adaptive, target 1 ms: more writer")
check(g[3] == "**met**", "item 6: more writer work than the oracle cap in every repetition")
PY
