#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rules of BENCHMARKS.md section 3 (bench/bench_control.py), on made-up
# results, no simulator: a cap protects only when every seed keeps >= 95 % of
# windows within (a cap with a good median but one bad seed does not); the
# oracle is the highest such cap of the sweep, then bisected towards the next
# cap up (or the uncontrolled rate); no cap needed when the writer uncapped
# passes, no oracle when no cap does; ratios are taken seed by seed; the
# adaptive goals: "below" needs work 1.00 in every seed, "moving" more work
# than every cap protecting as well, "oracle" the three thresholds.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
exec python3 -B - <<'PY'
import sys
sys.path.insert(0, "bench")
import bench_control as C
import benchlib as B

NSEEDS = 5


def run(within, work=1.0, mib=100.0, p99=50.0, frac=None):
    """A mode's results: per-seed lists (or one value for every seed)."""
    def lst(v):
        return v if isinstance(v, list) else [v] * NSEEDS
    r = {k: B.summary(lst(v)) for k, v in (("within_pct", within), ("work", work),
                                          ("writer_mib_s", mib), ("reader_p99_us", p99),
                                          ("reader_p90_us", p99), ("within_mean_pct", within))}
    if frac is not None:
        r["cap_frac"] = frac
    return r


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def sweep(passing_upto, one_bad_seed=()):
    """Swept caps: those <= passing_upto pass in every seed, those in
    one_bad_seed have a 100 % median but one seed at 90 %."""
    modes = {"none": run(0.0)}
    for f in C.CAP_FRACS:
        w = 100.0 if f <= passing_upto + 1e-12 else 10.0
        if f in one_bad_seed:
            w = [100.0, 100.0, 90.0, 100.0, 100.0]
        modes["cap:%g" % f] = run(w, work=f, mib=1000 * f, frac=f)
    return modes


def cap_fn(modes, knee):
    tried = []

    def cap(f):
        tried.append(f)
        r = run(100.0 if f <= knee else 20.0, work=f, mib=1000 * f, frac=f)
        modes["cap:%g" % f] = r
        return r
    return cap, tried


# every seed, not the median
check(not C.protects(run([100.0, 100.0, 94.9, 100.0, 100.0]), NSEEDS),
      "a cap failing one seed does not protect")
check(C.protects(run(95.0), NSEEDS), "95 % in every seed protects")
check(not C.protects(run([100.0] * 4), NSEEDS), "a seed missing: no verdict")

# the sweep, then the bisection towards the next swept cap up
modes = sweep(0.5, one_bad_seed=(0.7,))
cap, tried = cap_fn(modes, knee=0.6)
o = C.find_oracle(modes, cap, NSEEDS)
check(o["swept_frac"] == 0.5, "the swept oracle skips 0.7 (median 100 %, one seed at 90 %)")
check(tried == [0.6, 0.65, 0.625], "bisection between 0.5 and the next cap up, 0.7: %s" % tried)
check(o["mode"] == "cap:0.6" and o["fail_frac"] == 0.625, "oracle 0.6, next up 0.625 fails")

# above the last swept cap: towards the uncontrolled rate
modes = sweep(1.0)
cap, tried = cap_fn(modes, knee=0.995)
o = C.find_oracle(modes, cap, NSEEDS)
check(tried == [0.99, 0.995, 0.9975] and o["mode"] == "cap:0.995",
      "from 98 %% towards 100 %%: %s -> %s" % (tried, o["mode"]))

# the writer needs no cap; no cap protects
modes = sweep(1.0)
modes["none"] = run(100.0)
check(C.find_oracle(modes, None, NSEEDS)["mode"] == "none", "none protects: no cap needed")
modes = sweep(0.0)
check(C.find_oracle(modes, None, NSEEDS)["mode"] is None, "no swept cap protects: no oracle")

# ratios seed by seed
check(C.ratios(B.summary([1.0, 2.0]), B.summary([2.0, 2.0])) == [0.5, 1.0], "per-seed ratios")


def scenario(kind, adaptive, caps, article=None):
    modes = {"none": run(0.0), "adaptive": adaptive, "iolat": article or run(0.0)}
    modes.update(caps)
    out = {"modes": modes, "oracle": {"mode": "cap:0.6"}}
    out["vs_oracle"] = {"adaptive": C.versus_oracle(out, "adaptive")}
    return C.adaptive_goal({"goal": kind, "device": "vdisk"}, out)


caps = {"cap:0.6": run(100.0, work=0.6, mib=600.0, p99=50.0, frac=0.6),
        "cap:0.7": run(97.0, work=0.7, mib=700.0, p99=50.0, frac=0.7)}
check(not scenario("below", run(100.0, work=[1.0, 1.0, 0.98, 1.0, 1.0]), caps)["met"],
      "below the knee: one throttled seed misses")
check(scenario("below", run(100.0, work=1.0), caps)["met"], "below the knee: work 1.00 meets")
check(not scenario("moving", run(97.0, work=0.69), caps)["met"],
      "moving: a cap protecting as well (0.7, 97 %) with more work wins")
check(scenario("moving", run(97.0, work=0.71), caps)["met"], "moving: more work than every such cap")
check(scenario("oracle", run(96.0, mib=540.0, p99=100.0), caps)["met"], "oracle: 0.9x, 2x p99 meet")
check(not scenario("oracle", run(96.0, mib=539.0, p99=50.0), caps)["met"], "oracle: writer < 0.9x")
check(not scenario("oracle", run(96.0, mib=600.0, p99=101.0), caps)["met"], "oracle: p99 > 2x")
check(not scenario("oracle", run(94.0, mib=600.0, p99=50.0), caps)["met"], "oracle: < 95 % within")
check(not scenario("unattainable", run(0.0, work=0.5), caps, article=run(0.0, work=0.6))["met"],
      "unattainable: 0.83x article's work misses")
PY
