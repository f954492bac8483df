#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_engines.py - BENCHMARKS.md section 2: our engines against fio's.

The same job run by fio and by `iolat run` (controller on, one group whose
target is never missed), fio then iolat, pair after pair, the configurations
interleaved within each round so that both tools of a pair see the same
machine:
  file, io_uring: 4 KiB random reads, O_DIRECT, one file, QD 1, 8 and 32
                  (one job at iodepth=QD)
  file, psync:    the same with pread(2): QD jobs (numjobs=QD, iodepth=1)
  null:           the io_uring QD 32 job on the null engine (no I/O): IOPS
                  per CPU core
Each process's CPU time (user + system, threads and reaped children
included) comes from wait4(). For the file jobs the device's own view is
taken around each run from /proc/diskstats of the disk holding the file
(the iostat -x figures: reads/s, r_await, aqu-sz, %util, request size,
merges); the disk is shared, so it counts every reader of it, which the
writes column (nobody else's business but a sign of foreign load) helps to
spot. Writes bench/results/engines.json; raw outputs go to
bench/results/raw/engines/.

usage: bench_engines.py [--quick] [--iolat PATH] [--dir DIR] [--pairs N]
                        [--seconds S] [--null-seconds S] [--size SIZE]
                        [--configs ID,ID...]
"""
import argparse
import json
import os
import shutil
import sys
import time

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
iodepth={iodepth}
numjobs={numjobs}
"""

# The file configurations: (id, engine, QD). io_uring: one job at iodepth=QD;
# psync: QD jobs at iodepth=1 (fio's numjobs).
FILE_CONFIGS = [("uring-qd1", "uring", 1), ("uring-qd8", "uring", 8),
                ("uring-qd32", "uring", 32), ("psync-qd1", "psync", 1),
                ("psync-qd8", "psync", 8), ("psync-qd32", "psync", 32)]


def shape(engine, qd):
    """(iodepth, numjobs) of a configuration."""
    return (1, qd) if engine == "psync" else (qd, 1)


# ---- the device's view: /proc/diskstats of the file's disk ----

def disk_of(path):
    """The whole disk (e.g. vda) holding @path, or None."""
    st = os.stat(path)
    base = "/sys/dev/block/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    try:
        real = os.path.realpath(base)
    except OSError:
        return None
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)
    name = os.path.basename(real)
    return name if os.path.exists("/sys/block/%s/stat" % name) else None


def diskstats(disk):
    if not disk:
        return None
    with open("/proc/diskstats") as f:
        for line in f:
            p = line.split()
            if p[2] == disk:
                return [int(x) for x in p[3:14]]
    return None


def device_view(a, b, wall_s):
    """iostat -x's read figures between two /proc/diskstats samples."""
    if not a or not b or wall_s <= 0:
        return {}
    d = [y - x for x, y in zip(a, b)]
    reads, merged, sectors, read_ms, writes = d[0], d[1], d[2], d[3], d[4]
    ticks_ms, queue_ms = d[9], d[10]
    return {
        "dev_reads_s": reads / wall_s,
        "dev_r_await_us": read_ms * 1000.0 / reads if reads else None,
        "dev_aqu": queue_ms / 1000.0 / wall_s,
        "dev_util_pct": min(100.0, ticks_ms / 10.0 / wall_s),
        "dev_rq_kb": sectors * 512 / 1024.0 / reads if reads else None,
        "dev_merged": merged,
        "dev_writes_s": writes / wall_s,
    }


def measured(argv, disk):
    a = diskstats(disk)
    t = time.monotonic()
    res = B.run_measured(argv)
    wall = time.monotonic() - t
    res["dev"] = device_view(a, diskstats(disk), wall)
    return res


# ---- one run of each tool ----

def fio_argv(engine, qd, filename, size, seconds, out_json):
    iodepth, numjobs = shape(engine, qd)
    argv = ["fio", "--name=reader", "--rw=randread", "--bs=4k", "--iodepth=%d" % iodepth,
            "--size=" + size, "--runtime=%d" % seconds, "--time_based",
            "--output-format=json", "--output=" + out_json]
    if numjobs > 1:
        argv += ["--numjobs=%d" % numjobs, "--group_reporting"]
    if engine == "null":
        return argv + ["--ioengine=null"]
    return argv + ["--ioengine=" + ("io_uring" if engine == "uring" else engine),
                   "--direct=1", "--filename=" + filename]


def run_fio(engine, qd, filename, size, seconds, raw, tag, disk):
    out_json = os.path.join(raw, "fio-%s-qd%d-%s.json" % (engine, qd, tag))
    argv = fio_argv(engine, qd, filename, size, seconds, out_json)
    res = B.check(measured(argv, disk), "fio")
    with open(out_json) as f:
        d = json.load(f)
    job = d["jobs"][0]
    r = {
        "tool": "fio", "iops": job["read"]["iops"],
        "lat_mean_us": job["read"]["lat_ns"]["mean"] / 1000.0,
        "wall_s": res["wall_s"], "cpu_s": res["cpu_s"],
        "runtime_s": job["job_runtime"] / 1000.0 / shape(engine, qd)[1],
        "cmd": B.shell_join(argv),
    }
    r.update(res["dev"])
    return r


def run_iolat(iolat, engine, qd, filename, size, seconds, raw, tag, disk):
    iodepth, numjobs = shape(engine, qd)
    job = os.path.join(raw, "iolat-%s-qd%d.ini" % (engine, qd))
    B.write_text(job, IOLAT_JOB.format(
        what="%s QD %d" % (engine, qd), filename=filename, size=size, seconds=seconds,
        engine=engine, direct=0 if engine == "null" else 1, iodepth=iodepth, numjobs=numjobs))
    argv = [iolat, "run", job, "-q", "--output-format=json"]
    res = B.check(measured(argv, disk), "iolat run")
    if engine == "uring" and ("using psync" in res["err"] or "unavailable" in res["err"]):
        raise SystemExit("bench: iolat run fell back from io_uring: %s\n"
                         "(build with liburing: see bench/run_all.sh)" % res["err"].strip())
    B.write_text(os.path.join(raw, "iolat-%s-qd%d-%s.json" % (engine, qd, tag)), res["out"])
    d = json.loads(res["out"])
    g = [g for g in d["groups"] if g["name"] == "main"][0]
    r = {
        "tool": "iolat", "iops": g["iops"],
        "lat_mean_us": g["lat_us"]["mean"],
        "wall_s": res["wall_s"], "cpu_s": res["cpu_s"],
        "runtime_s": d["duration_s"],
        "windows_missed": g["windows_missed"],
        "cmd": B.shell_join(argv),
    }
    r.update(res["dev"])
    return r


def finish_run(r, qd):
    ios = r["iops"] * r["runtime_s"]
    r["iops_per_core"] = ios / r["cpu_s"] if r["cpu_s"] > 0 else None
    r["cpu_util"] = r["cpu_s"] / r["wall_s"]
    # Little's law: the mean number of I/Os in flight, as the tool saw them.
    r["inflight"] = r["iops"] * r["lat_mean_us"] / 1e6
    r["qd"] = qd
    return r


FIELDS = ("iops", "iops_per_core", "cpu_util", "lat_mean_us", "inflight", "dev_reads_s",
          "dev_r_await_us", "dev_aqu", "dev_util_pct", "dev_rq_kb", "dev_writes_s")


def summarize(cid, engine, qd, runs, pairs, seconds):
    fio = [r for r in runs if r["tool"] == "fio"]
    ours = [r for r in runs if r["tool"] == "iolat"]
    out = {"id": cid, "engine": engine, "qd": qd, "pairs": pairs, "seconds": seconds,
           "iodepth": shape(engine, qd)[0], "numjobs": shape(engine, qd)[1], "runs": runs,
           "tools": ["fio", "iolat"],
           "ratio_iops": B.summary([o["iops"] / f["iops"] for f, o in zip(fio, ours)]),
           "ratio_iops_per_core": B.summary([o["iops_per_core"] / f["iops_per_core"]
                                             for f, o in zip(fio, ours)
                                             if o["iops_per_core"] and f["iops_per_core"]]),
           "fio_cmd": fio[0]["cmd"], "iolat_cmd": ours[0]["cmd"]}
    for t, rs in (("fio", fio), ("iolat", ours)):
        for f in FIELDS:
            out["%s_%s" % (t, f)] = B.summary([r[f] for r in rs if r.get(f) is not None])
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
    ap.add_argument("--configs", help="file configurations to run (default: all): " +
                    ",".join(c[0] for c in FILE_CONFIGS))
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    a = ap.parse_args()
    # Many short pairs: on a shared disk the two runs of a pair see more nearly the
    # same load the closer they are, and the median of many ratios resists outliers.
    pairs = a.pairs or (2 if a.quick else 12)
    seconds = a.seconds or (2 if a.quick else 3)
    nsec = a.null_seconds or (2 if a.quick else 3)
    configs = [c for c in FILE_CONFIGS
               if not a.configs or c[0] in a.configs.split(",")]
    if not shutil.which("fio"):
        raise SystemExit("bench: fio is not installed (apt-get install fio)")
    raw = os.path.join(a.out, "raw", "engines")
    os.makedirs(raw, exist_ok=True)
    os.makedirs(a.dir, exist_ok=True)
    filename = os.path.join(a.dir, "engine.dat")

    # Lay the file out (iolat run creates and fills it) and warm up, untimed.
    B.log("engines: laying out %s (%s) and warming up" % (filename, a.size))
    run_iolat(a.iolat, "uring", 32, filename, a.size, 2, raw, "warmup", None)
    disk = disk_of(filename)

    runs = {c[0]: [] for c in configs}
    for i in range(pairs):
        for cid, engine, qd in configs:
            for tool in ("fio", "iolat"):
                B.log("engines: %s %s pair %d/%d (%d s)" % (cid, tool, i + 1, pairs, seconds))
                if tool == "fio":
                    r = run_fio(engine, qd, filename, a.size, seconds, raw, str(i), disk)
                else:
                    r = run_iolat(a.iolat, engine, qd, filename, a.size, seconds, raw, str(i),
                                  disk)
                r["pair"] = i
                runs[cid].append(finish_run(r, qd))
    nruns = []
    for i in range(pairs):
        for tool in ("fio", "iolat"):
            B.log("engines: null %s pair %d/%d (%d s)" % (tool, i + 1, pairs, nsec))
            if tool == "fio":
                r = run_fio("null", 32, filename, a.size, nsec, raw, str(i), None)
            else:
                r = run_iolat(a.iolat, "null", 32, filename, a.size, nsec, raw, str(i), None)
            r["pair"] = i
            nruns.append(finish_run(r, 32))

    result = {
        "quick": a.quick, "file": filename, "size": a.size, "disk": disk,
        "configs": [summarize(cid, engine, qd, runs[cid], pairs, seconds)
                    for cid, engine, qd in configs],
        "null_bench": summarize("null", "null", 32, nruns, pairs, nsec),
    }
    B.write_json(os.path.join(a.out, "engines.json"), result)
    for c in result["configs"]:
        print("engines %s: fio %.0f IOPS, iolat %.0f IOPS, ratio %.3f" %
              (c["id"], c["fio_iops"]["median"], c["iolat_iops"]["median"],
               c["ratio_iops"]["median"]))
    nb = result["null_bench"]
    print("engines null: fio %.0f IOPS/core, iolat %.0f IOPS/core, ratio %.3f" %
          (nb["fio_iops_per_core"]["median"], nb["iolat_iops_per_core"]["median"],
           nb["ratio_iops_per_core"]["median"]))


if __name__ == "__main__":
    main()
