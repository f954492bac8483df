#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_openloop.py - BENCHMARKS.md section 8: open-loop readers and the
Pareto check. iolatd with unmodified fio on this machine's disk, judged by
readers that cannot hide their stalls: fio issuing 4 KiB random reads at a
fixed rate with Poisson arrivals (libaio, a deep queue; latency = fio's `lat`,
submission + completion) at two or more rates, the closed-loop QD 1 reader
of section 7 with its reads/s, optionally `iolat run`'s own open-loop reader
(when the binary knows rate_process), and a reader that comes and goes while
the knee moves (issue 26 item 6). Beside each: a 1 MiB QD 32 O_DIRECT fio
writer in a sibling v1 blkio (or v2 io) cgroup, started LEAD s first. Modes
per reader (the plan: openplan.py): the reader alone, no control, iolatd
`control=adaptive` at each target and `control=article` for reference, the
kernel's throttle caps (blkio.throttle.write_bps_device / io.max wbps)
bisected around the knee within each repetition, and caps challenging each
adaptive run (1.1x its writer). The write limit in force and the writer's
delivered bytes are sampled every 100 ms (the limit iolatd wrote; bytes from
blkio.throttle.io_service_bytes / io.stat) and logged per 1 s period in
bench/results/raw/openloop/. Needs root, fio, a cgroup hierarchy with the
block throttle and an iolatd built with BPF; otherwise the JSON says why.
Writes bench/results/openloop.json. Takes ~85 min with the defaults (3
repetitions, 10 s runs, five readers with iolat run's; ~70 without it),
~8 min with --quick; more when runs disturbed by other traffic on the disk
are run again.

usage: bench_openloop.py [--quick] [--iolatd PATH] [--iolat PATH] [--dir DIR] [--out DIR]
                         [--seconds S] [--reps N] [--rates R,...] [--targets US,...] ...
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_iolatd  # noqa: E402
import benchlib as B  # noqa: E402
import cgroups  # noqa: E402
import judge as J  # noqa: E402
import openplan  # noqa: E402
import openread  # noqa: E402
import oracle  # noqa: E402

PERIOD_S = 1.0


def iolat_has_rate_process(iolat):
    """Whether `iolat run` knows rate_process (an open loop timed from the intended start)."""
    try:
        out = subprocess.run([iolat, "help", "keys"], capture_output=True, text=True,
                             timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return any(l.split()[:1] == ["rate_process"] or l.startswith("rate_process|")
               for l in out.splitlines())


class OpenLoop(bench_iolatd.IolatdFio):
    name = "iolatd open-loop"
    children = ("prot", "prot/main", "prot/fbpkg", "tenant")
    protected = "prot/main"
    rep = 0   # set by openplan before each run

    def why_not(self):
        if self.a.iolat_reader == "on" and not iolat_has_rate_process(self.a.iolat):
            return "%s has no rate_process key (--iolat-reader on)" % self.a.iolat
        return super().why_not()

    def run_mode(self, mode, st):
        raw = os.path.join(self.a.out, "raw", "openloop")
        os.makedirs(raw, exist_ok=True)
        key = mode["key"]
        reader = mode["reader"]
        fbpkg = self.cg("prot/fbpkg")
        daemon = None
        if mode["kind"] == "cap":
            cgroups.set_write_cap(fbpkg, self.ver, self.dev, mode["cap_bps"])
        if mode["kind"] == "control":
            daemon, _ = self.start_daemon(mode, raw)
        poll = (lambda: cgroups.write_cap(fbpkg, self.ver, self.dev)) if daemon else None
        smp = self.sampler(poll)
        errs = open(os.path.join(raw, key + ".err"), "w")
        w = mover = None
        try:
            if mode["kind"] != "solo":
                w = self.start("prot/fbpkg", openread.writer_argv(
                    self, st, os.path.join(raw, key + ".writer.json")), out=errs)
                time.sleep(st["lead_s"])
                self.alive(w, "the fio writer", errs.name)
            rj = os.path.join(raw, key + ".reader.json")
            argv, timeout = openread.reader_argv(self, st, reader, rj)
            if st["reader_nice"]:
                argv = ["nice", "-n", str(st["reader_nice"])] + argv
            if openplan.kind_of(reader) == "cycle":
                mover = openread.start_mover(self, st, raw)
            rd = self.start("prot/main", argv, out=errs)
            self.wait(rd, timeout)
            t_end = time.monotonic()
            if rd.returncode != 0:
                self.alive(rd, "the reader", errs.name)
        finally:
            for p in [w] + (mover or []):
                if p:
                    self.stop(p)
            errs.close()
            smp.stop()
            if daemon:
                self.alive(daemon, "iolatd", os.path.join(raw, key + ".iolatd.log"))
                self.stop(daemon)
            if mode["kind"] == "cap":
                cgroups.set_write_cap(fbpkg, self.ver, self.dev, 0)
        return self.results(mode, st, rj, smp, t_end, raw)

    def results(self, mode, st, rj, smp, t_end, raw):
        reader = mode["reader"]
        r = openread.parse(reader, rj)
        rate = openplan.rate_of(reader, st)
        r["rate_target"] = rate
        r["reads_s"] = r["reader_ios"] / r["busy_s"] if r.get("busy_s") else None
        t_first = smp.first_io("prot/main", 0)
        if t_first is None:
            raise SystemExit("bench: no read of the reader seen in its cgroup")
        cycle = openplan.kind_of(reader) == "cycle"
        t0 = t_first + (0 if cycle else st["ramp_s"])
        t1 = min(t_end, t0 + (st["cycle_span_s"] if cycle else r["duration_s"]))
        if mode["kind"] != "solo":
            r["writer_mb_s"] = smp.cg_rate("prot/fbpkg", 1, t0, t1) / 1e6
            r["writer_mb"] = r["writer_mb_s"] * (t1 - t0)
        if cycle:
            r["tenant_mb_s"] = smp.cg_rate("tenant", 1, t0, t1) / 1e6
        if mode["kind"] == "cap":
            r["cap_bps"] = mode["cap_bps"]
        self.foreign(smp, t0, t1, r)
        if mode["kind"] == "control":
            pts = [(s[0], s[3] or 0, s[2]["prot/fbpkg"][1]) for s in smp.samples]
            r["series"] = [[t, v] for t, v in smp.polled(t0)]
            r["periods"] = J.periods(pts, t0, t1, PERIOD_S)
            log = os.path.join(raw, "r%d.%s.periods.csv" % (self.rep, mode["key"]))
            B.write_text(log, "t_s,limit_mb_s,delivered_mb_s\n" + "".join(
                "%.1f,%.1f,%.1f\n" % (t, l / 1e6, d / 1e6) for t, l, d in r["periods"]))
        return r

    def describe(self):
        d = super().describe()
        d.update(section=8, cap_how="the kernel's block throttle on the writer's cgroup (%s)" % (
            "blkio.throttle.write_bps_device" if self.ver == 1 else "io.max wbps"),
            latency="fio's `lat` (submission + completion, `--lat_percentiles=1`); "
            "`iolat run`'s own reader: from each read's arrival (its schedule), so "
            "a read that waited to be issued counts that wait",
            series_how="the write limit in force on the writer's cgroup (what iolatd "
            "wrote), read every 100 ms; per 1 s period with the bytes the writer's cgroup "
            "did (%s)" % ("blkio.throttle.io_service_bytes" if self.ver == 1 else "io.stat"))
        return d


def add_args(ap):
    ap.add_argument("--quick", action="store_true", help="a smoke run (~8 min)")
    ap.add_argument("--dir", default="/var/tmp/iolat-bench", help="where the files go")
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    ap.add_argument("--iolatd", default=os.path.join(B.ROOT, "build", "iolatd"))
    ap.add_argument("--iolat", default=os.path.join(B.ROOT, "build", "iolat"))
    ap.add_argument("--seconds", type=float, help="measured seconds per run (10; quick 3)")
    ap.add_argument("--reps", type=int, help="repetitions (3; quick 2)")
    ap.add_argument("--rates", help="open-loop reader rates, reads/s (1000,3000; quick 3000)")
    ap.add_argument("--targets", help="the reader's targets in µs (300,1000)")
    ap.add_argument("--article-targets", help="targets of control=article, for reference "
                    "(1000; quick: none; 0: none)")
    ap.add_argument("--no-qd1", action="store_true", help="leave out the closed-loop QD 1 reader "
                    "(left out of --quick: section 7 runs it)")
    ap.add_argument("--iolat-reader", choices=("auto", "on", "off"), default="auto",
                    help="`iolat run`'s own open-loop reader: auto = when it knows rate_process")
    ap.add_argument("--no-cycle", action="store_true", help="leave out item 6's reader")
    ap.add_argument("--cycle", help="the coming-and-going reader: RATE,ON_S,OFF_S,CYCLES "
                    "(3000,3,3,4; quick 3000,2,2,2)")
    ap.add_argument("--knee-mover", choices=("tenant", "cpu", "none"), default="tenant",
                    help="what moves the knee in the middle third of the cycle runs")
    ap.add_argument("--tenant-mb-s", type=float, default=200.0,
                    help="the outside tenant's write rate (MB/s)")
    ap.add_argument("--depth", type=int, default=256, help="the open-loop readers' queue depth")
    ap.add_argument("--reader-nice", type=int, default=0,
                    help="run the reader at this nice value (-20..19; e.g. -10 on a machine "
                    "busy with other work, so that its latency is the disk's, not the CPU's)")
    ap.add_argument("--cap-range", help="the bisection's bracket, MB/s: LO,HI (20,3000)")
    ap.add_argument("--bisect", help="bisection steps: FIRST,MORE (first target, each other; "
                    "5,3; quick 3,1)")
    ap.add_argument("--retries", type=int, default=3, help="reruns of a disturbed run")


def ints(text, what, n=None, zero=False):
    v = oracle.floats(text, what) if not zero or text.strip() != "0" else []
    if n is not None and len(v) != n:
        oracle.bad("%s: expected %d comma-separated numbers, got '%s'" % (what, n, text))
    return [int(x) for x in v]


def settings(a):
    """The run's settings; a bad value is one line and exit 2, before anything runs."""
    q = a.quick
    cyc = ints(a.cycle, "--cycle", 4) if a.cycle else ([3000, 2, 2, 2] if q else [3000, 3, 3, 4])
    lo_hi = ints(a.cap_range, "--cap-range", 2) if a.cap_range else [20, 3000]
    bis = [int(x) for x in a.bisect.split(",")] if a.bisect and all(
        x.strip().isdigit() for x in a.bisect.split(",")) else None
    if a.bisect and (not bis or len(bis) != 2 or bis[0] < 1):
        oracle.bad("--bisect: expected FIRST,MORE (FIRST >= 1), got '%s'" % a.bisect)
    st = {
        "seconds": a.seconds or (3.0 if q else 10.0), "reps": a.reps or (2 if q else 3),
        "lead_s": 1.0 if q else oracle.LEAD_S, "ramp_s": 0.5 if q else oracle.RAMP_S,
        "read_size": oracle.QUICK_READ_SIZE if q else oracle.READ_SIZE,
        "write_size": oracle.QUICK_WRITE_SIZE if q else oracle.WRITE_SIZE,
        "rates": ints(a.rates, "--rates", zero=True) if a.rates else ([3000] if q else
                                                                        [1000, 3000]),
        "targets_us": ints(a.targets, "--targets") if a.targets else list(oracle.TARGETS_US),
        "article_targets_us": ints(a.article_targets, "--article-targets", zero=True)
        if a.article_targets else ([] if q else [1000]),
        "qd1": not a.no_qd1 and not q, "cycle": not a.no_cycle,
        "cycle_rate": cyc[0], "cycle_on_s": cyc[1], "cycle_off_s": cyc[2], "cycles": cyc[3],
        "cycle_article": False, "knee_mover": a.knee_mover, "tenant_mb_s": a.tenant_mb_s,
        "depth": a.depth, "reader_nice": a.reader_nice, "cap_lo_bps": lo_hi[0] * 10 ** 6, "cap_hi_bps": lo_hi[1] * 10 ** 6,
        "bisect_first": bis[0] if bis else (3 if q else 5),
        "bisect_more": bis[1] if bis else (1 if q else 3),
        "retries": a.retries, "quick": q,
    }
    st["cycle_span_s"] = st["cycles"] * (st["cycle_on_s"] + st["cycle_off_s"])
    if st["seconds"] <= 1 or st["reps"] < 1 or a.retries < 0 or a.depth < 1 or \
            lo_hi[0] >= lo_hi[1] or min(cyc) < 1 or a.tenant_mb_s <= 0 or \
            not -20 <= a.reader_nice <= 19:
        oracle.bad("--seconds must exceed 1, --reps be >= 1, --retries >= 0, --depth >= 1, "
                   "--cap-range LO < HI, --cycle values >= 1, --tenant-mb-s > 0, "
                   "--reader-nice -20..19")
    use_iolat = a.iolat_reader == "on" or (a.iolat_reader == "auto" and
                                            iolat_has_rate_process(a.iolat))
    st["iolat_rates"] = [max(st["rates"] or [3000])] if use_iolat else []
    st["iolat_reader"] = a.iolat_reader
    return st


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_args(ap)
    a = ap.parse_args()
    st = settings(a)
    if not openplan.readers(st):
        oracle.bad("no reader left to run (--rates 0, --no-qd1, --no-cycle)")
    return oracle.main(OpenLoop(a), st, os.path.join(a.out, "openloop.json"),
                       {"cmd": B.shell_join([os.path.relpath(sys.argv[0], B.ROOT)] + sys.argv[1:]),
                        "settings": st}, runner=openplan.run_all)


if __name__ == "__main__":
    sys.exit(main())
