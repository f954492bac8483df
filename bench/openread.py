# SPDX-License-Identifier: MIT
"""openread.py - the processes of BENCHMARKS.md section 8 (bench_openloop.py)
and how their results are read: the fio writer, the readers of each kind
(fio open loop, fio closed loop QD 1, `iolat run`'s open loop, the reader
that comes and goes), the knee mover (a tenant writing outside iolatd's
tree, or a CPU hog on every core) and the readers' JSON. python3 standard
library only; the driver's main thread.
"""
import json
import os
import sys

import bench_iolatd
import benchlib as B
import openplan

PERCENTILES = "50:90:99:99.9"


def ms(s):
    return "%dms" % round(s * 1000)


def fio_common(path, size, out):
    return ["fio", "--output-format=json", "--output=" + out, "--filename=" + path,
            "--size=%d" % size, "--direct=1", "--lat_percentiles=1",
            "--percentile_list=" + PERCENTILES]


def writer_argv(drv, st, out):
    """The 1 MiB QD 32 O_DIRECT writer, running past the reader's end (it is stopped)."""
    span = st["cycle_span_s"] if st["cycle"] else 0
    return fio_common(drv.wfile, st["write_size"], out) + [
        "--rw=write", "--bs=1m", "--iodepth=32", "--ioengine=libaio", "--time_based",
        "--runtime=" + ms(st["lead_s"] + st["ramp_s"] + max(st["seconds"], span) + 60),
        "--name=writer"]


def open_loop(st, rate):
    return ["--rw=randread", "--bs=4k", "--ioengine=libaio", "--iodepth=%d" % st["depth"],
            "--rate_iops=%d" % rate, "--rate_process=poisson"]


def iolat_job(drv, st, rate):
    """`iolat run`'s job file for its own open-loop reader (no controller in it: iolatd
    controls; the run's latency counts from each read's intended start)."""
    return "\n".join([
        "[global]", "direct=1", "time_based=1", "ramp_time=" + ms(st["ramp_s"]), "",
        "[group:main]", "",
        "[reader]", "group=main", "filename=" + drv.rfile, "size=%d" % st["read_size"],
        "rw=randread", "bs=4k", "iodepth=%d" % st["depth"], "ioengine=uring",
        "rate_iops=%d" % rate, "rate_process=poisson",
        "runtime=" + ms(st["seconds"]), ""])  # measured after ramp_time, as fio's


def reader_argv(drv, st, reader, out):
    """(argv, timeout s) of one reader kind, writing its JSON to out."""
    kind, rate = openplan.kind_of(reader), openplan.rate_of(reader, st)
    timed = ["--time_based", "--runtime=" + ms(st["seconds"]), "--ramp_time=" + ms(st["ramp_s"])]
    slack = st["seconds"] + st["ramp_s"] + 60
    if kind == "ol":
        return fio_common(drv.rfile, st["read_size"], out) + open_loop(st, rate) + timed + [
            "--name=reader"], slack
    if kind == "qd":
        return fio_common(drv.rfile, st["read_size"], out) + [
            "--rw=randread", "--bs=4k", "--ioengine=psync", "--iodepth=1"] + timed + [
            "--name=reader"], slack
    if kind == "iolat":
        jf = out[:-len(".json")] + ".ini"
        B.write_text(jf, iolat_job(drv, st, rate))
        return [drv.a.iolat, "run", jf, "-q", "--no-control", "--output-format=json",
                "--output", out], slack
    # cycle: one job per busy period, each starting on its turn; reported as one group
    argv = fio_common(drv.rfile, st["read_size"], out) + open_loop(st, rate) + [
        "--group_reporting", "--time_based"]
    period = st["cycle_on_s"] + st["cycle_off_s"]
    for i in range(st["cycles"]):
        argv += ["--name=busy%d" % i, "--startdelay=" + ms(i * period),
                 "--runtime=" + ms(st["cycle_on_s"])]
    return argv, st["cycle_span_s"] + 60


def start_mover(drv, st, raw):
    """What moves the knee for the middle third of a cycle run, started with the
    reader (each process waits its turn itself): [processes]."""
    third = st["cycle_span_s"] / 3.0
    if st["knee_mover"] == "tenant":
        return [drv.start("tenant", fio_common(drv.wfile, st["write_size"] // 2,
                                                os.path.join(raw, "tenant.json")) + [
            "--offset=%d" % (st["write_size"] // 2), "--rw=write", "--bs=1m", "--iodepth=8",
            "--ioengine=libaio", "--rate=%dk" % round(st["tenant_mb_s"] * 1000),
            "--startdelay=" + ms(third), "--time_based", "--runtime=" + ms(third),
            "--name=tenant"])]
    if st["knee_mover"] == "cpu":
        hog = ("import time\ntime.sleep(%f)\nend = time.monotonic() + %f\n"
               "while time.monotonic() < end:\n    pass\n" % (third, third))
        return [drv.start(None, [sys.executable, "-c", hog]) for _ in range(os.cpu_count() or 1)]
    return []


def parse(reader, path):
    """The reader's figures: p50/p90/p99/p99.9/mean µs, reads, the measured
    seconds (duration_s) and the seconds it was busy (busy_s)."""
    if openplan.kind_of(reader) == "iolat":
        with open(path) as f:
            d = json.load(f)
        j = {x["name"]: x for x in d["jobs"]}["reader"]
        lat = j["lat_us"]   # from each read's arrival
        return {"p50_us": lat["p50"], "p90_us": lat["p90"], "p99_us": lat["p99"],
                "p999_us": lat.get("p99.9"), "mean_us": lat.get("mean"),
                "reader_ios": j["read"]["ios"], "duration_s": d["duration_s"],
                "busy_s": d["duration_s"], "open_loop": j.get("open_loop")}
    job = bench_iolatd.fio_json(path)["jobs"][0]   # the cycle's jobs: one group
    rd = job["read"]
    pct = rd["lat_ns"]["percentile"]
    busy = job["job_runtime"] / 1e3   # summed over the group's jobs
    return {"p50_us": pct["50.000000"] / 1e3, "p90_us": pct["90.000000"] / 1e3,
            "p99_us": pct["99.000000"] / 1e3, "p999_us": pct["99.900000"] / 1e3,
            "mean_us": rd["lat_ns"]["mean"] / 1e3, "reader_ios": rd["total_ios"],
            "duration_s": busy, "busy_s": busy}
