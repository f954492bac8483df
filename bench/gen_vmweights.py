# SPDX-License-Identifier: MIT
"""gen_vmweights.py - BENCHMARKS.md section 9's VM part from
results/vm_weights.json (bench/vm_weights.sh, bench/vm_weights.py): the same
unmodified fio writers in the stock-kernel guest with no control, under the
kernel's io.weight with io.cost enabled, and under iolatd's weights, in one
boot. Per case and mode: each group's share, the share error per second
(shares.py's rule; median and worst over every judged second of every
repetition), the total and work conservation (÷ no control in the same
repetition); and issue 28's VM goal, iolatd no worse than io.cost, judged
here. Called by gen_weights.py (one thread).
"""
import os

import benchlib as B
import genlib as G
import shares as S

SEC = "9"
MODES = ("none", "iocost", "iolatd")
SHORT = 0.92   # docs/weights.md's WEIGHT_SHORT_PM: delivered under this x the budgets is "short"
MET = 0.98     # WEIGHT_MET_PM: at least this x the budgets is "met"; between the two, "held"
MODE_NAME = {"none": "no control", "iocost": "io.cost (io.weight)", "iolatd": "iolatd (weight=)"}


# ---------------------------------------------------------------- analysis

def judged(d):
    """{case: {mode: {rep: shares.judge_run figures}}} of the runs that finished."""
    cases = {c["key"]: c for c in d["cases"]}
    skip = d["settings"].get("skip_s") or S.SKIP_S
    out = {}
    for r in d["runs"]:
        if not r.get("ok") or r["case"] not in cases:
            continue
        out.setdefault(r["case"], {}).setdefault(r["mode_name"], {})[r["rep"]] = \
            S.judge_run(cases[r["case"]], r, skip)
    return out


def figures(d):
    """{(case, mode): {reps, errors, median, worst, within, n, share_a (summary),
    total (summary, bytes/s), ratio (summary: ÷ no control, same repetition),
    cpu_busy, cpu_iolatd (summaries: the guest's CPU busy, iolatd's share of it,
    over the judged seconds), budgets (iolatd: a summary over the repetitions of
    budget_sum)}}: the errors pooled over every judged second of every
    repetition."""
    js = judged(d)
    cpu, bud = {}, {}
    for r in d["runs"]:
        if r.get("ok") and r.get("cpu"):
            cpu.setdefault((r["case"], r["mode_name"]), []).append(r["cpu"])
        if r.get("ok") and r["mode_name"] == "iolatd" and r.get("t_busy") is not None:
            bud.setdefault(r["case"], []).append(budget_sum(r, r["t_busy"] + (
                d["settings"].get("skip_s") or S.SKIP_S), r["t_end"]))
    out = {}
    for c in d["cases"]:
        per = js.get(c["key"], {})
        none = per.get("none", {})
        for m in MODES:
            reps = per.get(m, {})
            errs, totals, ratios, share_a = [], [], [], []
            for rep, j in sorted(reps.items()):
                sh = j.get("shares") or {}
                errs += sh.get("errors") or []
                totals.append(j["total_bps"])
                if m != "none":
                    n = none.get(rep)
                    ratios.append(S.ratio(j["total_bps"], n and n["total_bps"]))
                if (sh.get("shares") or {}).get("a") is not None:
                    share_a.append(sh["shares"]["a"])
            out[(c["key"], m)] = {
                "reps": len(reps), "errors": errs, "median": B.median(errs),
                "worst": max(errs) if errs else None, "n": len(errs),
                "within": sum(1 for e in errs if e <= S.SHARE_TOL + 1e-12),
                "share_a": B.summary(share_a), "total": B.summary(totals),
                "ratio": B.summary(ratios),
                "cpu_busy": B.summary([c.get("busy") for c in cpu.get((c["key"], m), [])]),
                "cpu_iolatd": B.summary([c.get("iolatd") for c in cpu.get((c["key"], m), [])]),
                "budgets": B.summary(bud.get(c["key"], [])) if m == "iolatd" else None}
    return out


def worse(fig, cases, what):
    """Where iolatd is worse than io.cost: ['100:300 worst second', ...]."""
    out = []
    for c in cases:
        io, ic = fig.get((c["key"], "iolatd")), fig.get((c["key"], "iocost"))
        if not io or not ic:
            continue
        name = ":".join(str(g["weight"]) for g in c["groups"]) if c["kind"] == "pair" \
            else "alone"
        if what == "share" and c["kind"] == "pair" and io["median"] is not None and \
                ic["median"] is not None:
            out += ["%s %s" % (name, k) for k, a, b in (
                ("median second", io["median"], ic["median"]),
                ("worst second", io["worst"], ic["worst"])) if a > b]
        elif what == "cons" and io["ratio"]["median"] is not None and \
                ic["ratio"]["median"] is not None and io["ratio"]["median"] < ic["ratio"]["median"]:
            out.append(name)
    return out


def budget_sum(run, t0, t1):
    """The median, over iolatd's samples in [t0, t1], of the sum of the budgets
    it had written (bytes/s; -1 while a group present was unbudgeted; None:
    none reported)."""
    v = []
    for t, b in run.get("budgets") or []:
        if t0 <= t <= t1 and b:
            vals = [x[0] for x in b.values() if x and x[0] is not None]
            if vals:
                v.append(-1 if any(x < 0 for x in vals) and all(x < 0 for x in vals)
                         else sum(x for x in vals if x >= 0))
    return B.median(v)


def no_worse(fig, cases):
    """iolatd against io.cost: (share_ok, conservation_ok), each True/False/None
    (None: a side not measured). Share: iolatd's median and worst second at most
    io.cost's, every pair case; conservation: iolatd's median ratio to no
    control at least io.cost's, every case."""
    share, cons = [], []
    for c in cases:
        io, ic = fig.get((c["key"], "iolatd")), fig.get((c["key"], "iocost"))
        if not io or not ic:
            continue
        if c["kind"] == "pair":
            if None in (io["median"], ic["median"]):
                share.append(None)
            else:
                share.append(io["median"] <= ic["median"] and io["worst"] <= ic["worst"])
        a, b = io["ratio"]["median"], ic["ratio"]["median"]
        cons.append(None if a is None or b is None else a >= b)

    def all_of(xs):
        return None if not xs or None in xs else all(xs)
    return all_of(share), all_of(cons)


# ---------------------------------------------------------------- formatting

def f_err(v):
    return "-" if v is None else "%.1f %%" % (100 * v)


def f_pct(v):
    return "%.0f %%" % (100 * v)


def f_share(s):
    return G.rng(s, lambda v: "%.0f:%.0f" % (100 * v, 100 * (1 - v)))


def model_wbps(d):
    """io.cost's model's wbps (bytes/s) as the guest showed it (None: not shown)."""
    for line in d.get("iocost_model") or []:
        v = B.parse_kv(line).get("wbps")
        if isinstance(v, int):
            return v
    return None


def load(res):
    d = G.load_json(os.path.join(res, "vm_weights.json"))
    return d if d and isinstance(d.get("runs"), list) and d.get("cases") else None


def intro(doc, d):
    st, info = d["settings"], d.get("info") or {}
    doc.w("### In the stock-kernel VM, against the kernel's io.cost")
    doc.w()
    doc.w("Issue 28's anchor, side by side in one guest and one boot: `bench/vm_weights.sh` boots "
          "tests/vm's guest (Debian's %s kernel under QEMU, %s, cgroup v2 root) with the "
          "scenario `tests/vm/guest/weights.sh`. The disk is the guest's virtio disk `vda` "
          "(%s, rotational=%s, scheduler %s, nr_requests %s) behind QEMU's throttle of 200 MiB/s, "
          "so the device, not the host's disk, is the shared limit. Two sibling cgroups under "
          "the root, `a` and `b`, each run the host's unmodified %s: 1 MiB sequential O_DIRECT "
          "writes at QD 32 (libaio), `a` on the disk's first 384 MiB, `b` on the next. Modes: "
          "**no control**; **io.cost**: `MAJ:MIN enable=1` written to the root's `io.cost.qos` "
          "(nothing else: its default model and QoS) and each group's weight in its "
          "`io.weight`; **iolatd**: io.cost disabled again, iolatd started with `weight=` per "
          "group and nothing else. %s, each running every case in every mode, the cases' "
          "order rotated and the modes' rotated per case; the first %g s after both groups did "
          "I/O are not judged, then %g s are (shares.py's rules, as above: per second, the "
          "worse group's |share ÷ weight's share − 1|). Wall time %s." % (
              info.get("kernel", "?"), {"tcg": "TCG, no KVM", "kvm": "KVM"}.get(
                  d.get("accel"), "accelerator ?"), info.get("dev", "?"),
              info.get("rotational", "?"), info.get("scheduler", "?"),
              info.get("nr_requests", "?"), info.get("fio", "fio"),
              G.pl(d.get("reps") or 0, "repetition"), st.get("skip_s") or S.SKIP_S,
              st.get("seconds") or 0, "%s s" % G.f_num(d["wall_s"]) if d.get("wall_s") else "?"))
    doc.w()
    doc.w("io.cost as the guest's kernel showed it once enabled (`io.cost.model`, `io.cost.qos`):")
    doc.w()
    doc.w("```")
    for line in (d.get("iocost_model") or ["(none)"]) + (d.get("iocost_qos") or []):
        doc.w(line)
    doc.w("```")
    doc.w()


def table(doc, d, fig):
    head = ["case", "mode", "reps", "shares a:b, median rep (min–max)",
            "share error, median second", "worst second", "seconds within ±%d %%" %
            round(100 * S.SHARE_TOL), "total MB/s", "÷ no control (same rep)",
            "iolatd's budgets, sum MB/s", "guest CPU busy", "iolatd's CPU"]
    doc.w("| " + " | ".join(head) + " |")
    doc.w("|---|---|" + "---:|" * (len(head) - 2))
    for c in d["cases"]:
        pair = c["kind"] == "pair"
        for m in MODES:
            f = fig[(c["key"], m)]
            row = [c["title"] if m == "none" else "", MODE_NAME[m], str(f["reps"]),
                   f_share(f["share_a"]) if pair else "-",
                   f_err(f["median"]) if pair else "-", f_err(f["worst"]) if pair else "-",
                   "%d/%d" % (f["within"], f["n"]) if pair else "-",
                   G.rng(f["total"], lambda v: G.f_mb(v / 1e6)),
                   G.f_ratio(f["ratio"]) if m != "none" else "",
                   G.rng(f["budgets"], lambda v: "none" if v < 0 else G.f_mb(v / 1e6))
                   if m == "iolatd" else "",
                   G.rng(f["cpu_busy"], f_pct), G.rng(f["cpu_iolatd"], f_pct)
                   if m == "iolatd" else ""]
            doc.w("| " + " | ".join(row) + " |")
    doc.w()


def failures(doc, d):
    bad = [r for r in d["runs"] if not r.get("ok")]
    stuck = [r for r in d["runs"] if any(n.startswith("stuck ") and "pid=" in n
                                         for n in r.get("notes") or [])]
    bits = []
    if bad:
        bits.append("%s left out (%s)" % (G.pl(len(bad), "run"), ", ".join(
            "rep %s %s %s: %s" % (r["rep"], r["case"], r["mode_name"], r.get("why", "?"))
            for r in bad)))
    if stuck:
        bits.append("after the measured seconds, a writer that did not exit within 10 s of "
                    "SIGTERM (waiting in io_getevents for its last I/Os) was killed and waited "
                    "for, so its last I/Os count in no run: %s" % ", ".join(
                        "rep %s %s %s" % (r["rep"], r["case"], r["mode_name"]) for r in stuck))
    if not d.get("complete"):
        bits.append("**the guest did not finish every run**")
    if bits:
        doc.w("Runs: " + "; ".join(bits) + ".")
        doc.w()


def verdict_text(d, fig):
    out = []
    for c in d["cases"]:
        io, ic = fig[(c["key"], "iolatd")], fig[(c["key"], "iocost")]
        if c["kind"] == "pair":
            out.append("%s: share error iolatd %s (worst %s), io.cost %s (worst %s); together "
                       "iolatd %s, io.cost %s" % (
                           ":".join(str(g["weight"]) for g in c["groups"]), f_err(io["median"]),
                           f_err(io["worst"]), f_err(ic["median"]), f_err(ic["worst"]),
                           G.f_ratio(io["ratio"]), G.f_ratio(ic["ratio"])))
        else:
            out.append("alone: iolatd %s, io.cost %s" % (G.f_ratio(io["ratio"]),
                                                        G.f_ratio(ic["ratio"])))
    return out


def held_ratios(d, case):
    """iolatd's runs of case: each group's bytes in each judged second over
    the budget in force (the one sampled in the second's first half; budgeted
    groups only), pooled over the repetitions."""
    skip = d["settings"].get("skip_s") or S.SKIP_S
    out = []
    for r in d["runs"]:
        if not r.get("ok") or r["case"] != case or r["mode_name"] != "iolatd":
            continue
        for t, v in S.periods(r["samples"], ["a", "b"], r["t_busy"] + skip, r["t_end"]):
            b = [x[1] for x in r.get("budgets") or [] if t - 1 < x[0] <= t - 0.5]
            for k in ("a", "b"):
                lim = b[-1].get(k, [None])[0] if b else None
                if lim and lim > 0:
                    out.append(v[k] / lim)
    return out


def end_states(d):
    """(io.cost's cost.vrate per io.cost run, iolatd's capacity_bps per iolatd
    run), each a summary, from what the guest printed at each run's end."""
    vr, cap = [], []
    for r in d["runs"]:
        if not r.get("ok"):
            continue
        st = (r.get("iocost_stat") or {}).get("io.stat")
        if st:
            vr.append(B.parse_kv(st).get("cost.vrate"))
        ds = r.get("device_status") or {}
        if r["mode_name"] == "iolatd" and isinstance(ds.get("capacity_bps"), int):
            cap.append(ds["capacity_bps"])
    return B.summary([v for v in vr if isinstance(v, (int, float))]), B.summary(cap)


def section(doc, res):
    """The VM subsection (or why it is missing)."""
    d = load(res)
    if not d:
        doc.w("**In the stock-kernel VM, against the kernel's io.cost:** not run here "
              "(`bench/vm_weights.sh` writes `vm_weights.json`).")
        doc.w()
        return
    fig = figures(d)
    intro(doc, d)
    table(doc, d, fig)
    failures(doc, d)
    vr, cap = end_states(d)
    doc.w("At the end of each run: io.cost's vrate (the root's `cost.vrate` in io.stat, with "
          "`blkcg_debug_stats`) %s, so its model's write rate (wbps × vrate) was %s MB/s; "
          "iolatd's capacity estimate (its status file) %s MB/s." % (
              G.rng(vr, lambda v: "%.0f %%" % v), G.rng(
                  {k: (v if k in ("n", "values") else (v and v * model_wbps(d) / 100e6))
                   for k, v in vr.items()}, G.f_mb) if model_wbps(d) else "-",
              G.rng({k: (v if k in ("n", "values") else (v and v / 1e6))
                     for k, v in cap.items()}, G.f_mb)))
    doc.w()
    held = [(c, held_ratios(d, c["key"])) for c in d["cases"] if c["kind"] == "pair"]
    if any(h for _, h in held):
        doc.w("iolatd: each budgeted group's bytes in a judged second ÷ the budget in force "
              "(io.max) — %s. When the groups together get under %g× what the budgets allow in a "
              "period, iolatd takes the device to be short (weights.md, \"capacity: short\"): "
              "its estimate becomes what was delivered; at least %g×, it grows by +1, 2, 4 … %% "
              "a period; in between it is held." % ("; ".join(
                  "%s: median %.2f, 10–90 %% %.2f–%.2f, %d of %d under %g×, %d under %g×" % (
                      ":".join(str(g["weight"]) for g in c["groups"]), B.median(h),
                      B.quantile(h, 0.1), B.quantile(h, 0.9),
                      sum(1 for x in h if x < MET), len(h), MET,
                      sum(1 for x in h if x < SHORT), SHORT) for c, h in held if h),
                  SHORT, MET))
        doc.w()
    share, cons = no_worse(fig, d["cases"])
    doc.w("Command: `%s` (%s). %s." % (d.get("cmd", "?"), d.get("date", "?"), "; ".join(
        verdict_text(d, fig))))
    doc.w()
    doc.w("**iolatd against io.cost in the VM:** share error %s; work conservation %s." % (
        {True: "no worse (median and worst second, both cases)", False: "**worse** (%s)" %
         ", ".join(worse(fig, d["cases"], "share")), None: "not judged"}[share],
        {True: "no worse (median ÷ no control, every case)", False: "**worse** (%s)" %
         ", ".join(worse(fig, d["cases"], "cons")), None: "not judged"}[cons]))
    doc.w()


def goals(doc, res):
    """Issue 28's VM goal, two rows: share error, work conservation."""
    d = load(res)
    if not d:
        doc.goal(SEC, "Weights in the VM: share error and work conservation no worse than the "
                 "kernel's io.cost", "-", None, "not run (bench/vm_weights.sh)")
        return
    fig = figures(d)
    share, cons = no_worse(fig, d["cases"])
    pairs = [c for c in d["cases"] if c["kind"] == "pair"]
    doc.goal(SEC, "Weights in the VM: share error no worse than the kernel's io.cost (median and "
             "worst second)", "; ".join(
                 "%s iolatd %s / %s, io.cost %s / %s" % (
                     ":".join(str(g["weight"]) for g in c["groups"]),
                     f_err(fig[(c["key"], "iolatd")]["median"]),
                     f_err(fig[(c["key"], "iolatd")]["worst"]),
                     f_err(fig[(c["key"], "iocost")]["median"]),
                     f_err(fig[(c["key"], "iocost")]["worst"])) for c in pairs) or "-",
             share, "%s in one boot" % G.pl(d.get("reps") or 0, "repetition"))
    doc.goal(SEC, "Weights in the VM: work conservation no worse than the kernel's io.cost "
             "(÷ no control, median rep)", "; ".join(
                 "%s iolatd %s, io.cost %s" % (
                     ":".join(str(g["weight"]) for g in c["groups"]) if c["kind"] == "pair"
                     else "alone", G.f_ratio(fig[(c["key"], "iolatd")]["ratio"]),
                     G.f_ratio(fig[(c["key"], "iocost")]["ratio"])) for c in d["cases"]) or "-",
             cons, "")


def headline(res):
    """One line: iolatd against io.cost in the VM, per pair case."""
    d = load(res)
    if not d:
        return None
    fig = figures(d)
    bits = ["%s share error median second iolatd %s, io.cost %s; together iolatd %s, io.cost "
            "%s uncontrolled" % (":".join(str(g["weight"]) for g in c["groups"]),
                                 f_err(fig[(c["key"], "iolatd")]["median"]),
                                 f_err(fig[(c["key"], "iocost")]["median"]),
                                 G.f_ratio(fig[(c["key"], "iolatd")]["ratio"]),
                                 G.f_ratio(fig[(c["key"], "iocost")]["ratio"]))
            for c in d["cases"] if c["kind"] == "pair"]
    return "**Weights in the VM** (section 9, against the kernel's io.cost, %s): %s." % (
        G.pl(d.get("reps") or 0, "repetition"), "; ".join(bits)) if bits else None
