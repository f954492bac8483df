# SPDX-License-Identifier: MIT
"""openplan.py - what BENCHMARKS.md section 8 runs and in which order
(bench_openloop.py is the driver that runs it): the reader kinds, the modes
of each (the reader alone, no control, the controllers, the static caps
bisected around the knee within the repetition, and the caps that challenge
a controller after it ran), and one repetition's order: the kinds' blocks
and the modes inside each rotated from one repetition to the next. python3
standard library only; the driver's main thread.

Reader kinds (the key prefix of their modes):
  olR      fio, open loop: R reads/s, Poisson arrivals, libaio, a deep queue
  qd1      fio, closed loop: QD 1, psync (section 7's reader)
  iolatR   `iolat run`'s own open-loop reader at R reads/s (rate_process=poisson)
  cycle    fio, open loop, busy ON s then idle OFF s, CYCLES times, and the
           knee moved for the middle third (a tenant outside iolatd's tree
           writing, or a CPU hog on every core)
"""
import judge as J
import oracle

KIND_NAMES = {"ol": "open loop (fio)", "qd": "closed loop QD 1 (fio)",
              "iolat": "open loop (`iolat run`)", "cycle": "open loop, comes and goes (fio)"}


def kind_of(reader):
    """'ol', 'qd', 'iolat' or 'cycle' from a reader key (ol3000, qd1, iolat3000, cycle)."""
    for k in ("iolat", "ol", "qd", "cycle"):
        if reader.startswith(k):
            return k
    raise ValueError(reader)


def rate_of(reader, st):
    """The reader's arrival rate (reads/s), None for a closed loop."""
    k = kind_of(reader)
    if k == "cycle":
        return st["cycle_rate"]
    if k == "qd":
        return None
    return int(reader[len(k):])


def readers(st):
    """The reader keys of the run, in the order of repetition 1."""
    out = ["ol%d" % r for r in st["rates"]]
    if st["qd1"]:
        out.append("qd1")
    out += ["iolat%d" % r for r in st["iolat_rates"]]
    if st["cycle"]:
        out.append("cycle")
    return out


def mode(reader, what, **kw):
    """A mode: key READER.WHAT, the reader kind and what runs beside it."""
    m = {"key": "%s.%s" % (reader, what), "reader": reader}
    m.update(kw)
    return m


def controllers(reader, st):
    out = [mode(reader, "adaptive-%dus" % t, kind="control", control="adaptive", target_us=t)
           for t in st["targets_us"]]
    out += [mode(reader, "article-%dus" % t, kind="control", control="article", target_us=t)
            for t in st["article_targets_us"] if reader != "cycle" or st["cycle_article"]]
    return out


def cap_mode(reader, cap_bps, role):
    """A static cap; role: 'bisect' (found by the bisection) or 'challenge'."""
    return mode(reader, "cap-%d" % round(cap_bps / 1e6), kind="cap", cap_bps=cap_bps, role=role)


def slots(reader, st):
    """The modes of one reader kind in repetition 1: the reader alone, no
    control, then the controllers and the bisection's steps interleaved (a
    step is the string 'bisect': its cap is known only when its turn comes)."""
    steps = st["bisect_first"] + st["bisect_more"] * (len(st["targets_us"]) - 1)
    ctls = controllers(reader, st)
    mixed = []
    for i in range(max(len(ctls), steps)):
        mixed += ctls[i:i + 1] + (["bisect"] if i < steps else [])
    head = [mode(reader, "none", kind="none")]
    if reader != "cycle":
        head.insert(0, mode(reader, "solo", kind="solo"))
    return head + mixed


def run_block(driver, st, reader, rep, runs, thrown, modes):
    """One reader kind's modes in repetition rep, in rotated order; the caps
    bisected as their slots come; then the challengers of the adaptive runs."""
    bis = J.Bisection(st["targets_us"], st["cap_lo_bps"], st["cap_hi_bps"],
                      st["bisect_first"], st["bisect_more"])
    mine = []

    def run(m):
        modes.setdefault(m["key"], m)
        driver.rep = rep  # the driver names its per-period logs by repetition
        r = oracle.run_one(driver, st, m, rep, thrown)
        r["reader"] = reader
        runs.append(r)
        mine.append((m, r))
        return r
    for s in J.rotate(slots(reader, st), rep):
        if s != "bisect":
            run(s)
            continue
        cap = bis.next_cap()
        if cap is not None:
            r = run(cap_mode(reader, cap, "bisect"))
            if not r.get("disturbed"):  # else unknown: the next step may try it again
                bis.record(cap, r["p90_us"])
    for m, r in list(mine):
        if m.get("control") != "adaptive":
            continue
        caps = [x for mm, x in mine if mm["kind"] == "cap" and not x.get("disturbed")]
        cap = J.challenger_cap(r, caps)
        if cap is not None and all(mm.get("cap_bps") != cap for mm, _ in mine):
            run(cap_mode(reader, cap, "challenge"))


def run_all(driver, st):
    """Every repetition, every reader kind's block (blocks rotated too).
    Returns (modes, runs, discarded runs) as oracle.run_all does."""
    runs, thrown, modes = [], [], {}
    for rep in range(1, st["reps"] + 1):
        for reader in J.rotate(readers(st), rep):
            run_block(driver, st, reader, rep, runs, thrown, modes)
    return list(modes.values()), runs, thrown
