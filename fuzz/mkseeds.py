#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the seed corpora fuzz/corpus/fuzz_ctl/ and fuzz/corpus/fuzz_duration/
# (the files are kept in the repository; rerun after changing the byte layout
# of fuzz/ctl_driver.h). Each fuzz_ctl seed is a small scenario in the
# driver's byte language: header (qd, flags, max groups, start), then ops.
import os

HERE = os.path.dirname(os.path.abspath(__file__))
(CREATE, DESTROY, SET_TARGET, SUBMIT, DONE, DONE_UNISSUED, CANCEL, TICK, ADVANCE,
 SET_NR_REQ, DELAY, STAT, DONE_AGAIN, BURST, ROUND) = range(15)


def ms(k):      # ADVANCE/ROUND amount byte: k x 10 ms (1 <= k <= 64)
    return ((k - 1) << 2) | 2


def us100(k):   # k x 100 us
    return ((k - 1) << 2) | 1


def seed(name, hdr, ops):
    with open(os.path.join(HERE, "corpus", "fuzz_ctl", name), "wb") as f:
        f.write(bytes(hdr + ops))


# Two siblings, "main" (slot 0, 1 ms target) and "bulk" (slot 1); main misses
# for a while (bulk is throttled), then goes quiet (ticks release bulk).
ops = [CREATE, 0, 0, CREATE, 0, 1, SET_TARGET, 0, 1, 2]
for _ in range(30):
    ops += [ROUND, 0, 1, 7, ms(10)]
ops += [DELAY, 1, 1, STAT, 1, 40]
for _ in range(4):
    ops += [ADVANCE, ms(64), TICK]
for _ in range(10):
    ops += [ROUND, 1, 1, 3, us100(2)]
seed("siblings_ssd", [64, 0, 15, 1], ops)

# Same on a rotational device, kernel timer, B1 compat, small qd.
seed("siblings_hdd_compat", [8, 1 | 2 | 4, 15, 0], ops)

# Same in the adaptive mode (flags bit 7): watched, measured, paced, released.
seed("siblings_adaptive", [64, 0x80, 15, 1], ops)

# Three levels: a/{x,y}, x/{l0}, b; targets at two levels; bulk bursts that
# queue, then cancel, nowait, bypass and double completion.
ops = [CREATE, 0, 0,            # slot 0: n0 under root
       CREATE, 0, 1,            # slot 1: n1 under root
       CREATE, 1, 2,            # slot 2: n2 under slot 1
       CREATE, 2, 3,            # slot 3: n3 under slot 2
       CREATE, 1, 4,            # slot 4: n4 under slot 1
       SET_TARGET, 2, 2, 2,     # slot 2 (sibling of slot 4): 2 ms
       SET_TARGET, 3, 9, 2,     # leaf 9 ms
       SET_TARGET, 0, 5, 2]     # top 5 ms
for _ in range(25):
    ops += [ROUND, 3, 4, 7, ms(10), BURST, 4, 10, ROUND, 0, 3, 3, us100(30)]
ops += [CANCEL, 0, CANCEL, 0x85, SUBMIT, 4, 4, SUBMIT, 4, 1,
        SUBMIT, 4, 0x10, DONE_UNISSUED, 0, DONE_AGAIN, 0, DONE_AGAIN, 0x80,
        DESTROY, 3, DESTROY, 0, STAT, 0xff, 0, SET_NR_REQ, 0, SET_NR_REQ, 16]
seed("three_levels", [32, 8, 15, 3], ops)

# Depth 1 then induced delay: a tight target and a large qd change.
# "bulk" (slot 1) has a loose 50 ms target: its bypassed (META) I/O is
# charged as delay once it is throttled.
ops = [CREATE, 0, 0, CREATE, 0, 1, SET_TARGET, 0, 1, 0,   # 1 us target
       SET_TARGET, 1, 1, 3]
for _ in range(30):
    ops += [ROUND, 0, 1, 2, ms(10), SUBMIT, 1, 2, ADVANCE, us100(1), DONE, 0, DELAY, 1, 1]
ops += [SET_NR_REQ, 255, ROUND, 0, 1, 2, ms(60), SET_NR_REQ, 224, TICK]
seed("delay_and_qd", [4, 0x40, 2, 5], ops)

# Arena full, names taken, destroy while busy, target on and off.
ops = [CREATE, 0, 0, CREATE, 0, 0, CREATE, 0, 1, CREATE, 0, 2, CREATE, 1, 0,
       BURST, 0, 5, SET_TARGET, 0, 3, 1, BURST, 0, 5, DESTROY, 0, DONE, 0,
       SET_TARGET, 0, 0, 0, DONE, 0, DESTROY, 0, CREATE, 0, 5, TICK]
seed("arena_and_busy", [0, 0x18, 2, 0], ops)

dur = ["5ms", "750", "1.5ms", "max", "  2s\t", "1500ns", "0.000000001h", "18446744073709551615ns",
       "10\u00b5s", "3min", "1.25sec", "250usec", "7msec", "12", "junk", "-5ms", ".5s", "5 ms"]
for i, s in enumerate(dur):
    with open(os.path.join(HERE, "corpus", "fuzz_duration", "d%02d" % i), "wb") as f:
        f.write(s.encode())
