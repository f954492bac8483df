#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rules of BENCHMARKS.md section 4's pacing comparison (bench/pacing.py,
# bench/gen_pacing.py), on made-up results, no disk: the rates come from the
# uncontrolled rate and reuse the sweep's cap of the same rate as the `rate=`
# run; each kernel-throttle run sits beside its twin, after it in odd
# repetitions and before it in even ones, every mode once per repetition
# (through oracle.run_all); the throttle is set, read back and lifted on
# every path; bad options exit 2; the goal takes the p90 ratio repetition by
# repetition (not the ratio of the medians), needs `rate=` to deliver >= 0.9x
# the throttle's writer, and says why when the throttle's runs were not made.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
exec python3 -B - <<'PY'
import argparse
import contextlib
import io
import os
import sys
import tempfile

sys.path.insert(0, "bench")
import bench_disk
import gen_benchmarks as G
import gen_oracle
import oracle
import pacing


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def args(*argv):
    ap = argparse.ArgumentParser()
    oracle.add_args(ap)
    pacing.add_args(ap)
    ap.add_argument("--iolat", default="/nonexistent")
    return ap.parse_args(list(argv))


def exits2(*argv):
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            pacing.settings(args(*argv))
    except SystemExit as e:
        return e.code == 2
    return False


# settings
check(pacing.settings(args())["fractions"] == [0.5, 0.8, 1.0], "default rates 0.5, 0.8, 1.0x")
check(exits2("--pace-fractions", "0.5,x"), "--pace-fractions 0.5,x: exit 2")
check(exits2("--pace-rates", "-3"), "--pace-rates -3: exit 2")
check(exits2("--pace-rates", "800", "--pace-fractions", "0.5"), "both rates and fractions: exit 2")
check(exits2("--no-pace", "--pace-rates", "800"), "--no-pace with rates: exit 2")

# the plan: rates from the uncontrolled rate, the sweep's cap reused as the rate= run
ps = pacing.settings(args())
caps = oracle.cap_modes(oracle.grid(1500e6, (0.55, 0.8, 1.0)), (0.55, 0.8, 1.0))
got, kmodes = pacing.plan(ps, 1500e6, caps, None)
check([m["cap_bps"] for m in got] == [750e6, 830e6, 1200e6, 1500e6],
      "0.5x (750) added to the caps, sorted: %s" % [m["key"] for m in got])
check([(k["cap_bps"], k["twin"]) for k in kmodes] ==
      [(750e6, "cap-750"), (1200e6, "cap-1200"), (1500e6, "cap-1500")],
      "each throttle mode names its rate= twin")
check(sum(1 for m in got if m["cap_bps"] == 1200e6) == 1, "a rate in the grid is not run twice")
got2, k2 = pacing.plan(ps, 1500e6, caps, "needs root")
check(k2 == [] and len(got2) == 4, "no throttle modes when it cannot be set; the rate= runs stay")
ps = pacing.settings(args("--pace-rates", "1203,1197,333"))
got, kmodes = pacing.plan(ps, 1500e6, caps, None)
check([k["cap_bps"] for k in kmodes] == [1200e6, 330e6] and
      [m["cap_bps"] for m in got] == [330e6, 830e6, 1200e6, 1500e6],
      "given rates rounded to 10 MB/s, duplicates once: %s" % [k["key"] for k in kmodes])

# the order: beside the twin, alternating
plan = [{"key": "cap-750"}, {"key": "article-300us"}, {"key": "cap-1200"}]
ks = [{"key": "kthrottle-750", "twin": "cap-750"}, {"key": "kthrottle-1200", "twin": "cap-1200"}]
o1 = [m["key"] for m in pacing.arrange(plan, ks, 1)]
o2 = [m["key"] for m in pacing.arrange(plan, ks, 2)]
check(o1 == ["cap-750", "kthrottle-750", "article-300us", "cap-1200", "kthrottle-1200"],
      "odd repetitions: rate= first")
check(o2 == ["kthrottle-750", "cap-750", "article-300us", "kthrottle-1200", "cap-1200"],
      "even repetitions: the throttle first")


# oracle.run_all with the hook: every mode once per repetition, in that order
class Fake(bench_disk.IolatRun):
    def __init__(self, a):
        super().__init__(a, pacing.settings(a))
        self.ran = []

    def run_mode(self, mode, st):
        self.ran.append(mode["key"])
        return {"p90_us": 50.0, "p99_us": 90.0, "writer_mb_s": 1500.0, "foreign_mb_s": None}


real_why, pacing.kernel_why_not = pacing.kernel_why_not, lambda cg, ver: None
a = args("--quick", "--reps", "2", "--targets", "300")
fake = Fake(a)
st = oracle.settings(a)
with contextlib.redirect_stderr(io.StringIO()):
    modes, runs, _ = oracle.run_all(fake, st)
pacing.kernel_why_not = real_why
keys = [m["key"] for m in modes]
check(sorted(keys) == sorted(set(keys)), "each mode listed once")
rep1, rep2 = fake.ran[:len(keys)], fake.ran[len(keys):]
check(sorted(rep1) == sorted(keys) and sorted(rep2) == sorted(keys), "every mode in each repetition")
check(rep1.index("kthrottle-750") == rep1.index("cap-750") + 1 and
      rep2.index("kthrottle-750") == rep2.index("cap-750") - 1, "pairs back to back, alternating")
check("cap-830" in keys and "kthrottle-1500" in keys, "the sweep and the comparison both run")


class Plain(bench_disk.diskdriver.DiskDriver):  # section 7's drivers: no comparison of their own
    def run_mode(self, mode, st):
        return Fake.run_mode(self, mode, st)


plain = Plain(args("--quick", "--reps", "2", "--targets", "300", "--caps", "500,700"))
plain.ran = []
with contextlib.redirect_stderr(io.StringIO()):
    modes, _, _ = oracle.run_all(plain, oracle.settings(plain.a))
check([m["key"] for m in modes] == ["solo", "none", "cap-500", "article-300us", "cap-700",
                                    "adaptive-300us"] and plain.ran == 2 * [m["key"] for m in modes],
      "a driver without the hook: --caps as given, the same order every repetition")

# the throttle: set, read back, lifted on every path (a fake cgroup directory)
with tempfile.TemporaryDirectory() as cg:
    for ver, fname in ((1, "blkio.throttle.write_bps_device"), (2, "io.max")):
        open(os.path.join(cg, fname), "w").close()
        with pacing.throttled(cg, ver, "254:0", 750000000):
            inside = pacing.cgroups.write_cap(cg, ver, "254:0")
        check(inside == 750000000 and pacing.cgroups.write_cap(cg, ver, "254:0") == 0,
              "v%d: %d during the run, lifted after" % (ver, inside))
        try:
            with pacing.throttled(cg, ver, "254:0", 750000000):
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            pass
        check(pacing.cgroups.write_cap(cg, ver, "254:0") == 0, "v%d: lifted when stopped" % ver)
    real = pacing.cgroups.write_cap
    pacing.cgroups.write_cap = lambda c, v, d: 1
    try:
        with pacing.throttled(cg, 1, "254:0", 750000000):
            check(False, "a throttle that does not read back must not run")
    except SystemExit:
        pass
    pacing.cgroups.write_cap = real
    check(pacing.cgroups.write_cap(cg, 1, "254:0") == 0, "not read back: exit, and lifted")
    os.unlink(os.path.join(cg, "io.max"))
    os.mkdir(os.path.join(cg, "io.max"))  # a write that fails
    try:
        with contextlib.redirect_stderr(io.StringIO()) as err:
            with pacing.throttled(cg, 2, "254:0", 750000000):
                check(False, "a throttle that cannot be written must not run")
    except SystemExit as e:
        check("cannot write 254:0 750000000" in str(e) and "cannot lift" in err.getvalue(),
              "a failed write: one line, and the lift tried: %s" % e)


# the goal, from made-up runs
def doc_of(rate_p90, kern_p90, rate_mb=(750,) * 3, kern_mb=(750,) * 3, skipped=None):
    modes = [{"key": "solo", "kind": "solo"}, {"key": "none", "kind": "none"},
             {"key": "cap-750", "kind": "cap", "cap_bps": 750e6, "fraction": 0.5},
             {"key": "kthrottle-750", "kind": "kthrottle", "cap_bps": 750e6, "fraction": 0.5,
              "twin": "cap-750"}]
    runs = []
    for rep in (1, 2, 3):
        for key, p90, mb in (("solo", 40.0, None), ("none", 9000.0, 1500.0),
                             ("cap-750", rate_p90[rep - 1], rate_mb[rep - 1]),
                             ("kthrottle-750", kern_p90[rep - 1], kern_mb[rep - 1])):
            runs.append({"mode": key, "rep": rep, "p50_us": p90 / 2, "p90_us": p90,
                         "p99_us": 2 * p90, "writer_mb_s": mb, "aqu_sz": 1.5, "disturbed": False})
    return {"modes": modes, "runs": runs, "reps": 3, "targets_us": [300], "seconds": 15,
            "lead_s": 2, "ramp_s": 1, "read_size": 1 << 31, "write_size": 1 << 32,
            "fractions": [0.5], "uncontrolled_ref_mb_s": 1500, "disturbance": {
                "checked": False, "why_not": "test"},
            "pacing": {"fractions": [0.5], "uncontrolled_ref_mb_s": 1500,
                       "kernel_how": "blkio.throttle.write_bps_device", "kernel_skipped": skipped}}


def section(d):
    with tempfile.TemporaryDirectory() as res:
        G.B.write_json(os.path.join(res, "disk.json"), d)
        doc = G.Doc()
        gen_oracle.section(doc, res, "disk.json")
    rows = [g for g in doc.goals if "kernel throttle" in g[1]]
    return rows, "\n".join(doc.parts)


rows, text = section(doc_of([100, 300, 200], [100, 100, 200]))
check(len(rows) == 1 and rows[0][3] == "**met**",
      "ratio per repetition (1, 3, 1: median 1.0) not of the medians (2.0): %s" % rows[0][2])
check("| kernel throttle |" in text and text.count("kthrottle") == 0 and
      "kernel throttle 750" not in text.split("**Pacing")[0], "throttle rows only in their table")
rows, _ = section(doc_of([160, 160, 160], [100, 100, 100]))
check(rows[0][3] == "**not met**" and "1.60×" in rows[0][4], "1.6x: not met, per run said")
rows, _ = section(doc_of([100] * 3, [100] * 3, rate_mb=(600,) * 3))
check(rows[0][3] == "**not met**" and "not the same rate" in rows[0][4],
      "rate= delivering 0.8x the throttle's writer: not the same rate")
rows, _ = section(doc_of([100] * 3, [100] * 3, kern_mb=(600,) * 3, rate_mb=(600,) * 3))
check(rows[0][3] == "**met**" and "the disk, not R" in rows[0][4], "a throttle that did not bind: said")
rows, text = section(doc_of([100] * 3, [100] * 3, skipped="needs root (the kernel's block throttle)"))
check(rows[0][3] == "not measured" and "needs root" in rows[0][4] and "not made" in text,
      "throttle skipped: not measured, why said")
d = doc_of([100] * 3, [100] * 3)
del d["pacing"]
rows, _ = section(d)
check(rows[0][3] == "not measured", "an older disk.json without the comparison: not measured")
PY
