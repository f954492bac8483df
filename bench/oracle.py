# SPDX-License-Identifier: MIT
"""oracle.py - the design shared by the real-disk oracle benchmarks
(BENCHMARKS.md section 4, `iolat run`: bench_disk.py; section 7, iolatd with
unmodified fio: bench_iolatd.py; section 8 keeps main() and run_one() and
brings its own plan, openplan.py). python3 standard library only; called from
the driver's main thread.

The workload (../shared/research/knee.md): a reader, 4 KiB random reads at
QD 1 (psync, O_DIRECT) on a 2 GiB file, beside a writer, 1 MiB writes at
QD 32 (O_DIRECT) on a 4 GiB file, the writer started LEAD_S before the
reader, the reader measured after RAMP_S. In one run, --reps repetitions,
each running every mode once, in the same order:

  solo                  the reader alone
  none                  reader and writer, no control
  cap-N                 a static cap of N bytes/s on the writer, N a grid of
                        fractions of the writer's uncontrolled rate measured
                        in the first repetition (or --caps, absolute)
  article-T, adaptive-T the controller in that mode, the reader's target T

A driver runs one mode and returns the reader's percentiles, the writer's
bytes/s over the reader's measured time, the bytes on the disk that were not
the benchmark's (foreign), and for a controller the write limit in force
over time. A run with foreign traffic (mean over the run > FOREIGN_MEAN_MB_S,
or any 3 s > FOREIGN_BURST_MB_S) is thrown away and run again at once (up to
--retries times), so that it stays in its repetition; what was thrown away
is recorded. The JSON keeps every run; gen_oracle.py computes the oracle
(the highest cap whose reader p90 is within the target in every
repetition), the ratios and the goals from it.
"""
import mmap
import os
import signal
import sys

import benchlib as B

READ_SIZE = 2 << 30
WRITE_SIZE = 4 << 30
QUICK_READ_SIZE = 512 << 20
QUICK_WRITE_SIZE = 1 << 30
LEAD_S = 2.0
RAMP_S = 1.0
FRACTIONS = (0.4, 0.55, 0.7, 0.8, 0.9, 1.0)
QUICK_FRACTIONS = (0.55, 0.8, 1.0)
TARGETS_US = (300, 1000)
CONTROLS = ("article", "adaptive")
FOREIGN_MEAN_MB_S = 20.0
FOREIGN_BURST_MB_S = 40.0
CAP_ROUND = 10 * 1000 * 1000   # caps are rounded to 10 MB/s


def add_args(ap, seconds=15, reps=3):
    ap.add_argument("--quick", action="store_true", help="a smoke run: 3 s per mode, 2 repetitions")
    ap.add_argument("--dir", default="/var/tmp/iolat-bench", help="where the files go")
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    ap.add_argument("--seconds", type=float, help="measured seconds per mode (%d)" % seconds)
    ap.add_argument("--reps", type=int, help="repetitions (%d)" % reps)
    ap.add_argument("--caps", help="absolute caps in MB/s, comma-separated (default: fractions "
                    "of the writer's uncontrolled rate in the first repetition)")
    ap.add_argument("--fractions", help="the caps' fractions of the uncontrolled rate")
    ap.add_argument("--targets", help="the reader's targets in µs, comma-separated (300,1000)")
    ap.add_argument("--retries", type=int, default=3, help="reruns of a disturbed run")


def bad(msg):
    """Bad usage: one line, exit 2, before anything is done."""
    print("bench: " + msg, file=sys.stderr)
    raise SystemExit(2)


def floats(text, what):
    """Positive numbers, comma-separated, of option `what`; else one line and exit 2."""
    try:
        v = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        v = []
    if not v or min(v) <= 0:
        bad("%s: expected positive numbers, comma-separated, got '%s'" % (what, text))
    return v


def settings(a, seconds=15, reps=3, fractions=FRACTIONS):
    """The run's settings from the arguments; a bad value is one line and exit 2.
    fractions: the driver's default grid (a cap that delivers less than its
    rate, as `rate=` does, needs a sweep that goes above 1)."""
    st = {
        "seconds": a.seconds or (3.0 if a.quick else float(seconds)),
        "reps": a.reps or (2 if a.quick else reps),
        "lead_s": 1.0 if a.quick else LEAD_S, "ramp_s": 0.5 if a.quick else RAMP_S,
        "read_size": QUICK_READ_SIZE if a.quick else READ_SIZE,
        "write_size": QUICK_WRITE_SIZE if a.quick else WRITE_SIZE,
        "fractions": floats(a.fractions, "--fractions") if a.fractions else
        list(QUICK_FRACTIONS if a.quick else fractions),
        "caps_bps": [int(c * 1e6) for c in floats(a.caps, "--caps")] if a.caps else None,
        "targets_us": [int(t) for t in floats(a.targets, "--targets")] if a.targets else
        list(TARGETS_US),
        "retries": a.retries, "quick": a.quick,
    }
    if st["seconds"] <= st["lead_s"] or st["reps"] < 1 or a.retries < 0:
        bad("--seconds must exceed %.1f, --reps be >= 1, --retries >= 0" % st["lead_s"])
    return st


def prepare_file(path, size):
    """Write size bytes of incompressible data to a new file with O_DIRECT (so
    that reads hit the disk and writes overwrite blocks already allocated)."""
    buf = mmap.mmap(-1, 1 << 20)
    buf.write(os.urandom(1 << 20))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o644)
    try:
        for _ in range(size >> 20):
            os.write(fd, buf)
        os.fsync(fd)
    finally:
        os.close(fd)
        buf.close()


def controller_modes(targets_us):
    return [{"key": "%s-%dus" % (c, t), "kind": "control", "control": c, "target_us": t}
            for t in targets_us for c in CONTROLS]


def cap_modes(caps_bps, fractions):
    return [{"key": "cap-%d" % round(c / 1e6), "kind": "cap", "cap_bps": c,
             "fraction": f} for c, f in zip(caps_bps, fractions)]


def order(caps, ctls):
    """The caps and the controllers interleaved (positions in a repetition
    move the figures on a shared disk: neither kind runs all first)."""
    out = []
    for i in range(max(len(caps), len(ctls))):
        out += caps[i:i + 1] + ctls[i:i + 1]
    return out


def grid(uncontrolled_bps, fractions):
    caps = []
    for f in fractions:
        c = max(CAP_ROUND, int(round(uncontrolled_bps * f / CAP_ROUND)) * CAP_ROUND)
        if c not in caps:
            caps.append(c)
    return caps


class Stop(Exception):
    """SIGTERM or SIGHUP: stop, clean up, exit 128+N."""


def _raise_stop(sig, _frame):
    raise Stop(sig)


def disturbed(r):
    return r.get("foreign_mb_s") is not None and (
        r["foreign_mb_s"] > FOREIGN_MEAN_MB_S or r["foreign_worst_mb_s"] > FOREIGN_BURST_MB_S)


def run_one(driver, st, mode, rep, log):
    """One mode, run again while disturbed (up to st['retries'] times)."""
    for attempt in range(st["retries"] + 1):
        load1 = os.getloadavg()[0]
        r = driver.run_mode(mode, st)
        r.update(rep=rep, mode=mode["key"], attempt=attempt, load1=load1)
        B.log("%s rep %d %-14s reader p90 %7.0f us p99 %8.0f us  writer %6.0f MB/s  foreign %s" % (
            driver.name, rep, mode["key"], r["p90_us"], r["p99_us"], r.get("writer_mb_s") or 0,
            "-" if r.get("foreign_mb_s") is None else "%.1f MB/s (3 s: %.1f)" % (
                r["foreign_mb_s"], r["foreign_worst_mb_s"])))
        if not disturbed(r):
            r["disturbed"] = False
            return r
        log.append({k: r[k] for k in ("rep", "mode", "attempt", "foreign_mb_s",
                                      "foreign_worst_mb_s")})
        B.log("%s: other traffic on the disk during that run: %s" % (
            driver.name, "run again" if attempt < st["retries"] else "kept, marked disturbed"))
    r["disturbed"] = True
    return r


def run_all(driver, st):
    """Every repetition, every mode; returns (modes in order, runs, discarded runs).

    After the first repetition's uncontrolled run, the driver may add modes of
    its own (driver.more_modes: caps at more rates, and modes outside the
    sweep) and place them in each repetition (driver.arrange)."""
    ctls = controller_modes(st["targets_us"])
    solo = {"key": "solo", "kind": "solo"}
    none = {"key": "none", "kind": "none"}
    runs, thrown = [], []
    plan = extra = None
    for rep in range(1, st["reps"] + 1):
        for m in (solo, none):
            runs.append(run_one(driver, st, m, rep, thrown))
        if plan is None:
            ref = runs[-1]["writer_mb_s"] * 1e6
            if st["caps_bps"]:
                caps = cap_modes(st["caps_bps"], [None] * len(st["caps_bps"]))
            else:
                st["uncontrolled_ref_mb_s"] = ref / 1e6
                caps = cap_modes(grid(ref, st["fractions"]), st["fractions"])
            caps, extra = driver.more_modes(st, ref, caps)
            plan = order(caps, ctls)
        for m in driver.arrange(plan, extra, rep):
            runs.append(run_one(driver, st, m, rep, thrown))
    return [solo, none] + plan + extra, runs, thrown


def main(driver, st, path, extra=None, runner=run_all):
    """Check, set up, run (runner(driver, st): modes, runs, discarded runs;
    this design's by default), clean up on every path, write the JSON at path."""
    why = driver.why_not()
    if why:
        B.log("%s skipped: %s" % (driver.name, why))
        B.write_json(path, {"skipped": why, "tool": driver.name})
        return 0
    old = {s: signal.signal(s, _raise_stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        driver.setup(st)
        modes, runs, thrown = runner(driver, st)
        doc = {
            "tool": driver.name, "reps": st["reps"], "seconds": st["seconds"],
            "lead_s": st["lead_s"], "ramp_s": st["ramp_s"], "targets_us": st["targets_us"],
            "fractions": st.get("fractions"), "uncontrolled_ref_mb_s": st.get("uncontrolled_ref_mb_s"),
            "read_size": st["read_size"], "write_size": st["write_size"], "quick": st["quick"],
            "disturbance": {"checked": driver.checks_traffic(), "why_not": driver.traffic_why_not,
                            "mean_limit_mb_s": FOREIGN_MEAN_MB_S,
                            "burst_limit_mb_s": FOREIGN_BURST_MB_S, "retries": st["retries"],
                            "thrown_away": thrown},
            "modes": modes, "runs": runs,
        }
        doc.update(driver.describe())
        doc.update(extra or {})
    except Stop as e:
        B.log("%s: stopped by signal %d; cleaning up" % (driver.name, e.args[0]))
        return 128 + e.args[0]
    except KeyboardInterrupt:
        B.log("%s: interrupted; cleaning up" % driver.name)
        return 130
    finally:
        # A second signal must not cut the cleanup short.
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            old.setdefault(sig, signal.getsignal(sig))
            signal.signal(sig, signal.SIG_IGN)
        driver.cleanup()
        for s, h in old.items():
            signal.signal(s, h)
    B.write_json(path, doc, compact=True)  # the time series make it long
    B.log("wrote " + path)
    return 0
