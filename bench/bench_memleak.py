#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_memleak.py - BENCHMARKS.md section 6: the article's production
result in the simulator. A web server (memory.low, io.latency target) shares
a machine with a service that leaks memory into swap on the same disk; five
modes (none, block, full, stock, nobypass) on the same seeds, five leak
speeds (0.1, 0.25, 0.5, 1, 2 x the disk's write bandwidth), the ssd and hdd
models, 5 seeds, oomd's "percgroup" preset and the "hhvm" web. Then the
comparisons, each a set of its own: the kernel's 5 % count (the >= 1x
escape), oomd's 2018 ruleset alone (fb2018), the rd-hashd web calibration,
a pure leak (no background service), the resctl and desktop presets. Runs
build-bench/bench/bench_memleak (one process per set, two at a time), then
`iolat demo --memleak --log` once for the plot (its SVG, and its PNG when
gnuplot is installed). Writes bench/results/memleak.json, memleak.svg/.png.

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


def sets(seeds, speeds):
    """Each set: its name and bench_memleak's arguments."""
    sp = ",".join("%g" % s for s in speeds)
    common = ["--seeds", str(seeds), "--speeds", sp]
    pre = ["--seeds", str(seeds), "--speeds", "0.25,1", "--device", "hdd", "--modes", "none,full"]
    return [
        ("main_hdd", ["--device", "hdd"] + common),
        ("main_ssd", ["--device", "ssd"] + common),
        ("kernel5", ["--device", "hdd", "--modes", "full", "--kernel-5pct"] + common),
        ("fb2018", ["--device", "hdd", "--modes", "none,full", "--oomd", "fb2018"] + common),
        ("rdhashd_hdd", ["--device", "hdd", "--modes", "none,full,stock", "--web", "rdhashd"] + common),
        ("rdhashd_ssd", ["--device", "ssd", "--modes", "none,full,stock", "--web", "rdhashd"] + common),
        ("nobg", ["--device", "hdd", "--modes", "none,full", "--no-bg"] + common),
        ("resctl", pre + ["--oomd", "resctl"]),
        ("desktop", pre + ["--oomd", "desktop"]),
    ]


def run_sets(bench, todo, stock_timeout):
    """Run the sets two at a time; {name: [run, ...]}."""
    out, running = {}, []
    todo = list(todo)
    while todo or running:
        while todo and len(running) < 2:
            name, args = todo.pop(0)
            p = subprocess.Popen([bench] + args + ["--stock-timeout", str(stock_timeout)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            running.append((name, p))
        name, p = running.pop(0)
        o, e = p.communicate()
        if p.returncode != 0:
            B.log("memleak: %s failed: %s" % (name, e.strip()[:500]))
            sys.exit(1)
        out[name] = [json.loads(l) for l in o.splitlines() if l.strip()]
    return out


def agg(rows):
    """Per (device, oomd, web, bg, kernel 5 %, speed, mode): medians over the seeds, kills."""
    groups = {}
    for r in rows:
        key = (r["device"], r["oomd"], r["web"], r["bg"], r["kernel_five_pct"], r["speed"], r["mode"])
        groups.setdefault(key, []).append(r)
    out = []
    for (dev, oomd, web, bg, k5, speed, mode), rs in sorted(groups.items()):
        killed = [r for r in rs if r["killed"]]
        in5 = [r for r in killed if r["kill_s"] <= 300]
        killers, victims = {}, {}
        for r in killed:
            killers[r["killer"]] = killers.get(r["killer"], 0) + 1
            victims[r["victim"]] = victims.get(r["victim"], 0) + 1
        s = lambda k: B.summary([r[k] for r in rs])  # noqa: E731
        out.append({
            "device": dev, "oomd": oomd, "web": web, "bg": bg, "kernel_five_pct": k5,
            "speed": speed, "mode": mode, "seeds": len(rs),
            "isol_mean": s("isol_mean"), "isol_p10": s("isol_p10"), "isol_min": s("isol_min"),
            "lat_imp": s("lat_imp_mean"), "downtime_s": s("downtime_s"), "thrash_s": s("thrash_s"),
            "loss_s": s("loss_s"), "isol_60s": s("isol_60s"), "engage_s": s("engage_s"),
            "isol_before": s("isol_before"), "isol_after": s("isol_after"),
            "killed": len(killed), "killed_5min": len(in5),
            "kill_s": B.summary([r["kill_s"] for r in killed]) if killed else None,
            "killers": killers, "victims": victims,
            "hog_slept_s": s("hog_slept_s"), "max_use_delay": max(r["max_use_delay"] for r in rs),
            "base_rps": B.median([r["base_rps"] for r in rs]),
        })
    return out


def plot(iolat, out_dir, raw):
    """The demo's own plot of every mode (one seed): memleak.svg, and .png with gnuplot."""
    d = os.path.join(raw, "memleak_plot")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d, exist_ok=True)
    r = B.run_measured([iolat, "demo", "--memleak", "--device", PLOT_DEVICE, "--speed",
                        str(PLOT_SPEED), "--log", d])
    B.check(r, "iolat demo --memleak --log")
    B.write_text(os.path.join(out_dir, "memleak_demo.txt"), r["out"])
    made = {}
    for ext in ("svg", "png"):
        src = os.path.join(d, "memleak_rps." + ext)
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(out_dir, "memleak." + ext))
            made[ext] = "memleak." + ext
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
    stock_timeout = 1200 if a.quick else 3600
    t0 = time.monotonic()
    B.log("memleak: %d seeds, speeds %s" % (seeds, speeds))
    runs = run_sets(a.bench, sets(seeds, speeds), stock_timeout)
    wall = time.monotonic() - t0
    made = plot(a.iolat, a.out, os.path.join(a.out, "raw"))
    main_rows = runs["main_hdd"] + runs["main_ssd"]
    res = {
        "config": {"seeds": seeds, "speeds": speeds, "modes": MODES, "devices": ["ssd", "hdd"],
                   "memory_gib": 16, "swap_gib": 8, "rps": 200, "timeout_s": 300,
                   "stock_timeout_s": stock_timeout, "oomd": "percgroup", "web": "hhvm",
                   "reboot_min": 10, "rejoin_min": 30,
                   "plot": {"device": PLOT_DEVICE, "speed": PLOT_SPEED, "files": made}},
        "wall_s": wall, "nr_runs": sum(len(v) for v in runs.values()),
        "agg": agg(main_rows), "sets": {k: agg(v) for k, v in runs.items() if not k.startswith("main")},
        "calibration": {d: {"wbps": next(r["wbps"] for r in main_rows if r["device"] == d),
                            "target_workload_ms": next(r["target_workload_ms"] for r in main_rows
                                                       if r["device"] == d)}
                        for d in ("ssd", "hdd")},
    }
    B.write_json(os.path.join(a.out, "memleak.json"), res)
    B.log("memleak: %d runs in %.0f s of wall time" % (res["nr_runs"], wall))


if __name__ == "__main__":
    main()
