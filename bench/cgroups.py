# SPDX-License-Identifier: MIT
"""cgroups.py - the cgroup side of the real-disk benchmarks (python3 standard
library only): find the hierarchy with the block throttle (cgroup v2 with io,
else v1 blkio), make and remove the benchmark's own cgroups, start a process
inside one, write and read a write-bandwidth limit, and read a cgroup's
bytes read and written on one disk. Called from the drivers' main thread and
from the disk sampler's thread (the reads only).
"""
import os
import subprocess
import time


def hierarchy():
    """(path, version) of the hierarchy with the block throttle, or (None, why)."""
    with open("/proc/self/mounts") as f:
        mounts = [l.split() for l in f]
    for m in mounts:
        if m[2] == "cgroup2":
            try:
                with open(os.path.join(m[1], "cgroup.controllers")) as c:
                    if "io" in c.read().split():
                        return m[1], 2
            except OSError:
                pass
    for m in mounts:
        if m[2] == "cgroup" and "blkio" in m[3].split(","):
            return m[1], 1
    return None, "no cgroup v2 with io and no v1 blkio mount"


def whole_disk(path):
    """MAJ:MIN of the whole disk holding path (a partition's parent)."""
    st = os.stat(path)
    dev = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    if os.path.exists("/sys/dev/block/%s/partition" % dev):
        with open("/sys/dev/block/%s/../dev" % dev) as f:
            dev = f.read().strip()
    return dev


def disk_name(dev):
    """The kernel's name of a MAJ:MIN (vda), as /proc/diskstats spells it."""
    return os.path.basename(os.path.realpath("/sys/dev/block/" + dev))


class Tree:
    """The benchmark's cgroups: ROOT/iolat-bench-PID-TAG/{children}, made at
    once and removed on every path (only what was made here)."""

    def __init__(self, root, ver, tag, children):
        self.root, self.ver = root, ver
        self.base = os.path.join(root, "iolat-bench-%d-%s" % (os.getpid(), tag))
        self.paths = {c: os.path.join(self.base, c) for c in children}
        self.made = []

    def make(self):
        os.mkdir(self.base)
        self.made.append(self.base)
        if self.ver == 2:  # the children get io.max only with io enabled here
            with open(os.path.join(self.base, "cgroup.subtree_control"), "w") as f:
                f.write("+io")
        for p in self.paths.values():
            os.mkdir(p)
            self.made.append(p)

    def start_counting(self, dev):
        """v1: the throttle's counters (blkio.throttle.io_service_*) count only once a
        throttle rule has been set on the disk since boot (seen on 6.18), so set one on
        our own cgroup and take it away again; v2's io.stat always counts."""
        if self.ver != 2:
            set_write_cap(self.base, self.ver, dev, 1 << 40)
            set_write_cap(self.base, self.ver, dev, 0)

    def rel(self, child):
        """A child's path relative to the hierarchy's root (iolatd's [group:...])."""
        return os.path.relpath(self.paths[child], self.root)

    def remove(self):
        """Kill what is left inside (only our cgroups), then remove them, children first."""
        for p in reversed(self.made):
            for _ in range(50):
                try:
                    os.rmdir(p)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    for pid in pids_in(p):
                        try:
                            os.kill(pid, 9)
                        except OSError:
                            pass
                    time.sleep(0.1)
        self.made = []


def pids_in(cg):
    try:
        with open(os.path.join(cg, "cgroup.procs")) as f:
            return [int(l) for l in f if l.strip()]
    except (OSError, ValueError):
        return []


def spawn_in(cg, argv, stdout=None, stderr=None):
    """Start argv inside cgroup cg (None: where we are)."""
    def enter():
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    return subprocess.Popen(argv, preexec_fn=enter if cg else None,
                            stdout=stdout or subprocess.DEVNULL,
                            stderr=stderr or subprocess.DEVNULL)


def set_write_cap(cg, ver, dev, bps):
    """The kernel throttle's write bandwidth limit on cg; 0 removes it."""
    if ver == 2:
        with open(os.path.join(cg, "io.max"), "w") as f:
            f.write("%s wbps=%s" % (dev, bps if bps else "max"))
    else:
        with open(os.path.join(cg, "blkio.throttle.write_bps_device"), "w") as f:
            f.write("%s %d" % (dev, bps))


def write_cap(cg, ver, dev):
    """The write bandwidth limit in force on cg for dev (bytes/s, 0: none)."""
    try:
        if ver == 2:
            with open(os.path.join(cg, "io.max")) as f:
                for line in f:
                    w = line.split()
                    if w and w[0] == dev:
                        for kv in w[1:]:
                            k, _, v = kv.partition("=")
                            if k == "wbps":
                                return 0 if v == "max" else int(v)
            return 0
        with open(os.path.join(cg, "blkio.throttle.write_bps_device")) as f:
            for line in f:
                w = line.split()
                if len(w) == 2 and w[0] == dev:
                    return int(w[1])
    except (OSError, ValueError):
        pass
    return 0


def io_bytes(cg, ver, dev):
    """(read, written) bytes of cg and its descendants on dev since it was made."""
    rd = wr = 0
    try:
        if ver == 2:
            with open(os.path.join(cg, "io.stat")) as f:
                for line in f:
                    w = line.split()
                    if w and w[0] == dev:
                        kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
                        rd, wr = int(kv.get("rbytes", 0)), int(kv.get("wbytes", 0))
            return rd, wr
        with open(os.path.join(cg, "blkio.throttle.io_service_bytes_recursive")) as f:
            for line in f:
                w = line.split()
                if len(w) == 3 and w[0] == dev:
                    if w[1] == "Read":
                        rd = int(w[2])
                    elif w[1] == "Write":
                        wr = int(w[2])
    except (OSError, ValueError):
        pass
    return rd, wr
