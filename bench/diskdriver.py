# SPDX-License-Identifier: MIT
"""diskdriver.py - what the two real-disk oracle drivers (bench_disk.py,
bench_iolatd.py) share: the files in --dir (made at setup, removed at
cleanup), the benchmark's cgroups (made at setup, removed at cleanup; used to
tell the benchmark's bytes on the disk from other tenants'), the processes it
starts (tracked, stopped by pid), a disk sampler per run, and cleanup on
every path. Called from the driver's main thread.
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time

import benchlib as B
import cgroups
import disktraffic
import oracle


class DiskDriver:
    name = "?"
    children = ()        # the cgroups under the benchmark's own
    needs_cgroups = False  # True: not run without them (else: run, no traffic check)

    def __init__(self, a):
        self.a = a
        self.procs = []
        self.tree = None
        self.files = []
        self.tmp = None
        self.traffic_why_not = None
        self.root, self.ver = cgroups.hierarchy()
        self.dev = self.disk = None

    # ------------------------------------------------------------ checks

    def why_not(self):
        """Why this benchmark cannot run here (None: it can), before any side effect."""
        if self.root is None and self.needs_cgroups:
            return self.ver
        if os.geteuid() != 0 and self.needs_cgroups:
            return "needs root (cgroups)"
        d = self.a.dir
        while d and not os.path.exists(d):
            d = os.path.dirname(d)
        st = os.statvfs(d or "/")
        need = (oracle.QUICK_READ_SIZE + oracle.QUICK_WRITE_SIZE if self.a.quick else
                oracle.READ_SIZE + oracle.WRITE_SIZE) + (256 << 20)
        if st.f_bavail * st.f_frsize < need:
            return "%s: %d MiB free, %d MiB needed" % (d, st.f_bavail * st.f_frsize >> 20,
                                                     need >> 20)
        return None

    def checks_traffic(self):
        return self.tree is not None

    # ------------------------------------------------------------ setup

    def setup(self, st):
        os.makedirs(self.a.dir, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="iolat-bench-%s-" % self.name.split()[0])
        self.dev = cgroups.whole_disk(self.a.dir)
        self.disk = cgroups.disk_name(self.dev)
        if self.root is None or os.geteuid() != 0:
            self.traffic_why_not = "no cgroup of our own to count the benchmark's bytes: " + (
                "needs root" if self.root else self.ver)
        else:
            self.tree = cgroups.Tree(self.root, self.ver, self.name.split()[0].replace("/", ""),
                                     self.children)
            self.tree.make()
            self.tree.start_counting(self.dev)
        tag = "oracle-%d" % os.getpid()
        self.rfile = os.path.join(self.a.dir, tag + ".read")
        self.wfile = os.path.join(self.a.dir, tag + ".write")
        for path, size in ((self.rfile, st["read_size"]), (self.wfile, st["write_size"])):
            self.files.append(path)
            B.log("%s: writing %s (%d MiB)" % (self.name, path, size >> 20))
            oracle.prepare_file(path, size)
        time.sleep(1)  # let the disk drain what the layout queued

    # ------------------------------------------------------------ modes

    def more_modes(self, st, uncontrolled_bps, caps):
        """(caps, modes outside the sweep) once the uncontrolled rate is known:
        none here; a driver with a comparison of its own adds them."""
        return caps, []

    def arrange(self, plan, extra, rep):
        """The modes of repetition rep after solo and none, in the order run."""
        return plan + extra

    def cg(self, child):
        return self.tree.paths[child] if self.tree and child else None

    # ------------------------------------------------------------ processes

    def start(self, child, argv, out=None):
        p = cgroups.spawn_in(self.cg(child), argv, stdout=out, stderr=out)
        self.procs.append(p)
        return p

    def stop(self, p, sig=signal.SIGTERM, timeout=15):
        """Stop one process we started (by its pid) and reap it."""
        if p.poll() is None:
            try:
                p.send_signal(sig)
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if p in self.procs:
            self.procs.remove(p)

    def wait(self, p, timeout):
        """Wait for a process we started; stop it past the timeout (then say so)."""
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop(p)
            raise SystemExit("bench: %s did not end within %.0f s" % (p.args[0], timeout))
        if p in self.procs:
            self.procs.remove(p)

    def sampler(self, poll=None):
        """A disk sampler for one run (None without our cgroups)."""
        if not self.tree:
            return None
        cgs = {"own": self.tree.base}
        cgs.update({c: p for c, p in self.tree.paths.items()})
        return disktraffic.Sampler(self.disk, self.dev, self.ver, cgs, "own", poll).start()

    def foreign(self, smp, t0, t1, r):
        """The run's foreign traffic in r (None when it cannot be told)."""
        if smp is None:
            r["foreign_mb_s"] = r["foreign_worst_mb_s"] = None
            return
        mean, worst = smp.foreign(t0, t1)
        r["foreign_mb_s"], r["foreign_worst_mb_s"] = mean / 1e6, worst / 1e6

    # ------------------------------------------------------------ cleanup

    def cleanup(self):
        for p in list(self.procs):
            self.stop(p)
        if self.tree:
            self.tree.remove()
        for f in self.files:
            try:
                os.unlink(f)
            except FileNotFoundError:
                pass
        self.files = []
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
        try:
            os.rmdir(self.a.dir)  # only if empty: never what others put there
        except OSError:
            pass

    def describe(self):
        try:
            with open("/sys/dev/block/%s/queue/rotational" % self.dev) as f:
                rot = f.read().strip()
        except OSError:
            rot = None
        return {"disk": self.dev, "disk_name": self.disk, "rotational": rot,
                "cgroup": "v%d" % self.ver if self.root else None}
