#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_engines.py - BENCHMARKS.md section 2: our engines against fio's.

The same job run by fio and by `iolat run` (controller on, one group whose
target is never missed), alternating fio, iolat, fio, iolat... (on the file also fio --fixedbufs,
with registered buffers as iolat uses them, as a control):
  file: 4 KiB random reads, QD 32, O_DIRECT, io_uring, one file, --seconds s
  null: the same job on the null engine (no I/O at all): IOPS per CPU core
Each process's CPU time (user + system, threads and reaped children
included) comes from wait4(). Writes bench/results/engines.json; raw outputs
go to bench/results/raw/engines/.

usage: bench_engines.py [--quick] [--iolat PATH] [--dir DIR] [--pairs N]
                        [--seconds S] [--null-seconds S] [--size SIZE]
"""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

IOLAT_JOB = """; bench_engines.py: {what}
[global]
filename={filename}
size={size}
ioengine={engine}
direct={direct}
runtime={seconds}s
time_based=1

[group:main]
target=1s          ; never missed: the controller is on, nothing is throttled

[reader]
group=main
rw=randread
bs=4k
iodepth=32
"""


def fio_argv(engine, filename, size, seconds, out_json, extra=()):
    argv = ["fio", "--name=reader", "--rw=randread", "--bs=4k", "--iodepth=32",
            "--size=" + size, "--runtime=%d" % seconds, "--time_based",
            "--output-format=json", "--output=" + out_json]
    if engine == "null":
        argv += ["--ioengine=null"]
    else:
        argv += ["--ioengine=io_uring", "--direct=1", "--filename=" + filename]
    return argv + list(extra)


def run_fio(engine, filename, size, seconds, raw, tag, tool="fio", extra=()):
    out_json = os.path.join(raw, "%s-%s-%s.json" % (tool, engine, tag))
    argv = fio_argv(engine, filename, size, seconds, out_json, extra)
    res = B.check(B.run_measured(argv), "fio")
    with open(out_json) as f:
        d = json.load(f)
    job = d["jobs"][0]
    iops = job["read"]["iops"]
    return {
        "tool": tool, "engine": engine, "iops": iops,
        "lat_p50_us": job["read"].get("clat_ns", {}).get("percentile", {}).get("50.000000", 0) / 1000.0,
        "lat_mean_us": job["read"]["lat_ns"]["mean"] / 1000.0,
        "wall_s": res["wall_s"], "cpu_s": res["cpu_s"],
        "runtime_s": job["job_runtime"] / 1000.0,
        "cmd": B.shell_join(argv),
    }


def run_iolat(iolat, engine, filename, size, seconds, raw, tag):
    job = os.path.join(raw, "iolat-%s.ini" % engine)
    B.write_text(job, IOLAT_JOB.format(
        what=engine, filename=filename, size=size, seconds=seconds,
        engine="uring" if engine == "uring" else "null",
        direct=1 if engine == "uring" else 0))
    argv = [iolat, "run", job, "-q", "--output-format=json"]
    res = B.check(B.run_measured(argv), "iolat run")
    if "using psync" in res["err"] or "unavailable" in res["err"]:
        raise SystemExit("bench: iolat run fell back from io_uring: %s\n"
                         "(build with liburing: see bench/run_all.sh)" % res["err"].strip())
    B.write_text(os.path.join(raw, "iolat-%s-%s.json" % (engine, tag)), res["out"])
    d = json.loads(res["out"])
    g = [g for g in d["groups"] if g["name"] == "main"][0]
    return {
        "tool": "iolat", "engine": engine, "iops": g["iops"],
        "lat_p50_us": g["lat_us"]["p50"],
        "lat_mean_us": g["lat_us"]["mean"],
        "wall_s": res["wall_s"], "cpu_s": res["cpu_s"],
        "runtime_s": d["duration_s"],
        "windows_missed": g["windows_missed"],
        "cmd": B.shell_join(argv),
    }


def per_core(r):
    """IOPS per CPU core: completed I/Os / CPU seconds (runtime-weighted)."""
    ios = r["iops"] * r["runtime_s"]
    return ios / r["cpu_s"] if r["cpu_s"] > 0 else None


# The tools of a round, in order. fio-fixedbufs (file only) is fio with
# registered buffers, as iolat's uring engine uses them: a control arm.
FIXEDBUFS = ["--fixedbufs"]


def bench(engine, a, iolat, filename, pairs, seconds, raw):
    tools = ["fio", "iolat"] + (["fio-fixedbufs"] if engine == "uring" else [])
    runs = []
    for i in range(pairs):
        for tool in tools:
            B.log("engines: %s %s run %d/%d (%d s)" % (engine, tool, i + 1, pairs, seconds))
            if tool == "fio":
                r = run_fio(engine, filename, a.size, seconds, raw, str(i))
            elif tool == "fio-fixedbufs":
                r = run_fio(engine, filename, a.size, seconds, raw, str(i), tool, FIXEDBUFS)
            else:
                r = run_iolat(iolat, engine, filename, a.size, seconds, raw, str(i))
            r["pair"] = i
            r["iops_per_core"] = per_core(r)
            r["cpu_util"] = r["cpu_s"] / r["wall_s"]
            # Little's law: the mean number of I/Os in flight.
            r["inflight"] = r["iops"] * r["lat_mean_us"] / 1e6
            runs.append(r)
    by = {t: [r for r in runs if r["tool"] == t] for t in tools}
    fio, ours = by["fio"], by["iolat"]
    ratio = [o["iops"] / f["iops"] for f, o in zip(fio, ours)]
    ratio_pc = [o["iops_per_core"] / f["iops_per_core"] for f, o in zip(fio, ours)
                if o["iops_per_core"] and f["iops_per_core"]]
    out = {
        "engine": engine, "pairs": pairs, "seconds": seconds, "runs": runs, "tools": tools,
        "ratio_iops": B.summary(ratio),
        "ratio_iops_per_core": B.summary(ratio_pc),
        "fio_cmd": fio[0]["cmd"], "iolat_cmd": ours[0]["cmd"],
    }
    for t in tools:
        k = t.replace("-", "_")
        for f in ("iops", "iops_per_core", "cpu_util", "lat_mean_us", "inflight"):
            out["%s_%s" % (k, f)] = B.summary([r[f] for r in by[t]])
        out["%s_cmd" % k] = by[t][0]["cmd"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--iolat", default=os.path.join(B.ROOT, "build", "iolat"))
    ap.add_argument("--dir", default="/var/tmp/iolat-bench")
    ap.add_argument("--pairs", type=int)
    ap.add_argument("--seconds", type=int)
    ap.add_argument("--null-seconds", type=int)
    ap.add_argument("--size", default="1g")
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    a = ap.parse_args()
    pairs = a.pairs or (2 if a.quick else 5)
    seconds = a.seconds or (3 if a.quick else 20)
    nsec = a.null_seconds or (2 if a.quick else 10)
    if not shutil.which("fio"):
        raise SystemExit("bench: fio is not installed (apt-get install fio)")
    raw = os.path.join(a.out, "raw", "engines")
    os.makedirs(raw, exist_ok=True)
    os.makedirs(a.dir, exist_ok=True)
    filename = os.path.join(a.dir, "engine.dat")

    # Lay the file out (iolat run creates and fills it) and warm up, untimed.
    B.log("engines: laying out %s (%s) and warming up" % (filename, a.size))
    run_iolat(a.iolat, "uring", filename, a.size, 2, raw, "warmup")

    result = {
        "quick": a.quick, "file": filename, "size": a.size,
        "file_bench": bench("uring", a, a.iolat, filename, pairs, seconds, raw),
        "null_bench": bench("null", a, a.iolat, filename, pairs, nsec, raw),
    }
    B.write_json(os.path.join(a.out, "engines.json"), result)
    fb, nb = result["file_bench"], result["null_bench"]
    print("engines file: fio %.0f IOPS, iolat %.0f IOPS, ratio %.3f" %
          (fb["fio_iops"]["median"], fb["iolat_iops"]["median"], fb["ratio_iops"]["median"]))
    print("engines null: fio %.0f IOPS/core, iolat %.0f IOPS/core, ratio %.3f" %
          (nb["fio_iops_per_core"]["median"], nb["iolat_iops_per_core"]["median"],
           nb["ratio_iops_per_core"]["median"]))


if __name__ == "__main__":
    main()
