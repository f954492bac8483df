# SPDX-License-Identifier: MIT
"""pacing.py - the pacing comparison of BENCHMARKS.md section 4 (issue 19,
item 2): at a few rates R, `iolat run`'s own `rate=R` on the writer's job
against the kernel's block throttle holding `iolat run`'s cgroup to R for
writes (blkio.throttle.write_bps_device, or io.max wbps on cgroup v2; the
reader only reads, so only the writer is limited). The same job file, the
controller off, both in the same repetition, back to back; which of the two
runs first alternates with the repetition.

The `rate=` runs are cap modes of the oracle's sweep (a rate already in the
grid is not run twice); this module picks the rates, adds the ones missing
to the grid, makes the kernel-throttle modes (kind "kthrottle"), places each
beside its `rate=` twin, and sets and lifts the throttle around one run
(lifted on every path). python3 standard library only; called from the
driver's main thread. The figures are judged by gen_pacing.py.
"""
import contextlib
import os

import benchlib as B
import cgroups
import oracle

FRACTIONS = (0.5, 0.8, 1.0)   # of the writer's uncontrolled rate, first repetition
KIND = "kthrottle"


def add_args(ap):
    ap.add_argument("--pace-fractions", help="the pacing comparison's rates as fractions of the "
                    "writer's uncontrolled rate (%s)" % ",".join("%g" % f for f in FRACTIONS))
    ap.add_argument("--pace-rates", help="the pacing comparison's rates in MB/s, comma-separated "
                    "(instead of --pace-fractions)")
    ap.add_argument("--no-pace", action="store_true", help="leave the pacing comparison out")


def settings(a):
    """The comparison's settings from the arguments; a bad value is one line and exit 2."""
    floats = oracle.floats
    if a.pace_rates and a.pace_fractions:
        oracle.bad("--pace-rates and --pace-fractions: give one of them")
    if a.no_pace and (a.pace_rates or a.pace_fractions):
        oracle.bad("--no-pace with --pace-rates or --pace-fractions")
    return {"on": not a.no_pace,
            "rates_bps": [int(r * 1e6) for r in floats(a.pace_rates, "--pace-rates")]
            if a.pace_rates else None,
            "fractions": floats(a.pace_fractions, "--pace-fractions") if a.pace_fractions
            else list(FRACTIONS)}


def throttle_file(ver):
    return "io.max" if ver == 2 else "blkio.throttle.write_bps_device"


def kernel_why_not(cg, ver):
    """Why the kernel's throttle cannot be set on cg here (None: it can)."""
    if os.geteuid() != 0:
        return "needs root (the kernel's block throttle)"
    if cg is None:
        return "no cgroup of our own for `iolat run`"
    if not os.path.exists(os.path.join(cg, throttle_file(ver))):
        return "%s missing in %s" % (throttle_file(ver), cg)
    return None


def plan(ps, uncontrolled_bps, caps, why_not):
    """(caps with every rate's `rate=` twin, kernel-throttle modes; [] when
    why_not). Rates are rounded like the sweep's caps, so a rate in the grid
    is the same mode; the twins missing are added to the caps, by rate."""
    if ps["rates_bps"]:
        rates = [(oracle.grid(r, (1.0,))[0], None) for r in ps["rates_bps"]]
    else:
        rates = [(oracle.grid(uncontrolled_bps, (f,))[0], f) for f in ps["fractions"]]
    caps = list(caps)
    kmodes = []
    for bps, frac in rates:
        if any(m["cap_bps"] == bps for m in kmodes):
            continue
        twin = next((m for m in caps if m["cap_bps"] == bps), None)
        if twin is None:
            twin = oracle.cap_modes([bps], [frac])[0]
            caps.append(twin)
        kmodes.append({"key": "%s-%d" % (KIND, round(bps / 1e6)), "kind": KIND, "cap_bps": bps,
                       "fraction": frac, "twin": twin["key"]})
    caps.sort(key=lambda m: m["cap_bps"])
    return caps, ([] if why_not else kmodes)


def arrange(modes, kmodes, rep):
    """modes with each kernel-throttle mode beside its `rate=` twin: after it in
    odd repetitions, before it in even ones."""
    out = []
    for m in modes:
        k = [x for x in kmodes if x["twin"] == m["key"]]
        out += (k + [m]) if rep % 2 == 0 else ([m] + k)
    return out


@contextlib.contextmanager
def throttled(cg, ver, dev, bps):
    """The kernel's write throttle on cg at bps for the duration, lifted on every path."""
    path = os.path.join(cg, throttle_file(ver))
    try:
        try:
            cgroups.set_write_cap(cg, ver, dev, bps)
        except OSError as e:
            raise SystemExit("bench: cannot write %s %d to %s: %s" % (dev, bps, path, e.strerror))
        got = cgroups.write_cap(cg, ver, dev)
        if got != bps:
            raise SystemExit("bench: %s reads %d after writing %d" % (path, got, bps))
        yield
    finally:
        try:
            cgroups.set_write_cap(cg, ver, dev, 0)
        except OSError as e:  # the cgroup goes at cleanup, and the limit with it
            B.log("cannot lift the throttle in %s (%s); it goes with the cgroup" % (path, e.strerror))


def describe(ps, uncontrolled_bps, ver, why_not):
    """What the JSON says of the comparison (None when it was left out)."""
    if not ps["on"]:
        return None
    return {"fractions": None if ps["rates_bps"] else ps["fractions"],
            "rates_given_bps": ps["rates_bps"],
            "uncontrolled_ref_mb_s": uncontrolled_bps / 1e6 if uncontrolled_bps else None,
            "kernel_how": "%s on `iolat run`'s cgroup" % (
                "io.max wbps" if ver == 2 else "blkio.throttle.write_bps_device"),
            "kernel_skipped": why_not}
