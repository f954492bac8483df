# SPDX-License-Identifier: MIT
"""shares.py - the rules BENCHMARKS.md's weights section (bench_weights.py,
gen_weights.py) judges by, as pure functions on a run's samples (python3
standard library only, no I/O): each group's bytes per period from its
cgroup's cumulative counters, each one's share of the combined throughput
against its weight's (relative error), the combined total, and the reaction
to a sibling that starts or stops. Imports only benchlib; used by the
generator and its test, from one thread.

A run's samples are [[t, {group: bytes so far (read + written)}]] in time
order, t in seconds from the run's start (the sampler's 100 ms rows).
"""
import benchlib as B

SHARE_TOL = 0.10     # each one's share within ±10 % of its weight's (relative error)
PERIOD_S = 1.0       # shares are judged per second ...
SKIP_S = 2.0         # ... after the first 2 s of both being busy
REACT_S = 1.0        # a sibling that starts or stops is reflected within this
REACT_WINDOW_S = 0.5  # the reaction is judged on windows this long, stepped by ...
REACT_STEP_S = 0.1   # ... this (the sampler's period); a window counts at its end
BACK_FRACTION = 0.9  # after the sibling stops: the other back to this x what it got alone
ALONE_GOAL = 0.95    # one group alone under iolatd: >= this x its rate with no control
TOTAL_GOAL = 0.9     # two busy groups under iolatd: combined >= this x uncontrolled


def at(samples, key, t):
    """Group key's cumulative bytes at t, linearly interpolated."""
    if not samples:
        return 0.0
    if t <= samples[0][0]:
        return samples[0][1].get(key, 0)
    for a, b in zip(samples, samples[1:]):
        if a[0] <= t <= b[0]:
            va, vb = a[1].get(key, 0), b[1].get(key, 0)
            return va if b[0] == a[0] else va + (vb - va) * (t - a[0]) / (b[0] - a[0])
    return samples[-1][1].get(key, 0)


def rate(samples, key, t0, t1):
    """Bytes per second of group key in [t0, t1]."""
    return (at(samples, key, t1) - at(samples, key, t0)) / max(1e-9, t1 - t0)


def periods(samples, keys, t0, t1, period_s=PERIOD_S):
    """[[t_end, {key: bytes/s}]] per whole period from t0 to t1."""
    out = []
    t = t0
    while t + period_s <= t1 + 1e-9:
        out.append([round(t + period_s, 3), {k: rate(samples, k, t, t + period_s) for k in keys}])
        t += period_s
    return out


def want(weights):
    """{key: its weight's share} of the groups given."""
    tot = float(sum(weights.values()))
    return {k: w / tot for k, w in weights.items()}


def error(rates, weights):
    """The worst relative error, over the groups, of each one's share of the
    combined throughput against its weight's share (None: nothing done)."""
    tot = sum(rates[k] for k in weights)
    if tot <= 0:
        return None
    w = want(weights)
    return max(abs(rates[k] / tot / w[k] - 1.0) for k in weights)


def share_summary(samples, weights, t0, t1, period_s=PERIOD_S):
    """The shares per period in [t0, t1]: {errors: [per period], median, worst,
    within: periods within SHARE_TOL, n, shares: {key: mean share}, total_bps}."""
    rows = periods(samples, list(weights), t0, t1, period_s)
    errs = [e for e in (error(r, weights) for _, r in rows) if e is not None]
    tot = {k: rate(samples, k, t0, t1) for k in weights}
    s = sum(tot.values())
    return {"errors": errs, "median": B.median(errs), "worst": max(errs) if errs else None,
            "within": sum(1 for e in errs if e <= SHARE_TOL + 1e-12), "n": len(errs),
            "shares": {k: (v / s if s else None) for k, v in tot.items()},
            "rates_bps": tot, "total_bps": s}


def windows(t0, t1, width=REACT_WINDOW_S, step=REACT_STEP_S):
    """The ends of the windows [t - width, t] from t0 + width to t1, by step."""
    out, i = [], 0
    while True:
        t = t0 + width + i * step
        if t > t1 + 1e-9:
            return out
        out.append(t)
        i += 1


def react_start(samples, weights, t_ev, t_end):
    """Seconds from t_ev (a sibling started) to the end of the first window
    wholly after it whose shares are within SHARE_TOL of the weights' (None:
    none before t_end)."""
    for t in windows(t_ev, t_end):
        r = {k: rate(samples, k, t - REACT_WINDOW_S, t) for k in weights}
        e = error(r, weights)
        if e is not None and e <= SHARE_TOL + 1e-12:
            return round(t - t_ev, 3)
    return None


def react_stop(samples, key, alone_bps, t_ev, t_end):
    """Seconds from t_ev (its sibling stopped) to the end of the first window
    wholly after it in which group key got >= BACK_FRACTION x alone_bps, what
    it got alone before the sibling came (None: not before t_end)."""
    if not alone_bps:
        return None
    for t in windows(t_ev, t_end):
        if rate(samples, key, t - REACT_WINDOW_S, t) >= BACK_FRACTION * alone_bps:
            return round(t - t_ev, 3)
    return None


def judge_run(case, run, skip_s=SKIP_S):
    """A run's figures from its samples and events, by the case's kind:
    pair (both busy throughout), alone (one group busy), sibling (one busy,
    the other from t_start to t_stop); measured from skip_s after both (the
    first) were busy."""
    smp, w = run["samples"], {g["cg"]: g["weight"] for g in case["groups"]}
    t_busy, t_end = run["t_busy"], run["t_end"]
    out = {}
    if case["kind"] == "pair":
        out["shares"] = share_summary(smp, w, t_busy + skip_s, t_end)
        out["total_bps"] = out["shares"]["total_bps"]
        out["window"] = [t_busy + skip_s, t_end]
    elif case["kind"] == "alone":
        k = case["groups"][0]["cg"]
        out["total_bps"] = rate(smp, k, t_busy + skip_s, t_end)
        out["window"] = [t_busy + skip_s, t_end]
    else:
        a = case["groups"][0]["cg"]
        ts, te = run["t_start"], run["t_stop"]
        out["alone_bps"] = rate(smp, a, t_busy + skip_s, ts) if ts > t_busy + skip_s else \
            rate(smp, a, t_busy, ts)
        out["react_start_s"] = react_start(smp, w, ts, te)
        out["react_stop_s"] = react_stop(smp, a, out["alone_bps"], te, t_end)
        out["shares"] = share_summary(smp, w, ts + REACT_S, te)
        out["total_bps"] = out["shares"]["total_bps"]
        out["window"] = [ts + REACT_S, te]
    return out


def budgets(run, key, t0, t1):
    """The median budget iolatd reported for group key in [t0, t1] (bytes/s;
    -1: none; None: nothing reported)."""
    v = [b[key][0] for t, b in run.get("budgets") or [] if t0 <= t <= t1 and b and
         b.get(key) and b[key][0] is not None]
    return B.median(v)


def ratio(a, b):
    return a / b if a is not None and b else None
