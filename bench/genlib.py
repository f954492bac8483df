# SPDX-License-Identifier: MIT
"""genlib.py - what the generators of BENCHMARKS.md share (python3 standard
library only): number and latency formatting, reading result files, and the
document being written with its goals. Imported by gen_benchmarks.py and the
section generators (gen_control, gen_oracle, gen_pacing, gen_openloop); it
imports none of them, so the generators form no import cycle. One thread.
"""
import json


# ---------------------------------------------------------------- formatting

def f_us(v):
    """A latency given in microseconds."""
    if v is None:
        return "-"
    if v >= 1e6:
        return "%.2f s" % (v / 1e6)
    if v >= 1e3:
        return "%.2f ms" % (v / 1e3) if v < 1e4 else "%.1f ms" % (v / 1e3)
    if v >= 100:
        return "%.0f µs" % v
    return "%.1f µs" % v


def f_ns(v):
    if v is None:
        return "-"
    if v >= 1e6:
        return "%.2f ms" % (v / 1e6)
    if v >= 1e5:
        return "%.0f µs" % (v / 1e3)
    if v >= 1e4:
        return "%.1f µs" % (v / 1e3)
    if v >= 1e3:
        return "%.2f µs" % (v / 1e3)
    if v >= 100:
        return "%.0f ns" % v
    return "%.1f ns" % v


def f_num(v, d=0):
    if v is None:
        return "-"
    if d == 0:
        return "{:,.0f}".format(v).replace(",", "\u2009")
    return "%.*f" % (d, v)


def f_big(v):
    if v is None:
        return "-"
    if v >= 1e6:
        return "%.2f M" % (v / 1e6)
    if v >= 1e3:
        return "%.1f k" % (v / 1e3)
    return "%.0f" % v


def pl(n, word):
    """'1 leaf', '3 leaves': n and the word, plural when n != 1."""
    irregular = {"leaf": "leaves"}
    try:
        one = int(n) == 1
    except (TypeError, ValueError):
        one = False
    return "%s %s" % (f_num(n) if isinstance(n, (int, float)) else n,
                      word if one else irregular.get(word, word + "s"))


def f_pct(v):
    return "-" if v is None else "%.1f%%" % v


def f_x(v):
    return "-" if v is None else "%.2f" % v


def rng(s, f):
    """median (min–max) of a summary dict, with formatter f."""
    if not s or s.get("median") is None:
        return "-"
    if s["n"] <= 1 or s["min"] == s["max"]:
        return f(s["median"])
    return "%s (%s–%s)" % (f(s["median"]), f(s["min"]), f(s["max"]))


def f_mb(v):
    """MB/s (10^6 bytes/s), no decimals."""
    return f_num(v)


def f_ratio(s):
    """A summary of ratios: median (min–max) as 0.00×."""
    return rng(s, lambda v: "%.2f×" % v)


def per_rep(s, f):
    """Every value of a summary, in repetition order, with formatter f."""
    return ", ".join(f(v) for v in s["values"]) if s and s.get("values") else "-"


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def load_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


class Doc:
    def __init__(self):
        self.parts = []
        self.goals = []   # (section, goal, measured, status, why)

    def w(self, s=""):
        self.parts.append(s)

    def goal(self, sec, goal, measured, ok, why):
        status = {True: "**met**", False: "**not met**", None: "not measured"}[ok]
        self.goals.append((sec, goal, measured, status, why))
