#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_simspeed.py - BENCHMARKS.md section 5 (simulator part): how fast
`iolat sim` runs, in virtual seconds per wall second and events per second.

Two sets of job files, each run --runs times (the median is reported):
  devices  the classic protection scenario (reader + writer, io.latency on)
           on each device model: ssd, hdd, bad-ssd
  groups   1, 100, 1000, 10000 groups in a 3-level tree (as bench_scale),
           one Poisson reader (4 KiB, 20 IOPS) on each deepest leaf, one leaf
           with a target, on the ssd model
Figures come from `iolat sim -v` ("N events, V virtual s in W wall s").
Writes bench/results/simspeed.json; job files go to bench/results/raw/simspeed/.

usage: bench_simspeed.py [--quick] [--iolat PATH] [--runs N]
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

DEVICE_JOB = """; bench_simspeed.py: classic protection on {device}
[global]
device={device}
runtime={runtime}s

[group:main]
target={target}

[group:system/fbpkg]

[reader]
group=main
rw=randread
bs=4k
iodepth={rqd}

[writer]
group=system/fbpkg
rw=write
bs={wbs}
iodepth={wqd}
"""

# (device, target, reader QD, writer bs, writer QD, virtual s, quick virtual s):
# long enough for ~0.1 s of wall time or more (iolat sim -v prints ms).
DEVICES = [("ssd", "150us", 4, "1m", 32, 30, 10), ("hdd", "30ms", 1, "256k", 32, 1000, 300),
           ("bad-ssd", "25ms", 2, "1m", 16, 1000, 300)]
# (groups, virtual s, quick virtual s)
GROUPS = [(1, 600, 200), (100, 60, 20), (1000, 10, 3), (10000, 10, 3)]
LINE = re.compile(r"(\d+) events, ([\d.]+) virtual s in ([\d.]+) wall s")


def tree_paths(n):
    """Group paths of a 3-level tree of n groups, breadth-first (bench_scale's shape)."""
    if n == 1:
        return ["l1-0"], ["l1-0"]
    f = 1
    while f + f * f + f ** 3 < n:
        f += 1
    l1 = ["l1-%d" % i for i in range(f)][:n]
    l2 = ["%s/l2-%d" % (p, j) for p in l1 for j in range(f)][:n - len(l1)]
    left = n - len(l1) - len(l2)
    l3 = []
    for i, p in enumerate(l2):
        k = (left - len(l3) + (len(l2) - i) - 1) // (len(l2) - i)
        l3 += ["%s/l3-%d" % (p, j) for j in range(k)]
    allp = l1 + l2 + l3
    deepest = l3 or l2 or l1
    return allp, deepest


def groups_job(n, runtime):
    allp, leaves = tree_paths(n)
    lines = ["; bench_simspeed.py: %d groups, a reader on each of %d leaves" % (n, len(leaves)),
             "[global]", "device=ssd", "runtime=%ds" % runtime, ""]
    for p in allp:
        lines.append("[group:%s]" % p)
        if p == leaves[0]:
            lines.append("target=1ms")
        lines.append("")
    for i, p in enumerate(leaves):
        lines += ["[r%d]" % i, "group=%s" % p, "rw=randread", "bs=4k", "iodepth=1",
                  "rate_iops=20", ""]
    return "\n".join(lines), len(leaves)


def measure(iolat, job, runs):
    env = dict(os.environ)
    env["PATH"] = "/nonexistent"  # no gnuplot needed
    res = []
    for _ in range(runs):
        r = B.run_measured([iolat, "sim", job, "-v"], env=env)
        if r["rc"] != 0:
            # e.g. a limit of the job-file parser: reported, not fatal.
            return {"error": r["err"].strip().splitlines()[-1] if r["err"].strip() else
                    "exit %d" % r["rc"], "cmd": B.shell_join([iolat, "sim", B.rel(job), "-v"])}
        m = LINE.search(r["err"])
        if not m:
            raise SystemExit("bench: no events line from iolat sim -v: %s" % r["err"][-500:])
        ev, virt, wall = int(m.group(1)), float(m.group(2)), float(m.group(3))
        wall = max(wall, 1e-6)
        res.append({"events": ev, "virtual_s": virt, "wall_s": wall,
                    "proc_wall_s": r["wall_s"], "cpu_s": r["cpu_s"]})
    return {
        "events": res[0]["events"], "virtual_s": res[0]["virtual_s"],
        "wall_s": B.summary([x["wall_s"] for x in res]),
        "proc_wall_s": B.summary([x["proc_wall_s"] for x in res]),
        "virt_per_wall": B.summary([x["virtual_s"] / x["wall_s"] for x in res]),
        "events_per_s": B.summary([x["events"] / x["wall_s"] for x in res]),
        "cmd": B.shell_join([iolat, "sim", B.rel(job), "-v"]),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--iolat", default=os.path.join(B.ROOT, "build", "iolat"))
    ap.add_argument("--runs", type=int)
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    a = ap.parse_args()
    runs = a.runs or (2 if a.quick else 5)
    raw = os.path.join(a.out, "raw", "simspeed")
    os.makedirs(raw, exist_ok=True)
    out = {"runs": runs, "devices": [], "groups": []}
    for dev, target, rqd, wbs, wqd, rt, rtq in DEVICES:
        job = os.path.join(raw, "device-%s.ini" % dev)
        B.write_text(job, DEVICE_JOB.format(device=dev, runtime=rtq if a.quick else rt, target=target,
                                            rqd=rqd, wbs=wbs, wqd=wqd))
        B.log("simspeed: device %s" % dev)
        m = measure(a.iolat, job, runs)
        m["device"] = dev
        out["devices"].append(m)
    for n, rt, rtq in GROUPS:
        job = os.path.join(raw, "groups-%d.ini" % n)
        text, nleaves = groups_job(n, rtq if a.quick else rt)
        B.write_text(job, text)
        B.log("simspeed: %d groups" % n)
        m = measure(a.iolat, job, runs)
        m.update({"groups": n, "jobs": nleaves})
        out["groups"].append(m)
    B.write_json(os.path.join(a.out, "simspeed.json"), out)
    for m in out["devices"] + out["groups"]:
        if "error" in m:
            print("simspeed %d groups: %s" % (m["groups"], m["error"]))
            continue
        print("simspeed %-12s %9d events %6.1f virtual s/wall s %10.0f events/s" %
              (m.get("device") or "%d groups" % m["groups"], m["events"],
               m["virt_per_wall"]["median"], m["events_per_s"]["median"]))


if __name__ == "__main__":
    main()
