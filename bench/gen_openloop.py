# SPDX-License-Identifier: MIT
"""gen_openloop.py - BENCHMARKS.md section 8 from results/openloop.json
(bench_openloop.py): per reader kind, the modes' figures with the reader's
reads/s beside every percentile, the caps bisected in each repetition with
each repetition's oracle, the Pareto table (the caps that dominate each
controller, repetition by repetition), the limit and the delivered rate per
period, and issue 26's goals, each judged repetition by repetition with the
count held. Rules: judge.py. Called by gen_benchmarks.py (one thread).
"""
import os

import benchlib as B
import genlib as G
import judge as J
import openplan

SEC = "8"
WRITER_GOAL = 0.9        # the controller's writer ÷ the repetition's oracle cap's
SETTLE_SKIP_S = 3.0      # the limit is judged from this long after the reader started
SETTLE_CHANGES = 1.0     # changes of the limit per second, at most
SETTLE_SPREAD = 0.25     # ... and within this fraction of its median
MOONSHOT = 1.5           # item 6: the controller's writer work ÷ the oracle cap's


# ---------------------------------------------------------------- analysis

def counted(d, reader):
    """{rep: [runs of this reader that count]} (a run still disturbed after its
    retries is left out)."""
    out = {}
    for r in d["runs"]:
        if r.get("reader") == reader and not r.get("disturbed"):
            out.setdefault(r["rep"], []).append(r)
    return out


def mode_of(d):
    return {m["key"]: m for m in d["modes"]}


def caps_in(reps, rep, modes):
    return [r for r in reps.get(rep, []) if modes[r["mode"]]["kind"] == "cap"]


def ctl_keys(d, reader):
    order = {"adaptive": 0, "article": 1}
    ms = [m for m in d["modes"] if m["reader"] == reader and m["kind"] == "control"]
    return [m["key"] for m in sorted(ms, key=lambda m: (order.get(m["control"], 2),
                                                        m["target_us"]))]


def verdicts(d, reader, key):
    """Per repetition, the controller run and what it is judged against."""
    reps, modes = counted(d, reader), mode_of(d)
    t = modes[key]["target_us"]
    out = []
    for rep in range(1, d["reps"] + 1):
        r = next((x for x in reps.get(rep, []) if x["mode"] == key), None)
        if r is None:
            out.append({"rep": rep, "run": None, "why": "left out (other traffic)" if any(
                x["mode"] == key and x["rep"] == rep for x in d["runs"]) else "not run"})
            continue
        caps = caps_in(reps, rep, modes)
        o = J.rep_oracle(caps, t)
        v = {"rep": rep, "run": r, "within": r["p90_us"] <= t, "oracle": o,
             "dominators": J.dominators(r, caps)}
        if o and o.get("writer_mb_s"):
            v["w_orc"] = r["writer_mb_s"] / o["writer_mb_s"]
            v["reads_orc"] = r["reads_s"] / o["reads_s"] if o.get("reads_s") else None
        v["settled"] = J.period_summary(r["periods"], settle_skip(d)) if r.get("periods") \
            else None
        out.append(v)
    return out


def settle_skip(d):
    """Seconds after the reader started from which the limit is judged (half a
    short smoke run)."""
    return min(SETTLE_SKIP_S, d["seconds"] / 2)


def kept_cap(d, reader, t):
    """The highest cap within the target in every repetition, as the bisection
    knows it: the lowest of the repetitions' oracles (None if one has none)."""
    reps, modes = counted(d, reader), mode_of(d)
    os_ = [J.rep_oracle(caps_in(reps, rep, modes), t) for rep in range(1, d["reps"] + 1)]
    return None if any(o is None for o in os_) else min(o["cap_bps"] for o in os_)


# ---------------------------------------------------------------- formatting

def f_t(t):
    return "1 ms" if t == 1000 else G.f_us(t).replace(".0 ", " ")


def reader_title(d, reader):
    st = d["settings"]
    k, rate = openplan.kind_of(reader), openplan.rate_of(reader, st)
    if k == "cycle":
        return ("%s: %s reads/s while busy, busy %g s then idle %g s, %d times; the knee "
                "moved for the middle third by %s" % (
                    openplan.KIND_NAMES[k], G.f_num(rate), st["cycle_on_s"], st["cycle_off_s"],
                    st["cycles"], {"tenant": "a tenant outside iolatd's tree writing %s MB/s"
                                   % G.f_num(st["tenant_mb_s"]),
                                   "cpu": "a CPU hog on every core",
                                   "none": "nothing (not moved)"}[st["knee_mover"]]))
    if rate is None:
        return openplan.KIND_NAMES[k]
    return "%s, %s reads/s" % (openplan.KIND_NAMES[k], G.f_num(rate))


def label(m):
    if m["kind"] == "solo":
        return "reader alone"
    if m["kind"] == "none":
        return "no control"
    if m["kind"] == "cap":
        return "cap %s MB/s%s" % (G.f_mb(m["cap_bps"] / 1e6),
                                  " (challenger)" if m.get("role") == "challenge" else "")
    return "iolatd `control=%s`, target %s" % (m["control"], f_t(m["target_us"]))


def reads_cell(r):
    s = G.f_num(r.get("reads_s"))
    if r.get("rate_target") and r.get("reads_s") and r["reads_s"] < 0.95 * r["rate_target"]:
        s += " (behind)"
    return s


def mark(ok):
    return "—" if ok is None else ("✓" if ok else "✗")


def per_rep_text(vs, fig, ok):
    """'rep 1 0.93× ✓, rep 2 …; held 2/3' from per-repetition verdicts."""
    flags = [ok(v) if v.get("run") else None for v in vs]
    bits = ["rep %d %s %s" % (v["rep"], fig(v) if v.get("run") else v["why"], mark(f))
            for v, f in zip(vs, flags)]
    h, n = J.held(flags)
    return "%s; held %d/%d" % (", ".join(bits), h, n), flags


# ---------------------------------------------------------------- tables

def table_modes(doc, d, reader):
    """The modes run every repetition (not the caps): median (min–max)."""
    reps = counted(d, reader)
    ts = d["targets_us"]
    doc.w("| mode | reader p50 | p90 | p99 | p99.9 | reads/s | writer MB/s | %s |" %
          " | ".join("p90 ≤ %s" % f_t(t) for t in ts))
    doc.w("|---|---:|---:|---:|---:|---:|---:|%s" % ("---|" * len(ts)))
    rank = {"solo": 0, "none": 1, "control": 2}
    ctl = {"adaptive": 0, "article": 1}
    ms = sorted((m for m in d["modes"] if m["reader"] == reader and m["kind"] != "cap"),
                key=lambda m: (rank[m["kind"]], ctl.get(m.get("control"), 2),
                               m.get("target_us", 0)))
    for m in ms:
        rs = [r for rr in reps.values() for r in rr if r["mode"] == m["key"]]
        s = {k: B.summary([r.get(k) for r in rs]) for k in (
            "p50_us", "p90_us", "p99_us", "p999_us", "reads_s", "writer_mb_s")}
        doc.w("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label(m), G.rng(s["p50_us"], G.f_us), G.rng(s["p90_us"], G.f_us),
            G.rng(s["p99_us"], G.f_us), G.rng(s["p999_us"], G.f_us),
            G.rng(s["reads_s"], G.f_num),
            G.rng(s["writer_mb_s"], G.f_mb) if m["kind"] != "solo" else "–",
            " | ".join("%d/%d" % (sum(1 for r in rs if r["p90_us"] <= t), len(rs)) for t in ts)))
    doc.w()


def table_caps(doc, d, reader):
    """Every cap run, repetition by repetition, in the order run, with each
    repetition's oracle per target."""
    reps, modes = counted(d, reader), mode_of(d)
    ts = d["targets_us"]
    doc.w("| rep | cap MB/s, in the order run | writer MB/s | reader p50 | p90 | p99 | p99.9 | "
          "reads/s | oracle of the repetition |")
    doc.w("|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for rep in sorted(reps):
        caps = caps_in(reps, rep, modes)
        orc = {t: J.rep_oracle(caps, t) for t in ts}
        for r in caps:
            m = modes[r["mode"]]
            doc.w("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                rep, label(m).replace("cap ", ""), G.f_mb(r["writer_mb_s"]),
                G.f_us(r["p50_us"]), G.f_us(r["p90_us"]), G.f_us(r["p99_us"]),
                G.f_us(r.get("p999_us")), reads_cell(r),
                ", ".join("**%s**" % f_t(t) for t in ts if orc[t] is r)))
    doc.w()


def dominated_text(v):
    if not v.get("run"):
        return v["why"]
    if not v["dominators"]:
        return "none"
    return "; ".join("cap %s (%s MB/s, p99 %s)" % (
        G.f_mb(c["cap_bps"] / 1e6), G.f_mb(c["writer_mb_s"]), G.f_us(c["p99_us"]))
        for c in v["dominators"])


def table_pareto(doc, d, reader):
    modes = mode_of(d)
    doc.w("| controller | rep | writer MB/s | reader p90 | p99 | reads/s | oracle cap (writer) | "
          "writer ÷ oracle's | dominated by (writer ≥ %.1f×, p99 no higher) |" %
          J.DOMINATE_WRITER)
    doc.w("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for key in ctl_keys(d, reader):
        for v in verdicts(d, reader, key):
            r, o = v["run"], v.get("oracle")
            if not r:
                doc.w("| %s | %d | %s | | | | | | |" % (label(modes[key]), v["rep"], v["why"]))
                continue
            doc.w("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                label(modes[key]), v["rep"], G.f_mb(r["writer_mb_s"]), G.f_us(r["p90_us"]),
                G.f_us(r["p99_us"]), reads_cell(r),
                "%s (%s)" % (G.f_mb(o["cap_bps"] / 1e6), G.f_mb(o["writer_mb_s"])) if o
                else "none within", "%.2f×" % v["w_orc"] if v.get("w_orc") else "-",
                dominated_text(v)))
    doc.w()


def settled_cell(s):
    if not s:
        return "-"
    if s["median_mb_s"] is None:
        return "no limit"
    return "%.1f /s; %+.0f%% to %+.0f%%%s; delivered %s of the limit" % (
        s["changes_per_s"], 100 * s["lo"], 100 * s["hi"],
        " (lifted at times)" if s["spread"] == float("inf") else "",
        "%.2f×" % s["delivered_of_limit"] if s.get("delivered_of_limit") else "-")


def table_periods(doc, d, reader):
    modes = mode_of(d)
    rows = [(key, v) for key in ctl_keys(d, reader) for v in verdicts(d, reader, key)
            if v.get("run") and v["run"].get("periods")]
    if not rows:
        return
    doc.w("The limit iolatd wrote (in force on the writer's cgroup) and what the writer "
          "delivered, per %g s period, from %g s after the reader started: changes of the "
          "limit per second, its lowest and highest against its median, and the writer's "
          "bytes ÷ the limit over the limited periods (the per-period log: "
          "`bench/results/raw/openloop/rREP.MODE.periods.csv`):" % (1.0, settle_skip(d)))
    doc.w()
    for key in ctl_keys(d, reader):
        sts = [v["settled"] for k, v in rows if k == key and v.get("settled")]
        if not sts:
            continue
        med = {f: B.median([x[f] for x in sts if x.get(f) is not None]) for f in (
            "changes_per_s", "spread", "delivered_of_limit")}
        doc.w("- %s: median %s changes/s, %s, delivered %s of the limit — %s" % (
            label(modes[key]), "%.1f" % med["changes_per_s"],
            "within ±%.0f%% of its median" % (100 * med["spread"])
            if med["spread"] not in (None, float("inf"))
            else "lifted at times", "%.2f×" % med["delivered_of_limit"]
            if med["delivered_of_limit"] else "-", "; ".join(
                "rep %d: %s" % (v["rep"], settled_cell(v["settled"]))
                for k, v in rows if k == key)))
    doc.w()


# ---------------------------------------------------------------- goals

def goals_open(doc, d, reader, key):
    """Issue 26's first goal (and the settled one) for an adaptive run."""
    m = mode_of(d)[key]
    t = m["target_us"]
    vs = verdicts(d, reader, key)
    who = "%s; adaptive, target %s: " % (reader_title(d, reader), f_t(t))
    txt, fl = per_rep_text(vs, lambda v: G.f_us(v["run"]["p90_us"]), lambda v: v["within"])
    doc.goal(SEC, who + "reader p90 within target in every repetition", txt,
             all(fl) and len(fl) == d["reps"], "")
    txt, fl = per_rep_text(vs, lambda v: "%.2f×" % v["w_orc"] if v.get("w_orc") else
                           "(no cap within)", lambda v: v["w_orc"] >= WRITER_GOAL
                           if v.get("w_orc") else None)
    doc.goal(SEC, who + "writer ≥ %.1f× the repetition's oracle cap's" % WRITER_GOAL, txt,
             None if not any(f is not None for f in fl) else all(f is not False for f in fl),
             "a repetition where no cap kept the reader within target is not judged")
    txt, fl = per_rep_text(vs, lambda v: G.pl(len(v["dominators"]), "cap"),
                           lambda v: not v["dominators"])
    doc.goal(SEC, who + "dominated by no cap in any repetition", txt, all(f is not False
                                                                          for f in fl), "")
    goal_settled(doc, who, vs)


def goal_settled(doc, who, vs):
    def ok(v):
        s = v.get("settled")
        if not s:
            return None
        return s["changes_per_s"] <= SETTLE_CHANGES and s["spread"] <= SETTLE_SPREAD
    def fig(v):
        s = v.get("settled")
        if not s or s["median_mb_s"] is None:
            return settled_cell(s)
        return "%.1f /s, %s" % (s["changes_per_s"], "±%.0f%%" % (100 * s["spread"])
                                if s["spread"] != float("inf") else "lifted at times")
    txt, fl = per_rep_text(vs, fig, ok)
    doc.goal(SEC, who + "settled: ≤ %g change/s, within ±%d%% of its median after %g s" % (
        SETTLE_CHANGES, 100 * SETTLE_SPREAD, SETTLE_SKIP_S), txt,
        None if not any(f is not None for f in fl) else all(f is not False for f in fl), "")


def goals_qd1(doc, d, reader, key):
    """The closed-loop reader: reads/s ≥ the oracle cap's, writer ≥ 0.9× its."""
    t = mode_of(d)[key]["target_us"]
    vs = verdicts(d, reader, key)
    who = "%s; adaptive, target %s: " % (reader_title(d, reader), f_t(t))

    def ok(v):
        if not v.get("w_orc") or v.get("reads_orc") is None:
            return None
        return v["reads_orc"] >= 1.0 and v["w_orc"] >= WRITER_GOAL
    txt, fl = per_rep_text(vs, lambda v: "reads %.2f×, writer %.2f×" % (
        v["reads_orc"], v["w_orc"]) if v.get("w_orc") and v.get("reads_orc") is not None
        else "(no cap within)", ok)
    doc.goal(SEC, who + "reads/s ≥ the repetition's oracle cap's and writer ≥ %.1f× its" %
             WRITER_GOAL, txt, None if not any(f is not None for f in fl) else
             all(f is not False for f in fl), "")


def goals_cycle(doc, d, reader, key):
    """Item 6: more writer work than every cap within target, and the moonshot."""
    t = mode_of(d)[key]["target_us"]
    vs = verdicts(d, reader, key)
    who = "%s; adaptive, target %s: " % ("Item 6 (reader comes and goes, knee moves)", f_t(t))
    txt, fl = per_rep_text(vs, lambda v: G.f_us(v["run"]["p90_us"]), lambda v: v["within"])
    doc.goal(SEC, who + "reader p90 within target in every repetition", txt,
             all(fl) and len(fl) == d["reps"], "")
    txt, fl = per_rep_text(vs, lambda v: "%.2f×" % v["w_orc"] if v.get("w_orc") else
                           "(no cap within)", lambda v: v["w_orc"] > 1.0 if v.get("w_orc")
                           else None)
    doc.goal(SEC, who + "more writer work than every cap within target (the repetition's "
             "oracle)", txt, None if not any(f is not None for f in fl) else
             all(f is not False for f in fl), "writer work ÷ the oracle cap's, same repetition")
    txt, fl = per_rep_text(vs, lambda v: "%.2f×" % v["w_orc"] if v.get("w_orc") else
                           "(no cap within)", lambda v: v["w_orc"] >= MOONSHOT and v["within"]
                           if v.get("w_orc") else None)
    doc.goal(SEC, who + "moonshot: ≥ %.1f× the oracle cap's writer work, reader within" %
             MOONSHOT, txt, None if not any(f is not None for f in fl) else
             all(f is not False for f in fl), "")


# ---------------------------------------------------------------- the section

def intro(doc, d):
    st = d["settings"]
    doc.w("`bench/bench_openloop.py`: iolatd with unmodified fio on this machine's disk (%s, %s, "
          "cgroup %s), judged by readers that cannot hide their stalls (issue 26). The writer: "
          "1 MiB writes, QD 32, libaio, O_DIRECT, in a sibling cgroup of the reader's, started "
          "%g s first. Open-loop readers: 4 KiB random reads issued at a fixed mean rate with "
          "Poisson arrivals (fio `rate_iops`, `rate_process=poisson`, libaio, iodepth %d), "
          "whether or not earlier reads completed; *reads/s* below that rate says the queue "
          "filled (marked *behind*). The closed-loop reader is section 7's (QD 1, psync): its "
          "reads/s show what its percentiles hide. Reader latency: %s. %g s measured after a %g s "
          "ramp; %s, each running every reader's block of modes, the blocks and the modes within "
          "them rotated from one repetition to the next. Static caps: %s, **bisected around the "
          "knee in each repetition** (geometric, bracket %s–%s MB/s, %d steps for the %s target "
          "then %d for each other, every result counting for every target), plus a challenger "
          "cap at %.2f× each adaptive run's writer after the block when no cap already answered "
          "whether it dominates. The oracle of a repetition: its highest cap whose reader p90 "
          "was within the target. A controller is judged as the caps are: within target in "
          "every repetition, not on a median." % (
              d.get("disk_name"), d.get("disk"), d.get("cgroup"), d["lead_s"], st["depth"],
              d.get("latency"), d["seconds"], d["ramp_s"], G.pl(d["reps"], "repetition"),
              d.get("cap_how"), G.f_mb(st["cap_lo_bps"] / 1e6), G.f_mb(st["cap_hi_bps"] / 1e6),
              st["bisect_first"], f_t(min(d["targets_us"])), st["bisect_more"],
              J.DOMINATE_WRITER * 1.02))
    doc.w()
    if st.get("reader_nice"):
        doc.w("The readers ran at nice %d (`--reader-nice`): the machine was busy with other "
              "work, and a reader waiting for a CPU adds that wait to its latency." %
              st["reader_nice"])
        doc.w()
    if not st.get("iolat_rates"):
        doc.w("`iolat run`'s own open-loop reader was not run (%s)." % (
            "the iolat binary has no `rate_process` key" if st.get("iolat_reader") == "auto"
            else "`--iolat-reader off`"))
        doc.w()


def disturbance(doc, d):
    dist = d["disturbance"]
    kept = [r for r in d["runs"] if r.get("disturbed")]
    doc.w("Other traffic on the disk (more than %g MB/s on average or %g MB/s over 3 s beside "
          "the benchmark's own cgroups): %s%s" % (
              dist["mean_limit_mb_s"], dist["burst_limit_mb_s"],
              "%d run(s) thrown away and run again." % len(dist["thrown_away"])
              if dist["thrown_away"] else "no run thrown away.",
              " Left out, still disturbed: %s." % ", ".join(
                  "rep %d %s" % (r["rep"], r["mode"]) for r in kept) if kept else ""))
    doc.w()


def block(doc, d, reader):
    doc.w("### %s" % reader_title(d, reader))
    doc.w()
    doc.w("Median (min–max) over the repetitions:")
    doc.w()
    table_modes(doc, d, reader)
    doc.w("The caps, repetition by repetition (bisected, then the challengers):")
    doc.w()
    table_caps(doc, d, reader)
    doc.w("A cap a user could have kept, within target in every repetition (as far as the "
          "bisections tell: the lowest of the repetitions' oracles): %s." % "; ".join(
              "%s: %s" % (f_t(t), "%s MB/s" % G.f_mb(c / 1e6) if c else "none")
              for t, c in ((t, kept_cap(d, reader, t)) for t in d["targets_us"])))
    doc.w()
    doc.w("**Pareto check.** Per repetition, every cap of that repetition that gave the writer "
          "≥ %.1f× the controller's with a reader p99 no higher dominates it:" %
          J.DOMINATE_WRITER)
    doc.w()
    table_pareto(doc, d, reader)
    table_periods(doc, d, reader)


def section(doc, res):
    doc.w("## 8. Open-loop readers and the Pareto check")
    doc.w()
    d = G.load_json(os.path.join(res, "openloop.json"))
    if not d or not isinstance(d.get("runs"), list):
        why = d["skipped"] if d and "skipped" in d else "no `openloop.json`"
        doc.w("_Not run: %s._" % why)
        doc.w()
        doc.goal(SEC, "iolatd against bisected caps with open-loop readers (issue 26)", "-",
                 None, "not run: " + why)
        return
    intro(doc, d)
    disturbance(doc, d)
    for reader in openplan.readers(d["settings"]):
        block(doc, d, reader)
    doc.w("Command: `%s`" % d.get("cmd", "?"))
    doc.w()
    for reader in openplan.readers(d["settings"]):
        k = openplan.kind_of(reader)
        for key in ctl_keys(d, reader):
            if mode_of(d)[key]["control"] != "adaptive":
                continue
            {"ol": goals_open, "iolat": goals_open, "qd": goals_qd1,
             "cycle": goals_cycle}[k](doc, d, reader, key)


def headline(res):
    """One line: the adaptive mode against each repetition's oracle, open-loop readers."""
    d = G.load_json(os.path.join(res, "openloop.json"))
    if not d or not isinstance(d.get("runs"), list):
        return None
    bits = []
    for reader in openplan.readers(d["settings"]):
        for key in ctl_keys(d, reader):
            m = mode_of(d)[key]
            if m["control"] != "adaptive":
                continue
            vs = [v for v in verdicts(d, reader, key) if v.get("run")]
            w = B.summary([v.get("w_orc") for v in vs])
            bits.append("%s, target %s: p90 within %d/%d, writer %s the oracle's, dominated "
                        "in %d/%d" % (reader, f_t(m["target_us"]),
                                      sum(1 for v in vs if v["within"]), len(vs),
                                      G.f_ratio(w), sum(1 for v in vs if v["dominators"]),
                                      len(vs)))
    return "**Open-loop readers, iolatd adaptive against caps bisected per repetition** " \
        "(section 8): " + "; ".join(bits) + "." if bits else None
