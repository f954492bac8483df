# SPDX-License-Identifier: MIT
"""disktraffic.py - what the disk did during one benchmark run, sampled every
100 ms by a thread of its own: the disk's bytes read and written and its
weighted time in queue (/proc/diskstats), the bytes of the benchmark's own
cgroups (theirs), and optionally a value polled from a file (the write limit
in force on a cgroup). Then, over a time window: a cgroup's bytes, the bytes
that were not the benchmark's ("foreign": other tenants of the shared disk),
as a mean and as the worst 3 s, and the disk's mean queue (iostat's aqu-sz). The sampler thread only reads; everything else runs in the
driver's thread.
"""
import threading
import time

import cgroups

PERIOD_S = 0.1
BURST_S = 3.0


def disk_stats(name):
    """(bytes read + written, weighted ms in queue) of disk `name` since boot
    (sectors of 512 bytes; the weighted time is the sum over the time of the
    I/Os in flight, so its rate is the mean queue)."""
    with open("/proc/diskstats") as f:
        for line in f:
            w = line.split()
            if len(w) > 13 and w[2] == name:
                return (int(w[5]) + int(w[9])) * 512, int(w[13])
    return 0, 0


class Sampler:
    """Samples (t, disk bytes, {cgroup: (read, written)}, polled value, disk
    weighted ms in queue) until stopped.

    cgs: {key: cgroup path} whose bytes are counted (their subtrees); own: the
    key whose bytes are the benchmark's whole I/O (the parent of the others);
    poll: a function of no argument (None: nothing polled)."""

    def __init__(self, disk, dev, ver, cgs, own, poll=None):
        self.disk, self.dev, self.ver = disk, dev, ver
        self.cgs, self.own, self.poll = cgs, own, poll
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def sample(self):
        t = time.monotonic()
        nbytes, queued_ms = disk_stats(self.disk)
        return (t, nbytes, {k: cgroups.io_bytes(p, self.ver, self.dev) for k, p in self.cgs.items()},
                self.poll() if self.poll else None, queued_ms)

    def _loop(self):
        nxt = time.monotonic()
        while not self._stop.is_set():
            self.samples.append(self.sample())
            nxt += PERIOD_S
            self._stop.wait(max(0.0, nxt - time.monotonic()))

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join()
        self.samples.append(self.sample())

    # ------------------------------------------------------------- analysis

    def _at(self, t, get):
        """get(sample) linearly interpolated at time t."""
        s = self.samples
        if t <= s[0][0]:
            return get(s[0])
        for a, b in zip(s, s[1:]):
            if a[0] <= t <= b[0]:
                f = 0.0 if b[0] == a[0] else (t - a[0]) / (b[0] - a[0])
                return get(a) + f * (get(b) - get(a))
        return get(s[-1])

    def first_io(self, key, direction):
        """Time of the first sample where cgroup `key` had done I/O (0 read, 1 write)."""
        base = self.samples[0][2][key][direction]
        for t, _, c, _, _ in self.samples:
            if c[key][direction] > base:
                return t
        return None

    def cg_rate(self, key, direction, t0, t1):
        """Bytes per second of cgroup `key` in [t0, t1]."""
        got = self._at(t1, lambda s: s[2][key][direction]) - \
            self._at(t0, lambda s: s[2][key][direction])
        return got / max(1e-9, t1 - t0)

    def _foreign(self, s):
        rd, wr = s[2][self.own]
        return s[1] - rd - wr

    def foreign(self, t0, t1):
        """(mean, worst over BURST_S) bytes/s on the disk that were not ours, in [t0, t1]."""
        mean = (self._at(t1, self._foreign) - self._at(t0, self._foreign)) / max(1e-9, t1 - t0)
        worst = mean
        t = t0
        while t + BURST_S <= t1:
            worst = max(worst, (self._at(t + BURST_S, self._foreign) -
                                self._at(t, self._foreign)) / BURST_S)
            t += 0.5
        return max(0.0, mean), max(0.0, worst)

    def polled(self, t_ref):
        """[(t - t_ref, value)] of the polled value."""
        return [(round(t - t_ref, 3), v) for t, _, _, v, _ in self.samples if v is not None]

    def queue(self, t0, t1):
        """The disk's mean number of I/Os in flight in [t0, t1] (iostat's aqu-sz)."""
        got = self._at(t1, lambda s: s[4]) - self._at(t0, lambda s: s[4])
        return got / 1000.0 / max(1e-9, t1 - t0)
