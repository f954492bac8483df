#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_iolatd.py - section 6 of BENCHMARKS.md, unmodified programs: an fio
4 KiB random reader at QD 1 (cgroup main, target 1 ms) beside an fio 1 MiB
O_DIRECT writer at QD 32 (cgroup fbpkg), two sibling cgroups created for the
benchmark, with no control, a static cap on fbpkg (a quarter of its
uncontrolled rate in the same repetition) and under iolatd; repeated (median
of 3). Also the BPF program's cost per request (kernel.bpf_stats_enabled,
restored after) and the daemon's CPU use (/proc/PID/stat over the reader's
run). Needs root, fio, a cgroup hierarchy with the block throttle and an
iolatd built with BPF; otherwise the JSON says why it was not run.

  bench_iolatd.py [--quick] --iolatd build/iolatd --dir D --out bench/results
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import benchlib as B

TARGET = "1ms"
TICK = os.sysconf("SC_CLK_TCK")


def cg_root():
    """(path, version) of the hierarchy with the block throttle, or (None, why)."""
    with open("/proc/self/mounts") as f:
        mounts = [l.split() for l in f]
    for m in mounts:
        if m[2] == "cgroup2":
            try:
                if "io" in open(os.path.join(m[1], "cgroup.controllers")).read().split():
                    return m[1], 2
            except OSError:
                pass
    for m in mounts:
        if m[2] == "cgroup" and "blkio" in m[3].split(","):
            return m[1], 1
    return None, "no cgroup v2 with io and no v1 blkio mount"


def whole_disk(path):
    st = os.stat(path)
    dev = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    if os.path.exists("/sys/dev/block/%s/partition" % dev):
        dev = open("/sys/dev/block/%s/../dev" % dev).read().strip()
    return dev


def set_cap(cg, ver, dev, bps):
    if ver == 2:
        line = "%s wbps=%s" % (dev, bps if bps else "max")
        open(os.path.join(cg, "io.max"), "w").write(line)
    else:
        open(os.path.join(cg, "blkio.throttle.write_bps_device"), "w").write("%s %d" % (dev, bps))


def spawn_in(cg, argv, out=None):
    def enter():
        open(os.path.join(cg, "cgroup.procs"), "w").write(str(os.getpid()))
    return subprocess.Popen(argv, preexec_fn=enter, stdout=out or subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def fio_args(name, fn, rw, bs, qd, engine, runtime, out, ramp=0, size="256m"):
    return ["fio", "--name=" + name, "--filename=" + fn, "--size=" + size, "--rw=" + rw,
            "--bs=" + bs, "--iodepth=%d" % qd, "--ioengine=" + engine, "--direct=1",
            "--time_based", "--runtime=%d" % runtime, "--ramp_time=%d" % ramp,
            "--output-format=json", "--output=" + out]


def proc_cpu_s(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK


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


def fio_json(path):
    """fio's JSON output, past any note fio printed before it."""
    text = open(path).read()
    return json.JSONDecoder().raw_decode(text[text.index("{"):])[0]


def status_field(run_dir, key):
    try:
        first = open(os.path.join(run_dir, "status")).readline()
        return B.parse_kv(first).get(key)
    except OSError:
        return None


class Bench:
    def __init__(self, a):
        self.a = a
        self.secs = 4 if a.quick else 8
        self.runs = 1 if a.quick else 3
        self.root, self.ver = cg_root()
        self.tmp = tempfile.mkdtemp(prefix="iolat-bench-iolatd-")
        self.base = None

    def setup(self):
        self.base = os.path.join(self.root, "iolat-bench-%d" % os.getpid())
        self.main = os.path.join(self.base, "main")
        self.bg = os.path.join(self.base, "fbpkg")
        os.mkdir(self.base)
        if self.ver == 2:  # the children get io.max only with io enabled here
            open(os.path.join(self.base, "cgroup.subtree_control"), "w").write("+io")
        for d in (self.main, self.bg):
            os.mkdir(d)
        os.makedirs(self.a.dir, exist_ok=True)
        self.rfile = os.path.join(self.a.dir, "iolatd-bench.read")
        self.wfile = os.path.join(self.a.dir, "iolatd-bench.write")
        self.dev = whole_disk(self.a.dir)

    def cleanup(self):
        for f in (getattr(self, "rfile", None), getattr(self, "wfile", None)):
            if f and os.path.exists(f):
                os.unlink(f)
        if self.base:
            for cg in (self.main, self.bg, self.base):
                for _ in range(100):
                    try:
                        os.rmdir(cg)
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        time.sleep(0.1)
        shutil.rmtree(self.tmp, ignore_errors=True)
        try:
            os.rmdir(self.a.dir)  # only if empty: never what others put there
        except OSError:
            pass

    def start_daemon(self, run_dir):
        conf = os.path.join(self.tmp, "iolatd.conf")
        rel = os.path.relpath(self.main, self.root)
        open(conf, "w").write("[global]\ndevice=%s\n\n[group:%s]\ntarget=%s\n" %
                              (self.dev, rel, TARGET))
        log = open(os.path.join(self.tmp, "iolatd.log"), "w")
        p = subprocess.Popen([self.a.iolatd, "--foreground", "--config", conf, "--run-dir",
                              run_dir], stdout=log, stderr=log)
        for _ in range(100):
            if "controlling" in open(log.name).read():
                return p
            if p.poll() is not None:
                raise SystemExit("bench: iolatd did not start: " + open(log.name).read())
            time.sleep(0.05)
        raise SystemExit("bench: iolatd did not start in 5 s")

    def one(self, mode, cap_bps):
        """One mode: reader and writer figures (+ the daemon's costs under iolatd)."""
        rj, wj = os.path.join(self.tmp, "r.json"), os.path.join(self.tmp, "w.json")
        run_dir = os.path.join(self.tmp, "run")
        os.makedirs(run_dir, exist_ok=True)
        daemon = None
        r = {}
        if mode == "cap":
            set_cap(self.bg, self.ver, self.dev, cap_bps)
        if mode == "iolatd":
            daemon = self.start_daemon(run_dir)
        w = spawn_in(self.bg, fio_args("fbpkg", self.wfile, "write", "1m", 32, "libaio",
                                       self.secs + 4, wj, size="1g"))
        time.sleep(0.5)
        rd = spawn_in(self.main, fio_args("main", self.rfile, "randread", "4k", 1, "psync",
                                          self.secs, rj, ramp=2))
        time.sleep(2)  # the ramp: costs are measured over the counted part
        cpu0, t0 = (proc_cpu_s(daemon.pid), time.monotonic()) if daemon else (0, 0)
        bpf0 = bpf_prog_stats() if daemon else None
        obs0 = status_field(run_dir, "observed") if daemon else None
        rd.wait()
        if daemon:
            r["daemon_cpu_pct"] = 100.0 * (proc_cpu_s(daemon.pid) - cpu0) / (time.monotonic() - t0)
            bpf1 = bpf_prog_stats()
            time.sleep(1.1)  # one more status write
            obs1 = status_field(run_dir, "observed")
            if bpf0 and bpf1 and bpf1[1] > bpf0[1]:
                r["bpf_ns_per_req"] = (bpf1[0] - bpf0[0]) / (bpf1[1] - bpf0[1])
                r["bpf_reqs"] = bpf1[1] - bpf0[1]
            if obs0 is not None and obs1 and obs1 > obs0:
                r["daemon_us_per_req"] = (r["daemon_cpu_pct"] / 100.0 *
                                          (time.monotonic() - t0)) * 1e6 / (obs1 - obs0)
        w.send_signal(signal.SIGTERM)
        w.wait()
        if mode == "cap":
            set_cap(self.bg, self.ver, self.dev, 0)
        if daemon:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=10)
        rjs = fio_json(rj)["jobs"][0]["read"]["clat_ns"]["percentile"]
        wjs = fio_json(wj)["jobs"][0]["write"]
        r.update(p50_us=rjs["50.000000"] / 1e3, p90_us=rjs["90.000000"] / 1e3,
                 p99_us=rjs["99.000000"] / 1e3, writer_mib_s=wjs["bw_bytes"] / 1048576.0)
        return r

    def run(self):
        modes = {"none": [], "cap": [], "iolatd": []}
        caps = []
        for i in range(self.runs):
            for mode in ("none", "cap", "iolatd"):
                cap = int(modes["none"][-1]["writer_mib_s"] * 1048576 / 4) if modes["none"] else 0
                if mode == "cap":
                    caps.append(cap / 1048576.0)
                B.log("iolatd bench: run %d/%d, %s" % (i + 1, self.runs, mode))
                modes[mode].append(self.one(mode, max(cap, 1 << 20)))
        return modes, caps


def summarize(modes, caps, b):
    out = {"runs": b.runs, "seconds": b.secs, "target": TARGET, "cgroup": "v%d" % b.ver,
           "disk": b.dev, "cap_mib_s": B.summary(caps), "modes": {}}
    labels = {"none": "no control", "cap": "static cap (25% of uncontrolled)",
              "iolatd": "iolatd (target %s)" % TARGET}
    for m, rs in modes.items():
        out["modes"][m] = {"label": labels[m]}
        for k in ("p50_us", "p90_us", "p99_us", "writer_mib_s"):
            out["modes"][m][k] = B.summary([r[k] for r in rs])
    d = modes["iolatd"]
    for k in ("bpf_ns_per_req", "daemon_cpu_pct", "daemon_us_per_req", "bpf_reqs"):
        out[k] = B.summary([r.get(k) for r in d])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--iolatd", default=os.path.join(B.ROOT, "build", "iolatd"))
    ap.add_argument("--dir", default="/var/tmp/iolat-bench")
    ap.add_argument("--out", default=os.path.join(B.ROOT, "bench", "results"))
    a = ap.parse_args()
    path = os.path.join(a.out, "iolatd.json")
    why = None
    if os.geteuid() != 0:
        why = "needs root (cgroups, BPF)"
    elif not shutil.which("fio"):
        why = "fio not installed"
    elif not os.access(a.iolatd, os.X_OK) or "built" not in subprocess.run(
            [a.iolatd, "--version"], capture_output=True, text=True).stdout.replace("not built", ""):
        why = "%s missing or built without BPF" % a.iolatd
    elif cg_root()[0] is None:
        why = cg_root()[1]
    if why:
        B.log("iolatd bench skipped: " + why)
        B.write_json(path, {"skipped": why})
        return
    b = Bench(a)
    old_stats = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    try:
        open("/proc/sys/kernel/bpf_stats_enabled", "w").write("1")
        b.setup()
        modes, caps = b.run()
    finally:
        open("/proc/sys/kernel/bpf_stats_enabled", "w").write(old_stats)
        b.cleanup()
    res = summarize(modes, caps, b)
    res["bpf_stats_restored_to"] = old_stats
    res["cmd"] = " ".join(sys.argv)
    B.write_json(path, res)
    B.log("wrote " + path)


if __name__ == "__main__":
    main()
