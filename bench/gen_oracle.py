# SPDX-License-Identifier: MIT
"""gen_oracle.py - the parts of BENCHMARKS.md made from the real-disk oracle
benchmarks (section 4, `iolat run`: results/disk.json; section 7, iolatd with
fio: results/iolatd.json; both written by oracle.py's design): the tables,
the goals of issue 19 judged from the runs, and the headlines; the reader's
reads per second beside its percentiles. Everything is
computed here from the runs in the JSON: the oracle for each target (the
highest static cap whose reader p90 is within the target in every
repetition), each controller's figures as ratios of the oracle's and of the
uncontrolled writer / the reader alone in the same repetition, and how still
the adaptive mode's limit held. Called by gen_benchmarks.py (one thread).
"""
import os

import benchlib as B
import genlib as G
import gen_pacing
import judge as J

WRITER_GOAL = 0.9        # the writer's MB/s ÷ the oracle cap's
P99_GOAL = 2.0           # the reader's p99 ÷ the oracle cap's
BEYOND_WRITER = 0.85     # the writer's MB/s ÷ its uncontrolled MB/s ...
BEYOND_P90 = 1.2         # ... with the reader's p90 ÷ its p90 alone
SETTLE_SKIP_S = 3.0      # the limit is judged from this long after the reader started
SETTLE_CHANGES = 1.0     # changes of the limit in force per second, at most
SETTLE_SPREAD = 0.25     # ... and within this fraction of its median

SECTIONS = {
    "disk.json": {"no": "4", "title": "Real disk: `iolat run` against the best static cap",
                  "script": "bench/bench_disk.py", "who": "`iolat run`",
                  "ctl": "`--control %s`", "none": "no control (`--no-control`)",
                  "where": "the reader and the writer are the jobs of one `iolat run` (groups "
                  "`main` and `fbpkg`), which runs in a cgroup of its own"},
    "iolatd.json": {"no": "7", "title": "Unmodified programs: iolatd against the best static cap",
                    "script": "bench/bench_iolatd.py", "who": "iolatd",
                    "ctl": "iolatd `control=%s`", "none": "no control",
                    "where": "the reader and the writer are fio processes in sibling cgroups "
                    "`main` and `fbpkg` made for the benchmark; iolatd protects `main`"},
}


# ---------------------------------------------------------------- analysis

def by_rep(d):
    """{mode key: {rep: run}} of the runs that count: a run still disturbed by
    other traffic after its last try is left out (the section says which)."""
    out = {}
    for r in d["runs"]:
        if not r.get("disturbed"):
            out.setdefault(r["mode"], {})[r["rep"]] = r
    return out


def summaries(d, runs):
    """{mode key: {p50_us, p90_us, p99_us, writer_mb_s: summary; within: {target: k}, n}}."""
    out = {}
    for m in d["modes"]:
        rs = list(runs.get(m["key"], {}).values())
        s = {k: B.summary([r.get(k) for r in rs]) for k in ("p50_us", "p90_us", "p99_us",
                                                            "writer_mb_s")}
        s["reads_s"] = B.summary([reads_per_s(r) for r in rs])
        s["n"] = len(rs)
        s["within"] = {t: sum(1 for r in rs if r["p90_us"] <= t) for t in d["targets_us"]}
        out[m["key"]] = s
    return out


def reads_per_s(r):
    """The reader's reads per second over its measured time (a closed-loop
    reader's percentiles look solo while it is starved: its rate shows it)."""
    return r["reader_ios"] / r["duration_s"] if r.get("reader_ios") and r.get("duration_s") \
        else None


def oracles(d, summ):
    """{target: the cap mode (dict) kept by a user, or None}: the highest cap whose
    reader p90 is within the target in every repetition (a repetition left out for
    other traffic proves nothing: such a cap is not the oracle)."""
    caps = sorted((m for m in d["modes"] if m["kind"] == "cap"), key=lambda m: m["cap_bps"])
    out = {}
    for t in d["targets_us"]:
        ok = [m for m in caps if summ[m["key"]]["n"] == d["reps"] and
              summ[m["key"]]["within"][t] == d["reps"]]
        out[t] = ok[-1] if ok else None
    return out


def settle_window(d):
    """(from, to) seconds since the reader started where the limit is judged."""
    end = d["ramp_s"] + d["seconds"]
    return (SETTLE_SKIP_S if end >= 2 * SETTLE_SKIP_S else end / 2), end


def settled(d, runs, key):
    t0, t1 = settle_window(d)
    per = [J.settled_one(r["series"], t0, t1) for r in runs.get(key, {}).values()
           if r.get("series")]
    per = [p for p in per if p]
    if not per:
        return None
    return {"changes_per_s": B.summary([p["changes_per_s"] for p in per]),
            "spread": B.summary([p["spread"] for p in per]),
            "lo": B.summary([p["lo"] for p in per]), "hi": B.summary([p["hi"] for p in per]),
            "median_mb_s": B.summary([p["median_mb_s"] for p in per]),
            "limited_pct": B.summary([p["limited_pct"] for p in per]), "window": (t0, t1)}


def controller(d, runs, summ, orc, m):
    """Everything said of one controller mode."""
    t, key = m["target_us"], m["key"]
    o = orc[t]
    c = {"mode": m, "target_us": t, "oracle": o, "s": summ[key],
         "w_unc": J.ratios(runs, key, "none", "writer_mb_s"),
         "p90_solo": J.ratios(runs, key, "solo", "p90_us"),
         "settled": settled(d, runs, key)}
    if o:
        c["o_s"] = summ[o["key"]]
        c["w_orc"] = J.ratios(runs, key, o["key"], "writer_mb_s")
        c["p99_orc"] = J.ratios(runs, key, o["key"], "p99_us")
        c["p90_orc"] = J.ratios(runs, key, o["key"], "p90_us")
    return c


def analyse(d):
    runs = by_rep(d)
    summ = summaries(d, runs)
    orc = oracles(d, summ)
    ctls = [controller(d, runs, summ, orc, m) for m in mode_rows(d, summ, orc)
            if m["kind"] == "control"]
    return runs, summ, orc, ctls


# ---------------------------------------------------------------- formatting

def f_t(t):
    return "1 ms" if t == 1000 else G.f_us(t).replace(".0 ", " ")


def mode_label(sec, m, d):
    if m["kind"] == "solo":
        return "reader alone"
    if m["kind"] == "none":
        return sec["none"]
    if m["kind"] == "cap":
        frac = " (%.2g× uncontrolled)" % m["fraction"] if m.get("fraction") else ""
        return "cap %s MB/s%s" % (G.f_mb(m["cap_bps"] / 1e6), frac)
    return "%s, target %s" % (sec["ctl"] % m["control"], f_t(m["target_us"]))


def mode_rows(d, summ, orc):
    """The modes in reading order: alone, none, caps by rate, controllers by target."""
    rank = {"solo": 0, "none": 1, "cap": 2, "control": 3, "kthrottle": 4}
    ctl = {"article": 0, "adaptive": 1}
    return sorted(d["modes"], key=lambda m: (rank[m["kind"]], m.get("cap_bps", 0),
                                             m.get("target_us", 0), ctl.get(m.get("control"), 2)))


def settled_text(st):
    if not st:
        return "-"
    if st["median_mb_s"]["median"] is None:
        return "no limit"
    return "%s /s; %s to %s" % (
        G.rng(st["changes_per_s"], lambda v: "%.1f" % v),
        G.rng(st["lo"], lambda v: "%+.0f%%" % (100 * v)),
        G.rng(st["hi"], lambda v: "%+.0f%%" % (100 * v)))


# ---------------------------------------------------------------- the section

def intro(doc, sec, d):
    fr = d.get("fractions") or []
    caps = ("at %s× the writer's uncontrolled rate in the first repetition (%s MB/s)" % (
        ", ".join("%g" % f for f in fr), G.f_mb(d["uncontrolled_ref_mb_s"]))
        if d.get("uncontrolled_ref_mb_s") else "at the rates given (`--caps`)")
    doc.w("`%s`: %s on this machine's disk (%s, %s%s; %s). A reader — 4 KiB random reads, QD 1, "
          "psync, O_DIRECT, on a %s file — beside a writer — 1 MiB writes, QD 32, %s, "
          "O_DIRECT, on a %s file — started %g s before it; %g s measured per mode after a "
          "%g s ramp of the reader. In one run, %s, each running every mode once (the reader "
          "alone and no control first, then the static caps and the controllers interleaved). "
          "Static caps: %s, %s. Reader latency: %s. Writer: MB/s (10⁶ bytes/s) over the "
          "reader's measured time. Median (min–max) over the repetitions:" % (
              sec["script"], sec["who"], d.get("disk_name"), d.get("disk"),
              ", cgroup %s" % d["cgroup"] if d.get("cgroup") else "", sec["where"],
              G.f_num(d["read_size"] / 2 ** 30, 1).rstrip("0").rstrip(".") + " GiB",
              d.get("engine"), G.f_num(d["write_size"] / 2 ** 30, 1).rstrip("0").rstrip(".") +
              " GiB", d["lead_s"], d["seconds"], d["ramp_s"], G.pl(d["reps"], "repetition"),
              d.get("cap_how"), caps, d.get("latency")))
    doc.w()
    if d.get("rotational") == "1":
        doc.w("The disk says rotational=1: `article` judges the reader's windows by their mean "
              "(the kernel's rule for such disks), `adaptive` by their p90 on every disk "
              "(docs/controller-adaptive.md).")
        doc.w()


def disturbance(doc, d):
    dist = d["disturbance"]
    if not dist["checked"]:
        doc.w("Other traffic on the disk was not checked (%s)." % dist["why_not"])
        doc.w()
        return
    thrown = dist["thrown_away"]
    kept = [r for r in d["runs"] if r.get("disturbed")]
    doc.w("Other traffic on the disk (/proc/diskstats of %s minus the benchmark's own cgroup, "
          "bytes read and written): a run with more than %g MB/s of it on average, or %g MB/s "
          "over any 3 s, was thrown away and run again at once, up to %d times. %s%s" % (
              d.get("disk_name"), dist["mean_limit_mb_s"], dist["burst_limit_mb_s"],
              dist["retries"],
              "Thrown away: %s." % "; ".join(
                  "rep %d %s (%.0f MB/s, %.0f over 3 s)" % (
                      t["rep"], t["mode"], t["foreign_mb_s"], t["foreign_worst_mb_s"])
                  for t in thrown) if thrown else "No run was thrown away.",
              " **Left out of every figure, still disturbed after the last try**: %s." %
              ", ".join("rep %d %s" % (r["rep"], r["mode"]) for r in kept) if kept else ""))
    doc.w()


def table_modes(doc, sec, d, summ, orc):
    ts = d["targets_us"]
    doc.w("| mode | reader p50 | reader p90 | reader p99 | reader reads/s | writer MB/s | %s |" %
          " | ".join("p90 ≤ %s" % f_t(t) for t in ts))
    doc.w("|---|---:|---:|---:|---:|---:|%s" % ("---|" * len(ts)))
    for m in mode_rows(d, summ, orc):
        if m["kind"] == "kthrottle":
            continue  # the pacing comparison's own table (gen_pacing.py)
        s = summ[m["key"]]
        within = []
        for t in ts:
            w = "%d/%d" % (s["within"][t], s["n"])
            if orc[t] is m:
                w += " **oracle**"
            within.append(w)
        doc.w("| %s | %s | %s | %s | %s | %s | %s |" % (
            mode_label(sec, m, d), G.rng(s["p50_us"], G.f_us), G.rng(s["p90_us"], G.f_us),
            G.rng(s["p99_us"], G.f_us), G.rng(s["reads_s"], G.f_num),
            G.rng(s["writer_mb_s"], G.f_mb) if m["kind"] != "solo"
            else "–", " | ".join(within)))
    doc.w()
    got = [(m, B.summary([r["writer_mb_s"] * 1e6 / m["cap_bps"] for r in d["runs"]
                          if r["mode"] == m["key"] and not r.get("disturbed")]))
           for m in mode_rows(d, summ, orc) if m["kind"] == "cap"]
    if got:
        doc.w("What the caps delivered (the writer's MB/s ÷ the cap, median over the "
              "repetitions): %s." % ", ".join("%s MB/s %.2f×" % (
                  G.f_mb(m["cap_bps"] / 1e6), s["median"]) for m, s in got if s["n"]))
        doc.w()


def table_oracle(doc, sec, d, ctls, summ):
    doc.w("**Against the oracle.** For each target the oracle is the highest cap whose reader "
          "p90 was within the target in every repetition (a cap that fails one run in four is "
          "not one a user keeps). Ratios are taken within each repetition, then the median "
          "(min–max). *Beyond the oracle*: the writer against its uncontrolled rate and the "
          "reader's p90 against its p90 alone, same repetition. *Limit*: %s, from %g s after the "
          "reader started to its end: changes per second, and the lowest and highest value "
          "against the median." % (d.get("series_how"), settle_window(d)[0]))
    doc.w()
    doc.w("| controller | oracle cap | writer ÷ oracle's | reader p90 (oracle's) | reader p99 "
          "(oracle's) | p99 ÷ oracle's | writer ÷ uncontrolled | p90 ÷ alone | limit |")
    doc.w("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for c in ctls:
        o, s = c["oracle"], c["s"]
        os_ = summ[o["key"]] if o else None
        top = max(m.get("cap_bps", 0) for m in d["modes"])
        doc.w("| %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s | %s |" % (
            mode_label(sec, c["mode"], d), "%s MB/s%s" % (
                G.f_mb(o["cap_bps"] / 1e6), " (the highest tried)" if o["cap_bps"] == top else "")
            if o else "none protects every time", G.f_ratio(c.get("w_orc")), G.f_us(s["p90_us"]["median"]),
            G.f_us(os_["p90_us"]["median"]) if o else "-", G.f_us(s["p99_us"]["median"]),
            G.f_us(os_["p99_us"]["median"]) if o else "-", G.f_ratio(c.get("p99_orc")),
            G.f_ratio(c["w_unc"]), G.f_ratio(c["p90_solo"]), settled_text(c["settled"])))
    doc.w()


def series_lines(doc, sec, d):
    """The adaptive runs' limit in force, change by change (the time series, short)."""
    rows = [r for r in d["runs"] if r.get("series")]
    if not rows:
        return
    doc.w("The limit in force in the controller runs that have one (MB/s at seconds since "
          "the reader started, its first value and each change, the first 12; the reader ends "
          "at %g s):" % (d["ramp_s"] + d["seconds"]))
    doc.w()
    rank = {m["key"]: i for i, m in enumerate(mode_rows(d, None, None))}
    for r in sorted(rows, key=lambda r: (rank[r["mode"]], r["rep"])):
        ch, last = [], None
        for t, v in r["series"]:
            if t < 0:
                continue
            if last is None or (last == 0) != (v == 0) or (last and abs(v / last - 1) > J.CHANGE_EPS):
                ch.append("%s@%.1f" % (G.f_mb(v / 1e6) if v else "none", t))
                last = v
        more = len(ch) - 12
        doc.w("- %s, rep %d: %s%s" % (mode_label(sec, next(
            m for m in d["modes"] if m["key"] == r["mode"]), d), r["rep"], ", ".join(ch[:12]),
            " … (%d more)" % more if more > 0 else ""))
    doc.w()


def goals(doc, sec, d, ctls):
    """Issue 19's goals for the adaptive mode, one row each, per target."""
    for c in ctls:
        if c["mode"]["control"] != "adaptive":
            continue
        t, s, o = c["target_us"], c["s"], c["oracle"]
        who = "%s, target %s: " % (sec["ctl"] % "adaptive", f_t(t))
        x = lambda v: "%.2f×" % v  # noqa: E731
        p90 = s["p90_us"]["median"]
        doc.goal(sec["no"], who + "reader p90 within target", "p90 %s (within in %d of %d runs)"
                 % (G.f_us(p90), s["within"][t], s["n"]), p90 <= t,
                 "" if p90 <= t else "p90 per run: " + G.per_rep(s["p90_us"], G.f_us))
        no_orc = "no static cap kept the reader's p90 within %s in every repetition" % f_t(t)
        if o:
            w = c["w_orc"]["median"]
            doc.goal(sec["no"], who + "writer ≥ %.1f× the oracle cap's" % WRITER_GOAL,
                     "%s (oracle: cap %s MB/s)" % (x(w), G.f_mb(o["cap_bps"] / 1e6)),
                     w >= WRITER_GOAL, "" if w >= WRITER_GOAL else
                     "per run: " + G.per_rep(c["w_orc"], x))
            p = c["p99_orc"]["median"]
            doc.goal(sec["no"], who + "reader p99 ≤ %g× the oracle cap's" % P99_GOAL,
                     "%s, %s (oracle's %s)" % (x(p), G.f_us(s["p99_us"]["median"]),
                                               G.f_us(c["o_s"]["p99_us"]["median"])),
                     p <= P99_GOAL, "" if p <= P99_GOAL else "per run: " +
                     G.per_rep(c["p99_orc"], x))
        else:
            doc.goal(sec["no"], who + "writer ≥ %.1f× the oracle cap's" % WRITER_GOAL, "-", None,
                     no_orc)
            doc.goal(sec["no"], who + "reader p99 ≤ %g× the oracle cap's" % P99_GOAL, "-", None,
                     no_orc)
        wu, ps = c["w_unc"]["median"], c["p90_solo"]["median"]
        ok = wu is not None and ps is not None and wu >= BEYOND_WRITER and ps <= BEYOND_P90
        doc.goal(sec["no"], who + "beyond the oracle: writer ≥ %g× uncontrolled with reader p90 "
                 "≤ %g× alone" % (BEYOND_WRITER, BEYOND_P90),
                 "writer %s, p90 %s" % (G.f_ratio(c["w_unc"]), G.f_ratio(c["p90_solo"])), ok,
                 "" if ok else "per run: writer %s; p90 %s" % (
                     G.per_rep(c["w_unc"], x), G.per_rep(c["p90_solo"], x)))
        goal_settled(doc, sec, d, c, who)


def goal_settled(doc, sec, d, c, who):
    st = c["settled"]
    name = who + "settled: ≤ %g limit change/s, within ±%d%% of its median after %g s" % (
        SETTLE_CHANGES, 100 * SETTLE_SPREAD, settle_window(d)[0])
    if not st:
        doc.goal(sec["no"], name, "-", None, "no time series of the limit")
        return
    ch, sp = st["changes_per_s"]["median"], st["spread"]["median"]
    ok = ch <= SETTLE_CHANGES and sp <= SETTLE_SPREAD
    doc.goal(sec["no"], name, settled_text(st), ok, "" if ok else (
        "per run: %s changes/s, widest move %s from the median%s" % (
            G.per_rep(st["changes_per_s"], lambda v: "%.1f" % v),
            G.per_rep(st["spread"], lambda v: "±%.0f%%" % (100 * v) if v != float("inf")
                    else "(lifted for a while)"),
            "; limited %s of the time" % G.per_rep(st["limited_pct"], lambda v: "%.0f%%" % v)
            if st["limited_pct"]["min"] < 100 else "")))


def costs(doc, d):
    """Section 7: the BPF program's and the daemon's costs in the iolatd runs."""
    rs = [r for r in d["runs"] if r.get("daemon_cpu_pct") is not None]
    if not rs:
        return
    s = {k: B.summary([r.get(k) for r in rs]) for k in (
        "bpf_ns_per_req", "bpf_reqs", "daemon_cpu_pct", "daemon_us_per_req")}
    doc.w("Costs, measured during the iolatd runs: the BPF completion program **%s ns per "
          "request** (`kernel.bpf_stats_enabled`, run time over run count, %s requests a run; "
          "the setting was restored to %s after), the daemon **%s%% of one CPU**, %s µs of its "
          "CPU per request it handled (`/proc/PID/stat` over the reader's measured run)." % (
              G.rng(s["bpf_ns_per_req"], G.f_mb), G.rng(s["bpf_reqs"], G.f_mb),
              d.get("bpf_stats_restored_to", "?"), G.rng(s["daemon_cpu_pct"],
                                                         lambda v: G.f_num(v, 2)),
              G.rng(s["daemon_us_per_req"], lambda v: G.f_num(v, 2))))
    doc.w()


def section(doc, res, fname):
    """Section 4 or 7 of BENCHMARKS.md, and its goals."""
    sec = SECTIONS[fname]
    doc.w("## %s. %s" % (sec["no"], sec["title"]))
    doc.w()
    d = G.load_json(os.path.join(res, fname))
    if not d or not isinstance(d.get("runs"), list):
        why = d["skipped"] if d and "skipped" in d else \
            "`%s` is in the format before the oracle benchmark: run section %s again" % (
                fname, sec["no"]) if d else "no `%s`" % fname
        doc.w("_Not run: %s._" % why)
        doc.w()
        doc.goal(sec["no"], "%s adaptive against the oracle (issue 19)" % sec["who"], "-", None,
                 "not run: " + why)
        return
    runs, summ, orc, ctls = analyse(d)
    intro(doc, sec, d)
    table_modes(doc, sec, d, summ, orc)
    disturbance(doc, d)
    table_oracle(doc, sec, d, ctls, summ)
    series_lines(doc, sec, d)
    if sec["no"] == "4":
        gen_pacing.text(doc, sec, d, runs, summ)
    if sec["no"] == "7":
        costs(doc, d)
    doc.w("Command: `%s`" % d.get("cmd", "?"))
    doc.w()
    goals(doc, sec, d, ctls)
    if sec["no"] == "4":
        gen_pacing.goals(doc, sec, d, runs, summ)


def headline(res, fname):
    """One line for the Headlines: the oracle and the adaptive mode, per target."""
    sec = SECTIONS[fname]
    d = G.load_json(os.path.join(res, fname))
    if not d or not isinstance(d.get("runs"), list):
        return None
    runs, summ, orc, ctls = analyse(d)
    bits = []
    for c in ctls:
        if c["mode"]["control"] != "adaptive":
            continue
        o, s = c["oracle"], c["s"]
        bits.append("target %s: oracle %s; adaptive p90 %s, p99 %s, %s MB/s%s" % (
            f_t(c["target_us"]), "cap %s MB/s (p90 %s, p99 %s)" % (
                G.f_mb(o["cap_bps"] / 1e6), G.f_us(summ[o["key"]]["p90_us"]["median"]),
                G.f_us(summ[o["key"]]["p99_us"]["median"])) if o else "none",
            G.f_us(s["p90_us"]["median"]), G.f_us(s["p99_us"]["median"]),
            G.f_mb(s["writer_mb_s"]["median"]),
            " (%.2f× the oracle's)" % c["w_orc"]["median"] if o else ""))
    pace = gen_pacing.headline(d, runs, summ) if sec["no"] == "4" else None
    return "**Real disk, %s against the best static cap** (medians; no control: writer %s MB/s, " \
        "reader p90 %s; alone %s): %s." % (
            sec["who"], G.f_mb(summ["none"]["writer_mb_s"]["median"]),
            G.f_us(summ["none"]["p90_us"]["median"]), G.f_us(summ["solo"]["p90_us"]["median"]),
            "; ".join(bits + ([pace] if pace else [])))
