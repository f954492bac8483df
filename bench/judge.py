# SPDX-License-Identifier: MIT
"""judge.py - the rules the real-disk benchmarks judge by, as pure functions
on their results (python3 standard library only, no I/O): ratios taken
repetition by repetition, how still a limit held, the static caps bisected
around the knee within one repetition, the oracle of a repetition, the caps
that dominate a controller (the Pareto check), and the order of the modes
rotated from one repetition to the next. Used by the drivers (bench_openloop:
the bisection, the order) and the generators (gen_oracle, gen_pacing,
gen_openloop: the rest), from one thread.
"""
import math

import benchlib as B

CHANGE_EPS = 0.005       # a relative move below this is not a change (float noise)
DOMINATE_WRITER = 1.1    # a cap dominates a controller: writer >= this x the controller's ...
                         # ... with a reader p99 no higher, in the same repetition
BISECT_STOP = 1.04       # a bracket narrower than this ratio is not split again
CAP_ROUND_BPS = 1000000  # bisected caps are whole MB/s


def ratios(runs, key, ref, field, ref_field=None):
    """Summary of run[key][rep][field] / run[ref][rep][ref_field], rep by rep."""
    out = []
    for rep, r in runs.get(key, {}).items():
        o = runs.get(ref, {}).get(rep)
        a, b = r.get(field), o and o.get(ref_field or field)
        if a is not None and b:
            out.append(a / b)
    return B.summary(out)


def settled_one(series, t0, t1):
    """How still the limit in force held in [t0, t1]: changes per second and its
    range around the median (None when there is nothing to judge)."""
    pts = [(t, v) for t, v in series if t0 <= t <= t1]
    if len(pts) < 2:
        return None
    changes = sum(1 for (_, a), (_, b) in zip(pts, pts[1:])
                  if (a == 0) != (b == 0) or (a and abs(b / a - 1) > CHANGE_EPS))
    on = [v for _, v in pts if v > 0]
    span = pts[-1][0] - pts[0][0]
    res = {"changes_per_s": changes / span if span > 0 else 0.0, "limited_pct":
           100.0 * len(on) / len(pts)}
    if on:
        med = B.median(on)
        res.update(median_mb_s=med / 1e6, lo=min(on) / med - 1, hi=max(on) / med - 1)
        worst = max(abs(res["lo"]), abs(res["hi"]))
        res["spread"] = worst if len(on) == len(pts) else float("inf")
    else:
        res.update(median_mb_s=None, lo=None, hi=None, spread=0.0)
    return res


def rotate(items, rep):
    """items in the order of repetition rep (1-based): shifted by rep - 1, so
    that no mode always follows the same one."""
    if not items:
        return []
    k = (rep - 1) % len(items)
    return list(items[k:]) + list(items[:k])


class Bisection:
    """The writer's static cap bisected around the knee within one repetition,
    for each target in turn (lowest first): the bracket of a target is the
    highest cap tried whose reader p90 was within it (else lo) and the lowest
    cap above that one whose p90 was not (else hi); the next cap is the
    bracket's geometric middle, rounded to whole MB/s. Every result counts for
    every target, so the later targets start from what the earlier ones
    found. A target stops after its steps or when its bracket is narrower
    than BISECT_STOP."""

    def __init__(self, targets_us, lo_bps, hi_bps, steps_first, steps_more):
        if not 0 < lo_bps < hi_bps:
            raise ValueError("bisection needs 0 < lo < hi")
        self.targets = sorted(targets_us)
        self.lo, self.hi = lo_bps, hi_bps
        self.steps = {t: steps_first if i == 0 else steps_more
                      for i, t in enumerate(self.targets)}
        self.tried = {}   # cap bps -> reader p90 us

    def bracket(self, target_us):
        """(lo, hi) in bytes/s for one target from the caps tried so far."""
        ok = [c for c, p in self.tried.items() if p <= target_us]
        lo = max(ok + [self.lo])
        bad = [c for c, p in self.tried.items() if p > target_us and c > lo]
        return lo, min(bad + [self.hi])

    def next_cap(self):
        """The next cap to run (bytes/s), or None when every target is done."""
        for t in self.targets:
            if self.steps[t] <= 0:
                continue
            lo, hi = self.bracket(t)
            mid = round(math.sqrt(lo * hi) / CAP_ROUND_BPS) * CAP_ROUND_BPS
            if hi / lo < BISECT_STOP or mid <= lo or mid >= hi or mid in self.tried:
                self.steps[t] = 0
                continue
            self.steps[t] -= 1
            return mid
        return None

    def record(self, cap_bps, p90_us):
        self.tried[cap_bps] = p90_us


def rep_oracle(cap_runs, target_us):
    """The oracle of one repetition: the cap run with the highest cap whose
    reader p90 was within the target (None: no cap was)."""
    ok = [r for r in cap_runs if r.get("p90_us") is not None and r["p90_us"] <= target_us]
    return max(ok, key=lambda r: r["cap_bps"]) if ok else None


def dominators(ctl_run, cap_runs, factor=DOMINATE_WRITER):
    """The cap runs of the controller's repetition that dominate it: the writer
    got >= factor x the controller's and the reader's p99 was no higher."""
    w, p = ctl_run.get("writer_mb_s"), ctl_run.get("p99_us")
    if w is None or p is None:
        return []
    return sorted((r for r in cap_runs if r.get("writer_mb_s") is not None and
                   r["writer_mb_s"] >= factor * w and r["p99_us"] <= p),
                  key=lambda r: r["cap_bps"])


def challenger_cap(ctl_run, cap_runs, factor=DOMINATE_WRITER, margin=1.02):
    """A cap to run after the repetition's modes to test whether it dominates
    the controller (bytes/s), or None: none when a cap already does, or when a
    cap already ran that gave the writer between factor and 1.2 x the
    controller's (its answer is in)."""
    w = ctl_run.get("writer_mb_s")
    if not w or dominators(ctl_run, cap_runs, factor):
        return None
    if any(factor * w <= r["writer_mb_s"] <= 1.2 * w for r in cap_runs
           if r.get("writer_mb_s") is not None):
        return None
    return max(CAP_ROUND_BPS, round(factor * margin * w * 1e6 / CAP_ROUND_BPS) * CAP_ROUND_BPS)


def periods(samples, t0, t1, period_s=1.0):
    """[[t, limit bytes/s, delivered bytes/s]] per period of period_s from t0
    to t1, from (t, limit, bytes written so far) samples in time order: the
    mean of the limit sampled in the period (0 when it was lifted at any of
    them: none to compare with) and the bytes written in it."""
    out = []
    if not samples:
        return out

    def at(t, i):
        prev = samples[0]
        for s in samples:
            if s[0] > t:
                if s[0] == prev[0]:
                    return s[i]
                f = (t - prev[0]) / (s[0] - prev[0])
                return prev[i] + f * (s[i] - prev[i]) if i == 2 else prev[i]
            prev = s
        return prev[i]
    t = t0
    while t + period_s <= t1 + 1e-9:
        e = t + period_s
        lims = [s[1] for s in samples if t <= s[0] < e] or [at(t, 1)]
        out.append([round(e - t0, 3), 0 if min(lims) == 0 else round(sum(lims) / len(lims)),
                    round((at(e, 2) - at(t, 2)) / period_s)])
        t = e
    return out


def period_summary(rows, skip_s):
    """The per-period log of a controller run summarised from skip_s on: the
    limit's changes per second and its lowest and highest against the median
    (settled_one), and what the writer delivered against the limit in force
    (time-averaged over the limited periods)."""
    res = settled_one([(t, lim) for t, lim, _ in rows], skip_s, float("inf"))
    if res is None:
        return None
    lim = [(l, d) for t, l, d in rows if t >= skip_s and l > 0]
    res["delivered_of_limit"] = (sum(d for _, d in lim) / sum(l for l, _ in lim)) if lim else None
    return res


def held(flags):
    """(held, judged) of per-repetition verdicts (None: not judged)."""
    judged = [f for f in flags if f is not None]
    return sum(1 for f in judged if f), len(judged)
