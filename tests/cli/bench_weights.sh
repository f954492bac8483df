#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rules of BENCHMARKS.md section 9 (bench/shares.py, bench/bench_weights.py,
# bench/gen_weights.py), on made-up results, no disk: each group's bytes per
# second from its cumulative counters; the share error is the worse group's
# |share ÷ its weight's share − 1|, judged every second after the first 2 s;
# the reaction to a sibling's start is the end of the first 0.5 s window after
# it with the shares within ±10 %, to its stop the first window in which the
# other got back 0.9x what it got alone; every repetition runs every case in
# both modes, which one first alternating; iolatd.conf carries the weights and
# nothing else; the status file's budgets are read per group; the generator
# judges each goal repetition by repetition (held n/N, not a median), marks a
# worst second over 10 % not met, and says what was not measured; bad options
# exit 2; run_all.sh lists section 9.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
bash bench/run_all.sh --help | grep -q "9 is" ||
	{ echo "FAIL: run_all.sh --help: no section 9"; exit 1; }
grep -qE '^SECTIONS=([0-9]+,)*9(,[0-9]+)*$' bench/run_all.sh ||
	{ echo "FAIL: 9 not in the default sections"; exit 1; }
echo "ok: run_all.sh lists section 9 (default and --help)"
exec python3 -B - <<'PY'
import argparse
import contextlib
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, "bench")
import bench_weights as W
import gen_benchmarks
import gen_weights
import genlib as G
import shares as S

MB = 10 ** 6


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def samples(rates, t1, step=0.1):
    """Cumulative bytes every step from 0 to t1 of groups whose bytes/s is rates[k](t)."""
    out, tot, t = [], {k: 0.0 for k in rates}, 0.0
    while t <= t1 + 1e-9:
        out.append([round(t, 3), {k: round(v) for k, v in tot.items()}])
        for k, f in rates.items():
            tot[k] += f(t + step / 2) * step
        t += step
    return out


# ------------------------------------------------------------ the rules
smp = samples({"a": lambda t: 100 * MB, "b": lambda t: 300 * MB}, 12.0)
check(abs(S.rate(smp, "a", 2.0, 3.0) - 100 * MB) < 1e3 and
      abs(S.rate(smp, "b", 2.05, 2.55) - 300 * MB) < 1e3, "rates from cumulative bytes, "
      "interpolated between samples")
rows = S.periods(smp, ["a", "b"], 2.0, 12.0)
check(len(rows) == 10 and rows[0][0] == 3.0, "ten whole seconds from 2 s to 12 s")
check(S.error({"a": 100, "b": 300}, {"a": 100, "b": 300}) < 1e-12 and
      abs(S.error({"a": 50, "b": 50}, {"a": 100, "b": 300}) - 1.0) < 1e-12,
      "share error: 25:75 at 100:300 is 0; 50:50 is 100 % (a's share twice its weight's)")
check(abs(S.error({"a": 27.5, "b": 72.5}, {"a": 100, "b": 300}) - 0.1) < 1e-9,
      "the worse group counts: a at 27.5 % of 25 % is +10 %, b's -3.3 % does not")
check(S.error({"a": 0, "b": 0}, {"a": 1, "b": 1}) is None, "nothing done: no error")
s = S.share_summary(smp, {"a": 100, "b": 300}, 2.0, 12.0)
check(s["n"] == 10 and s["within"] == 10 and s["worst"] < 1e-6 and
      abs(s["shares"]["a"] - 0.25) < 1e-6, "a steady 25:75: ten seconds within, share 25 %")
# one bad second (6-7 s: 50:50) among ten
smp_bad = samples({"a": lambda t: 200 * MB if 6 <= t < 7 else 100 * MB,
                   "b": lambda t: 200 * MB if 6 <= t < 7 else 300 * MB}, 12.0)
s = S.share_summary(smp_bad, {"a": 100, "b": 300}, 2.0, 12.0)
check(s["within"] == 9 and abs(s["worst"] - 1.0) < 1e-6 and s["median"] < 1e-6,
      "one second at 50:50: 9/10 within, worst 100 %, median 0")

# reaction: b starts at 5.0; the shares reach 25:75 at 5.6 (50:50 before)
def sibling(settle, back):
    """a alone at 400, b from 5 to 11 s: 50:50 until 5 + settle, then 25:75; a back at
    400 from 11 + back."""
    def a_rate(t):
        return 400 * MB if t < 5 else (200 * MB if t < 5 + settle else 100 * MB) if t < 11 \
            else (100 * MB if t < 11 + back else 400 * MB)

    def b_rate(t):
        return 0 if t < 5 or t >= 11 else (200 * MB if t < 5 + settle else 300 * MB)
    return {"a": a_rate, "b": b_rate}


smp_sib = samples(sibling(0.6, 0.8), 14.0)
r = S.react_start(smp_sib, {"a": 100, "b": 300}, 5.0, 11.0)
check(r == 1.1, "start: the first 0.5 s window within ±10 %% is [5.6, 6.1] (before it, 0.1 s "
      "at 50:50 puts a at 30 %%): 1.1 s: %s" % r)
r2 = S.react_stop(smp_sib, "a", 400 * MB, 11.0, 14.0)
check(r2 == 1.3, "stop: a back to 0.9x 400 MB/s first in the window [11.8, 12.3]: 1.3 s: %s"
      % r2)
check(S.react_stop(smp_sib, "a", 0, 11.0, 14.0) is None and
      S.react_start(smp_sib, {"a": 100, "b": 300}, 5.0, 5.3) is None,
      "no alone rate, or a phase shorter than a window: none")
case = W.case_of("sibling")
j = S.judge_run(case, {"samples": smp_sib, "t_busy": 0.0, "t_end": 14.0, "t_start": 5.0,
                       "t_stop": 11.0})
check(abs(j["alone_bps"] - 400 * MB) < 1e3 and j["react_start_s"] == r and
      j["shares"]["n"] == 5, "sibling: alone rate from 2 s to its start, shares judged from "
      "1 s after the start (5 s)")

# ------------------------------------------------------------ the driver's parts
def args(*argv):
    ap = argparse.ArgumentParser()
    W.add_args(ap)
    return ap.parse_args(list(argv))


def exits2(*argv):
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            W.settings(args(*argv))
    except SystemExit as e:
        return e.code == 2
    return False


st = W.settings(args())
check(st["reps"] == 3 and st["seconds"] == 10 and st["skip_s"] == 2 and
      st["cases"] == ["w100_300", "w100_100", "rw300_100", "sibling", "alone"],
      "defaults: 3 repetitions of 10 s after 2 s, every case")
q = W.settings(args("--quick"))
check(q["reps"] == 1 and q["seconds"] == 3 and q["write_size"] < st["write_size"],
      "--quick: 1 repetition of 3 s, smaller files")
for bad in (("--cases", "w100_300,nope"), ("--reps", "0"), ("--seconds", "0.5"),
            ("--retries", "-1"), ("--cases", ",")):
    check(exits2(*bad), "%s: exit 2" % " ".join(bad))
first = {}
for rep in (1, 2, 3):
    p = W.plan(st, rep)
    check(sorted(m["key"] for m in p) == sorted("%s.%s" % (c, m) for c in st["cases"]
                                                for m in W.MODES),
          "rep %d runs every case in both modes once" % rep)
    first[rep] = [m["mode"] for m in p][::2]
    check(all(p[i]["case"] == p[i + 1]["case"] for i in range(0, len(p), 2)),
          "rep %d: a case's two modes back to back" % rep)
check(first[1] != first[2] and first[1] == first[3] and p[0]["case"] != W.plan(st, 1)[0]["case"],
      "which mode first alternates, the cases' order rotates: %s / %s" % (first[1], first[2]))


class Stub:
    dev = "8:0"

    class tree:
        @staticmethod
        def rel(c):
            return "iolat-bench-1-iolatd/" + c


conf = W.Weights.daemon_conf(Stub(), {"case": "rw300_100"})
check(conf == "[global]\ndevice=8:0\n\n[group:iolat-bench-1-iolatd/a]\nweight=300\n\n"
      "[group:iolat-bench-1-iolatd/b]\nweight=100\n", "iolatd.conf: the disk and the weights, "
      "no target, no control key")
with tempfile.TemporaryDirectory() as t:
    sp = os.path.join(t, "status")
    with open(sp, "w") as f:
        f.write("device dev=8:0 weights=iolatd capacity_bps=500000000\n"
                "group path=iolat-bench-1-iolatd/a dev=8:0 weight=100 hweight_ppm=250000 "
                "budget_bps=125000000\n"
                "group path=iolat-bench-1-iolatd/b dev=8:0 weight=300 hweight_ppm=750000 "
                "budget_bps=-1\ngroup path=other dev=8:0 budget_bps=5\n")
    b = W.status_budgets(sp, {"iolat-bench-1-iolatd/a": "a", "iolat-bench-1-iolatd/b": "b"})
    check(b == {"a": [125000000, 250000], "b": [-1, 750000]},
          "the status file's budget and hweight per group of ours: %s" % b)
    check(W.status_budgets(os.path.join(t, "none"), {}) is None, "no status yet: None")

# ------------------------------------------------------------ the generator
def run(case, mode, rep, rates, t_end=12.0, **kw):
    r = {"case": case, "mode_name": mode, "mode": "%s.%s" % (case, mode), "rep": rep,
         "samples": samples(rates, t_end), "t_busy": 0.0, "t_end": t_end, "disturbed": False,
         "foreign_mb_s": 0.0, "foreign_worst_mb_s": 0.0}
    r.update(kw)
    return r


def const(v):
    return lambda t: v * MB


runs = []
for rep in (1, 2, 3):
    # 100:300: iolatd 25:75 of 400 (none: 50:50 of 420)
    runs.append(run("w100_300", "none", rep, {"a": const(210), "b": const(210)}))
    runs.append(run("w100_300", "iolatd", rep, {"a": const(100), "b": const(300)}))
    # 100:100: rep 2 has a bad second at 6-7 s
    runs.append(run("w100_100", "none", rep, {"a": const(200), "b": const(200)}))
    runs.append(run("w100_100", "iolatd", rep, {
        "a": (lambda t: 300 * MB if 6 <= t < 7 else 190 * MB) if rep == 2 else const(190),
        "b": (lambda t: 80 * MB if 6 <= t < 7 else 190 * MB) if rep == 2 else const(190)}))
    # reader 300 against writer 100: the reader gets 40 MB/s; total 0.8x
    runs.append(run("rw300_100", "none", rep, {"a": const(20), "b": const(380)}))
    runs.append(run("rw300_100", "iolatd", rep, {"a": const(40), "b": const(280)}))
    runs.append(run("alone", "none", rep, {"a": const(400), "b": const(0)}))
    runs.append(run("alone", "iolatd", rep, {"a": const(388), "b": const(0)}))
    runs.append(run("sibling", "none", rep, {"a": lambda t: 400 * MB if t < 5 or t >= 11 else
                                             200 * MB, "b": lambda t: 0 if t < 5 or t >= 11
                                             else 200 * MB}, 14.0, t_start=5.0, t_stop=11.0))
    runs.append(run("sibling", "iolatd", rep, sibling(0.4, 0.8), 14.0, t_start=5.0,
                    t_stop=11.0, budgets=[[t, {"a": [ba * MB, 250000], "b": [-1, 750000]}]
                                          for t, ba in ((3.0, 400), (6.0, 100), (7.0, 120))]))
# a disturbed run is left out
runs.append(run("alone", "iolatd", 3, {"a": const(10), "b": const(0)}, disturbed=True))
d = {"runs": runs, "reps": 3, "settings": st, "cases": [W.case_of(k) for k in st["cases"]],
     "disk_name": "sda", "cgroup": "v1", "rotational": "0", "counters": "blkio.throttle",
     "conf_example": conf, "cmd": "bench/bench_weights.py",
     "disturbance": {"checked": True, "thrown_away": [{"rep": 3}], "mean_limit_mb_s": 20,
                     "burst_limit_mb_s": 40}}
vs = gen_weights.verdicts(d, W.case_of("alone"))
check([round(v["vs_none"], 2) for v in vs] == [0.97, 0.97, 0.97],
      "alone: 388 ÷ 400 each repetition; the disturbed run left out")
with tempfile.TemporaryDirectory() as res:
    with open(os.path.join(res, "weights.json"), "w") as f:
        json.dump(d, f)
    doc = G.Doc()
    gen_weights.section(doc, res)
    text = "\n".join(doc.parts)
    goals = {g[1]: g for g in doc.goals}
    head = gen_weights.headline(res)
    out = os.path.join(res, "B.md")
    gen_benchmarks.generate(res, out, False)
    with open(out) as f:
        md = f.read()


def goal(part):
    m = [x for k, x in goals.items() if part in k]
    check(len(m) == 1, "one goal matching '%s'" % part)
    return m[0]


check("## 9. Weights" in text and "weight=300" in text and "io.cost" in text,
      "the section, its iolatd.conf and the note on what was not measured are written")
check(text.count("| 1 | no control |") == 5 and text.count("| 3 | iolatd |") == 5,
      "every repetition in both modes, in every case's table")
check("| 1 | iolatd | 100 | 300 | 25:75 |" in text and "| a 110 / b none |" in text and
      "| a - / b - |" in text, "the sibling's row: its shares, iolatd's median budgets over the "
      "judged seconds (110 of 100 and 120; the alone phase's 400 not counted; -1: none)")
g = goal("100:300: each one's share")
check(g[3] == "**met**" and "held 3/3" in g[2], "100:300 at 25:75: met 3/3: %s" % g[2])
g = goal("100:100: each one's share")
check(g[3] == "**not met**" and "held 2/3" in g[2] and "rep 2" in g[2],
      "100:100 with one bad second in rep 2: not met, held 2/3: %s" % g[2])
g = goal("writer weighted 100: each one's share")
check(g[3] == "**not met**" and "donation" in g[4], "the reader at 40 of 320 MB/s: not met, "
      "why given: %s" % g[4])
g = goal("writer weighted 100: both together")
check(g[3] == "**not met**" and "0.80×" in g[2], "reader+writer 320 ÷ 400: not met")
g = goal("100:300: both together")
check(g[3] == "**met**" and "0.95×" in g[2], "100:300: 400 ÷ 420 = 0.95x >= 0.9: met")
g = goal("Weights, work conservation")
check(g[3] == "**met**" and "held 3/3" in g[2] and "0.97×" in g[2], "alone 0.97x: met 3/3")
g = goal("that starts is reflected")
check(g[3] == "**met**" and "held 3/3" in g[2] and "0.9 s" in g[2],
      "settled 0.4 s after the start: 0.9 s (window end), met: %s" % g[2])
g = goal("that stops is reflected")
check(g[3] == "**not met**" and "held 0/3" in g[2], "stop after 1.2 s: not met: %s" % g[2])
g = goal("VM")
check(g[3] == "not measured", "the VM comparison: not measured")
check(head and "reaction to a sibling starting" in head and "alone 0.97×" in head,
      "the headline: %s" % head)
check("## 9. Weights" in md and "**Weights** (section 9" in md and
      "| 9 | Weights, work conservation" in md, "gen_benchmarks.py writes section 9, its goals "
      "and its headline")
with tempfile.TemporaryDirectory() as res:
    doc = G.Doc()
    gen_weights.section(doc, res)
    check("_Not run: no `weights.json`._" in "\n".join(doc.parts) and
          doc.goals[0][3] == "not measured", "no results: not run, said once")
PY
