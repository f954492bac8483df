#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_disk.py - BENCHMARKS.md section 4: `iolat run` on this machine's disk
against the oracle, the best static cap a user could pick (design:
oracle.py). One `iolat run` per mode and repetition, both jobs in one job
file: the reader (group `main`, 4 KiB randread, QD 1, psync, O_DIRECT) and
the writer (group `fbpkg`, 1 MiB write, QD 32, io_uring, O_DIRECT, started
first: the reader has startdelay=LEAD, the report starts after
ramp_time=LEAD+RAMP). Modes: the reader alone, no control (`--no-control`),
static caps (`rate=` on the writer, `--no-control`; the grid goes up to 1.25x the
uncontrolled rate, since `rate=` delivers less than its rate here), and `--control article`
and `--control adaptive` with the reader's target. The reader's latency is
iolat's end-to-end figure; the writer's MB/s its bytes over the same measured
time; the adaptive runs' limit in force comes from `--log` (the writer's
pace_mib_s, and its parent's limit_mib_s). With root, `iolat` runs in a v1
blkio (or v2) cgroup of its own so that other traffic on the disk can be
told apart (without root that check is left out, and the JSON says so).
The pacing comparison (design: pacing.py) adds, at a few rates R, runs with
the kernel's block throttle holding `iolat run`'s cgroup to R for writes
beside the `rate=R` runs (root needed; without it the JSON says why).
Each run also records the disk's mean queue (aqu-sz) over the reader's
measured time. Writes bench/results/disk.json; job files and outputs of the last run go to
bench/results/raw/disk/.

usage: bench_disk.py [--quick] [--iolat PATH] [--dir DIR] [--out DIR] [--seconds S]
                     [--reps N] [--caps MB/s,...] [--fractions F,...] [--targets US,...]
                     [--pace-fractions F,... | --pace-rates MB/s,... | --no-pace]
"""
import argparse
import contextlib
import csv
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
import diskdriver  # noqa: E402
import oracle  # noqa: E402
import pacing  # noqa: E402


def ms(s):
    return "%dms" % round(s * 1000)


class IolatRun(diskdriver.DiskDriver):
    name = "iolat run"
    children = ("run",)

    def __init__(self, a, pace):
        super().__init__(a)
        self.pace = pace          # pacing.settings()
        self.pace_ref_bps = None  # the uncontrolled rate the pacing rates came from
        self.kernel_why_not = None

    def why_not(self):
        if not os.access(self.a.iolat, os.X_OK):
            return "%s missing (build it first)" % self.a.iolat
        return super().why_not()

    def more_modes(self, st, uncontrolled_bps, caps):
        """The pacing comparison's `rate=` twins and kernel-throttle modes."""
        if not self.pace["on"]:
            return caps, []
        self.pace_ref_bps = uncontrolled_bps
        self.kernel_why_not = pacing.kernel_why_not(self.cg("run"), self.ver)
        return pacing.plan(self.pace, uncontrolled_bps, caps, self.kernel_why_not)

    def arrange(self, plan, extra, rep):
        return pacing.arrange(plan, extra, rep)

    def job(self, mode, st):
        """The job file of one mode."""
        lead, ramp, secs = st["lead_s"], st["ramp_s"], st["seconds"]
        t = ["[global]", "direct=1", "time_based=1", "ramp_time=" + ms(lead + ramp), "",
             "[group:main]"]
        if mode["kind"] == "control":
            t.append("target=%dus" % mode["target_us"])
        t += ["", "[group:fbpkg]", "",
              "[reader]", "group=main", "filename=" + self.rfile, "size=%d" % st["read_size"],
              "rw=randread", "bs=4k", "iodepth=1", "ioengine=psync", "startdelay=" + ms(lead),
              "runtime=" + ms(secs - lead), ""]
        if mode["kind"] != "solo":
            t += ["[writer]", "group=fbpkg", "filename=" + self.wfile,
                  "size=%d" % st["write_size"], "rw=write", "bs=1m", "iodepth=32",
                  "ioengine=uring", "runtime=" + ms(secs)]
            if mode["kind"] == "cap":
                t.append("rate=%d" % mode["cap_bps"])
        return "\n".join(t) + "\n"

    def run_mode(self, mode, st):
        raw = os.path.join(self.a.out, "raw", "disk")
        os.makedirs(raw, exist_ok=True)
        jf = os.path.join(raw, mode["key"] + ".ini")
        out = os.path.join(raw, mode["key"] + ".json")
        logdir = os.path.join(self.tmp, "log-" + mode["key"])
        shutil.rmtree(logdir, ignore_errors=True)
        B.write_text(jf, self.job(mode, st))
        argv = [self.a.iolat, "run", jf, "-q", "--output-format=json", "--output", out]
        if mode["kind"] == "control":
            argv += ["--control", mode["control"]]
            if mode["control"] == "adaptive":
                argv += ["--log", logdir]
        else:
            argv.append("--no-control")
        errf = open(os.path.join(raw, mode["key"] + ".err"), "w")
        smp = self.sampler()
        limit = pacing.throttled(self.cg("run"), self.ver, self.dev, mode["cap_bps"]) \
            if mode["kind"] == pacing.KIND else contextlib.nullcontext()
        with limit:
            p = self.start("run", argv, out=errf)
            self.wait(p, st["seconds"] + st["ramp_s"] + 120)
        errf.close()
        if smp:
            smp.stop()
        if p.returncode != 0:
            raise SystemExit("bench: %s failed (exit %d): %s\n%s" % (
                B.shell_join(argv), p.returncode, jf, open(errf.name).read()[-2000:]))
        r = self.parse(out, mode)
        if smp:
            anchor = smp.first_io("own", 0 if mode["kind"] == "solo" else 1)
            if anchor is None:
                raise SystemExit("bench: no I/O of `iolat run` seen in its cgroup")
            lead = 0 if mode["kind"] == "solo" else st["lead_s"]
            t0 = anchor + lead + st["ramp_s"]
            self.foreign(smp, t0, smp.samples[-1][0], r)
            r["aqu_sz"] = smp.queue(t0, smp.samples[-1][0])
        else:
            self.foreign(None, 0, 0, r)
        if mode.get("control") == "adaptive":
            r["series"], r["limit_series"] = self.series(logdir, st["ramp_s"])
        return r

    @staticmethod
    def parse(out, mode):
        with open(out) as f:
            d = json.load(f)
        g = {x["name"]: x for x in d["groups"]}
        lat = g["main"]["lat_us"]
        r = {"p50_us": lat["p50"], "p90_us": lat["p90"], "p99_us": lat["p99"],
             "reader_ios": g["main"]["read"]["ios"], "duration_s": d["duration_s"]}
        if mode["kind"] != "solo":
            r["writer_mb_s"] = g["fbpkg"]["write"]["bytes"] / d["duration_s"] / 1e6
        return r

    @staticmethod
    def series(logdir, ramp_s):
        """([t, pace bytes/s], [t, limit bytes/s]) of the writer, t since the reader started."""
        pace, limit = [], []
        with open(os.path.join(logdir, "fbpkg.csv")) as f:
            for row in csv.DictReader(f):
                t = round(float(row["time_s"]) + ramp_s, 3)
                pace.append([t, round(float(row["pace_mib_s"]) * 1048576)])
                limit.append([t, round(float(row["limit_mib_s"]) * 1048576)])
        return pace, limit

    def describe(self):
        d = super().describe()
        d.update(section=4, engine="io_uring", latency="iolat's end-to-end latency (submit to "
                 "completion) of the reader's I/Os, from `iolat run`'s JSON",
                 cap_how="`rate=` on the writer's job (the controller off)",
                 series_how="the writer's `pace_mib_s` from `--log` (one sample per 100 ms)")
        p = pacing.describe(self.pace, self.pace_ref_bps, self.ver, self.kernel_why_not)
        if p:
            d["pacing"] = p
        return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    oracle.add_args(ap)
    pacing.add_args(ap)
    ap.add_argument("--iolat", default=os.path.join(B.ROOT, "build", "iolat"))
    a = ap.parse_args()
    # `rate=` delivers less than its rate on this disk: the sweep goes past 1x.
    st = oracle.settings(a, fractions=oracle.FRACTIONS + (1.25,))
    return oracle.main(IolatRun(a, pacing.settings(a)), st, os.path.join(a.out, "disk.json"),
                       {"cmd": B.shell_join([os.path.relpath(sys.argv[0], B.ROOT)] + sys.argv[1:])})


if __name__ == "__main__":
    sys.exit(main())
