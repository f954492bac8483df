# SPDX-License-Identifier: MIT
"""gen_weights.py - BENCHMARKS.md section 9 from results/weights.json
(bench_weights.py): per case, every repetition in both modes (no control,
iolatd's weights) with each group's MB/s and share against its weight's, the
share error per second (median and worst second), the combined total against
the uncontrolled run of the same repetition, and the reaction to a sibling
that starts and stops; issue 28's real-disk goals, each judged repetition by
repetition with the count held; what was not measured; and the VM comparison
with the kernel's io.cost (gen_vmweights.py). Rules: shares.py. Called by
gen_benchmarks.py (one thread).
"""
import os

import benchlib as B
import gen_vmweights
import genlib as G
import judge as J
import shares as S

SEC = "9"


# ---------------------------------------------------------------- analysis

def judged(d):
    """{case: {rep: {mode: figures}}} of the runs that count (a run still
    disturbed after its retries is left out), each with its run."""
    cases = {c["key"]: c for c in d["cases"]}
    skip = d["settings"].get("skip_s", S.SKIP_S)
    out = {}
    for r in d["runs"]:
        if r.get("disturbed"):
            continue
        j = S.judge_run(cases[r["case"]], r, skip)
        j["run"] = r
        out.setdefault(r["case"], {}).setdefault(r["rep"], {})[r["mode_name"]] = j
    return out


def verdicts(d, case):
    """Per repetition: both modes' figures and iolatd's against no control."""
    js = judged(d).get(case["key"], {})
    out = []
    for rep in range(1, d["reps"] + 1):
        m = js.get(rep, {})
        ctl, none = m.get("iolatd"), m.get("none")
        v = {"rep": rep, "iolatd": ctl, "none": none,
             "vs_none": S.ratio(ctl and ctl["total_bps"], none and none["total_bps"])}
        if ctl is None:
            v["why"] = "left out (other traffic)" if any(
                r["case"] == case["key"] and r["rep"] == rep and r["mode_name"] == "iolatd"
                for r in d["runs"]) else "not run"
        out.append(v)
    return out


# ---------------------------------------------------------------- formatting

def f_err(v):
    return "-" if v is None else "%.1f %%" % (100 * v)


def f_s(v):
    return "-" if v is None else "%.1f s" % v


def weights_of(case):
    return ":".join(str(g["weight"]) for g in case["groups"])


def share_cell(case, j):
    """'26:74 (25:75)': the groups' shares of the combined bytes, and the weights'."""
    sh = (j.get("shares") or {}).get("shares") or {}
    if not sh or any(sh.get(g["cg"]) is None for g in case["groups"]):
        return "-"
    return ":".join("%.0f" % (100 * sh[g["cg"]]) for g in case["groups"])


def budget_cell(case, j):
    """'a 100 / b 300': the median budget iolatd reported per group over the judged
    seconds (none: unlimited; -: not reported)."""
    bits = []
    for g in case["groups"]:
        b = S.budgets(j["run"], g["cg"], *j["window"])
        bits.append("%s %s" % (g["cg"], "-" if b is None else "none" if b < 0 else
                               G.f_mb(b / 1e6)))
    return " / ".join(bits)


def mark(ok):
    return "—" if ok is None else ("✓" if ok else "✗")


def per_rep_text(vs, fig, ok):
    """'rep 1 4.2 % ✓, rep 2 …; held 2/3' from per-repetition verdicts."""
    flags = [ok(v) if v.get("iolatd") else None for v in vs]
    bits = ["rep %d %s %s" % (v["rep"], fig(v) if v.get("iolatd") else v["why"], mark(f))
            for v, f in zip(vs, flags)]
    h, n = J.held(flags)
    return "%s; held %d/%d" % (", ".join(bits), h, n), flags


def met(flags):
    judged_ = [f for f in flags if f is not None]
    return all(judged_) if judged_ else None


# ---------------------------------------------------------------- the section

def intro(doc, d):
    st = d["settings"]
    doc.w("iolatd's weights (issue 28, [docs/weights.md](docs/weights.md)) with unmodified fio on "
          "this machine's disk (%s, cgroup %s, %s). Two sibling cgroups made for the benchmark "
          "under the hierarchy's root, `a` and `b`, each running fio: a writer is 1 MiB "
          "sequential O_DIRECT writes at QD 32 (libaio, each on its own half of one file), the "
          "reader 4 KiB O_DIRECT random reads at QD %d (libaio). Each case runs with **no "
          "control** (the disk's own division) and under **iolatd** started with a generated "
          "iolatd.conf that gives the groups their weights and nothing else (no target, no "
          "model, no calibration run; its run directory on /dev/shm):" % (
              d.get("disk_name", "?"), d.get("cgroup", "?"), {"1": "rotational", "0": "not "
                                                               "rotational"}.get(
                  d.get("rotational"), "rotational: ?"), st.get("reader_qd", 8)))
    doc.w()
    doc.w("```ini")
    doc.w((d.get("conf_example") or "").strip())
    doc.w("```")
    doc.w()
    doc.w("Each group's bytes (read + written) come from its cgroup's counters (%s); the first "
          "%g s after both groups did I/O are not judged, then each second's shares of the "
          "combined throughput are compared with the weights' (the **share error**: the worse "
          "of the two groups' |share ÷ weight's share − 1|). The **sibling** case: `a` writes "
          "alone for %g s after those %g s, then `b` writes for %g s and stops, then `a` alone "
          "%g s more; the **reaction** is the time from `b`'s start (the last sample before its "
          "first bytes) to the end of the first %g s window wholly after it whose share error "
          "is within ±%d %%, and from `b`'s stop (SIGTERM) to the end of the first such window "
          "in which `a` got back %g× what it got alone (windows stepped by %g s, so a "
          "reaction is counted up to a window late); its share error is judged from %g s after "
          "`b` started. %s of %g s measured per run, each repetition every case in "
          "both modes, the cases' order rotated and which mode first alternating; ratios are "
          "taken within a repetition." % (
              d.get("counters", "?"), st["skip_s"], st["alone_s"], st["skip_s"], st["on_s"],
              st["after_s"], S.REACT_WINDOW_S, round(100 * S.SHARE_TOL), S.BACK_FRACTION,
              S.REACT_STEP_S, S.REACT_S, G.pl(d["reps"], "repetition"), st["seconds"]))
    doc.w()


def disturbance(doc, d):
    dist = d.get("disturbance") or {}
    thrown = dist.get("thrown_away") or []
    left = sum(1 for r in d["runs"] if r.get("disturbed"))
    if not dist.get("checked"):
        doc.w("_Other traffic on the disk was not checked: %s._" % dist.get("why_not"))
    else:
        doc.w("A run with other traffic on the disk (bytes not of the benchmark's cgroups) above "
              "%s MB/s mean or %s MB/s in any 3 s is run again: %d such runs thrown away, %d "
              "still disturbed after %s retries left out of the tables and goals." % (
                  G.f_num(dist.get("mean_limit_mb_s")), G.f_num(dist.get("burst_limit_mb_s")),
                  len(thrown), left, dist.get("retries", "?")))
    doc.w()


def table(doc, case, vs):
    gs = case["groups"]
    sib, alone = case["kind"] == "sibling", case["kind"] == "alone"
    head = ["rep", "mode"] + ["`%s` (%s, %d) MB/s" % (g["cg"], g["load"], g["weight"])
                              for g in gs if not (alone and g["load"] == "idle")]
    if not alone:
        head += ["shares (weights' %s)" % ":".join(
            "%.0f" % (100 * w) for w in (S.want({g["cg"]: g["weight"] for g in gs})[g["cg"]]
                                         for g in gs)),
                 "share error, median second", "worst second", "seconds within ±%d %%" %
                 round(100 * S.SHARE_TOL)]
    head += ["total MB/s", "÷ no control", "iolatd's budgets MB/s"]
    if sib:
        head += ["`a` alone MB/s", "reaction: start", "stop"]
    doc.w("| " + " | ".join(head) + " |")
    doc.w("|" + "|".join(["---", "---"] + ["---:"] * (len(head) - 2)) + "|")
    for v in vs:
        for mode in ("none", "iolatd"):
            j = v.get(mode)
            if j is None:
                doc.w("| %d | %s | %s |" % (v["rep"], mode, " | ".join(
                    ["-"] * (len(head) - 2))))
                continue
            sh = j.get("shares") or {}
            rates = sh.get("rates_bps") or {gs[0]["cg"]: j["total_bps"]}
            row = [str(v["rep"]), "no control" if mode == "none" else "iolatd"]
            row += [G.f_mb((rates.get(g["cg"]) or 0) / 1e6) for g in gs
                    if not (alone and g["load"] == "idle")]
            if not alone:
                row += [share_cell(case, j), f_err(sh.get("median")), f_err(sh.get("worst")),
                        "%d/%d" % (sh.get("within", 0), sh.get("n", 0))]
            row += [G.f_mb(j["total_bps"] / 1e6),
                    "%.2f×" % v["vs_none"] if mode == "iolatd" and v["vs_none"] else "",
                    budget_cell(case, j) if mode == "iolatd" else ""]
            if sib:
                row += [G.f_mb(j["alone_bps"] / 1e6), f_s(j["react_start_s"]),
                        f_s(j["react_stop_s"])]
            doc.w("| " + " | ".join(row) + " |")
    doc.w()


def goals(doc, case, vs):
    title = case["title"]   # it says the weights
    if case["kind"] == "pair":
        text, flags = per_rep_text(
            vs, lambda v: "median %s, worst %s" % (f_err(v["iolatd"]["shares"]["median"]),
                                                   f_err(v["iolatd"]["shares"]["worst"])),
            lambda v: v["iolatd"]["shares"]["worst"] is not None and
            v["iolatd"]["shares"]["worst"] <= S.SHARE_TOL + 1e-12)
        doc.goal(SEC, "Weights, %s: each one's share within ±%d %% of its weight's, every "
                 "second after the first %g s" % (title, round(100 * S.SHARE_TOL), S.SKIP_S),
                 text, met(flags), "" if met(flags) is not False else why_shares(case, vs))
        text, flags = per_rep_text(vs, lambda v: "%.2f×" % v["vs_none"] if v["vs_none"] else "-",
                                   lambda v: v["vs_none"] is not None and
                                   v["vs_none"] >= S.TOTAL_GOAL)
        doc.goal(SEC, "Weights, %s: both together ≥ %g× the uncontrolled total" % (
            title, S.TOTAL_GOAL), text, met(flags), "")
    elif case["kind"] == "alone":
        text, flags = per_rep_text(vs, lambda v: "%.2f×" % v["vs_none"] if v["vs_none"] else "-",
                                   lambda v: v["vs_none"] is not None and
                                   v["vs_none"] >= S.ALONE_GOAL)
        doc.goal(SEC, "Weights, work conservation: %s gets ≥ %g× what it gets with no control"
                 % (case["title"], S.ALONE_GOAL), text, met(flags), "")
    else:
        for ev, key in (("starts", "react_start_s"), ("stops", "react_stop_s")):
            text, flags = per_rep_text(
                vs, lambda v: f_s(v["iolatd"][key]),
                lambda v: v["iolatd"][key] is not None and v["iolatd"][key] <= S.REACT_S + 1e-9)
            doc.goal(SEC, "Weights, reaction: a sibling weighted 300 that %s is reflected in "
                     "the shares within %g s" % (ev, S.REACT_S), text, met(flags),
                     "" if met(flags) is not False else
                     "no window within %g s; a dash: none before the phase ended" % S.REACT_S)


def why_shares(case, vs):
    """A note for a missed share goal: the median second, and the uncontrolled division."""
    n = [v["none"]["shares"]["median"] for v in vs if v.get("none") and v["none"].get("shares")]
    bits = []
    if any(g["load"] == "reader" for g in case["groups"]):
        bits.append("shares are of bytes: what a 4 KiB reader at its queue depth cannot use of "
                    "its share goes to the writer (donation; see the budgets)")
    if n:
        bits.append("no control: median second %s off the weights" % f_err(B.median(n)))
    return "; ".join(bits)


def not_measured(doc, d=None):
    here = ""
    if d:
        here = " (this run: cgroup %s, the disk's scheduler %s)" % (
            d.get("cgroup", "?"), d.get("scheduler") or "?")
    doc.w("**Not measured here.** The side-by-side comparison with the kernel's io.weight "
          "under io.cost (issue 28's VM goal) needs cgroup v2 with io and io.cost on the disk, "
          "which this machine does not give%s: it is measured in the stock-kernel VM, below. "
          "The simulator's stacked scenarios (shares within ±5 %%) are judged by "
          "`tests/sim/test_scen_weights.c` and its goldens, not here." % here)
    doc.w()


def section(doc, res):
    doc.w("## %s. Weights: proportional shares on the real disk" % SEC)
    doc.w()
    d = G.load_json(os.path.join(res, "weights.json"))
    if not d or not isinstance(d.get("runs"), list):
        why = d["skipped"] if d and "skipped" in d else "no `weights.json`"
        doc.w("_Not run: %s._" % why)
        doc.w()
        doc.goal(SEC, "iolatd's weights on the real disk (issue 28)", "-", None, "not run: " + why)
        not_measured(doc)
        gen_vmweights.section(doc, res)
        gen_vmweights.goals(doc, res)
        return
    intro(doc, d)
    disturbance(doc, d)
    for case in d["cases"]:
        doc.w("**%s** (`%s`)." % (case["title"][0].upper() + case["title"][1:], case["key"]))
        doc.w()
        table(doc, case, verdicts(d, case))
    doc.w("Command: `%s`" % d.get("cmd", "?"))
    doc.w()
    not_measured(doc, d)
    for case in d["cases"]:
        goals(doc, case, verdicts(d, case))
    doc.goal(SEC, "Weights, tuning: none (no model, no calibration run, no per-device table)",
             "iolatd.conf: `device=` and `weight=` only", True, "")
    gen_vmweights.section(doc, res)
    gen_vmweights.goals(doc, res)


def headline(res):
    """One line: iolatd's share error per case, work conservation, reaction."""
    d = G.load_json(os.path.join(res, "weights.json"))
    if not d or not isinstance(d.get("runs"), list):
        return None
    bits = []
    for case in d["cases"]:
        vs = [v for v in verdicts(d, case) if v.get("iolatd")]
        if not vs:
            continue
        if case["kind"] == "pair":
            bits.append("%s share error median second %s, worst %s" % (
                weights_of(case) + (" reader:writer" if case["key"].startswith("rw") else ""),
                f_err(B.median([v["iolatd"]["shares"]["median"] for v in vs])),
                f_err(max((v["iolatd"]["shares"]["worst"] for v in vs
                           if v["iolatd"]["shares"]["worst"] is not None), default=None))))
        elif case["kind"] == "alone":
            bits.append("one group alone %s uncontrolled" % G.f_ratio(
                B.summary([v["vs_none"] for v in vs])))
        else:
            bits.append("reaction to a sibling starting %s, stopping %s" % (
                G.rng(B.summary([v["iolatd"]["react_start_s"] for v in vs]), f_s),
                G.rng(B.summary([v["iolatd"]["react_stop_s"] for v in vs]), f_s)))
    return "**Weights** (section %s, iolatd, unmodified fio): " % SEC + "; ".join(bits) + "." \
        if bits else None


def vm_headline(res):
    """The VM comparison's line (gen_vmweights.py), for gen_benchmarks.py."""
    return gen_vmweights.headline(res)
