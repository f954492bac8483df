#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""spells.py - a coming-and-going reader's per-read log, spell by spell: for
each busy spell, its reads, the share over the target in its first HEAD s and
after, and its p90; then the whole run's. Reads fio's latency log of
`bench/iolatd_openloop.sh -L -y ON,OFF,N` (unix ms, latency ns); a spell
starts at the first read after a gap of more than half the idle time.

usage: spells.py [--target US] [--head S] LOG...
"""
import argparse
import sys


def reads(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = [p.strip() for p in line.split(",")]
            if len(parts) < 2:
                continue
            try:
                out.append((int(parts[0]), int(parts[1])))
            except ValueError:
                sys.exit("%s:%d: expected 'time_ms, latency_ns, ...'" % (path, n))
    out.sort()
    return out


def p90(lats):
    s = sorted(lats)
    return s[min(len(s) - 1, int(0.9 * len(s)))] if s else 0


def spells(rs, gap_ms):
    cur, out = [], []
    for t, lat in rs:
        if cur and t - cur[-1][0] > gap_ms:
            out.append(cur)
            cur = []
        cur.append((t, lat))
    if cur:
        out.append(cur)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", type=float, default=300.0, help="µs (300)")
    ap.add_argument("--head", type=float, default=0.5, help="a spell's head, s (0.5)")
    ap.add_argument("--gap", type=float, default=1.0, help="idle gap that ends a spell, s (1)")
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()
    tgt = a.target * 1000
    for path in a.logs:
        rs = reads(path)
        if not rs:
            print("%s: no reads" % path)
            continue
        print(path)
        all_l = []
        for i, sp in enumerate(spells(rs, a.gap * 1000)):
            t0 = sp[0][0]
            head = [l for t, l in sp if t - t0 < a.head * 1000]
            rest = [l for t, l in sp if t - t0 >= a.head * 1000]
            late = lambda ls: 100.0 * sum(l > tgt for l in ls) / len(ls) if ls else 0.0
            all_l += [l for _, l in sp]
            print("  spell %d: %5d reads, late %5.1f %% (head %5.1f %% of %d, rest %5.1f %%), "
                  "p90 %6.0f µs" % (i + 1, len(sp), late([l for _, l in sp]), late(head),
                                     len(head), late(rest), p90([l for _, l in sp]) / 1e3))
        print("  all: %d reads, late %.1f %%, p90 %.0f µs" % (
            len(all_l), 100.0 * sum(l > tgt for l in all_l) / len(all_l), p90(all_l) / 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
