# SPDX-License-Identifier: MIT
"""gen_control.py - the part of BENCHMARKS.md made from the simulator's
control-quality benchmark (section 3: results/control.json, written by
bench_control.py): the oracle per scenario (the highest static cap whose
reader keeps >= 95 % of windows within target in every seed), each
controller mode against it, the adaptive mode's goals (issue 19; hdd and
bad-ssd keep issue 12's), article mode's own goal on the older scenarios,
the moving knee phase by phase, every mode's figures, and the headline.
Called by gen_benchmarks.py (one thread).
"""
import os

import benchlib as B
import genlib as G

WITHIN_GOAL = 95.0

CTL_MODES = ("iolat", "kernel", "adaptive")


def mode_name(m):
    if m.startswith("cap:"):
        return "static cap %g%%" % (float(m[4:]) * 100)
    return {"none": "none", "iolat": "article", "kernel": "kernel",
            "adaptive": "adaptive"}[m]


def scen_name(sc):
    return sc["id"] if not sc.get("offered_pct") else "ssd, writer ramp %d%%" % sc["offered_pct"]


def med(r, key):
    v = r.get(key) if r else None
    return v["median"] if v else None


def div(a, b):
    return a / b if a is not None and b else None


def f_ratio(v):
    return "-" if v is None else "%.2f×" % v


def oracle_of(sc):
    """The oracle's mode key and its results (None, None if no cap protects)."""
    o = sc.get("oracle", {}).get("mode")
    return o, (sc["modes"][o] if o else None)


def oracle_label(sc):
    o, r = oracle_of(sc)
    if o is None:
        return "no cap protects"
    if o == "none":
        return "no cap needed"
    return "%s (%s MiB/s)" % (mode_name(o)[len("static "):], G.f_num(r["cap_bps"] / 1048576.0))


def section(doc, res, md_dir):
    doc.w("## 3. Control quality on the simulator")
    doc.w()
    d = G.load_json(os.path.join(res, "control.json"))
    if not d or "oracle" not in (d.get("scenarios") or [{}])[0]:
        doc.w("_Not run (no `control.json` with the oracle)._")
        doc.goal("3", "adaptive against the oracle cap (issue #19)", "-", None, "section not run")
        doc.w()
        return
    control_intro(doc, d, res, md_dir)
    control_oracle_table(doc, d)
    control_modes_table(doc, d)
    control_adaptive_goals(doc, d)
    control_moving_knee(doc, d)
    control_article_goals(doc, d)
    doc.w("Scenarios: %s." % "; ".join(
        "**%s**: %s, reader %s, writer %s — %s" % (
            sc["id"], ", ".join(["device=" + sc["device"]] +
                                ["%s=%s" % kv for kv in (sc.get("device_keys") or {}).items()]),
            ", ".join("%s=%s" % kv for kv in sc["reader"].items()),
            ", ".join("%s=%s" % kv for kv in sc["writer"].items()) +
            (", rate_iops=%d" % sc["rate_iops"] if sc.get("rate_iops") else ""), sc["why"])
        for sc in d["scenarios"]))
    doc.w()
    hdd = [sc for sc in d["scenarios"] if sc["device"] == "hdd"]
    if hdd:
        io = hdd[0]["modes"]["iolat"]
        doc.w("On the HDD model the article and kernel modes judge a window by its *mean* latency, "
              "not its p90 (the kernel's rule for rotational devices; the adaptive mode uses the "
              "p90 rule everywhere). Judged by the mean (estimated per window with Little's law, "
              "depth ÷ IOPS, exact for a closed-loop reader), article mode keeps %s of the "
              "windows within target, against %s by p90." %
              (G.f_pct(io["within_mean_pct"]["median"]), G.f_pct(io["within_pct"]["median"])))
        doc.w()
    control_details(doc, d)
    doc.w("Commands (one of each; job files and per-window CSVs are kept in "
          "`bench/results/raw/control/SCENARIO/MODE/seedN/` after a run):")
    doc.w()
    doc.w("```sh")
    for sc in d["scenarios"][:1] + [s for s in d["scenarios"] if s["id"] == "knee-moving"]:
        for m in ("none", "cap:0.5", "iolat", "kernel", "adaptive"):
            if m in sc["modes"]:
                doc.w(sc["modes"][m]["cmd"].replace(B.ROOT + "/", ""))
    doc.w("```")
    doc.w()
    doc.w("(%d simulator runs, %.0f s of wall time in all.)" % (d["sim_runs"], d["sim_wall_s"]))
    doc.w()


def control_intro(doc, d, res, md_dir):
    doc.w("In the style of Meta's resctl-bench protection benchmark. A protected reader "
          "(group `main`, 4 KiB random reads, closed loop, with a latency target) runs beside a "
          "bulk writer (group `system/fbpkg`, sequential writes) on a simulated device, %d "
          "virtual seconds per run, %d seeds per configuration (medians; min–max over seeds in "
          "the detailed tables). The simulator is deterministic: same job file and seed, same "
          "figures, whatever the machine's load. Modes: **none** (no control); **static cap**: "
          "the writer limited with `rate=` (the io.max way, paced one I/O at a time; controller "
          "off) at %s of its uncontrolled throughput (mode none, median over seeds), plus the "
          "oracle's bisection steps; **article** (`--control article`: the kernel's rules, "
          "io.latency as the article describes it); **kernel** (`--control kernel`: "
          "`IOLAT_CTL_KERNEL_COMPAT`); **adaptive** (`--control adaptive`, the knee seeker of "
          "docs/controller-adaptive.md: a paced rate on the writer)." %
          (d["runtime_s"], len(d["seeds"]), ", ".join("%g%%" % (f * 100) for f in d["cap_fracs"])))
    doc.w()
    doc.w("**The oracle** is the static cap a user would keep after sweeping caps by hand: the "
          "highest cap under which the reader keeps ≥ %g%% of its windows within target (p90 "
          "rule) in **every** seed — a cap that fails one seed in %d is not one a user keeps. "
          "It is found in two steps: the sweep above, each cap run on every seed; then %d "
          "bisections between the highest swept cap that passes and the next swept cap up (or "
          "the writer's uncontrolled rate above 98%%), each midpoint run on every seed and kept "
          "if it passes. When the writer uncapped (none) already passes, the oracle is no cap; "
          "when no swept cap passes, there is none. Each mode's writer MiB/s and reader "
          "p90/p99 are compared with the oracle's seed by seed (ratios; medians over seeds)." %
          (d["oracle_within"], len(d["seeds"]), d["refine_steps"]))
    doc.w()
    doc.w("Per run, from the reader's per-window CSV (`iolat sim --log DIR`: one row per "
          "sample, and the sample period is the reader's controller window — 100 ms for the "
          "SSD and knee targets, 480 ms for 30 ms, 400 ms for 25 ms), ignoring the first %g s "
          "(convergence):" % d["conv_s"])
    doc.w()
    doc.w("- **within**: % of windows whose p90 is within the target; a window in which the "
          "reader completed nothing counts as missed;")
    doc.w("- **isolation**: per window, the reader's IOPS ÷ its IOPS alone on the device "
          "(\"solo\"); mean and 10th percentile over windows;")
    doc.w("- **latency impact**: per window, (p90 − solo p90) ÷ solo p90; median and 90th "
          "percentile over windows;")
    doc.w("- **work**: the writer's bytes ÷ its bytes in mode none (same seed); reader p90/p99 "
          "and writer MiB/s are the whole run's (the JSON report).")
    doc.w()
    doc.w("Goals of the adaptive mode (issue #19, and #12 for hdd and bad-ssd): **ssd, knee, "
          "knee-1ms and the 100%%/200%% ramps**: ≥ 95%% of windows within, writer ≥ 0.9× the "
          "oracle's, reader p99 ≤ 2× the oracle's; **knee-moving**: ≥ 95%% within and more work "
          "than every static cap protecting as well (median within ≥ adaptive's); **knee-30us** "
          "(a target below the reader's solo p90, unattainable): the writer's work ≥ 0.97× "
          "article mode's; **ramps 10–50%%** (a writer below the knee): never throttled, work "
          "1.00 in every seed; **hdd**: ≥ 90%% within by the mean rule, work ≥ 5× the best cap "
          "protecting as well by that rule; **bad-ssd**: ≥ 95%% within, work above the best cap "
          "reaching 95%%. Article mode keeps its own goal on the older scenarios: ≥ 95%% within "
          "and work ≥ the best cap protecting as well. The writer ramp offers the writer's I/O "
          "as a Poisson stream (`rate_iops=`, 1 MiB writes, QD ≤ 32) at a share of the ssd "
          "model's write bandwidth, measured here with the writer alone: %s MiB/s." %
          G.f_num(d["ssd_write_bw_mib_s"]["median"]))
    doc.w()
    plots = d.get("plots") or []
    if "control.png" in plots:
        rel = os.path.relpath(os.path.join(res, "control.png"), md_dir)
        doc.w("![protection against work per scenario](%s)" % rel)
        doc.w()
        doc.w("(Also `%s`. Grey: the static caps; red: none; blue: article, drawn over none "
              "where it throttles nothing; orange: adaptive; green: the oracle cap; dashed: "
              "95%%.)" % os.path.relpath(os.path.join(res, "control.svg"), md_dir))
        doc.w()


def control_oracle_table(doc, d):
    doc.w("**The oracle per scenario** (within: median, worst seed):")
    doc.w()
    doc.w("| scenario | target | solo p90 | none: within, reader p90, writer MiB/s | oracle cap "
          "| oracle: within (worst seed) | oracle: writer MiB/s | oracle: reader p90 "
          "| oracle: reader p99 | next cap up: within (worst seed) |")
    doc.w("|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for sc in d["scenarios"]:
        none = sc["modes"]["none"]
        o, r = oracle_of(sc)
        ff = sc["oracle"].get("fail_frac")
        nxt = sc["modes"].get("cap:%g" % ff) if ff is not None else None
        doc.w("| %s | %s | %s | %s, %s, %s | %s | %s | %s | %s | %s | %s |" % (
            scen_name(sc), sc["target"], G.f_us(sc["solo"]["p90_us"]["median"]),
            G.f_pct(med(none, "within_pct")), G.f_us(med(none, "reader_p90_us")),
            G.f_num(med(none, "writer_mib_s")), oracle_label(sc),
            "%s (%s)" % (G.f_pct(med(r, "within_pct")), G.f_pct(r["within_pct"]["min"])) if r else "-",
            G.f_num(med(r, "writer_mib_s")), G.f_us(med(r, "reader_p90_us")),
            G.f_us(med(r, "reader_p99_us")),
            "%s: %s (%s)" % (mode_name(nxt and "cap:%g" % ff)[len("static "):],
                             G.f_pct(med(nxt, "within_pct")), G.f_pct(nxt["within_pct"]["min"]))
            if nxt else ("none: %s" % G.f_pct(med(none, "within_pct")) if ff == 1.0 else "-")))
    doc.w()


def mode_row_cells(sc, m):
    r = sc["modes"][m]
    vs = (sc.get("vs_oracle") or {}).get(m)
    _, o = oracle_of(sc)
    bc = sc.get("as_well", {}).get(m)
    return [G.f_pct(med(r, "within_pct")), G.f_num(med(r, "writer_mib_s")),
            f_ratio(med(vs, "writer_ratio")) if vs else "-",
            "%s (%s)" % (G.f_us(med(r, "reader_p90_us")), G.f_us(med(o, "reader_p90_us"))),
            "%s (%s)" % (G.f_us(med(r, "reader_p99_us")), G.f_us(med(o, "reader_p99_us"))),
            "%s, work %s (mode's %s)" % (mode_name(bc), G.f_x(med(sc["modes"][bc], "work")),
                                         G.f_x(med(r, "work"))) if bc else "none does"]


def control_modes_table(doc, d):
    doc.w("**Each mode against the oracle** (medians over seeds; the ratio is taken seed by "
          "seed; where kernel mode's figures equal article mode's, one row):")
    doc.w()
    doc.w("| scenario | mode | within | writer MiB/s | writer ÷ oracle's | reader p90 (oracle's) "
          "| reader p99 (oracle's) | best cap protecting as well as the mode |")
    doc.w("|---|---|---:|---:|---:|---:|---:|---|")
    for sc in d["scenarios"]:
        art, ker = mode_row_cells(sc, "iolat"), mode_row_cells(sc, "kernel")
        rows = [("article = kernel", art)] if art == ker else [("article", art), ("kernel", ker)]
        rows.append(("adaptive", mode_row_cells(sc, "adaptive")))
        for label, cells in rows:
            doc.w("| %s | %s | %s |" % (scen_name(sc), label, " | ".join(cells)))
    doc.w()


def adaptive_measured(sc):
    """The adaptive goal's measured figures, in words."""
    g = sc["goal_adaptive"]
    k = g["kind"]
    ad = sc["modes"]["adaptive"]
    _, o = oracle_of(sc)
    if k == "oracle":
        return "within %s; writer %s the oracle's (%s MiB/s vs %s); reader p99 %s the oracle's " \
               "(%s vs %s)" % (G.f_pct(g["within"]), f_ratio(g["writer_ratio"]),
                               G.f_num(med(ad, "writer_mib_s")), G.f_num(med(o, "writer_mib_s")),
                               f_ratio(g["p99_ratio"]), G.f_us(med(ad, "reader_p99_us")),
                               G.f_us(med(o, "reader_p99_us")))
    if k == "moving":
        return "within %s, work %s; best cap protecting as well: %s" % (
            G.f_pct(g["within"]), G.f_x(g["work"]),
            "%s, work %s" % (mode_name(g["best_cap_as_well"]), G.f_x(g["best_cap_work"]))
            if g["best_cap_as_well"] else "none")
    if k == "unattainable":
        return "adaptive's work %s, article's %s: %s" % (
            G.f_x(g["work"]), G.f_x(med(sc["modes"]["iolat"], "work")), f_ratio(g["article_ratio"]))
    if k == "below":
        return "work %s (lowest seed %s), within %s" % (
            G.f_x(g["work"]), G.f_x(ad["work"]["min"]), G.f_pct(g["within"]))
    rule = "mean rule" if g["rule"] == "within_mean_pct" else "p90"
    if k == "hdd":
        return "within %s (%s), work %s; best cap protecting as well: %s" % (
            G.f_pct(g["within"]), rule, G.f_x(g["work"]),
            "%s, work %s" % (mode_name(g["best_cap_as_well"]), G.f_x(g["best_cap_work"]))
            if g["best_cap_as_well"] else "none")
    return "within %s (%s), work %s; best cap reaching 95%%: %s" % (
        G.f_pct(g["within"]), rule, G.f_x(g["work"]),
        "%s, work %s" % (mode_name(g["best_cap_95"]), G.f_x(g["best_cap_95_work"]))
        if g.get("best_cap_95") else "none")


def control_adaptive_goals(doc, d):
    doc.w("**The adaptive mode's goals**:")
    doc.w()
    doc.w("| scenario | goal | measured | writer's rate (median, min–max after convergence; "
          "changes a second) | |")
    doc.w("|---|---|---|---|---|")
    for sc in d["scenarios"]:
        g = sc["goal_adaptive"]
        ad = sc["modes"]["adaptive"]
        pace = "not paced"
        if med(ad, "writer_pace_med") is not None:
            pace = "%s MiB/s (%s–%s); %s/s; paced in %s of windows" % (
                G.f_num(med(ad, "writer_pace_med")), G.f_num(med(ad, "writer_pace_min")),
                G.f_num(med(ad, "writer_pace_max")), G.f_num(med(ad, "writer_pace_changes_per_s"), 2),
                G.f_pct(med(ad, "writer_paced_pct")))
        doc.w("| %s | %s | %s | %s | %s |" % (scen_name(sc), g["text"], adaptive_measured(sc),
                                             pace, "met" if g["met"] else "**not met**"))
        doc.goal("3", "adaptive, %s: %s" % (scen_name(sc), g["text"]), adaptive_measured(sc),
                 g["met"], "" if g["met"] else adaptive_why(sc))
    doc.w()


def control_moving_knee(doc, d):
    """The moving knee, phase by phase: what each mode gave the writer."""
    scs = [sc for sc in d["scenarios"] if med(sc["modes"]["none"], "writer_mib_during")]
    for sc in scs:
        keys = sc["device_keys"]
        t1, t2 = keys["vdisk_slow_at_s"], keys["vdisk_slow_at_s"] + keys["vdisk_slow_for_s"]
        doc.w("**%s, phase by phase** (the writer's MiB/s, median of the samples of each "
              "phase, the first second of a phase left out; for adaptive also the rate it set): "
              "before (%g–%g s), while the disk is at %d%% (%g–%g s), after (%g–%d s):" % (
                  sc["id"], d["conv_s"], t1, keys["vdisk_slow_pct"], t1, t2, t2, d["runtime_s"]))
        doc.w()
        doc.w("| mode | within | before | slow | after | work |")
        doc.w("|---|---:|---:|---:|---:|---:|")
        o, _ = oracle_of(sc)
        fail = sc["oracle"].get("fail_frac")
        show = ["none", o, "cap:%g" % fail if fail is not None else None, "iolat", "adaptive"]
        for m in [m for m in show if m and m in sc["modes"]]:
            r = sc["modes"][m]
            cells = []
            for ph in ("before", "during", "after"):
                c = G.f_num(med(r, "writer_mib_" + ph))
                if m == "adaptive" and med(r, "pace_" + ph) is not None:
                    c += " (rate %s)" % G.f_num(med(r, "pace_" + ph))
                cells.append(c)
            label = mode_name(m) + (" (the oracle)" if m == o else "")
            doc.w("| %s | %s | %s | %s |" % (label, G.f_pct(med(r, "within_pct")), " | ".join(cells),
                                             G.f_x(med(r, "work"))))
        doc.w()
        ad, none = sc["modes"]["adaptive"], sc["modes"]["none"]
        share = {ph: div(med(ad, "writer_mib_" + ph), med(none, "writer_mib_" + ph))
                 for ph in ("before", "during", "after")}
        if share["after"] is not None:
            slower = share["before"] is not None and share["after"] < 0.9 * share["before"]
            doc.w("A static cap must fit the slow phase for the whole run; adaptive follows the "
                  "disk down (the writer at %s what the disk takes while slow) and back up%s "
                  "(%s after it recovered, %s before it slowed down): the CSV columns "
                  "`pace_mib_s`, `decision` and `hold_ms` of `system.csv` in the raw folder "
                  "show each step." % (f_ratio(share["during"]), " more slowly" if slower else "",
                                       f_ratio(share["after"]), f_ratio(share["before"])))
            doc.w()


def control_article_goals(doc, d):
    scs = [sc for sc in d["scenarios"] if isinstance(sc.get("goal"), dict)]
    if not scs:
        return
    doc.w("**Article mode's goal** (≥ 95% within, work ≥ the best static cap protecting as "
          "well; the older scenarios):")
    doc.w()
    doc.w("| scenario | within | work | isolation mean (p10) | lat. impact p50 (p90) | best cap "
          "protecting as well: within, work | best cap ≥ 95%: work | |")
    doc.w("|---|---:|---:|---:|---:|---:|---:|---|")
    for sc in scs:
        md = sc["modes"]
        io = md["iolat"]
        g = sc["goal"]
        bc = md.get(g["best_cap_as_well"]) if g["best_cap_as_well"] else None
        b95 = md.get(sc["best_cap_95"]) if sc.get("best_cap_95") else None
        doc.w("| %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s |" % (
            scen_name(sc), G.f_pct(med(io, "within_pct")), G.f_x(med(io, "work")),
            G.f_x(med(io, "iso_mean")), G.f_x(med(io, "iso_p10")),
            G.f_x(med(io, "lat_imp_p50")), G.f_x(med(io, "lat_imp_p90")),
            "%s: %s, %s" % (mode_name(g["best_cap_as_well"]), G.f_pct(med(bc, "within_pct")),
                            G.f_x(med(bc, "work"))) if bc else "none does",
            "%s (%s)" % (G.f_x(med(b95, "work")), mode_name(sc["best_cap_95"])) if b95 else "no cap",
            "met" if g["met"] else "**not met**"))
        doc.goal("3", "article, %s: p90 within %s in ≥ 95%% of windows; work ≥ best cap as "
                 "protective" % (scen_name(sc), sc["target"]),
                 "within %s, work %s%s" % (
                     G.f_pct(med(io, "within_pct")), G.f_x(med(io, "work")),
                     "; %s: within %s, work %s" % (mode_name(g["best_cap_as_well"]),
                                                  G.f_pct(med(bc, "within_pct")),
                                                  G.f_x(med(bc, "work"))) if bc else ""),
                 g["met"], control_why(sc))
    doc.w()


def depth_or_pace(m, r):
    """The writer's throttle in a controlled mode: adaptive's rate, else its depth."""
    if m == "adaptive" and med(r, "writer_pace_med") is not None:
        return "rate %s–%s MiB/s" % (G.f_num(med(r, "writer_pace_min")),
                                     G.f_num(med(r, "writer_pace_max")))
    dmin, dmax = r.get("writer_depth_min"), r.get("writer_depth_max")
    if m in CTL_MODES and dmax and dmax["median"] is not None:
        return "depth %s–%s" % ("%.0f" % dmin["median"] if dmin and dmin["median"] is not None
                                else "max", "max" if dmax["median"] < 0 else "%.0f" % dmax["median"])
    return "-"


def control_details(doc, d):
    doc.w("<details><summary>Every mode of every scenario (median, min–max over seeds)</summary>")
    doc.w()
    for sc in d["scenarios"]:
        name = scen_name(sc) + (" (rate_iops=%d)" % sc["rate_iops"] if sc.get("rate_iops") else "")
        doc.w("**%s** — target %s; solo: %s IOPS, p50 %s, p90 %s; writer uncontrolled %s MiB/s" % (
            name, sc["target"], G.f_big(sc["solo"]["iops"]["median"]),
            G.f_us(sc["solo"]["p50_us"]["median"]), G.f_us(sc["solo"]["p90_us"]["median"]),
            G.f_num(sc["writer_none_bps"] / 1048576.0)))
        doc.w()
        doc.w("| mode | within | isolation mean | isolation p10 | lat. impact p50 | lat. impact p90 "
              "| reader p90 | reader p99 | writer MiB/s | work | writer throttle (min–max) |")
        doc.w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        o, _ = oracle_of(sc)
        refined = set("cap:%g" % f for f in sc["oracle"].get("refined", []))
        order = ["none"] + sorted([m for m in sc["modes"] if m.startswith("cap:")],
                                  key=lambda m: float(m[4:])) + \
            [m for m in CTL_MODES if m in sc["modes"]]
        for m in order:
            r = sc["modes"][m]
            label = mode_name(m) + (" (bisection)" if m in refined else "") + \
                (" **oracle**" if m == o else "")
            doc.w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label, G.rng(r["within_pct"], G.f_pct), G.rng(r["iso_mean"], G.f_x),
                G.rng(r["iso_p10"], G.f_x), G.rng(r["lat_imp_p50"], G.f_x), G.rng(r["lat_imp_p90"], G.f_x),
                G.rng(r["reader_p90_us"], G.f_us), G.rng(r["reader_p99_us"], G.f_us),
                G.rng(r["writer_mib_s"], lambda v: G.f_num(v)), G.rng(r["work"], G.f_x),
                depth_or_pace(m, r)))
        doc.w()
    doc.w("</details>")
    doc.w()


def adaptive_why(sc):
    g = sc["goal_adaptive"]
    k = g["kind"]
    ad = sc["modes"]["adaptive"]
    miss = []
    if k in ("oracle", "moving", "bad-ssd") and g["within"] is not None and g["within"] < 95.0:
        miss.append("%s of windows within, not 95%%" % G.f_pct(g["within"]))
    if k == "oracle":
        if g.get("writer_ratio") is None:
            miss.append("no static cap protects in every seed, so there is no oracle")
        else:
            if g["writer_ratio"] < 0.9:
                miss.append("writer at %s the oracle's" % f_ratio(g["writer_ratio"]))
            if g["p99_ratio"] > 2.0:
                miss.append("reader p99 %s the oracle's" % f_ratio(g["p99_ratio"]))
    elif k == "moving" and g["best_cap_as_well"] and g["work"] <= g["best_cap_work"]:
        miss.append("%s protects as well with work %s" % (mode_name(g["best_cap_as_well"]),
                                                           G.f_x(g["best_cap_work"])))
    elif k == "below":
        miss.append("throttled in some seed: lowest work %s" % G.f_x(ad["work"]["min"]))
    elif k == "unattainable":
        miss.append("adaptive's work is %s article mode's" % f_ratio(g["article_ratio"]))
    elif k == "hdd":
        caps = sorted((float(m[4:]), r) for m, r in sc["modes"].items() if m.startswith("cap:"))
        ok = [f for f, r in caps if med(r, "within_mean_pct") >= 90.0]
        miss.append("%s within by the mean rule (%s by p90) with work %s" % (
            G.f_pct(g["within"]), G.f_pct(med(ad, "within_pct")), G.f_x(g["work"])))
        if ok:
            miss.append("caps up to %g%% keep ≥ 90%% within by that rule" % (100 * max(ok)))
        if med(ad, "futile_first_s") is not None:
            miss.append("the controller declared the target unattainable (futile) %s s into "
                        "the run with the writer at %s MiB/s (%s of its uncontrolled rate): on "
                        "this model a 0.9× back-off lowers the reader's mean by less than the "
                        "15%% futility asks for, the slope is gradual, not a knee" % (
                            G.f_num(med(ad, "futile_first_s"), 1), G.f_num(med(ad, "futile_pace")),
                            G.f_pct(100 * med(ad, "futile_pace") * 1048576.0 /
                                  sc["writer_none_bps"])))
    elif k == "bad-ssd":
        miss.append("the misses are the drive's stalls, one per 256 MiB programmed whatever the "
                    "rate: only fewer bytes (a cap near %s) avoid them, and a feedback controller "
                    "sees nothing until a stall has happened" % (
                        mode_name(g["best_cap_95"])[len("static cap "):]
                        if g.get("best_cap_95") else "50%"))
    return "; ".join(miss)


def control_why(sc):
    g = sc["goal"]
    io = sc["modes"]["iolat"]
    none = sc["modes"]["none"]
    if g["met"]:
        if none["within_pct"]["median"] >= WITHIN_GOAL:
            return ("the writer does not hurt the reader at this load (none: %s within): "
                    "article mode throttles nothing and keeps all the work" %
                    G.f_pct(none["within_pct"]["median"]))
        return ""
    parts = []
    if not g["within_ok"]:
        parts.append("article mode keeps only %s of windows within target (none: %s)" %
                     (G.f_pct(g["iolat_within"]), G.f_pct(none["within_pct"]["median"])))
        dmin, dmax = io.get("writer_depth_min"), io.get("writer_depth_max")
        unl = io.get("writer_unlimited_pct")
        if dmin and dmin["median"] is not None and dmax and dmax["median"] is not None:
            top = "unlimited" if dmax["median"] < 0 else "%.0f" % dmax["median"]
            parts.append("the writer's depth cycles between %.0f and %s%s" % (
                dmin["median"], top,
                " (unlimited in %s of windows)" % G.f_pct(unl["median"])
                if unl and unl["median"] else ""))
    bc = g["best_cap_as_well"]
    if bc:
        better = g["best_cap_within"] > g["iolat_within"] + 0.5
        if not g["work_ok"]:
            parts.append("%s protects %s (%s) with more work (%s vs %s)" % (
                mode_name(bc), "better" if better else "as well", G.f_pct(g["best_cap_within"]),
                G.f_x(g["best_cap_work"]), G.f_x(g["iolat_work"])))
        elif better:
            parts.append("%s protects better (%s) for %s work (%s vs article's %s)" % (
                mode_name(bc), G.f_pct(g["best_cap_within"]),
                "about the same" if abs(g["best_cap_work"] - g["iolat_work"]) < 0.05 else "less",
                G.f_x(g["best_cap_work"]), G.f_x(g["iolat_work"])))
    b95 = sc.get("best_cap_95")
    if b95 and b95 != bc:
        parts.append("%s reaches %s with work %s" % (
            mode_name(b95), G.f_pct(sc["modes"][b95]["within_pct"]["median"]),
            G.f_x(sc["modes"][b95]["work"]["median"])))
    elif not b95:
        parts.append("no static cap reaches 95% either")
    return "; ".join(parts)


def headline(res):
    """Section 3's headline: the adaptive mode against the oracle cap."""
    c = G.load_json(os.path.join(res, "control.json"))
    if not c or "oracle" not in (c.get("scenarios") or [{}])[0]:
        return None
    bits = []
    for sc in c["scenarios"]:
        g = sc["goal_adaptive"]
        if g["kind"] == "oracle" and not sc.get("offered_pct"):
            bits.append("%s %s within, writer %s, p99 %s" % (
                sc["id"], G.f_pct(g["within"]), f_ratio(g["writer_ratio"]), f_ratio(g["p99_ratio"])))
        elif g["kind"] == "moving":
            vs = sc["vs_oracle"]["adaptive"]
            bits.append("moving knee %s within, writer %s the oracle's" % (
                G.f_pct(g["within"]), f_ratio(med(vs, "writer_ratio"))))
    scs = c["scenarios"]
    art = [sc for sc in scs if isinstance(sc.get("goal"), dict)]
    return ("**Control quality** (simulator; the adaptive mode against the oracle — the highest "
            "static cap protecting in every seed — writer and reader p99 as ratios of the "
            "oracle's): " + "; ".join(bits) + ". %d of %d adaptive goals met; article mode %d of "
            "%d." % (sum(1 for sc in scs if sc["goal_adaptive"]["met"]), len(scs),
                     sum(1 for sc in art if sc["goal"]["met"]), len(art)))
