#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_calibrate.py - BENCHMARKS.md section 10: `iolat calibrate` against an
oracle sweep on this machine's disk, same disk, same hour (issue 29, item 7:
calibrate in <= 90 s, its knee within +-15 % of the oracle's).

Each repetition runs both, which one first alternating:

  calibrate  `iolat calibrate DIR/calib --output-format=json -q` (two scratch
             files it makes and removes), its wall time, knee and target;
  oracle     the same knee found the slow way, with calibrate's definition
             (src/calib/calibrate.c) but the kernel's pacing: the reader, a
             4 KiB random O_DIRECT QD 1 `iolat run` job like calibrate's, in a
             cgroup of its own; the writer, a 1 MiB sequential O_DIRECT QD 32
             `iolat run` job like calibrate's, started LEAD_S before it in a
             sibling v1 blkio cgroup (or v2) capped by the kernel's block
             throttle (blkio.throttle.write_bps_device / io.max wbps). First
             the reader alone (its solo p90 and reads/s give the threshold,
             by calibrate's rule), then the writer uncapped (its delivered
             rate bounds the search), then the cap bisected --steps times
             between 0 and that rate: a cap is "within" when the reader's p90
             is at most the threshold and it did at least half its solo
             reads/s (calibrate's rule); then caps at CURVE x the bisection's
             knee and the reader alone again. Every point is judged again
             against the mean of both solos and the knee is fitted through
             all of them by calibrate's rule (src/calib/calib_fit.c: in the
             range the verdicts allow, where a least-squares line of the
             margins at 0.7-1.4 x the bisection's knee crosses 1). The
             bisection's own knee (the highest cap found within) is kept
             beside it.

The rules are pure functions here (threshold, within, the bisection, the
ratios) so tests/cli/bench_calibrate.sh checks them on made-up figures; the
writer's delivered rate comes from its cgroup's counters over the reader's
run. Other traffic on the disk (bytes not of the benchmark's cgroups): each
measurement waits first for a quiet disk (--quiet-wait), and one disturbed
(oracle.py's limits) is run again (up to --retries), else kept and marked;
what was thrown away is recorded; past --budget it neither waits nor runs
again. Needs root and a cgroup hierarchy with the block throttle; otherwise
the JSON says why. Writes bench/results/calibrate.json (gen_calibrate.py
writes the section). Takes ~8 min with the defaults on a quiet disk (4
repetitions: calibrate ~50 s, the oracle's 14 runs of 5 s), ~3 min with
--quick; more when it waits for other tenants or runs again (19 min on
2026-12-06, the disk shared with another benchmark).

usage: bench_calibrate.py [--quick] [--iolat PATH] [--dir PARENT] [--out DIR]
                          [--seconds S] [--steps N] [--reps N] [--calib-step T] [--retries N]
                          [--quiet-wait S] [--budget MIN]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
import cgroups  # noqa: E402
import diskdriver  # noqa: E402
import oracle  # noqa: E402
import disktraffic  # noqa: E402
import pacing  # noqa: E402

# calibrate's own figures (src/calib/calibrate.c, tools/cmd_calibrate.c, calib_place.c)
READ_SIZE = 256 << 20
WRITE_SIZE = 1 << 30
THRESHOLD_MUL = 3
THRESHOLD_MIN_ADD_US = 100.0
BISECT_STEPS = 6
GOAL_RATIO = 0.15      # knee within +-15 % of the oracle's
GOAL_SECONDS = 90.0    # calibrate's wall time
CURVE = (0.8, 0.9, 1.0, 1.1, 1.25)   # the oracle's caps around its bisection's knee
FIT_BAND = (0.7, 1.4)  # calib_fit.c: the points the line goes through, x the bisection's knee
MARGIN_CAP = 2.0       # calib_fit.c: a point's margin at most
LEAD_S = 1.0           # the writer runs this long before the reader starts
QUIET_S = 2.0          # a quiet disk: this long under the foreign mean limit


# ------------------------------------------------------------ the rules (calibrate's)

def threshold_us(solo_p90_us):
    """The reader's p90 bound: 3 x its solo p90, at least the solo p90 + 100 us."""
    return max(THRESHOLD_MUL * solo_p90_us, solo_p90_us + THRESHOLD_MIN_ADD_US)


def within(p90_us, reads_s, solo_reads_s, thr_us):
    """The reader kept its solo latency: p90 at most the threshold and at least
    half its solo reads per second."""
    return p90_us <= thr_us and 2 * reads_s >= solo_reads_s


class Bisection:
    """calibrate's search: the highest cap within, between 0 (within by
    definition) and the writer's uncapped rate (not within), halving the
    interval each step. next_cap() then record(ok), steps times."""

    def __init__(self, hi_bps, steps):
        self.lo, self.hi, self.left = 0, int(hi_bps), steps
        self.tried = []

    def next_cap(self):
        mid = self.lo + (self.hi - self.lo) // 2
        return mid if self.left > 0 and mid > 0 else None

    def record(self, cap, ok):
        self.tried.append((cap, ok))
        self.left -= 1
        if ok:
            self.lo = cap
        else:
            self.hi = cap

    @property
    def knee_bps(self):
        return self.lo


def margin(p90_us, reads_s, solo_reads_s, thr_us):
    """calib_fit.c's margin: the lower of reads/s over half the solo reads/s and the
    threshold over the p90, at most MARGIN_CAP (within: at least 1)."""
    by_reads = 2 * reads_s / solo_reads_s if solo_reads_s > 0 else MARGIN_CAP
    by_p90 = thr_us / p90_us if p90_us > 0 else MARGIN_CAP
    return min(by_reads, by_p90, MARGIN_CAP)


def fit_knee(points, solo_reads_s, thr_us, top_mb_s, centre_mb_s, centre_pace):
    """calib_fit.c's knee from points [(delivered MB/s, pace MB/s, p90 us, reads/s)] and
    the bisection's knee (delivered, pace): (knee MB/s, its pace MB/s, range lo, range hi,
    points that contradict any knee in it, points on the line; 0: no line)."""
    p = sorted((x, pace, margin(p90, rd, solo_reads_s, thr_us)) for x, pace, p90, rd in points)
    n = len(p)
    if not n:
        return centre_mb_s, centre_pace, 0.0, top_mb_s, 0, 0
    against = [sum(1 for i in range(n) if (p[i][2] < 1 if i < s else p[i][2] >= 1))
               for s in range(n + 1)]
    best = min(against)
    s_lo = against.index(best)
    s_hi = n - against[::-1].index(best)
    lo = p[s_lo - 1][0] if s_lo else 0.0
    hi = p[s_hi][0] if s_hi < n else top_mb_s
    band = [q for q in p if FIT_BAND[0] * centre_mb_s <= q[0] <= FIT_BAND[1] * centre_mb_s]
    k, used = None, 0
    if centre_mb_s > 0 and len(band) >= 3:
        mx = sum(q[0] for q in band) / len(band)
        mm = sum(q[2] for q in band) / len(band)
        var = sum((q[0] - mx) ** 2 for q in band)
        cov = sum((q[0] - mx) * (q[2] - mm) for q in band)
        if var > 0 and cov < 0:
            k, used = mx + (1 - mm) / (cov / var), len(band)
    if k is None:
        k = min(max(centre_mb_s, lo), hi)
    elif best == 0:
        k = min(max(k, lo), hi)
    else:
        k = min(max(k, band[0][0]), band[-1][0])
    under = [q for q in band if q[0] <= k and q[2] >= 1]
    if under:
        pace = k * sum(q[1] for q in under) / sum(q[0] for q in under)
    else:
        pace = k * centre_pace / centre_mb_s if centre_mb_s > 0 else k
    return k, pace, lo, hi, best, used


def ratio(cal_bps, ora_bps):
    """calibrate's knee / the oracle's; None when either found none."""
    if not cal_bps or not ora_bps:
        return None
    return cal_bps / ora_bps


def held(r):
    return r is not None and abs(r - 1) <= GOAL_RATIO + 1e-9


def order(rep):
    """Which runs first in repetition rep: calibrate in odd ones, the oracle in even ones."""
    return ("calibrate", "oracle") if rep % 2 else ("oracle", "calibrate")


# ------------------------------------------------------------ arguments

def add_args(ap):
    ap.add_argument("--quick", action="store_true", help="a smoke run: 2 repetitions, "
                    "calibrate --step 1s, 2 s oracle runs")
    ap.add_argument("--iolat", default=os.path.join(B.ROOT, "build", "iolat"))
    ap.add_argument("--dir", default="/var/tmp", help="the parent of the scratch directory "
                    "this makes and removes (on the disk measured)")
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    ap.add_argument("--seconds", type=float, help="the oracle's measured seconds per run (5)")
    ap.add_argument("--steps", type=int, help="the oracle's bisection steps (%d, calibrate's)" %
                    BISECT_STEPS)
    ap.add_argument("--reps", type=int, help="repetitions (4)")
    ap.add_argument("--calib-step", help="calibrate's --step (its default, 3s; --quick: 1s)")
    ap.add_argument("--calib-pace", choices=("auto", "throttle", "rate"), default="throttle",
                    help="calibrate's --pace (throttle: the oracle's actuator)")
    ap.add_argument("--retries", type=int, default=2, help="reruns of a disturbed measurement (2)")
    ap.add_argument("--quiet-wait", type=float, default=120, help="seconds to wait for a quiet "
                    "disk before each measurement (120; then it runs, and is marked if disturbed)")
    ap.add_argument("--budget", type=float, default=0, help="minutes after which it neither waits "
                    "nor runs again (0: no limit): the rest runs at once, disturbed runs marked")


def settings(a):
    """The run's settings; a bad value is one line and exit 2, before anything is done."""
    st = {
        "seconds": a.seconds if a.seconds is not None else (2.0 if a.quick else 5.0),
        "steps": a.steps if a.steps is not None else BISECT_STEPS,
        "reps": a.reps if a.reps is not None else (2 if a.quick else 4),
        "calib_step": a.calib_step or ("1s" if a.quick else None),
        "calib_pace": a.calib_pace,
        "lead_s": LEAD_S, "ramp_s": 0.0, "targets_us": [], "fractions": None,
        "read_size": READ_SIZE, "write_size": WRITE_SIZE, "retries": a.retries,
        "quiet_wait_s": a.quiet_wait, "budget_s": a.budget * 60, "quick": a.quick,
    }
    if st["seconds"] < 1 or st["seconds"] > 60:
        oracle.bad("--seconds: expected 1 to 60, got %g" % st["seconds"])
    if st["steps"] < 1 or st["steps"] > 16:
        oracle.bad("--steps: expected 1 to 16, got %d" % st["steps"])
    if st["reps"] < 1:
        oracle.bad("--reps: expected >= 1, got %d" % st["reps"])
    if st["retries"] < 0 or st["quiet_wait_s"] < 0 or st["budget_s"] < 0:
        oracle.bad("--retries, --quiet-wait and --budget: expected >= 0")
    return st


# ------------------------------------------------------------ the driver

def ms(s):
    return "%dms" % round(s * 1000)


def reader_job(path, size, secs):
    """calibrate's reader as a job file (its engine: the default, as calibrate's)."""
    return "\n".join(["[global]", "direct=1", "time_based=1", "", "[group:reader]", "",
                      "[reader]", "group=reader", "filename=" + path, "size=%d" % size,
                      "rw=randread", "bs=4k", "iodepth=1", "runtime=" + ms(secs), ""])


def writer_job(path, size, secs):
    """calibrate's writer, unpaced (the kernel paces it)."""
    return "\n".join(["[global]", "direct=1", "time_based=1", "", "[group:writer]", "",
                      "[writer]", "group=writer", "filename=" + path, "size=%d" % size,
                      "rw=write", "bs=1m", "iodepth=32", "runtime=" + ms(secs), ""])


def parse_reader(path):
    with open(path) as f:
        d = json.load(f)
    g = {x["name"]: x for x in d["groups"]}["reader"]
    return {"p50_us": g["lat_us"]["p50"], "p90_us": g["lat_us"]["p90"],
            "p99_us": g["lat_us"]["p99"], "reads_s": g["read"]["ios"] / d["duration_s"]}


def parse_calibrate(text):
    """calibrate's JSON: what the comparison needs, and its points."""
    d = json.loads(text)
    pace = d["knee_pace_bps"]
    return {"knee_bps": None if pace == "unpaced" else pace, "no_knee": d["no_knee"],
            "knee_mb_s": d["knee_mb_s"], "target_us": d["target_ns"] / 1e3,
            "threshold_us": d["threshold_ns"] / 1e3, "elapsed_s": d["elapsed_s"],
            "solo_p90_us": d["solo"]["p90_ns"] / 1e3, "solo_reads_s": d["solo"]["reads_s"],
            "unpaced_mb_s": d["unpaced"]["writer_mb_s"],
            "bisect": [[p["pace_bps"], p["writer_mb_s"], p["p90_ns"] / 1e3, p["reads_s"],
                        p["within"]] for p in d["bisect"]],
            "curve": [[p["pace_bps"], p["writer_mb_s"], p["p90_ns"] / 1e3, p["reads_s"],
                       p["within"]] for p in d.get("curve", [])],
            "solo_after_reads_s": d.get("solo_after", {}).get("reads_s"),
            "solo_ref_reads_s": d.get("solo_ref_reads_s"),
            "knee_bisect_bps": d.get("knee_bisect_pace_bps"),
            "knee_bisect_mb_s": d.get("knee_bisect_mb_s"),
            "knee_range_mb_s": d.get("knee_range_mb_s"),
            "contradicting": d.get("knee_contradicting"),
            "fit_points": d.get("knee_fit_points"),
            "device": d["device"], "pacer": d.get("pacer", "rate")}


class Calib(diskdriver.DiskDriver):
    name = "calibrate"
    children = ("calib", "cwriter", "reader", "writer")
    needs_cgroups = True

    def why_not(self):
        if not os.access(self.a.iolat, os.X_OK):
            return "%s: not an executable (build it, or --iolat)" % self.a.iolat
        why = super().why_not()
        if why:
            return why
        if self.ver == 1 and not os.path.exists(os.path.join(self.root, pacing.throttle_file(1))):
            return "no %s in %s: no block throttle" % (pacing.throttle_file(1), self.root)
        return None

    def setup(self, st):
        self.thrown, self.waited, self.t_start = [], 0.0, time.monotonic()
        self.a.dir = os.path.join(self.parent, "iolat-calcheck-%d" % os.getpid())
        super().setup(st)
        self.calib_base = os.path.join(self.a.dir, "calib")
        self.files += [self.calib_base + ".read", self.calib_base + ".write"]
        self.raw = os.path.join(self.a.out, "raw", "calibrate")
        os.makedirs(self.raw, exist_ok=True)

    def foreign_now(self, secs):
        """Bytes/s on the disk that were not ours over the next secs."""
        def ours():
            return sum(cgroups.io_bytes(self.tree.base, self.ver, self.dev))
        d0, o0 = disktraffic.disk_stats(self.disk)[0], ours()
        time.sleep(secs)
        return (disktraffic.disk_stats(self.disk)[0] - d0 - (ours() - o0)) / secs

    def quiet(self, st):
        """Wait (up to st['quiet_wait_s']) for the disk to be quiet; the seconds waited."""
        t0 = time.monotonic()
        said = False
        while time.monotonic() - t0 < st["quiet_wait_s"] and not self.over(st):
            f = self.foreign_now(QUIET_S)
            if f <= oracle.FOREIGN_MEAN_MB_S * 1e6:
                break
            if not said:
                B.log("other traffic on the disk (%.0f MB/s): waiting for it to pass" % (f / 1e6))
                said = True
        w = time.monotonic() - t0
        self.waited += w
        return w

    def over(self, st):
        """Past the budget: no more waiting or running again."""
        return st["budget_s"] > 0 and time.monotonic() - self.t_start > st["budget_s"]

    def retried(self, st, what, fn):
        """fn() after a quiet disk, run again while disturbed (up to st['retries'] times)."""
        for attempt in range(st["retries"] + 1):
            self.quiet(st)
            r = fn()
            r["attempt"] = attempt
            r["disturbed"] = oracle.disturbed(r)
            if not r["disturbed"] or self.over(st):
                return r
            self.thrown.append({"what": what, "attempt": attempt, "foreign_mb_s": r["foreign_mb_s"],
                                "foreign_worst_mb_s": r["foreign_worst_mb_s"]})
            B.log("%s: other traffic on the disk (%.0f MB/s, 3 s: %.0f): %s" % (
                what, r["foreign_mb_s"], r["foreign_worst_mb_s"],
                "run again" if attempt < st["retries"] else "kept, marked disturbed"))
        return r

    # one measurement of the oracle: the reader, beside the writer under cap (None: no writer)
    def point(self, st, cap_bps, writer=True):
        return self.retried(st, "oracle cap %s" % cap_bps, lambda: self._point(st, cap_bps, writer))

    def _point(self, st, cap_bps, writer):
        secs = st["seconds"]
        rj, wj = os.path.join(self.raw, "reader.ini"), os.path.join(self.raw, "writer.ini")
        out = os.path.join(self.raw, "reader.json")
        B.write_text(rj, reader_job(self.rfile, st["read_size"], secs))
        B.write_text(wj, writer_job(self.wfile, st["write_size"], secs + LEAD_S + 30))
        smp = self.sampler()
        w = None
        if writer:
            cgroups.set_write_cap(self.cg("writer"), self.ver, self.dev, cap_bps or 0)
            got = cgroups.write_cap(self.cg("writer"), self.ver, self.dev)
            if got != (cap_bps or 0):
                raise SystemExit("bench: the writer's cap reads %d after writing %d" %
                                 (got, cap_bps or 0))
            w = self.start("writer", [self.a.iolat, "run", wj, "-q", "--no-control"])
            time.sleep(LEAD_S)
            if w.poll() is not None:
                raise SystemExit("bench: the writer ended early (exit %d): %s" % (w.returncode, wj))
        t0 = time.monotonic()
        p = self.start("reader", [self.a.iolat, "run", rj, "-q", "--no-control",
                                  "--output-format=json", "--output", out])
        self.wait(p, secs + 60)
        t1 = time.monotonic()
        if w:
            self.stop(w)
            cgroups.set_write_cap(self.cg("writer"), self.ver, self.dev, 0)
        smp.stop()
        if p.returncode != 0:
            raise SystemExit("bench: the reader failed (exit %d): %s" % (p.returncode, rj))
        r = parse_reader(out)
        r["cap_bps"] = cap_bps if writer else None
        t_io = smp.first_io("reader", 0) or t0
        r["writer_mb_s"] = smp.cg_rate("writer", 1, t_io, t1) / 1e6 if writer else 0.0
        self.foreign(smp, t_io, t1, r)
        return r

    def oracle_sweep(self, st):
        t0 = time.monotonic()
        solo = self.point(st, None, writer=False)
        thr = threshold_us(solo["p90_us"])
        runs = [dict(solo, phase="solo", within=True)]

        def judged(r, phase):
            r.update(phase=phase, within=within(r["p90_us"], r["reads_s"], solo["reads_s"], thr))
            runs.append(r)
            B.log("oracle %-8s cap %s: reader p90 %7.0f us, %6.0f reads/s, writer %5.0f MB/s, "
                  "%s" % (phase, "-" if not r["cap_bps"] else "%d MB/s" % round(
                      r["cap_bps"] / 1e6), r["p90_us"], r["reads_s"], r["writer_mb_s"],
                      "within" if r["within"] else "out"))
            return r["within"]

        unc = self.point(st, 0)
        o = {"solo_p90_us": solo["p90_us"], "solo_reads_s": solo["reads_s"], "threshold_us": thr,
             "unpaced_mb_s": unc["writer_mb_s"], "no_knee": judged(unc, "uncapped")}
        knee_mb_s = None
        if o["no_knee"]:
            o["knee_bps"] = None
        else:
            b = Bisection(unc["writer_mb_s"] * 1e6, st["steps"])
            cap = b.next_cap()
            while cap is not None:
                ok = judged(self.point(st, cap), "bisect")
                b.record(cap, ok)
                if ok:
                    knee_mb_s = runs[-1]["writer_mb_s"]
                cap = b.next_cap()
            o["knee_bps"] = b.knee_bps
            if b.knee_bps:
                self.around_knee(st, o, b.knee_bps, knee_mb_s, solo, runs, judged)
        o.update(knee_mb_s=o.get("fit_mb_s", knee_mb_s), runs=runs, wall_s=time.monotonic() - t0)
        return o

    def around_knee(self, st, o, knee_bps, knee_mb_s, solo, runs, judged):
        """The caps around the bisection's knee, the reader alone again, every point judged
        again against the mean of both solos, the knee fitted through them all."""
        for f in CURVE:
            judged(self.point(st, int(knee_bps * f)), "curve")
        again = self.point(st, None, writer=False)
        runs.append(dict(again, phase="solo", within=True))
        ref = (solo["reads_s"] + again["reads_s"]) / 2
        paced = [r for r in runs if r["phase"] in ("bisect", "curve")]
        for r in paced + [r for r in runs if r["phase"] == "uncapped"]:
            r["within"] = within(r["p90_us"], r["reads_s"], ref, o["threshold_us"])
        k, pace, lo, hi, against, used = fit_knee(
            [(r["writer_mb_s"], r["cap_bps"] / 1e6, r["p90_us"], r["reads_s"]) for r in paced],
            ref, o["threshold_us"], o["unpaced_mb_s"], knee_mb_s, knee_bps / 1e6)
        o.update(knee_bisect_bps=knee_bps, knee_bisect_mb_s=knee_mb_s, solo_ref_reads_s=ref,
                 solo_after_reads_s=again["reads_s"], knee_range_mb_s=[lo, hi],
                 contradicting=against, fit_points=used, fit_mb_s=k, knee_bps=int(pace * 1e6))
        B.log("oracle knee: %.0f MB/s delivered (range %.0f-%.0f, %d points on the line; "
              "the bisection alone %.0f)" % (k, lo, hi, used, knee_mb_s))

    def calibrate(self, st):
        return self.retried(st, "calibrate", lambda: self._calibrate(st))

    def _calibrate(self, st):
        # The throttled writer's cgroup: the benchmark's own (counted as its traffic), made
        # before and kept: a v1 cgroup removed takes its bytes out of its parent's counters.
        wcg = os.path.relpath(self.cg("cwriter"), self.root)
        argv = [self.a.iolat, "calibrate", self.calib_base, "--output-format=json", "-q",
                "--pace=" + st["calib_pace"]] + (["--cgroup", wcg] if st["calib_pace"] != "rate" else [])
        if st["calib_step"]:
            argv += ["--step", st["calib_step"]]
        smp = self.sampler()
        t0 = time.monotonic()
        outp = os.path.join(self.raw, "calibrate.out")
        errp = os.path.join(self.raw, "calibrate.err")
        with open(outp, "w") as out, open(errp, "w") as err:
            p = cgroups.spawn_in(self.cg("calib"), argv, stdout=out, stderr=err)
            self.procs.append(p)
            self.wait(p, 600)
        t1 = time.monotonic()
        smp.stop()
        if p.returncode != 0:
            with open(errp) as f:
                raise SystemExit("bench: %s failed (exit %d): %s" % (
                    B.shell_join(argv), p.returncode, f.read()[-2000:]))
        with open(outp) as f:
            c = parse_calibrate(f.read())
        c.update(wall_s=t1 - t0, cmd=B.shell_join(argv))
        self.foreign(smp, t0, t1, c)
        B.log("calibrate: knee %s (%s MB/s delivered), target %.0f us, %.1f s" % (
            "none" if c["knee_bps"] is None else "%d MB/s" % round(c["knee_bps"] / 1e6),
            c["knee_mb_s"], c["target_us"], c["wall_s"]))
        return c

    def describe(self):
        d = super().describe()
        d.update(section=10, iolat=self.a.iolat, quiet_waited_s=round(self.waited, 1))
        return d


def run_all(drv, st):
    """Every repetition: calibrate and the oracle, which first alternating."""
    reps = []
    for rep in range(1, st["reps"] + 1):
        r = {"rep": rep, "order": list(order(rep)), "load1": os.getloadavg()[0]}
        for what in order(rep):
            B.log("rep %d: %s" % (rep, what))
            r[what] = drv.calibrate(st) if what == "calibrate" else drv.oracle_sweep(st)
        r["ratio"] = ratio(r["calibrate"]["knee_bps"], r["oracle"]["knee_bps"])
        r["ratio_delivered"] = ratio(r["calibrate"]["knee_mb_s"], r["oracle"]["knee_mb_s"])
        kb = r["calibrate"].get("knee_bisect_bps")
        r["ratio_bisect"] = ratio(None if kb == "unpaced" else kb,
                                  r["oracle"].get("knee_bisect_bps", r["oracle"]["knee_bps"]))
        B.log("rep %d: knee ratio calibrate / oracle %s" % (
            rep, "-" if r["ratio"] is None else "%.2f" % r["ratio"]))
        reps.append(r)
    return [], reps, drv.thrown


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_args(ap)
    a = ap.parse_args()
    st = settings(a)
    drv = Calib(a)
    drv.parent = a.dir
    return oracle.main(drv, st, os.path.join(a.out, "calibrate.json"),
                       {"cmd": B.shell_join([os.path.relpath(sys.argv[0], B.ROOT)] + sys.argv[1:]),
                        "settings": st, "goal_ratio": GOAL_RATIO, "goal_seconds": GOAL_SECONDS},
                       runner=run_all)


if __name__ == "__main__":
    sys.exit(main())
