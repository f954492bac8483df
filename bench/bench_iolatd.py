#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_iolatd.py - BENCHMARKS.md section 7: iolatd with unmodified fio on
this machine's disk against the oracle, the best static cap of the kernel's
block throttle a user could pick (design: oracle.py). Two sibling cgroups
made for the benchmark: `main`, the reader (fio, 4 KiB randread, QD 1,
psync, O_DIRECT, --ramp_time RAMP), and `fbpkg`, the writer (fio, 1 MiB
write, QD 32, libaio, O_DIRECT, started LEAD s before the reader). Modes: the
reader alone, no control, static caps (blkio.throttle.write_bps_device, or
io.max's wbps on cgroup v2, on `fbpkg`), and iolatd with `control=article`
and `control=adaptive` and the reader's target. The reader's latency is
fio's `lat` (submission + completion, --lat_percentiles=1), the writer's
MB/s its cgroup's bytes written over the reader's measured time; under
iolatd the write limit in force on `fbpkg` is read every 100 ms. Also, in
the iolatd runs: the BPF completion program's cost per request
(kernel.bpf_stats_enabled, restored after) and the daemon's CPU
(/proc/PID/stat over the reader's run). Needs root, fio, a cgroup hierarchy
with the block throttle and an iolatd built with BPF; otherwise the JSON
says why it was not run. Writes bench/results/iolatd.json; the last run's fio
and iolatd outputs go to bench/results/raw/iolatd/.

usage: bench_iolatd.py [--quick] [--iolatd PATH] [--dir DIR] [--out DIR] [--seconds S]
                       [--reps N] [--caps MB/s,...] [--fractions F,...] [--targets US,...]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
import cgroups  # noqa: E402
import diskdriver  # noqa: E402
import oracle  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
BPF_STATS = "/proc/sys/kernel/bpf_stats_enabled"


def fio_json(path):
    """fio's JSON output, past any note fio printed before it."""
    with open(path) as f:
        text = f.read()
    return json.JSONDecoder().raw_decode(text[text.index("{"):])[0]


def proc_cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def bpf_prog_stats():
    """(run_time_ns, run_cnt) of iolatd's completion program, or None."""
    tool = shutil.which("bpftool") or "/usr/sbin/bpftool"
    try:
        out = subprocess.run([tool, "prog", "show", "--json"], capture_output=True, text=True,
                             timeout=10).stdout
        for p in json.loads(out):
            if p.get("name", "").startswith("iolatd_rq_comp"):
                return p.get("run_time_ns", 0), p.get("run_cnt", 0)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        pass
    return None


def status_field(run_dir, key):
    try:
        with open(os.path.join(run_dir, "status")) as f:
            return B.parse_kv(f.readline()).get(key)
    except OSError:
        return None


class IolatdFio(diskdriver.DiskDriver):
    name = "iolatd + fio"
    children = ("main", "fbpkg")
    protected = "main"   # the child iolatd protects (its [group:...])
    needs_cgroups = True

    def __init__(self, a):
        super().__init__(a)
        self.old_stats = None
        self.run_base = None

    def run_parent(self):
        """Where iolatd's run directory goes: a tmpfs when there is one (/dev/shm). On the disk it
        controls, its status and record writes wait behind the I/O it throttles, and its loop with
        them (docs/iolatd.md, issue 26)."""
        if self.run_base is None:
            with open("/proc/self/mounts") as f:
                shm = any(l.split()[1:3] == ["/dev/shm", "tmpfs"] for l in f)
            self.run_base = tempfile.mkdtemp(prefix="iolat-bench-run-", dir="/dev/shm") if shm else ""
        return self.run_base or self.tmp

    def why_not(self):
        if not shutil.which("fio"):
            return "fio not installed"
        if not os.access(self.a.iolatd, os.X_OK) or "built" not in subprocess.run(
                [self.a.iolatd, "--version"], capture_output=True,
                text=True).stdout.replace("not built", ""):
            return "%s missing or built without BPF" % self.a.iolatd
        return super().why_not()

    def setup(self, st):
        super().setup(st)
        with open(BPF_STATS) as f:
            self.old_stats = f.read().strip()
        with open(BPF_STATS, "w") as f:
            f.write("1")

    def cleanup(self):
        super().cleanup()  # stops iolatd first: it removes the limits it wrote
        if self.run_base:
            shutil.rmtree(self.run_base, ignore_errors=True)
        if self.old_stats is not None:
            with open(BPF_STATS, "w") as f:
                f.write(self.old_stats)

    def fio(self, name, path, size, rw, bs, qd, engine, runtime, out, ramp=0.0):
        return ["fio", "--name=" + name, "--filename=" + path, "--size=%d" % size, "--rw=" + rw,
                "--bs=" + bs, "--iodepth=%d" % qd, "--ioengine=" + engine, "--direct=1",
                "--time_based", "--runtime=%dms" % round(runtime * 1000),
                "--ramp_time=%dms" % round(ramp * 1000), "--lat_percentiles=1",
                "--percentile_list=50:90:99", "--output-format=json", "--output=" + out]

    def daemon_conf(self, mode):
        """The iolatd.conf of a controller mode: the protected child's target."""
        return "[global]\ndevice=%s\ncontrol=%s\n\n[group:%s]\ntarget=%dus\n" % (
            self.dev, mode["control"], self.tree.rel(self.protected), mode["target_us"])

    def start_daemon(self, mode, raw):
        conf = os.path.join(self.tmp, "iolatd.conf")
        run_dir = os.path.join(self.run_parent(), "run")
        os.makedirs(run_dir, exist_ok=True)
        B.write_text(conf, self.daemon_conf(mode))
        log = os.path.join(raw, mode["key"] + ".iolatd.log")
        logf = open(log, "w")
        p = self.start(None, [self.a.iolatd, "--foreground", "--config", conf, "--run-dir",
                              run_dir], out=logf)
        logf.close()
        for _ in range(200):
            with open(log) as f:
                if "controlling" in f.read():
                    return p, run_dir
            if p.poll() is not None:
                break
            time.sleep(0.05)
        self.stop(p)
        with open(log) as f:
            raise SystemExit("bench: iolatd did not start in 10 s: " + f.read()[-2000:])

    def run_mode(self, mode, st):
        raw = os.path.join(self.a.out, "raw", "iolatd")
        os.makedirs(raw, exist_ok=True)
        rj, wj = (os.path.join(raw, "%s.%s.json" % (mode["key"], w)) for w in ("reader", "writer"))
        fbpkg = self.cg("fbpkg")
        daemon = run_dir = None
        if mode["kind"] == "cap":
            cgroups.set_write_cap(fbpkg, self.ver, self.dev, mode["cap_bps"])
        if mode["kind"] == "control":
            daemon, run_dir = self.start_daemon(mode, raw)
        poll = (lambda: cgroups.write_cap(fbpkg, self.ver, self.dev)) if daemon else None
        smp = self.sampler(poll)
        w = None
        errs = open(os.path.join(raw, mode["key"] + ".fio.err"), "w")
        if mode["kind"] != "solo":
            w = self.start("fbpkg", self.fio("writer", self.wfile, st["write_size"], "write", "1m",
                                             32, "libaio", st["lead_s"] + st["ramp_s"] +
                                             st["seconds"] + 30, wj), out=errs)
            time.sleep(st["lead_s"])
            self.alive(w, "the fio writer", errs.name)
        rd = self.start("main", self.fio("reader", self.rfile, st["read_size"], "randread", "4k",
                                         1, "psync", st["seconds"], rj, ramp=st["ramp_s"]),
                        out=errs)
        r = self.measure_daemon(daemon, run_dir, rd, st) if daemon else {}
        self.wait(rd, st["seconds"] + st["ramp_s"] + 60)
        t_end = time.monotonic()
        if rd.returncode != 0:
            self.alive(rd, "the fio reader", errs.name)
        if w:
            self.alive(w, "the fio writer", errs.name)
            self.stop(w)
        errs.close()
        smp.stop()
        if daemon:
            self.alive(daemon, "iolatd", os.path.join(raw, mode["key"] + ".iolatd.log"))
            self.stop(daemon)
        if mode["kind"] == "cap":
            cgroups.set_write_cap(fbpkg, self.ver, self.dev, 0)
        return self.results(mode, st, r, rj, smp, t_end)

    def alive(self, p, what, log):
        """Stop the benchmark, saying why, when a process it needs has ended."""
        if p.poll() is None:
            return
        with open(log) as f:
            tail = f.read()[-2000:]
        raise SystemExit("bench: %s ended early (exit %d); see %s:\n%s" % (
            what, p.returncode, log, tail))

    def measure_daemon(self, daemon, run_dir, rd, st):
        """The daemon's CPU and the BPF program's cost over the reader's measured run."""
        time.sleep(st["ramp_s"])
        cpu0, t0 = proc_cpu_s(daemon.pid), time.monotonic()
        bpf0, obs0 = bpf_prog_stats(), status_field(run_dir, "observed")
        try:
            rd.wait(timeout=st["seconds"] + 60)
        except subprocess.TimeoutExpired:
            pass
        r = {}
        dt = time.monotonic() - t0
        r["daemon_cpu_pct"] = 100.0 * (proc_cpu_s(daemon.pid) - cpu0) / dt
        bpf1 = bpf_prog_stats()
        time.sleep(1.1)  # one more status write
        obs1 = status_field(run_dir, "observed")
        if bpf0 and bpf1 and bpf1[1] > bpf0[1]:
            r["bpf_ns_per_req"] = (bpf1[0] - bpf0[0]) / (bpf1[1] - bpf0[1])
            r["bpf_reqs"] = bpf1[1] - bpf0[1]
        if obs0 is not None and obs1 and obs1 > obs0:
            r["daemon_us_per_req"] = r["daemon_cpu_pct"] / 100.0 * dt * 1e6 / (obs1 - obs0)
        return r

    def results(self, mode, st, r, rj, smp, t_end):
        job = fio_json(rj)["jobs"][0]
        pct = job["read"]["lat_ns"]["percentile"]
        r.update(p50_us=pct["50.000000"] / 1e3, p90_us=pct["90.000000"] / 1e3,
                 p99_us=pct["99.000000"] / 1e3, reader_ios=job["read"]["total_ios"],
                 duration_s=job["job_runtime"] / 1e3)
        t_first = smp.first_io("main", 0)
        if t_first is None:
            raise SystemExit("bench: no read of the reader seen in its cgroup")
        t0 = t_first + st["ramp_s"]
        t1 = min(t_end, t0 + r["duration_s"])
        if mode["kind"] != "solo":
            r["writer_mb_s"] = smp.cg_rate("fbpkg", 1, t0, t1) / 1e6
        self.foreign(smp, t0, t1, r)
        if mode["kind"] == "control":
            r["series"] = [[t, v] for t, v in smp.polled(t_first)]
        return r

    def describe(self):
        d = super().describe()
        d.update(section=7, engine="libaio", latency="fio's `lat` (submission + completion, "
                 "`--lat_percentiles=1`) of the reader's reads",
                 cap_how="the kernel's block throttle on the writer's cgroup (%s)" % (
                     "blkio.throttle.write_bps_device" if self.ver == 1 else "io.max wbps"),
                 series_how="the write limit in force on the writer's cgroup, read every 100 ms",
                 bpf_stats_restored_to=self.old_stats)
        return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    oracle.add_args(ap)
    ap.add_argument("--iolatd", default=os.path.join(B.ROOT, "build", "iolatd"))
    a = ap.parse_args()
    st = oracle.settings(a)
    return oracle.main(IolatdFio(a), st, os.path.join(a.out, "iolatd.json"),
                       {"cmd": B.shell_join([os.path.relpath(sys.argv[0], B.ROOT)] + sys.argv[1:])})


if __name__ == "__main__":
    sys.exit(main())
