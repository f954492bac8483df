#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_weights.py - BENCHMARKS.md section 9: iolatd's weights (issue 28)
with unmodified fio on this machine's disk. Two sibling cgroups made for the
benchmark (`a`, `b`; v1 blkio or v2 io, removed on every path), each running
fio by the case: 1 MiB sequential O_DIRECT writes at QD 32 (libaio; each
writer on its own half of one file), or 4 KiB O_DIRECT random reads at QD 8
(libaio). Cases (CASES): two writers weighted 100:300 and 100:100, a reader
against a writer 300:100, a sibling that starts and stops mid-run while the
other writes, and one writer alone (its sibling configured, idle). Modes per
case: no control (the disk's own division) and iolatd with a generated
iolatd.conf that gives the groups their weights and nothing else (no target,
no model, no calibration run), run from a run directory on /dev/shm. Each
group's bytes come from its cgroup's counters (blkio.throttle.io_service_bytes
/ io.stat), sampled every 100 ms and kept with the run, with the budget iolatd
reports for each group (its status file); shares.py judges them, gen_weights.py
writes the section. Every repetition runs every case in both modes, the
cases' order rotated and the modes alternated from one repetition to the
next; a run disturbed by other traffic on the disk is run again (up to
--retries). Needs root, fio, a cgroup hierarchy with the block throttle and an
iolatd built with BPF; otherwise the JSON says why. Writes
bench/results/weights.json. Takes ~9 min with the defaults (3 repetitions,
10 s measured per run), ~2 min with --quick (1 repetition, 3 s); more when
disturbed runs are run again.

usage: bench_weights.py [--quick] [--iolatd PATH] [--dir DIR] [--out DIR] [--seconds S]
                        [--reps N] [--cases K,...] [--retries N]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_iolatd  # noqa: E402
import benchlib as B  # noqa: E402
import diskdriver  # noqa: E402
import judge as J  # noqa: E402
import oracle  # noqa: E402
import shares  # noqa: E402

MODES = ("none", "iolatd")
READER_QD = 8


def _g(cg, weight, load):
    return {"cg": cg, "weight": weight, "load": load}


CASES = [
    {"key": "w100_300", "kind": "pair", "title": "two writers weighted 100:300",
     "groups": [_g("a", 100, "writer"), _g("b", 300, "writer")]},
    {"key": "w100_100", "kind": "pair", "title": "two writers weighted 100:100",
     "groups": [_g("a", 100, "writer"), _g("b", 100, "writer")]},
    {"key": "rw300_100", "kind": "pair", "title": "a 4 KiB random reader (QD %d) weighted 300 "
     "against a 1 MiB writer weighted 100" % READER_QD,
     "groups": [_g("a", 300, "reader"), _g("b", 100, "writer")]},
    {"key": "sibling", "kind": "sibling", "title": "a writer weighted 100; a sibling writer "
     "weighted 300 starts and stops mid-run",
     "groups": [_g("a", 100, "writer"), _g("b", 300, "writer")]},
    {"key": "alone", "kind": "alone", "title": "one writer weighted 100 alone (its sibling, "
     "weighted 300, idle)", "groups": [_g("a", 100, "writer"), _g("b", 300, "idle")]},
]


def case_of(key):
    return next(c for c in CASES if c["key"] == key)


def status_budgets(path, rel):
    """{child: [budget_bps (-1: none), hweight_ppm]} from iolatd's status file
    (rel: {cgroup path relative to the root: child})."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                if "budget_bps=" not in line:
                    continue
                kv = B.parse_kv(line)
                k = rel.get(str(kv.get("path", "")))
                if k:
                    out[k] = [kv.get("budget_bps"), kv.get("hweight_ppm")]
    except OSError:
        pass
    return out or None


class Weights(bench_iolatd.IolatdFio):
    name = "iolatd weights"
    children = ("a", "b")

    def daemon_conf(self, mode):
        c = case_of(mode["case"])
        return "[global]\ndevice=%s\n" % self.dev + "".join(
            "\n[group:%s]\nweight=%d\n" % (self.tree.rel(g["cg"]), g["weight"])
            for g in c["groups"])

    def load_argv(self, g, st, out):
        """fio for one group's load: the writer on its half of the write file, or the reader."""
        long_s = st["run_s"] + 60  # stopped by us
        if g["load"] == "reader":
            return self.fio(g["cg"], self.rfile, st["read_size"], "randread", "4k", READER_QD,
                            "libaio", long_s, out)
        half = st["write_size"] // 2
        return self.fio(g["cg"], self.wfile, half, "write", "1m", 32, "libaio", long_s, out) + [
            "--offset=%d" % (half if g["cg"] == "b" else 0)]

    def wait_io(self, smp, keys, timeout=10.0):
        """Wait until every cgroup in keys has done I/O; the time of the sample
        before each one's first (its start, at the latest)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            firsts = [first_before(smp, k) for k in keys]
            if all(f is not None for f in firsts):
                return firsts
            time.sleep(0.05)
        raise SystemExit("bench: no I/O seen from %s within %.0f s" % (", ".join(keys), timeout))

    def run_mode(self, mode, st):
        raw = os.path.join(self.a.out, "raw", "weights")
        os.makedirs(raw, exist_ok=True)
        c = case_of(mode["case"])
        key = mode["key"]
        daemon = run_dir = None
        if mode["mode"] == "iolatd":
            try:  # the last daemon's status is not this one's
                os.unlink(os.path.join(self.run_parent(), "run", "status"))
            except FileNotFoundError:
                pass
            daemon, run_dir = self.start_daemon(mode, raw)
            rel = {self.tree.rel(ch): ch for ch in self.children}
            status = os.path.join(run_dir, "status")
            poll = lambda: status_budgets(status, rel)  # noqa: E731
        else:
            poll = None
        smp = self.sampler(poll)
        errs = open(os.path.join(raw, key + ".fio.err"), "w")
        busy = [g for g in c["groups"] if g["load"] != "idle"]
        first, late = (busy[:1], busy[1:]) if c["kind"] == "sibling" else (busy, [])
        r = {"case": c["key"], "mode_name": mode["mode"]}
        procs = {}
        done = False   # an error already in flight: no second one from the daemon's check
        try:
            for g in first:
                procs[g["cg"]] = self.start(g["cg"], self.load_argv(
                    g, st, os.path.join(raw, "%s.%s.json" % (key, g["cg"]))), out=errs)
            t_busy = max(self.wait_io(smp, [g["cg"] for g in first]))
            if c["kind"] == "sibling":
                time.sleep(st["skip_s"] + st["alone_s"])
                g = late[0]
                t_spawn = time.monotonic()
                procs[g["cg"]] = self.start(g["cg"], self.load_argv(
                    g, st, os.path.join(raw, "%s.%s.json" % (key, g["cg"]))), out=errs)
                r["t_start"] = max(t_spawn, self.wait_io(smp, [g["cg"]])[0])
                time.sleep(max(0.0, r["t_start"] + st["on_s"] - time.monotonic()))
                for p in procs.values():
                    self.alive(p, "fio", errs.name)
                r["t_stop"] = time.monotonic()
                self.stop(procs.pop(g["cg"]))
                time.sleep(st["after_s"])
            else:
                time.sleep(st["skip_s"] + st["seconds"])
            for p in procs.values():
                self.alive(p, "fio", errs.name)
            t_end = time.monotonic()
            done = True
        finally:
            for p in procs.values():
                self.stop(p)
            errs.close()
            smp.stop()
            if daemon:
                if done:
                    self.alive(daemon, "iolatd", os.path.join(raw, key + ".iolatd.log"))
                self.stop(daemon)
        t0 = smp.samples[0][0]
        self.foreign(smp, t_busy + st["skip_s"], t_end, r)
        r["samples"] = [[round(t - t0, 3), {k: sum(cg[k]) for k in self.children}]
                        for t, _, cg, _, _ in smp.samples]
        r["t_busy"], r["t_end"] = round(t_busy - t0, 3), round(t_end - t0, 3)
        for k in ("t_start", "t_stop"):
            if k in r:
                r[k] = round(r[k] - t0, 3)
        if daemon:
            r["budgets"] = [[t, v] for t, v in smp.polled(t0)]
        return r

    def describe(self):
        d = diskdriver.DiskDriver.describe(self)  # not section 7's reader and caps
        try:
            with open("/sys/dev/block/%s/queue/scheduler" % self.dev) as f:
                sched = f.read().split("[", 1)[1].split("]", 1)[0]
        except (OSError, IndexError):
            sched = None
        d.update(section=9, scheduler=sched, counters="%s, sampled every 100 ms" % (
            "blkio.throttle.io_service_bytes_recursive" if self.ver == 1 else "io.stat"),
            budgets_how="each group's budget_bps and hweight_ppm from iolatd's status file, "
            "read every 100 ms (written once a second)", conf_example=self.daemon_conf(
                {"case": "w100_300"}) if self.tree else None)
        return d


def first_before(smp, key):
    """The time of the sample before cgroup key's first bytes (None: none yet)."""
    s = list(smp.samples)
    if not s:
        return None
    base = sum(s[0][2][key])
    for a, b in zip(s, s[1:]):
        if sum(b[2][key]) > base:
            return a[0]
    return None


def run_one(drv, st, mode, rep, thrown):
    """One mode of one case, run again while disturbed (up to st['retries'] times)."""
    c = case_of(mode["case"])
    for attempt in range(st["retries"] + 1):
        load1 = os.getloadavg()[0]
        r = drv.run_mode(mode, st)
        r.update(rep=rep, mode=mode["key"], attempt=attempt, load1=load1)
        j = shares.judge_run(c, r, st["skip_s"])
        sh = j.get("shares") or {}
        B.log("%s rep %d %-17s %s  total %6.0f MB/s  share error median %s worst %s%s  "
              "foreign %s" % (
                  drv.name, rep, mode["key"], " ".join(
                      "%s %.0f" % (k, v / 1e6) for k, v in sorted(
                          (sh.get("rates_bps") or {}).items())),
                  j["total_bps"] / 1e6, pct(sh.get("median")), pct(sh.get("worst")),
                  "  reaction start %s stop %s" % (j.get("react_start_s"), j.get("react_stop_s"))
                  if c["kind"] == "sibling" else "",
                  "-" if r.get("foreign_mb_s") is None else "%.1f MB/s (3 s: %.1f)" % (
                      r["foreign_mb_s"], r["foreign_worst_mb_s"])))
        if not oracle.disturbed(r):
            r["disturbed"] = False
            return r
        thrown.append({k: r[k] for k in ("rep", "mode", "attempt", "foreign_mb_s",
                                         "foreign_worst_mb_s")})
        B.log("%s: other traffic on the disk during that run: %s" % (
            drv.name, "run again" if attempt < st["retries"] else "kept, marked disturbed"))
    r["disturbed"] = True
    return r


def pct(v):
    return "-" if v is None else "%.1f%%" % (100 * v)


def plan(st, rep):
    """The runs of repetition rep in order: the cases rotated, each case's two
    modes back to back, which one first alternating."""
    out = []
    for i, key in enumerate(J.rotate(st["cases"], rep)):
        for m in J.rotate(list(MODES), rep + i):
            out.append({"key": "%s.%s" % (key, m), "case": key, "mode": m})
    return out


def run_all(drv, st):
    runs, thrown = [], []
    for rep in range(1, st["reps"] + 1):
        for m in plan(st, rep):
            runs.append(run_one(drv, st, m, rep, thrown))
    modes = [{"key": "%s.%s" % (k, m), "case": k, "mode": m} for k in st["cases"] for m in MODES]
    return modes, runs, thrown


def add_args(ap):
    ap.add_argument("--quick", action="store_true", help="a smoke run (~2 min)")
    ap.add_argument("--dir", default="/var/tmp/iolat-bench", help="where the files go")
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    ap.add_argument("--iolatd", default=os.path.join(B.ROOT, "build", "iolatd"))
    ap.add_argument("--seconds", type=float, help="measured seconds per run after the first "
                    "2 s (10; quick 3); the sibling case: its sibling's busy time - 1 s")
    ap.add_argument("--reps", type=int, help="repetitions (3; quick 1)")
    ap.add_argument("--cases", help="cases to run, comma-separated (%s)" %
                    ",".join(c["key"] for c in CASES))
    ap.add_argument("--retries", type=int, default=3, help="reruns of a disturbed run")


def settings(a):
    """The run's settings; a bad value is one line and exit 2, before anything runs."""
    q = a.quick
    keys = [c["key"] for c in CASES]
    cases = [k.strip() for k in a.cases.split(",") if k.strip()] if a.cases else keys
    for k in cases:
        if k not in keys:
            oracle.bad("--cases: unknown case '%s' (expected some of %s)" % (k, ",".join(keys)))
    seconds = a.seconds if a.seconds is not None else (3.0 if q else 10.0)
    st = {"seconds": seconds, "reps": a.reps if a.reps is not None else (1 if q else 3),
          "skip_s": shares.SKIP_S,
          "alone_s": 2.0 if q else 3.0, "on_s": seconds + shares.REACT_S,
          "after_s": 2.0 if q else 3.0, "cases": cases, "retries": a.retries, "quick": q,
          "read_size": oracle.QUICK_READ_SIZE if q else oracle.READ_SIZE,
          "write_size": oracle.QUICK_WRITE_SIZE if q else oracle.WRITE_SIZE,
          "reader_qd": READER_QD,
          # what oracle.main records of every real-disk section
          "lead_s": 0.0, "ramp_s": shares.SKIP_S, "targets_us": []}
    st["run_s"] = st["skip_s"] + max(seconds, st["alone_s"] + st["on_s"] + st["after_s"])
    if seconds < 1 or st["reps"] < 1 or a.retries < 0 or not cases:
        oracle.bad("--seconds must be >= 1, --reps >= 1, --retries >= 0, --cases not empty")
    return st


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_args(ap)
    a = ap.parse_args()
    st = settings(a)
    return oracle.main(Weights(a), st, os.path.join(a.out, "weights.json"),
                       {"cmd": B.shell_join([os.path.relpath(sys.argv[0], B.ROOT)] +
                                            sys.argv[1:]), "settings": st,
                        "cases": [case_of(k) for k in st["cases"]]},
                       runner=run_all)


if __name__ == "__main__":
    sys.exit(main())
