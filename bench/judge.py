# SPDX-License-Identifier: MIT
"""judge.py - the rules the real-disk benchmarks judge by, as pure functions
on their results (python3 standard library only, no I/O): ratios taken
repetition by repetition and how still a limit held. Used by the generators
(gen_oracle, gen_pacing), from one thread.
"""
import benchlib as B

CHANGE_EPS = 0.005       # a relative move below this is not a change (float noise)


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
