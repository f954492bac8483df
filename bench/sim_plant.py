#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sim_plant.py - the simulator's kernel-throttle plant against the disk
(issue 26 item 3; docs/simulator-scenarios.md section 6). Simulation only:
no real disk.

On a job file (default examples/sim-openloop-throttle.ini: section 8's
open-loop reader and 1 MiB writer on the calibrated vdisk):
  sweep   the caps of section 8 (throttle_bps= on the writer's group,
          --no-control): the reader's p50/p90/p99 and the writer per cap,
          per seed; the oracle per target and seed (the highest cap whose
          reader p90 is within it)
  adapt   --control adaptive at each target and seed: the reader's p90, the
          writer, and writer / oracle cap (the seed's own oracle)
plus one run on the pace gate (the same file without the throttle keys:
the rate in force at once, one write at a time) against the same oracle;
and the disk's figures beside them: the adaptive runs' writer / their
repetition's oracle cap from section 8's results (--disk-json, default
bench/results/openloop.json: the open-loop reader at --disk-reader, ol3000),
and the caps' reader p90 from bench/results/raw/openloop/ when --disk-raw
names it (the last repetition's fio JSON per cap).

usage: sim_plant.py [--iolat PATH] [--jobfile F] [--seeds 1,2,3]
                    [--disk-json F] [--disk-reader R] [--disk-raw DIR] [--caps 27,32,...]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_openloop  # noqa: E402

CAPS = [27, 32, 37, 70, 112, 131, 153, 179, 193, 209, 245, 283, 335, 458, 529, 857]
TARGETS = {"300us": 300.0, "1ms": 1000.0}


def disk_ratios(path, reader):
    """{target name: [iolatd adaptive writer / its repetition's oracle cap's]} from section 8."""
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        return {}
    out = {}
    for tname, tus in TARGETS.items():
        key = "%s.adaptive-%dus" % (reader, tus)
        if any(m["key"] == key for m in d.get("modes", [])):
            out[tname] = [v["w_orc"] for v in gen_openloop.verdicts(d, reader, key) if "w_orc" in v]
    return out


def run(iolat, text, args):
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        out = subprocess.run([iolat, "sim", path, "-q", "--output-format=json"] + args,
                             capture_output=True, text=True, check=False)
    finally:
        os.unlink(path)
    if out.returncode:
        sys.exit("iolat sim: " + out.stderr.strip())
    jobs = {j["name"]: j for j in json.loads(out.stdout)["jobs"]}
    return jobs["reader"]["lat_us"], jobs["writer"]["mib_s"] * 1.048576


def with_key(text, section, key, value):
    """@text with key=value set in [section] (replaced or added)."""
    out, cur, done = [], None, False
    for line in text.splitlines():
        m = re.match(r"\s*\[(.+)\]", line)
        if m:
            if cur == section and not done:
                out.append(f"{key}={value}")
                done = True
            cur = m.group(1)
        elif cur == section and re.match(rf"\s*{re.escape(key)}\s*=", line):
            line, done = f"{key}={value}", True
        out.append(line)
    if not done:
        out.append(f"{key}={value}")
    return "\n".join(out) + "\n"


def disk_sweep(raw):
    """The last repetition's reader p90 (us) per cap, from fio's JSON."""
    res = {}
    for name in os.listdir(raw):
        m = re.match(r"ol3000\.cap-(\d+)\.reader\.json$", name)
        if not m:
            continue
        with open(os.path.join(raw, name)) as f:
            job = json.load(f)["jobs"][0]["read"]
        pct = (job.get("lat_ns") or job["clat_ns"])["percentile"]
        res[int(m.group(1))] = pct["90.000000"] / 1e3
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iolat", default="build/iolat")
    ap.add_argument("--jobfile", default="examples/sim-openloop-throttle.ini")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--caps", default=",".join(map(str, CAPS)))
    ap.add_argument("--disk-raw", default="")
    ap.add_argument("--disk-json", default="bench/results/openloop.json")
    ap.add_argument("--disk-reader", default="ol3000")
    a = ap.parse_args()
    dratios = disk_ratios(a.disk_json, a.disk_reader)
    seeds = [int(s) for s in a.seeds.split(",")]
    caps = [int(c) for c in a.caps.split(",")]
    base = open(a.jobfile).read()
    disk = disk_sweep(a.disk_raw) if a.disk_raw else {}

    print("## cap sweep (throttle_bps= on the writer's group, --no-control)\n")
    print("| cap MB/s | " + " | ".join(f"seed {s} p90" for s in seeds) +
          " | p99 (seed 1) | writer MB/s | disk p90 (last rep) |")
    print("|---:|" + "---:|" * len(seeds) + "---:|---:|---:|")
    p90 = {}
    for cap in caps + [0]:
        text = with_key(base, "group:system/fbpkg", "throttle_bps", cap * 1000000)
        row, p99, mbs = [], None, None
        for s in seeds:
            lat, w = run(a.iolat, text, ["--no-control", "--seed", str(s)])
            p90[(cap, s)] = lat["p90"]
            row.append(f"{lat['p90']:.0f} µs")
            if p99 is None:
                p99, mbs = lat["p99"], w
        d = f"{disk[cap]:.0f} µs" if cap in disk else "–"
        print(f"| {cap or 'none'} | " + " | ".join(row) + f" | {p99:.0f} µs | {mbs:.0f} | {d} |")

    print("\n## adaptive against the oracle (writer ÷ the seed's oracle cap)\n")
    print("| target | seed | oracle cap | reader p90 | p99 | writer MB/s | ratio | disk's ratios (§8) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for tname, tus in TARGETS.items():
        text = with_key(base, "group:main", "target", tname)
        ratios = []
        for s in seeds:
            ok = [c for c in caps if p90[(c, s)] <= tus]
            oracle = max(ok) if ok else 0
            lat, w = run(a.iolat, text, ["--control", "adaptive", "--seed", str(s)])
            ratio = w / oracle if oracle else float("inf")
            ratios.append(ratio)
            disk_r = "/".join(f"{r:.2f}×" for r in dratios.get(tname, [])) or "–"
            print(f"| {tname} | {s} | {oracle} | {lat['p90']:.0f} µs | {lat['p99']:.0f} µs | "
                  f"{w:.0f} | {ratio:.2f}× | {disk_r} |")
        kind = re.sub(r"(?m)^(throttle_slice|actuate_period|actuate_delay)=.*\n", "", text)
        lat, w = run(a.iolat, kind, ["--control", "adaptive", "--seed", str(seeds[0])])
        oracle = max([c for c in caps if p90[(c, seeds[0])] <= tus] or [0])
        print(f"| {tname} | {seeds[0]}, pace gate (the kind plant) | {oracle} | {lat['p90']:.0f} µs | "
              f"{lat['p99']:.0f} µs | {w:.0f} | {w / oracle if oracle else 0:.2f}× | |")
        med = sorted(ratios)[len(ratios) // 2]
        drs = sorted(dratios.get(tname, []))
        dmed = drs[len(drs) // 2] if drs else 0
        print(f"| {tname} | median | | | | | {med:.2f}× | " +
              (f"median {dmed:.2f}× (the simulator {(med / dmed - 1) * 100:+.0f} %) |" if dmed
               else "– |"))


if __name__ == "__main__":
    main()
