#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vm_weights.py - reads the console of the guest scenario "weights"
(tests/vm/guest/weights.sh, booted by bench/vm_weights.sh) into
bench/results/vm_weights.json: the disk and io.cost's model and QoS as the
guest showed them, and every run (repetition, case, mode: none, iocost,
iolatd) with its samples in shares.py's form ([[t, {a: bytes, b: bytes}]], t
in seconds from the run's first sample), t_busy (the sample before the last
busy group's first bytes), t_end, iolatd's budgets and status, the guest's
CPU (busy share, iolatd's share) over the judged seconds, and what went wrong. The
figures are judged by gen_vmweights.py (shares.py's rules). python3 standard
library only; one thread.

usage: vm_weights.py --console LOG --out JSON [--cmd TEXT] [--wall S] [--accel tcg|kvm]
"""
import argparse
import datetime
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

MODES = ("none", "iocost", "iolatd")


def _g(cg, weight, load):
    return {"cg": cg, "weight": weight, "load": load}


# The guest's cases (weights.sh's weight_of), in bench_weights.py's form.
CASES = [
    {"key": "w100_300", "kind": "pair", "title": "two writers weighted 100:300",
     "groups": [_g("a", 100, "writer"), _g("b", 300, "writer")]},
    {"key": "w100_100", "kind": "pair", "title": "two writers weighted 100:100",
     "groups": [_g("a", 100, "writer"), _g("b", 100, "writer")]},
    {"key": "alone", "kind": "alone", "title": "one writer weighted 100 alone (its sibling, "
     "weighted 300, idle)", "groups": [_g("a", 100, "writer"), _g("b", 300, "idle")]},
]
LINE = re.compile(r"VMW ([a-z][a-z.]*)(?: (.*))?$")


def first_before(samples, key):
    """The time of the sample before group key's first bytes (None: none)."""
    if not samples:
        return None
    base = samples[0][1][key]
    for a, b in zip(samples, samples[1:]):
        if b[1][key] > base:
            return a[0]
    return None


def _num(v):
    try:
        return int(v)
    except ValueError:
        return None


def finish(run, kv):
    """A run's "end" line: rebase the times on its first sample, find t_busy."""
    case = next((c for c in CASES if c["key"] == run["case"]), None)
    run["ok"] = kv.get("ok") == 1 and case is not None
    if kv.get("why"):
        run["why"] = kv["why"]
    smp = run["samples"]
    t0 = smp[0][0] if smp else 0.0
    run["samples"] = [[round(t - t0, 3), v] for t, v in smp]
    run["budgets"] = [[round(t - t0, 3), v] for t, v in run["budgets"]]
    run["t_end"] = round(kv.get("t_end_ms", 0) / 1000.0 - t0, 3)
    busy = [g["cg"] for g in case["groups"] if g["load"] != "idle"] if case else []
    firsts = [first_before(run["samples"], k) for k in busy]
    if not busy or any(f is None for f in firsts):
        run["ok"] = False
        run.setdefault("why", "no_io_sampled")
        run["t_busy"] = None
    else:
        run["t_busy"] = max(firsts)
    return run


def parse(lines):
    """The console's VMW lines as {info, iocost_model, iocost_qos, runs, complete}."""
    d = {"info": {}, "iocost_model": [], "iocost_qos": [], "iocost_weights": None,
         "runs": [], "complete": False}
    run = None
    for raw in lines:
        i = raw.find("VMW ")
        m = LINE.match(raw[i:].rstrip("\r\n")) if i >= 0 else None
        if not m:
            continue
        tag, rest = m.group(1), m.group(2) or ""
        if tag == "s" and run is not None:
            f = rest.split()
            vals = [_num(x) for x in f[:3]]
            if len(f) < 3 or None in vals:
                continue   # a line broken by other console output
            t = vals[0] / 1000.0
            run["samples"].append([t, {"a": vals[1], "b": vals[2]}])
            if len(f) >= 5:
                run["budgets"].append([t, {k: [_num(v), None] for k, v in zip("ab", f[3:5])
                                           if _num(v) is not None}])
        elif tag == "run":
            kv = B.parse_kv(rest)
            run = {"rep": kv.get("rep"), "case": kv.get("case"), "mode_name": kv.get("mode"),
                   "samples": [], "budgets": [], "status": {}, "notes": []}
        elif tag == "end" and run is not None:
            d["runs"].append(finish(run, B.parse_kv(rest)))
            run = None
        elif tag == "status" and run is not None and rest.startswith("device "):
            kv = B.parse_kv(rest)
            run["device_status"] = {k: kv.get(k) for k in ("weights", "kernel_weights",
                                                           "capacity_bps")}
        elif tag == "status" and run is not None:
            kv = B.parse_kv(rest)
            run["status"][str(kv.get("path"))] = {
                k: kv.get(k) for k in ("weight", "hweight_ppm", "share_bps", "use_bps",
                                       "donated_bps", "budget_bps")}
        elif tag == "cpu" and run is not None:
            kv = B.parse_kv(rest)
            ticks = kv.get("ticks")
            run["cpu"] = {"busy": kv["busy_pm"] / 1000.0 if isinstance(kv.get("busy_pm"), int)
                          else None,
                          "iolatd": kv["iolatd_ticks"] / ticks if ticks and isinstance(
                              kv.get("iolatd_ticks"), int) else None}
        elif tag == "iocost.stat" and run is not None:
            path, _, stat = rest.partition(" ")
            run.setdefault("iocost_stat", {})[path] = stat
        elif tag in ("stuck", "stack", "iolatd.log") or tag.startswith("fio."):
            if run is not None:
                run["notes"].append("%s %s" % (tag, rest))
        elif tag == "info":
            d["info"] = B.parse_kv(rest)
        elif tag == "iocost.model":
            d["iocost_model"].append(rest)
        elif tag == "iocost.qos":
            d["iocost_qos"].append(rest)
        elif tag == "iocost.weights":
            d["iocost_weights"] = rest
        elif tag == "done":
            d["complete"] = True
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--console", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cmd", default="bench/vm_weights.sh")
    ap.add_argument("--wall", type=float)
    ap.add_argument("--accel", default="tcg", help="QEMU's accelerator (tcg, kvm)")
    a = ap.parse_args()
    try:
        with open(a.console, errors="replace") as f:
            d = parse(f)
    except OSError as e:
        print("vm_weights: %s: %s" % (a.console, e.strerror), file=sys.stderr)
        return 1
    if not d["runs"]:
        print("vm_weights: %s: no run in the console (the guest failed?)" % a.console,
              file=sys.stderr)
        return 1
    info = d["info"]
    reps = max(r["rep"] for r in d["runs"] if isinstance(r["rep"], int))
    keys = []
    for r in d["runs"]:
        if r["case"] not in keys:
            keys.append(r["case"])
    d.update(date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
             cmd=a.cmd, wall_s=a.wall, accel=a.accel, reps=reps, modes=list(MODES),
             cases=[c for c in CASES if c["key"] in keys],
             settings={"seconds": info.get("secs"), "skip_s": info.get("skip"), "reps": reps})
    B.write_json(a.out, d, compact=True)
    bad = [r for r in d["runs"] if not r["ok"]]
    print("vm_weights: %d runs (%d failed: %s), %s" % (
        len(d["runs"]), len(bad), ", ".join("rep %s %s %s: %s" % (
            r["rep"], r["case"], r["mode_name"], r.get("why")) for r in bad) or "-",
        "complete" if d["complete"] else "INCOMPLETE (no 'VMW done')"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
