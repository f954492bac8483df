# SPDX-License-Identifier: MIT
"""gen_calibrate.py - BENCHMARKS.md section 10 from bench/results/calibrate.json
(bench_calibrate.py): per repetition, `iolat calibrate`'s knee, target and
wall time beside the oracle sweep's knee (the same definition, the kernel's
throttle, bisected, then fitted through every point as calibrate fits),
the ratio (and the bisections' alone), and issue 29's goals judged repetition by
repetition (held n/N, not a median). python3 standard library only; imported
by gen_benchmarks.py. One thread.
"""
import os

import benchlib as B
import genlib as G

SEC = "10"
GOAL_KNEE = "`iolat calibrate`: knee within ±15 % of the oracle sweep's (same disk, same day), " \
    "every repetition"
GOAL_DELIVERED = "`iolat calibrate`: knee as delivered MB/s (what it prints and puts in the " \
    "simulator profile) within ±15 % of the oracle's delivered MB/s at its knee, every repetition"
GOAL_TIME = "`iolat calibrate` ≤ 90 s"


def f_mb(bps):
    return "-" if bps is None else G.f_num(bps / 1e6)


def f_s(v):
    return "-" if v is None else "%.1f s" % v


def verdicts(d):
    """Per repetition: the ratio (pace over cap), delivered ratio, held, wall time, on time."""
    lim, secs = d.get("goal_ratio", 0.15), d.get("goal_seconds", 90.0)
    out = []
    for r in d["runs"]:
        c, o = r["calibrate"], r["oracle"]
        both = c["no_knee"] and o["no_knee"]  # the writer unpaced leaves the reader solo
        ratio = 1.0 if both else r.get("ratio")
        rd = 1.0 if both else r.get("ratio_delivered")
        out.append({"rep": r["rep"], "ratio": ratio, "ratio_bisect": r.get("ratio_bisect"),
                    "held": ratio is not None and abs(ratio - 1) <= lim + 1e-9,
                    "ratio_delivered": rd,
                    "held_delivered": rd is not None and abs(rd - 1) <= lim + 1e-9,
                    "wall_s": c["wall_s"],
                    "on_time": c["wall_s"] <= secs,
                    "disturbed": bool(c.get("disturbed")) or any(
                        x.get("disturbed") for x in o["runs"])})
    return out


def f_ratio(v):
    return "-" if v is None else "%.2f×" % v


def f_range(lh):
    return "-" if not lh else "%s–%s" % (G.f_num(lh[0]), G.f_num(lh[1]))


PACER_TEXT = {
    "throttle": "its writer capped by the kernel's block throttle on a cgroup it makes, the "
                "oracle's and iolatd's actuator",
    "rate": "its writer paced by the runner's `rate=`, a token bucket in the process",
    "auto": "the throttle where it can, else the runner's `rate=`",
}


PACED_BY = {
    "throttle": "the kernel's throttle",
    "rate": "the runner's `rate=`: a GCRA, time lost in a stall is not made up beyond its burst",
    "auto": "the throttle where it could, else `rate=`",
}


def intro(doc, d):
    st = d.get("settings", {})
    doc.w("Issue 29, item 7: is `iolat calibrate`'s knee the one a slow oracle sweep finds on the "
          "same disk, the same hour? Each repetition runs both on `%s` (%s, cgroup %s), which one "
          "first alternating. **calibrate**: `iolat calibrate DIR/calib --output-format=json -q` "
          "(defaults: 3 s steps) with `--pace=%s` (%s); its wall time includes "
          "laying out its 1.25 GiB of scratch files. **oracle**: calibrate's reader (4 KiB random, "
          "O_DIRECT, QD 1) and writer (1 MiB sequential, O_DIRECT, QD 32), each an `iolat run` job "
          "with the controller off, in two sibling cgroups; the writer started %.0f s before the "
          "reader and capped by the kernel's block throttle (`%s`), %g s measured per run; the "
          "reader alone first (its p90 and reads/s give calibrate's threshold: 3 × the solo p90, "
          "at least + 100 µs), then the writer uncapped (its delivered rate bounds the search), "
          "then %d caps bisected between 0 and that rate; a cap is *within* when the reader's "
          "p90 is at most the threshold and it did at least half its solo reads/s "
          "(calibrate's rule, `src/calib/calibrate.c`); then caps at 0.8, 0.9, 1.0, 1.1 and "
          "1.25 × the bisection's knee and the reader alone again. Both then judge every point "
          "again against the mean of their two solos and fit the knee through all of them by "
          "calibrate's rule (`src/calib/calib_fit.c`): in the range of knees that contradict the "
          "fewest verdicts, where a least-squares line of the points' margins at 0.7–1.4 × the "
          "bisection's knee crosses the bar. The ratio is calibrate's knee pace ÷ the oracle's "
          "knee cap (delivered: the writer's MB/s at each knee, from calibrate's JSON and the "
          "writer cgroup's counters); *bisections alone* compares the highest pace and cap each "
          "bisection found within, the rule of the comparisons before 2026-12-07 (session 8)." % (
              d.get("disk_name", "?"), "rotational" if d.get("rotational") == "1" else
              "non-rotational" if d.get("rotational") == "0" else "?", d.get("cgroup", "?"),
              st.get("calib_pace", "rate"), PACER_TEXT.get(st.get("calib_pace", "rate"), ""),
              st.get("lead_s", 1), "io.max wbps" if d.get("cgroup") == "v2" else
              "blkio.throttle.write_bps_device", st.get("seconds", 5), st.get("steps", 6)))
    doc.w()


def disturbance(doc, d):
    th = d.get("disturbance", {}).get("thrown_away", [])
    n_dist = sum(1 for v in verdicts(d) if v["disturbed"])
    doc.w("Other traffic on the shared disk (bytes not of the benchmark's cgroups): every "
          "measurement waited for a quiet disk first (%s waited in all), a disturbed one "
          "(mean > %g MB/s or any 3 s > %g MB/s) was run again (up to %d times): %s; "
          "repetitions with a measurement kept disturbed: %d." % (
              f_s(d.get("quiet_waited_s")), d.get("disturbance", {}).get("mean_limit_mb_s", 20),
              d.get("disturbance", {}).get("burst_limit_mb_s", 40),
              d.get("settings", {}).get("retries", 0),
              "%s thrown away" % G.pl(len(th), "measurement") if th else "none thrown away",
              n_dist))
    loads = [r.get("load1") for r in d["runs"] if r.get("load1") is not None]
    if loads:
        doc.w()
        doc.w("Load average (1 min) at each repetition's start: %s." % ", ".join(
            "%.1f" % x for x in loads))
    doc.w()


def table(doc, d, vs):
    doc.w("| rep | first | calibrate: knee pace (delivered) | range | target | wall | oracle: solo "
          "p90 → threshold | uncapped | knee cap (delivered) | range | ratio (delivered) | ±15 % "
          "| bisections alone |")
    doc.w("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for r, v in zip(d["runs"], vs):
        c, o = r["calibrate"], r["oracle"]
        doc.w("| %d | %s | %s (%s) MB/s | %s | %s | %s | %s → %s | %s MB/s | %s (%s) MB/s | %s "
              "| %s (%s) | %s | %s |" % (
                  r["rep"], r["order"][0], "none" if c["no_knee"] else f_mb(c["knee_bps"]),
                  G.f_num(c["knee_mb_s"]), f_range(c.get("knee_range_mb_s")),
                  G.f_us(c["target_us"]), f_s(c["wall_s"]),
                  G.f_us(o["solo_p90_us"]), G.f_us(o["threshold_us"]),
                  G.f_num(o["unpaced_mb_s"]), "none" if o["no_knee"] else f_mb(o["knee_bps"]),
                  G.f_num(o["knee_mb_s"]), f_range(o.get("knee_range_mb_s")),
                  f_ratio(v["ratio"]), f_ratio(v["ratio_delivered"]),
                  "✓" if v["held"] else "✗", f_ratio(v["ratio_bisect"])))
    doc.w()
    doc.w("The oracle's points, per repetition (cap in MB/s: reader p90, reads/s, writer "
          "delivered; ✓ within, ✗ not, judged against the mean of both solos; the bisection, "
          "then | the caps around its knee):")
    doc.w()
    for r in d["runs"]:
        o = r["oracle"]

        def pts(phase):
            return "; ".join("%s: %s, %s/s, %s MB/s %s" % (
                f_mb(x["cap_bps"]), G.f_us(x["p90_us"]), G.f_num(x["reads_s"]),
                G.f_num(x["writer_mb_s"]), "✓" if x["within"] else "✗")
                for x in o["runs"] if x["phase"] == phase)
        doc.w("- rep %d (solo %s/s, again %s/s; %s on the line): %s | %s." % (
            r["rep"], G.f_num(o["solo_reads_s"]), G.f_num(o.get("solo_after_reads_s")),
            o.get("fit_points", "-"), pts("bisect") or "no bisection", pts("curve") or "-"))
    doc.w()
    doc.w("calibrate's own points, per repetition (pace in MB/s: reader p90, reads/s, writer "
          "delivered; ✓ within; the bisection | the curve around its knee):")
    doc.w()
    for r in d["runs"]:
        c = r["calibrate"]
        def pts(key):
            return "; ".join("%s: %s, %s/s, %s MB/s %s" % (
                f_mb(p[0]), G.f_us(p[2]), G.f_num(p[3]), G.f_num(p[1]), "✓" if p[4] else "✗")
                for p in c.get(key, []))
        doc.w("- rep %d (solo %s/s, again %s/s, p90 %s → threshold %s; unpaced %s MB/s; %s on "
              "the line): %s | %s." % (
                  r["rep"], G.f_num(c["solo_reads_s"]), G.f_num(c.get("solo_after_reads_s")),
                  G.f_us(c["solo_p90_us"]), G.f_us(c["threshold_us"]),
                  G.f_num(c["unpaced_mb_s"]), c.get("fit_points", "-"),
                  pts("bisect") or "no bisection", pts("curve") or "-"))
    doc.w()


def per_rep(vs, key, held):
    ok = sum(1 for v in vs if v[held])
    return ok, "%s; held %d/%d" % (", ".join("rep %d %s %s" % (
        v["rep"], f_ratio(v[key]), "✓" if v[held] else "✗") for v in vs), ok, len(vs))


def delivery(d):
    """(calibrate's, the oracle's) delivered MB/s ÷ pace or cap at the knee, median (min–max)."""
    def frac(x):
        return x["knee_mb_s"] * 1e6 / x["knee_bps"] if x.get("knee_bps") and x.get("knee_mb_s") \
            else None
    return tuple(G.rng(B.summary([frac(r[k]) for r in d["runs"]]), lambda v: "%.2f×" % v)
                 for k in ("calibrate", "oracle"))


def goals(doc, d, vs):
    n = len(vs)
    ok, text = per_rep(vs, "ratio", "held")
    doc.goal(SEC, GOAL_KNEE, text, ok == n and n > 0, "calibrate's knee pace ÷ the oracle's knee "
             "cap (the quantity both bisect)" + ("" if ok == n else "; a repetition misses when "
                                                "the two searches end more than 15 % apart"))
    ok, text = per_rep(vs, "ratio_delivered", "held_delivered")
    doc.goal(SEC, GOAL_DELIVERED, text, ok == n and n > 0, "" if ok == n else
             "at its knee calibrate's writer (%s) delivered %s of its pace, the oracle's %s of "
             "its cap (the kernel's throttle)" % ((PACED_BY.get(d.get("settings", {}).get(
                 "calib_pace", "rate"), "?"),) + delivery(d)))
    walls = B.summary([v["wall_s"] for v in vs])
    on = sum(1 for v in vs if v["on_time"])
    doc.goal(SEC, GOAL_TIME, "%s, every repetition: %s; held %d/%d" % (
        G.rng(walls, f_s), ", ".join(f_s(v["wall_s"]) for v in vs), on, n), on == n and n > 0,
        "wall time of the command, scratch-file layout included")


def section(doc, res):
    doc.w("## %s. Calibrate against the oracle sweep" % SEC)
    doc.w()
    d = G.load_json(os.path.join(res, "calibrate.json"))
    if not d or not isinstance(d.get("runs"), list) or not d["runs"]:
        why = d["skipped"] if d and "skipped" in d else "no `calibrate.json`"
        doc.w("_Not run: %s._" % why)
        doc.w()
        doc.goal(SEC, GOAL_KNEE, "-", None, "not run: " + why)
        doc.goal(SEC, GOAL_DELIVERED, "-", None, "not run: " + why)
        doc.goal(SEC, GOAL_TIME, "-", None, "not run: " + why)
        return
    vs = verdicts(d)
    intro(doc, d)
    disturbance(doc, d)
    table(doc, d, vs)
    doc.w("Command: `%s`" % d.get("cmd", "?"))
    doc.w()
    goals(doc, d, vs)


def headline(res):
    d = G.load_json(os.path.join(res, "calibrate.json"))
    if not d or not isinstance(d.get("runs"), list) or not d["runs"]:
        return None
    vs = verdicts(d)
    return ("**Calibrate** (section %s, knee ÷ the oracle sweep's, same disk, same hour): pace ÷ "
            "cap %s, within ±15 %% in %d/%d repetitions; delivered MB/s %s, within in %d/%d; "
            "wall time %s." % (
                SEC, ", ".join(f_ratio(v["ratio"]) for v in vs), sum(v["held"] for v in vs),
                len(vs), ", ".join(f_ratio(v["ratio_delivered"]) for v in vs),
                sum(v["held_delivered"] for v in vs), len(vs),
                G.rng(B.summary([v["wall_s"] for v in vs]), f_s)))
