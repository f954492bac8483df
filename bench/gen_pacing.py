# SPDX-License-Identifier: MIT
"""gen_pacing.py - the pacing comparison's part of BENCHMARKS.md section 4
(runs made by bench_disk.py with pacing.py, in results/disk.json): at each
rate R, `iolat run`'s `rate=R` against the kernel's block throttle at R, side
by side; the ratio of the reader's p90 taken within each repetition; issue
19's goal judged from it. Called by gen_oracle.py (one thread).
"""
import benchlib as B
import genlib as G
import judge as J

GOAL_P90 = 1.5     # `rate=`'s reader p90 ÷ the kernel throttle's, same rate, same repetition
SAME_RATE = 0.9    # `rate=`'s writer ÷ the throttle's writer, at least (else not the same rate)
BOUND = 0.9        # the throttle's writer ÷ R below this: the disk held the writer, not R


# ---------------------------------------------------------------- analysis

def pairs(d):
    """[(the `rate=` cap mode, the kernel-throttle mode)] by rate."""
    modes = {m["key"]: m for m in d["modes"]}
    ks = sorted((m for m in d["modes"] if m["kind"] == "kthrottle"), key=lambda m: m["cap_bps"])
    return [(modes[k["twin"]], k) for k in ks if k["twin"] in modes]


def delivered(runs, m):
    """Summary of the writer's bytes/s ÷ the mode's rate, run by run."""
    return B.summary([r["writer_mb_s"] * 1e6 / m["cap_bps"] for r in runs.get(m["key"], {}).values()
                      if r.get("writer_mb_s") is not None])


def field(runs, m, name):
    return B.summary([r.get(name) for r in runs.get(m["key"], {}).values()])


def analyse(d, runs, summ):
    """One entry per rate: both limiters' figures and the ratios, rep by rep."""
    out = []
    for cap, k in pairs(d):
        out.append({"rate_bps": k["cap_bps"], "fraction": k.get("fraction"), "cap": cap,
                    "kernel": k, "s_rate": summ[cap["key"]], "s_kernel": summ[k["key"]],
                    "p90_ratio": J.ratios(runs, cap["key"], k["key"], "p90_us"),
                    "p99_ratio": J.ratios(runs, cap["key"], k["key"], "p99_us"),
                    "same_rate": J.ratios(runs, cap["key"], k["key"], "writer_mb_s"),
                    "got_rate": delivered(runs, cap), "got_kernel": delivered(runs, k),
                    "aqu_rate": field(runs, cap, "aqu_sz"), "aqu_kernel": field(runs, k, "aqu_sz")})
    return out


def verdict(p):
    """(met: True/False/None, note) of one rate's goal."""
    ratio, same = p["p90_ratio"]["median"], p["same_rate"]["median"]
    if ratio is None:
        return None, "no repetition with both runs counted"
    notes = []
    ok = ratio <= GOAL_P90 and same is not None and same >= SAME_RATE
    if ratio > GOAL_P90:
        notes.append("p90 ratio per run: " + G.per_rep(p["p90_ratio"], x))
    if same is not None and same < SAME_RATE:
        notes.append("`rate=` delivered %s of the throttle's writer (per run %s): not the same "
                     "rate" % (x(same), G.per_rep(p["same_rate"], x)))
    got = p["got_kernel"]["median"]
    if got is not None and got < BOUND:
        notes.append("the throttle delivered %s of R: the disk, not R, held the writer" % x(got))
    return ok, "; ".join(notes)


def x(v):
    return "%.2f×" % v


# ---------------------------------------------------------------- the part

def rate_label(p):
    frac = " (%.2g× uncontrolled)" % p["fraction"] if p.get("fraction") else ""
    return "%s MB/s%s" % (G.f_mb(p["rate_bps"] / 1e6), frac)


def intro(doc, pc):
    rates = ("%s× the writer's uncontrolled rate in the first repetition, %s MB/s" %
             (", ".join("%g" % f for f in pc["fractions"]), G.f_mb(pc["uncontrolled_ref_mb_s"]))
             if pc.get("fractions") else "the rates given (`--pace-rates`)")
    doc.w("**Pacing: `rate=` against the kernel's throttle** (issue 19, item 2). The same job "
          "file with the controller off, at each rate R (R = %s): `rate=R` on the writer's job "
          "(`iolat run` paces the writer itself: one 1 MiB I/O every B/R, a burst allowance of "
          "one I/O's cost, the job's iodepth a ceiling and not a burst), and no `rate=` but the "
          "kernel's block throttle holding `iolat run`'s cgroup to R for writes (%s; the reader "
          "only reads, so it is not limited). The kernel's throttle lets one bio through every "
          "B/R, so a read reaching the disk finds about one write ahead of it; a user-space "
          "limiter that lets the writer refill its slots in bunches puts several MiB in front "
          "of the read (before the change, `rate=` cost the reader 5–8× the throttle's p90 at "
          "the same rate). The `rate=` run is the sweep's cap at that rate; the two run back "
          "to back in each repetition, which one first alternating. Both measure the reader "
          "with iolat's end-to-end latency. *Writer ÷ R*: what each delivered against its rate. "
          "*Disk queue*: the disk's mean number of I/Os in flight over the reader's measured "
          "time (iostat's aqu-sz, from /proc/diskstats; every I/O on the disk). Ratios are "
          "taken within each repetition, then the median (min–max). Goal: `rate=`'s reader "
          "p90 ≤ %g× the throttle's at the same rate, same run (the same rate: `rate=`'s "
          "writer ≥ %g× the throttle's)." % (rates, pc.get("kernel_how"), GOAL_P90, SAME_RATE))
    doc.w()


def table(doc, ps):
    doc.w("| rate R | limiter | reader p50 | reader p90 | reader p99 | writer MB/s | writer ÷ R "
          "| disk queue | reader p90 ÷ throttle's | reader p99 ÷ throttle's |")
    doc.w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in ps:
        for who, s, got, aqu, first in (("`rate=`", p["s_rate"], p["got_rate"], p["aqu_rate"], 1),
                                        ("kernel throttle", p["s_kernel"], p["got_kernel"],
                                         p["aqu_kernel"], 0)):
            doc.w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                rate_label(p) if first else "", who, G.rng(s["p50_us"], G.f_us),
                G.rng(s["p90_us"], G.f_us), G.rng(s["p99_us"], G.f_us),
                G.rng(s["writer_mb_s"], G.f_mb), G.f_ratio(got),
                G.rng(aqu, lambda v: "%.1f" % v), G.f_ratio(p["p90_ratio"]) if first else "",
                G.f_ratio(p["p99_ratio"]) if first else ""))
    doc.w()


def goal_name(p):
    return "`rate=` at %s: reader p90 ≤ %g× the kernel throttle's at the same rate, same run" % (
        rate_label(p), GOAL_P90)


def text(doc, sec, d, runs, summ):
    """The comparison's prose and table (section 4 only; nothing in an older JSON)."""
    pc = d.get("pacing")
    if not pc:
        return
    intro(doc, pc)
    if pc.get("kernel_skipped"):
        doc.w("_The kernel throttle's runs were not made: %s._" % pc["kernel_skipped"])
        doc.w()
        return
    table(doc, analyse(d, runs, summ))


def goals(doc, sec, d, runs, summ):
    """The goal, one row per rate (one row saying why when not measured)."""
    name = "`rate=` within %g× the kernel throttle's reader p90 at the same rate" % GOAL_P90
    pc = d.get("pacing")
    why = ("no pacing runs in disk.json (run section %s again)" % sec["no"] if not pc else
           "the kernel throttle's runs were not made: " + pc["kernel_skipped"]
           if pc.get("kernel_skipped") else None)
    ps = [] if why else analyse(d, runs, summ)
    if not why and not ps:
        why = "no rate with both runs in disk.json"
    if why:
        doc.goal(sec["no"], name, "-", None, why)
    for p in ps:
        ok, note = verdict(p)
        sr, sk = p["s_rate"]["p90_us"]["median"], p["s_kernel"]["p90_us"]["median"]
        doc.goal(sec["no"], goal_name(p), "%s (p90 %s vs %s); writer ÷ R: `rate=` %s, throttle %s"
                 % (G.f_ratio(p["p90_ratio"]), G.f_us(sr), G.f_us(sk), G.f_ratio(p["got_rate"]),
                    G.f_ratio(p["got_kernel"])), ok, note)


def headline(d, runs, summ):
    """A clause for section 4's headline (None without the comparison)."""
    if not (d.get("pacing") and not d["pacing"].get("kernel_skipped")):
        return None
    ps = analyse(d, runs, summ)
    if not ps:
        return None
    return "pacing, `rate=`'s reader p90 ÷ the kernel throttle's at the same rate: " + ", ".join(
        "%s at %s MB/s" % (x(p["p90_ratio"]["median"]) if p["p90_ratio"]["median"] is not None
                           else "-", G.f_mb(p["rate_bps"] / 1e6)) for p in ps)
