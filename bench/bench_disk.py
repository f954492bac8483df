#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_disk.py - BENCHMARKS.md section 4: the demo on this machine's disk.

Runs `iolat demo` (a 4 KiB random reader with a target beside a 1 MiB
O_DIRECT writer at QD 32; no control, a static cap on the writer, then
io.latency) --runs times on real files in --dir, parses its table, and
reports per mode the median and min-max over runs of the reader's
p50/p90/p99 and the writer's MiB/s. Writes bench/results/disk.json; the
demo's own output goes to bench/results/raw/disk/.

usage: bench_disk.py [--quick] [--iolat PATH] [--dir DIR] [--runs N] [--seconds S]
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
DUR = r"([\d.]+)(ns|us|ms|s)"
ROW = re.compile(r"^(no control|static cap.*?|io\.latency.*?|adaptive.*?)\s+" + DUR + r"\s+" + DUR +
                 r"\s+" + DUR + r"\s+([\d.]+)\s+(\S.*)$")
MODES = [("none", "no control"), ("cap", "static cap"), ("iolat", "io.latency"),
         ("adaptive", "adaptive")]


def us(v, unit):
    return float(v) * UNITS[unit]


def parse(text):
    rows = {}
    header = []
    for line in text.splitlines():
        m = ROW.match(line.strip())
        if not m:
            if line.startswith("iolat demo:") or line.startswith("on ") or \
               line.startswith("1 MiB"):
                header.append(line.strip())
            continue
        label = m.group(1).strip()
        key = [k for k, prefix in MODES if label.startswith(prefix)][0]
        rows[key] = {"label": label, "p50_us": us(m.group(2), m.group(3)),
                     "p90_us": us(m.group(4), m.group(5)),
                     "p99_us": us(m.group(6), m.group(7)),
                     "writer_mib_s": float(m.group(8)), "writer_depth": m.group(9).strip()}
    return rows, header


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--iolat", default=os.path.join(B.ROOT, "build", "iolat"))
    ap.add_argument("--dir", default="/var/tmp/iolat-bench")
    ap.add_argument("--runs", type=int)
    ap.add_argument("--seconds", type=int)
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    a = ap.parse_args()
    runs = a.runs or (1 if a.quick else 3)
    seconds = a.seconds or (3 if a.quick else 10)
    raw = os.path.join(a.out, "raw", "disk")
    os.makedirs(raw, exist_ok=True)
    os.makedirs(a.dir, exist_ok=True)
    argv = [a.iolat, "demo", "-q", "--seconds", str(seconds), "--dir", a.dir]
    per = []
    header = []
    for i in range(runs):
        B.log("disk: demo run %d/%d (%d modes x %d s)" % (i + 1, runs, len(MODES), seconds))
        r = B.check(B.run_measured(argv), "iolat demo")
        B.write_text(os.path.join(raw, "demo-%d.txt" % i), r["out"] + r["err"])
        rows, header = parse(r["out"])
        if set(rows) != {k for k, _ in MODES}:
            raise SystemExit("bench: could not parse the demo's table:\n" + r["out"])
        per.append(rows)
    out = {"runs": runs, "seconds": seconds, "cmd": B.shell_join(argv), "header": header,
           "last_output": r["out"].strip(), "modes": {}}
    for key, _ in MODES:
        out["modes"][key] = {
            "label": per[-1][key]["label"],
            **{f: B.summary([p[key][f] for p in per])
               for f in ("p50_us", "p90_us", "p99_us", "writer_mib_s")},
            "writer_depth": [p[key]["writer_depth"] for p in per],
        }
    B.write_json(os.path.join(a.out, "disk.json"), out)
    for key, _ in MODES:
        m = out["modes"][key]
        print("disk %-5s reader p50 %.0f us p90 %.0f us p99 %.0f us, writer %.1f MiB/s" %
              (key, m["p50_us"]["median"], m["p90_us"]["median"], m["p99_us"]["median"],
               m["writer_mib_s"]["median"]))


if __name__ == "__main__":
    main()
