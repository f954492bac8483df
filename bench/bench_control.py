#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_control.py - BENCHMARKS.md section 3: control quality on the simulator.

In the style of Meta's resctl-bench protection benchmark. A protected reader
(group "main", with a latency target) runs beside a bulk writer (group
"system/fbpkg") on a simulated device, in three modes:
  none      no control at all (--no-control)
  cap:F     a static cap on the writer, the io.max way (job key rate=), at
            fraction F of the writer's uncontrolled throughput; 8 levels; the
            controller is off (--no-control), as io.max alone would be
  iolat     io.latency (controller on, no cap; --control article)
  adaptive  the adaptive mode (--control adaptive; docs/controller-adaptive.md)
Scenarios: classic protection on ssd, hdd and bad-ssd, and on ssd a writer
ramp whose offered load (Poisson, rate_iops=) is 10/25/50/100/200% of the
device's write bandwidth (measured here: the writer alone, uncontrolled).

Per run, from the per-window CSV (`iolat sim --log DIR`; one row per sample,
and the sample period is the protected group's window) of the reader, after
a convergence period:
  within      % of windows whose p90 is within the target (a window in which
              the reader completed nothing counts as missed)
  isolation   per window: reader IOPS / its solo IOPS (the reader alone)
  lat_impact  per window: (p90 - solo p90) / solo p90
and from the JSON report: work = the writer's bytes / its bytes in mode none
(same seed). Every configuration runs with --seeds seeds; the report gives
medians and min-max over seeds. Goal per scenario: io.latency within >= 95%
and its work >= the work of the best static cap that protects as well.

Writes bench/results/control.json, control.png/.svg (gnuplot, when
installed); job files and CSV logs go to bench/results/raw/control/.

usage: bench_control.py [--quick] [--iolat PATH] [--seeds N] [--runtime S]
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

CAP_FRACS = [0.02, 0.05, 0.10, 0.20, 0.30, 0.50, 0.70, 0.90]
RAMP_PCTS = [10, 25, 50, 100, 200]

# The classic protection scenarios (after examples/sim-*.ini).
CLASSIC = [
    {"id": "ssd", "device": "ssd", "target": "150us", "target_us": 150.0,
     "reader": {"bs": "4k", "iodepth": 4},
     "writer": {"bs": "1m", "iodepth": 32},
     "why": "good NVMe model; target ~1.5x the reader's solo p90"},
    {"id": "hdd", "device": "hdd", "target": "30ms", "target_us": 30000.0,
     "reader": {"bs": "4k", "iodepth": 1},
     "writer": {"bs": "256k", "iodepth": 32, "offset": "1t", "size": "100g"},
     "why": "7200 rpm model (mean rule); target ~2.4x the solo mean"},
    {"id": "bad-ssd", "device": "bad-ssd", "target": "25ms", "target_us": 25000.0,
     "reader": {"bs": "4k", "iodepth": 2},
     "writer": {"bs": "1m", "iodepth": 16},
     "why": "DRAM-less QLC model with 0.1-1 s stalls"},
]


def jobfile(sc, runtime, mode_cap_bps=None, with_writer=True, writer_only=False):
    lines = ["; bench_control.py: scenario %s" % sc["id"], "[global]",
             "device=%s" % sc["device"], "runtime=%ds" % runtime, "", "[group:main]",
             "target=%s" % sc["target"], "", "[group:system/fbpkg]", ""]
    if not writer_only:
        lines += ["[reader]", "group=main", "rw=randread"]
        lines += ["%s=%s" % kv for kv in sc["reader"].items()]
        lines.append("")
    if with_writer:
        lines += ["[writer]", "group=system/fbpkg", "rw=write"]
        lines += ["%s=%s" % kv for kv in sc["writer"].items()]
        if sc.get("rate_iops"):
            lines.append("rate_iops=%d" % sc["rate_iops"])
        if mode_cap_bps:
            lines.append("rate=%d" % int(mode_cap_bps))
        lines.append("")
    return "\n".join(lines)


class Sim:
    def __init__(self, iolat, raw):
        self.iolat = iolat
        self.raw = raw
        self.env = dict(os.environ)
        # No gnuplot for the per-run logs: iolat finds it on PATH; CSV only.
        self.env["PATH"] = "/nonexistent"
        self.nruns = 0
        self.wall = 0.0

    def run(self, name, text, seed, control, ctl_mode=None):
        d = os.path.join(self.raw, name, "seed%d" % seed)
        os.makedirs(d, exist_ok=True)
        job = os.path.join(d, "job.ini")
        B.write_text(job, text + "\n")
        argv = [self.iolat, "sim", job, "--seed", str(seed), "--output-format=json",
                "--log", d]
        if not control:
            argv.append("--no-control")
        elif ctl_mode:
            argv += ["--control", ctl_mode]
        res = B.check(B.run_measured(argv, env=self.env), "iolat sim")
        self.nruns += 1
        self.wall += res["wall_s"]
        B.write_text(os.path.join(d, "report.json"), res["out"])
        rep = json.loads(res["out"])
        return rep, d, argv

    @staticmethod
    def group(rep, name):
        for g in rep["groups"]:
            if g["name"] == name:
                return g
        return None


def read_csv(path):
    with open(path) as f:
        # Controller columns are empty without control.
        # The adaptive mode's step/probe columns are words: kept as text.
        def val(k, v):
            if v == "":
                return None
            return v if k in ("step", "probe") else float(v)
        return [{k: val(k, v) for k, v in row.items()} for row in csv.DictReader(f)]


def window_metrics(logdir, rep, sc, solo, conv_s):
    rows = read_csv(os.path.join(logdir, "main.csv"))
    dt = rep["sample_interval_s"]
    rows = [r for r in rows if r["time_s"] - dt >= conv_s - 1e-9]
    target = sc["target_us"]
    qd = sc["reader"]["iodepth"]
    ok = ok_mean = 0
    iso, lat = [], []
    for r in rows:
        ios = r["ios"]
        if ios > 0 and r["p90_us"] <= target:
            ok += 1
        # Little's law: a closed loop at depth qd has mean latency qd*dt/ios.
        if ios > 0 and qd * dt / ios * 1e6 <= target:
            ok_mean += 1
        iso.append(ios / dt / solo["iops"])
        if ios > 0:
            lat.append((r["p90_us"] - solo["p90_us"]) / solo["p90_us"])
    n = len(rows)
    # The clamped group: "system", the writer's top-level group (main's sibling).
    depth = []
    spath = os.path.join(logdir, "system.csv")
    if os.path.exists(spath):
        for r in read_csv(spath):
            if r["time_s"] - dt >= conv_s - 1e-9 and r["depth"] is not None:
                depth.append(r["depth"])
    lim = [x for x in depth if x >= 0]
    return {
        "windows": n,
        "writer_depth_min": min(lim) if lim else None,
        "writer_depth_max": (None if not depth else
                             -1 if any(x < 0 for x in depth) else max(depth)),
        "writer_unlimited_pct": 100.0 * sum(1 for x in depth if x < 0) / len(depth)
        if depth else None,
        "within_pct": 100.0 * ok / n if n else None,
        "within_mean_pct": 100.0 * ok_mean / n if n else None,
        "iso_mean": sum(iso) / len(iso) if iso else None,
        "iso_p10": B.quantile(iso, 0.10),
        "iso_p50": B.quantile(iso, 0.50),
        "lat_imp_p50": B.quantile(lat, 0.50),
        "lat_imp_p90": B.quantile(lat, 0.90),
    }


METRICS = ["within_pct", "within_mean_pct", "iso_mean", "iso_p10", "iso_p50",
           "lat_imp_p50", "lat_imp_p90", "work", "writer_mib_s", "reader_p90_us",
           "reader_p50_us", "reader_iops", "windows", "writer_depth_min",
           "writer_depth_max", "writer_unlimited_pct"]


def scenario(sim, sc, seeds, runtime, conv_s):
    sid = sc["id"]
    B.log("control: scenario %s" % sid)
    out = {"id": sid, "device": sc["device"], "target": sc["target"],
           "target_us": sc["target_us"], "why": sc.get("why", ""),
           "reader": sc["reader"], "writer": sc["writer"],
           "rate_iops": sc.get("rate_iops"), "offered_pct": sc.get("offered_pct"),
           "modes": {}}
    solo, none_bytes, none_bps = {}, {}, {}
    for s in seeds:
        rep, _, argv = sim.run("%s/solo" % sid, jobfile(sc, runtime, with_writer=False), s, False)
        g = Sim.group(rep, "main")
        solo[s] = {"iops": g["iops"], "p90_us": g["lat_us"]["p90"], "p50_us": g["lat_us"]["p50"]}
    out["solo"] = {k: B.summary([solo[s][k] for s in seeds]) for k in ("iops", "p90_us", "p50_us")}
    out["solo_cmd"] = B.shell_join(argv)

    def one(mode, cap_bps, control, ctl_mode=None):
        per = []
        for s in seeds:
            rep, d, argv = sim.run("%s/%s" % (sid, mode), jobfile(sc, runtime, cap_bps), s, control,
                                   ctl_mode)
            w = Sim.group(rep, "system/fbpkg")
            r = Sim.group(rep, "main")
            wb = w["write"]["bytes"]
            if mode == "none":
                none_bytes[s] = wb
                none_bps[s] = wb / rep["duration_s"]
            m = window_metrics(d, rep, sc, solo[s], conv_s)
            m.update({"work": wb / none_bytes[s] if none_bytes.get(s) else None,
                      "writer_mib_s": w["mib_s"], "reader_p90_us": r["lat_us"]["p90"],
                      "reader_p50_us": r["lat_us"]["p50"], "reader_iops": r["iops"],
                      "seed": s})
            per.append(m)
        res = {k: B.summary([m[k] for m in per]) for k in METRICS}
        res["cap_bps"] = cap_bps
        res["cmd"] = B.shell_join(argv)
        out["modes"][mode] = res
        return res

    one("none", None, False)
    base_bps = B.median(list(none_bps.values()))
    out["writer_none_bps"] = base_bps
    for f in CAP_FRACS:
        r = one("cap:%g" % f, f * base_bps, False)
        r["cap_frac"] = f
    one("iolat", None, True, "article")
    one("adaptive", None, True, "adaptive")

    # The goal: within >= 95% and work >= the best cap that protects as well.
    io = out["modes"]["iolat"]
    io_within = io["within_pct"]["median"]
    caps = [(m, r) for m, r in out["modes"].items() if m.startswith("cap:")]
    as_well = [(m, r) for m, r in caps if r["within_pct"]["median"] >= io_within - 1e-9]
    best = max(as_well, key=lambda mr: mr[1]["work"]["median"]) if as_well else None
    at95 = [(m, r) for m, r in caps if r["within_pct"]["median"] >= 95.0]
    best95 = max(at95, key=lambda mr: mr[1]["work"]["median"]) if at95 else None
    out["best_cap_as_well"] = best[0] if best else None
    out["best_cap_95"] = best95[0] if best95 else None
    protect_ok = io_within >= 95.0
    work_ok = best is None or io["work"]["median"] >= best[1]["work"]["median"] - 1e-9
    out["goal"] = {"within_ok": protect_ok, "work_ok": work_ok, "met": protect_ok and work_ok,
                   "iolat_within": io_within, "iolat_work": io["work"]["median"],
                   "best_cap_work": best[1]["work"]["median"] if best else None,
                   "best_cap_within": best[1]["within_pct"]["median"] if best else None}
    out["goal_adaptive"] = adaptive_goal(sc, out["modes"], caps)
    return out


def adaptive_goal(sc, modes, caps):
    """The adaptive mode's goal for this scenario (issue #12), measured."""
    ad = modes["adaptive"]
    work = ad["work"]["median"]
    # HDD: judged by the controller's own (mean) rule; elsewhere by the p90.
    key = "within_mean_pct" if sc["device"] == "hdd" else "within_pct"
    within = ad[key]["median"]
    as_well = [(m, r) for m, r in caps if r[key]["median"] >= within - 1e-9]
    best = max(as_well, key=lambda mr: mr[1]["work"]["median"]) if as_well else None
    at95 = [(m, r) for m, r in caps if r[key]["median"] >= 95.0]
    best95 = max(at95, key=lambda mr: mr[1]["work"]["median"]) if at95 else None
    best_work = best[1]["work"]["median"] if best else None
    if sc.get("offered_pct") and sc["offered_pct"] <= 50:
        text = "throttles nothing (work 1.00)"
        met = work >= 0.995
    elif sc["device"] == "hdd":
        text = "≥ 90% within (mean rule), work ≥ 5× the best cap protecting as well"
        met = within >= 90.0 and (best_work is None or work >= 5 * best_work - 1e-9)
    elif sc["device"] == "bad-ssd":
        text = "≥ 95% within, work above the best cap reaching 95%"
        b95 = best95[1]["work"]["median"] if best95 else 0.0
        met = within >= 95.0 and work > b95 + 1e-9
    else:
        text = "≥ 95% within, work ≥ the best cap protecting as well"
        met = within >= 95.0 and (best_work is None or work >= best_work - 1e-9)
    return {"rule": key, "text": text, "met": met, "within": within, "work": work,
            "best_cap_as_well": best[0] if best else None, "best_cap_work": best_work,
            "best_cap_95": best95[0] if best95 else None,
            "best_cap_95_work": best95[1]["work"]["median"] if best95 else None}


def measure_write_bw(sim, seeds, runtime):
    """The ssd model's write bandwidth: the writer alone, uncontrolled."""
    sc = dict(CLASSIC[0])
    bw = []
    for s in seeds:
        rep, _, argv = sim.run("ssd-writer-solo", jobfile(sc, runtime, writer_only=True), s, False)
        bw.append(Sim.group(rep, "system/fbpkg")["mib_s"])
    return B.summary(bw), B.shell_join(argv)


GNUPLOT = r"""# Written by bench/bench_control.py: protection against work per scenario.
set datafile separator "\t"
set key at graph 0.03, graph 0.55 left top font ",8" box opaque
set xlabel "work (writer bytes / uncontrolled)" font ",9"
set ylabel "% windows with p90 within target" font ",9"
set xrange [0:1.05]
set yrange [0:102]
set grid
set multiplot layout 2,4 title "io.latency against a static cap: protection vs the writer's work (sim, median of seeds)"
"""


def plot(out_dir, scenarios):
    dat = os.path.join(out_dir, "control_plot.tsv")
    with open(dat, "w") as f:
        for i, sc in enumerate(scenarios):
            f.write("# %s\n" % sc["id"])
            for m, r in sc["modes"].items():
                if m.startswith("cap:"):
                    f.write("%g\t%g\t%s\n" % (r["work"]["median"], r["within_pct"]["median"], m[4:]))
            f.write("\n\n")
            for m in ("none", "iolat", "adaptive"):
                if m not in sc["modes"]:
                    continue
                r = sc["modes"][m]
                f.write("%g\t%g\t%s\n" % (r["work"]["median"], r["within_pct"]["median"], m))
            f.write("\n\n")
    gp = os.path.join(out_dir, "control.gp")
    body = GNUPLOT
    for i, sc in enumerate(scenarios):
        title = sc["id"] if not sc.get("offered_pct") else "ssd, writer at %d%%" % sc["offered_pct"]
        body += ('set title "%s (target %s)" font ",9"\n' % (title, sc["target"]))
        body += ('plot "control_plot.tsv" index %d using 1:2 with linespoints pt 7 ps 0.6 lc rgb "#888888" title "static cap (8 levels)", \\\n'
                 '     "" index %d every ::0::0 using 1:2 with points pt 9 ps 1.3 lc rgb "#cc3311" title "none", \\\n'
                 '     "" index %d every ::1::1 using 1:2 with points pt 5 ps 1.3 lc rgb "#0077bb" title "io.latency", \\\n'
                 '     "" index %d every ::2::2 using 1:2 with points pt 11 ps 1.3 lc rgb "#ee7733" title "adaptive", \\\n'
                 '     95 with lines dt 2 lc rgb "#44aa44" notitle\n' % (2 * i, 2 * i + 1, 2 * i + 1, 2 * i + 1))
    body += "unset multiplot\n"
    made = []
    gnuplot = shutil.which("gnuplot")
    for term, ext in (("pngcairo size 1600,800 font ',9'", "png"), ("svg size 1600,800 font ',9'", "svg")):
        script = "set terminal %s\nset output 'control.%s'\n%s" % (term, ext, body)
        B.write_text(gp, script)
        if gnuplot:
            r = subprocess.run([gnuplot, "control.gp"], cwd=out_dir, capture_output=True, text=True)
            if r.returncode == 0:
                made.append("control.%s" % ext)
            else:
                B.log("control: gnuplot failed: %s" % r.stderr.strip()[:500])
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--iolat", default=os.path.join(B.ROOT, "build", "iolat"))
    ap.add_argument("--seeds", type=int)
    ap.add_argument("--runtime", type=int)
    ap.add_argument("--conv", type=float, help="convergence period skipped, s")
    ap.add_argument("--only", help="comma-separated scenario ids (debugging)")
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    a = ap.parse_args()
    nseeds = a.seeds or (2 if a.quick else 5)
    runtime = a.runtime or (10 if a.quick else 30)
    conv = a.conv if a.conv is not None else (3.0 if a.quick else 5.0)
    seeds = list(range(1, nseeds + 1))
    raw = os.path.join(a.out, "raw", "control")
    shutil.rmtree(raw, ignore_errors=True)
    sim = Sim(a.iolat, raw)

    bw, bw_cmd = measure_write_bw(sim, seeds, runtime)
    scen = list(CLASSIC)
    for p in RAMP_PCTS:
        sc = dict(CLASSIC[0])
        sc.update({"id": "ramp-%d" % p, "offered_pct": p,
                   "rate_iops": max(1, round(p / 100.0 * bw["median"])),  # 1 MiB writes
                   "why": "writer offered %d%% of the ssd's write bandwidth (Poisson)" % p})
        scen.append(sc)
    if a.only:
        keep = a.only.split(",")
        scen = [s for s in scen if s["id"] in keep]
    results = [scenario(sim, sc, seeds, runtime, conv) for sc in scen]
    made = plot(a.out, results) if not a.only else []
    out = {"quick": a.quick, "seeds": seeds, "runtime_s": runtime, "conv_s": conv,
           "cap_fracs": CAP_FRACS, "ssd_write_bw_mib_s": bw, "ssd_write_bw_cmd": bw_cmd,
           "scenarios": results, "plots": made, "sim_runs": sim.nruns,
           "sim_wall_s": sim.wall}
    B.write_json(os.path.join(a.out, "control.json"), out, compact=True)
    for r in results:
        g = r["goal"]
        print("control %-9s iolat within %5.1f%% work %.2f | best cap as well: %s work %s | goal %s" %
              (r["id"], g["iolat_within"], g["iolat_work"], r["best_cap_as_well"],
               "%.2f" % g["best_cap_work"] if g["best_cap_work"] is not None else "-",
               "met" if g["met"] else "NOT met"))
        a = r["goal_adaptive"]
        print("control %-9s adaptive within %5.1f%% (%s) work %.2f | best cap as well: %s work %s"
              " | 95%%: %s | goal %s" %
              (r["id"], a["within"], a["rule"], a["work"], a["best_cap_as_well"],
               "%.2f" % a["best_cap_work"] if a["best_cap_work"] is not None else "-",
               a["best_cap_95"], "met" if a["met"] else "NOT met"))


if __name__ == "__main__":
    main()
