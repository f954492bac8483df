#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The VM anchor of BENCHMARKS.md section 9 (bench/vm_weights.sh,
# bench/vm_weights.py, bench/gen_vmweights.py, tests/vm/guest/weights.sh) on a
# made-up console, no VM: the guest's "VMW" lines are read wherever they start
# in a console line and a broken sample is dropped; each run's times start at
# its first sample, t_busy is the sample before the last busy group's first
# bytes; iolatd's budgets are kept; a failed run is left out of the figures and
# named; the share error is pooled over every judged second of every
# repetition (median and worst); work conservation is each mode's total over
# no control's in the same repetition; iolatd is "no worse" than io.cost only
# when its median and worst second are both at most io.cost's and its
# conservation at least io.cost's, in every case; the guest's CPU and iolatd's
# share of it, and the sum of iolatd's budgets, are kept; the guest rotates the modes
# so no mode always goes first. No VM is booted (a benchmark, not a test).
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
rot=$(bash -c "$(sed -n '/^rotate() {/,/^}/p' tests/vm/guest/weights.sh)"'
	echo "$(rotate 0 none iocost iolatd)|$(rotate 1 none iocost iolatd)|$(rotate 4 none iocost iolatd)"')
[ "$rot" = "none iocost iolatd|iocost iolatd none|iocost iolatd none" ] ||
	{ echo "FAIL: the guest's rotate: '$rot'"; exit 1; }
echo "ok: the guest rotates the modes by the repetition (0, 1, 4 mod 3)"
grep -q '^# vm-drive: throttling.bps-total=209715200$' tests/vm/guest/weights.sh ||
	{ echo "FAIL: weights.sh: no 200 MiB/s throttle for vm.sh"; exit 1; }
echo "ok: the guest's disk is throttled to 200 MiB/s (vm.sh's vm-drive line)"
cli_tmpdir bench_vm_weights
python3 -B - "$dir" <<'PY'
import contextlib
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, "bench")
import gen_vmweights as V
import genlib as G
import vm_weights as P

tmp = sys.argv[1]
MB = 10 ** 6


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def run_lines(rep, case, mode, ra, rb, t0_ms=50000, secs=12.0, budgets=False, ok=1,
              start_b=1.0):
    """A run's VMW lines: samples every 100 ms from t0_ms, a from 1.0 s at ra
    MB/s, b from start_b at rb MB/s (0: idle)."""
    out = ["VMW run rep=%d case=%s mode=%s" % (rep, case, mode)]
    a = b = 0.0
    t = 0.0
    while t <= secs + 1e-9:
        bud = " 50000000 150000000" if budgets else ""
        out.append("VMW s %d %d %d%s" % (t0_ms + round(t * 1000), a, b, bud))
        if t >= 1.0 - 1e-9:
            a += ra * MB * 0.1
        if t >= start_b - 1e-9:
            b += rb * MB * 0.1
        t = round(t + 0.1, 3)
    if mode == "iocost":
        out.append("VMW iocost.stat io.stat 254:0 wbytes=9 cost.vrate=%d.50 cost.usage=1" % (
            110 + rep))
    if budgets:
        out.append("VMW status device dev=254:0 disk=vda weights=iolatd capacity_bps=190000000")
    out.append("VMW cpu busy_pm=930 iolatd_ticks=%d ticks=800" % (80 if budgets else 0))
    out.append("VMW end rep=%d case=%s mode=%s t_end_ms=%d ok=%d%s" % (
        rep, case, mode, t0_ms + round(secs * 1000), ok, "" if ok else " why=no_io"))
    return out


def console(iolatd_rates=(48, 142), iolatd_alone=200):
    lines = ["SeaBIOS junk", "VMW info kernel=6.1.0-x dev=254:0 rotational=1 scheduler=mq-deadline "
             "nr_requests=256 fio=fio-3.33 secs=8 skip=2 reps=2",
             "VMW iocost.model 254:0 ctrl=auto model=linear wbps=178075866",
             "VMW iocost.qos 254:0 enable=1 ctrl=auto rpct=0.00 rlat=250000"]
    for rep in (1, 2):
        lines += run_lines(rep, "w100_300", "none", 100, 100)
        lines += run_lines(rep, "w100_300", "iocost", 54, 126)                 # 30:70
        lines += run_lines(rep, "w100_300", "iolatd", *iolatd_rates, budgets=True)
        lines += run_lines(rep, "alone", "none", 200, 0)
        lines += run_lines(rep, "alone", "iocost", 180, 0)
        lines += run_lines(rep, "alone", "iolatd", iolatd_alone, 0)
    # a broken sample and a VMW line behind other output
    i = lines.index("VMW run rep=1 case=w100_300 mode=none") + 5
    lines.insert(i, "VMW s 5abc 12")
    lines[i + 1] = "Jobs: 1 (f=1): [W(1)]" + lines[i + 1]
    lines += run_lines(3, "w100_300", "iolatd", 0, 0, ok=0)
    lines.append("VMW done")
    return lines


d = P.parse(console())
check(len(d["runs"]) == 13 and d["complete"] and d["info"]["secs"] == 8 and
      d["iocost_model"][0].startswith("254:0 ctrl=auto"),
      "parse: 13 runs, complete, info, io.cost's model")
r = d["runs"][0]
check(r["samples"][0][0] == 0.0 and len(r["samples"]) == 121 and r["t_busy"] == 1.0 and
      r["t_end"] == 12.0, "a run's times from its first sample; the broken sample dropped, the "
      "one behind 'Jobs:' kept; t_busy is the sample before the first bytes (1.0 s: bytes from 1.1 s)")
late = P.parse(run_lines(1, "w100_300", "none", 100, 100, start_b=3.0))["runs"][0]
check(late["t_busy"] == 3.0, "t_busy: the later of the two groups' starts (b's bytes from 3.1 s: 3.0 s)")
check(P.parse(run_lines(1, "alone", "none", 100, 0))["runs"][0]["t_busy"] == 1.0,
      "alone: b's idleness does not hold t_busy")
check(d["runs"][2]["budgets"][0][1] == {"a": [50000000, None], "b": [150000000, None]},
      "iolatd's budgets kept per sample")
check(not d["runs"][-1]["ok"] and d["runs"][-1]["why"] == "no_io", "a failed run keeps why")
check(d["runs"][2]["cpu"] == {"busy": 0.93, "iolatd": 0.1}, "the guest's CPU: busy 930 per mille, "
      "iolatd 80 of 800 ticks")
check(V.budget_sum(d["runs"][2], 3.0, 12.0) == 200e6 and
      V.budget_sum({"budgets": [[4.0, {"a": [-1, None], "b": [-1, None]}]]}, 3.0, 12.0) == -1,
      "iolatd's budgets: their sum (50 + 150 MB/s); -1 when none is budgeted")

out = os.path.join(tmp, "res")
os.makedirs(out)
con = os.path.join(tmp, "console.log")
with open(con, "w") as f:
    f.write("\n".join(console()) + "\n")
p = subprocess.run([sys.executable, "-B", "bench/vm_weights.py", "--console", con, "--out",
                    os.path.join(out, "vm_weights.json"), "--wall", "600"],
                   capture_output=True, text=True)
check(p.returncode == 0 and "1 failed: rep 3 w100_300 iolatd: no_io" in p.stdout,
      "vm_weights.py writes the JSON and names the failed run")
empty = os.path.join(tmp, "empty.log")
open(empty, "w").close()
p = subprocess.run([sys.executable, "-B", "bench/vm_weights.py", "--console", empty, "--out",
                    os.path.join(tmp, "x.json")], capture_output=True, text=True)
check(p.returncode == 1 and "no run" in p.stderr and not os.path.exists(os.path.join(tmp, "x.json")),
      "a console without runs: one line, exit 1, nothing written")

d = V.load(out)
fig = V.figures(d)
io, ic, no = (fig[("w100_300", m)] for m in ("iolatd", "iocost", "none"))
check(io["reps"] == 2 and io["n"] == 2 * 9, "the failed run left out; 9 judged seconds a run "
      "(from t_busy + 2 s to t_end), pooled over 2 repetitions")
check(abs(no["median"] - 1.0) < 1e-6 and abs(ic["median"] - 0.2) < 1e-6 and
      abs(io["worst"] - (48 / 190 / 0.25 - 1)) < 1e-6,
      "share error: 50:50 is 100 %, 54:126 (30:70) is 20 %, 48:142 is 1.1 %")
check(abs(ic["ratio"]["median"] - 0.9) < 1e-6 and abs(io["ratio"]["median"] - 0.95) < 1e-6 and
      abs(fig[("alone", "iolatd")]["ratio"]["median"] - 1.0) < 1e-6,
      "work conservation: each total over no control's, same repetition")
check(V.no_worse(fig, d["cases"]) == (True, True), "iolatd 1.1 % / 0.95x against io.cost 20 % / "
      "0.90x: no worse on both")

doc = G.Doc()
V.section(doc, out)
V.goals(doc, out)
text = "\n".join(doc.parts)
check("rep 3 w100_300 iolatd: no_io" in text and "io.cost (io.weight)" in text and
      "254:0 ctrl=auto model=linear" in text, "the section names the failed run, the modes "
      "and io.cost's model")
check([g[3] for g in doc.goals] == ["**met**", "**met**"], "both VM goals met")
vr, cap = V.end_states(d)
check(vr["values"] == [111.5, 111.5, 112.5, 112.5] and cap["values"] == [190e6, 190e6] and
      V.model_wbps(d) == 178075866 and "was 199 (199–200) MB/s" in text,
      "io.cost's vrate and iolatd's capacity at each run's end; vrate x the model's wbps")

# iolatd worse: its shares 35:65 (error 40 %), its lone writer 0.85x
with open(con, "w") as f:
    f.write("\n".join(console(iolatd_rates=(63, 117), iolatd_alone=170)) + "\n")
subprocess.run([sys.executable, "-B", "bench/vm_weights.py", "--console", con, "--out",
                os.path.join(out, "vm_weights.json")], check=True, capture_output=True)
d = V.load(out)
check(V.no_worse(V.figures(d), d["cases"]) == (False, False),
      "iolatd 40 % and alone 0.85x against io.cost 20 % and 0.90x: worse on both")
doc = G.Doc()
V.goals(doc, out)
check([g[3] for g in doc.goals] == ["**not met**", "**not met**"], "both VM goals not met")
doc = G.Doc()
V.goals(doc, os.path.join(tmp, "none"))
check(len(doc.goals) == 1 and doc.goals[0][3] == "not measured", "no results: not measured")
PY
