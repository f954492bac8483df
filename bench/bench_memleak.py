#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_memleak.py - BENCHMARKS.md section 6: the article's production
result in the simulator. A web server (memory.low, io.latency target) shares
a machine with a service that leaks memory into swap on the same disk; five
modes (none, block, full, stock, nobypass) on the same seeds, five leak
speeds (0.1, 0.25, 0.5, 1, 2 x the disk's write bandwidth), the ssd and hdd
models, 5 seeds. Runs build-bench/bench/bench_memleak (one process per device
model, plus a pure-leak set without the background service on hdd), then
`iolat demo --memleak --log` once for the RPS-over-time plot (gnuplot).
Writes bench/results/memleak.json and memleak.png/.svg.

usage: bench_memleak.py [--quick] [--bench PATH] [--iolat PATH] [--out DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

MODES = ["none", "block", "full", "stock", "nobypass"]
SPEEDS = [0.1, 0.25, 0.5, 1, 2]
PLOT_DEVICE, PLOT_SPEED = "hdd", 0.5


def launch(bench, args):
    return subprocess.Popen([bench] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def collect(p, what):
    out, err = p.communicate()
    if p.returncode != 0:
        B.log("memleak: %s failed: %s" % (what, err.strip()[:500]))
        sys.exit(1)
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def agg(rows):
    """Per (device, oomd, bg, speed, mode): medians over the seeds, min-max, kills."""
    groups = {}
    for r in rows:
        groups.setdefault((r["device"], r["oomd"], r["bg"], r["speed"], r["mode"]), []).append(r)
    out = []
    for (dev, oomd, bg, speed, mode), rs in sorted(groups.items()):
        killed = [r for r in rs if r["killed"]]
        killers, victims = {}, {}
        for r in killed:
            killers[r["killer"]] = killers.get(r["killer"], 0) + 1
            victims[r["victim"]] = victims.get(r["victim"], 0) + 1
        out.append({
            "device": dev, "oomd": oomd, "bg": bg, "speed": speed, "mode": mode, "seeds": len(rs),
            "isol_mean": B.summary([r["isol_mean"] for r in rs]),
            "isol_p10": B.summary([r["isol_p10"] for r in rs]),
            "isol_min": B.summary([r["isol_min"] for r in rs]),
            "lat_imp": B.summary([r["lat_imp_mean"] for r in rs]),
            "downtime_s": B.summary([r["downtime_s"] for r in rs]),
            "killed": len(killed),
            "kill_s": B.summary([r["kill_s"] for r in killed]) if killed else None,
            "killers": killers, "victims": victims,
            "hog_slept_s": B.summary([r["hog_slept_s"] for r in rs]),
            "max_use_delay": max(r["max_use_delay"] for r in rs),
            "base_rps": B.median([r["base_rps"] for r in rs]),
        })
    return out


def plot(iolat, out_dir, raw):
    """RPS over time of every mode on one chart (one seed)."""
    d = os.path.join(raw, "memleak_plot")
    os.makedirs(d, exist_ok=True)
    r = B.run_measured([iolat, "demo", "--memleak", "--device", PLOT_DEVICE, "--speed",
                        str(PLOT_SPEED), "--log", d, "-q"])
    B.check(r, "iolat demo --memleak --log")
    gnuplot = shutil.which("gnuplot")
    made = {}
    for term, ext in (("pngcairo size 1200,500 font ',9'", "png"), ("svg size 1200,500 font ',9'", "svg")):
        gp = os.path.join(d, "memleak_%s.gp" % ext)
        lines = ["set datafile separator ','", "set terminal %s" % term,
                 "set output '%s'" % os.path.abspath(os.path.join(out_dir, "memleak." + ext)),
                 "set xlabel 'seconds since the leak started'", "set ylabel 'web requests/s'",
                 "set title 'Web RPS beside a leak at %gx the %s write bandwidth (seed 1)'" % (
                     PLOT_SPEED, PLOT_DEVICE),
                 "set key outside right", "set yrange [0:*]", "set grid"]
        lines.append("plot " + ", ".join(
            "'%s' using 1:2 with lines lw 1.5 title '%s'" % (
                os.path.join(d, "memleak_%s.csv" % m), m) for m in MODES))
        B.write_text(gp, "\n".join(lines) + "\n")
        if gnuplot:
            g = subprocess.run([gnuplot, gp], capture_output=True, text=True)
            if g.returncode == 0:
                made[ext] = "memleak." + ext
            else:
                B.log("memleak: gnuplot failed: %s" % g.stderr.strip()[:300])
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--bench", default=os.path.join(B.ROOT, "build-bench", "bench", "bench_memleak"))
    ap.add_argument("--iolat", default=os.path.join(B.ROOT, "build-bench", "iolat"))
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    a = ap.parse_args()
    seeds = 2 if a.quick else 5
    speeds = [0.25, 2] if a.quick else SPEEDS
    sp = ",".join("%g" % s for s in speeds)
    common = ["--seeds", str(seeds), "--speeds", sp, "--stock-timeout", "1200" if a.quick else "3600"]
    t0 = time.monotonic()
    B.log("memleak: %d seeds, speeds %s, ssd and hdd" % (seeds, sp))
    procs = [("ssd", launch(a.bench, ["--device", "ssd"] + common)),
             ("hdd", launch(a.bench, ["--device", "hdd"] + common))]
    rows = []
    for what, p in procs:
        rows += collect(p, what)
    nobg_p = launch(a.bench, ["--device", "hdd", "--no-bg", "--modes", "none,full"] + common)
    pre = ["--device", "hdd", "--modes", "none,full", "--seeds", str(seeds), "--speeds",
           "0.25,1", "--oomd"]
    resctl_p = launch(a.bench, pre + ["resctl"])
    desktop_p = launch(a.bench, pre + ["desktop"])
    nobg = collect(nobg_p, "hdd --no-bg")
    presets = collect(resctl_p, "hdd --oomd resctl") + collect(desktop_p, "hdd --oomd desktop")
    wall = time.monotonic() - t0
    raw = os.path.join(a.out, "raw")
    made = plot(a.iolat, a.out, raw)
    res = {
        "config": {"seeds": seeds, "speeds": speeds, "modes": MODES, "devices": ["ssd", "hdd"],
                   "memory_gib": 16, "swap_gib": 8, "rps": 200, "timeout_s": 300,
                   "stock_timeout_s": 1200 if a.quick else 3600, "oomd": "fb2018",
                   "plot": {"device": PLOT_DEVICE, "speed": PLOT_SPEED, "files": made}},
        "wall_s": wall, "runs": rows + nobg + presets, "agg": agg(rows), "agg_nobg": agg(nobg),
        "agg_presets": agg(presets),
        "calibration": {d: {"wbps": next(r["wbps"] for r in rows if r["device"] == d),
                            "target_workload_ms": next(r["target_workload_ms"] for r in rows
                                                       if r["device"] == d)}
                        for d in ("ssd", "hdd")},
    }
    B.write_json(os.path.join(a.out, "memleak.json"), res)
    B.log("memleak: %d runs in %.0f s of wall time" % (len(res["runs"]), wall))


if __name__ == "__main__":
    main()
