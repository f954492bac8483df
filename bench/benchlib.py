# SPDX-License-Identifier: MIT
"""benchlib.py - helpers shared by the benchmark drivers in bench/ (python3
standard library only): running a command while measuring its wall and CPU
time, medians and ranges, key=value line parsing, and writing result files.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(msg):
    print("[bench] " + msg, file=sys.stderr, flush=True)


def run_measured(argv, cwd=None, env=None, timeout=None, stdin=None):
    """Run argv; return dict(rc, out, err, wall_s, user_s, sys_s, cpu_s).

    CPU time comes from wait4(), so it includes the process's threads and
    the children it reaped itself (fio's job processes)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
                         if stdin is None else stdin)
    # Read the pipes in threads-free fashion: communicate() then wait4 is not
    # possible (communicate reaps), so read everything first, then wait4.
    try:
        out, err = _drain(p, timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    return {
        "rc": p.returncode,
        "out": out.decode("utf-8", "replace"),
        "err": err.decode("utf-8", "replace"),
        "wall_s": wall,
        "user_s": ru.ru_utime,
        "sys_s": ru.ru_stime,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "argv": list(argv),
    }


def _drain(p, timeout):
    """Read stdout and stderr to EOF without reaping the process."""
    import selectors
    sel = selectors.DefaultSelector()
    bufs = {p.stdout: [], p.stderr: []}
    sel.register(p.stdout, selectors.EVENT_READ)
    sel.register(p.stderr, selectors.EVENT_READ)
    deadline = None if timeout is None else time.monotonic() + timeout
    open_ = 2
    while open_:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise subprocess.TimeoutExpired(p.args, timeout)
        for key, _ in sel.select(left):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                open_ -= 1
            else:
                bufs[key.fileobj].append(chunk)
    sel.close()
    p.stdout.close()
    p.stderr.close()
    return b"".join(bufs[p.stdout]), b"".join(bufs[p.stderr])


def check(res, what):
    if res["rc"] != 0:
        sys.stderr.write(res["err"][-4000:])
        raise SystemExit("bench: %s failed (exit %d): %s" %
                         (what, res["rc"], " ".join(res["argv"])))
    return res


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summary(xs):
    """{median, min, max, n, values} of a list of numbers."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return {"median": None, "min": None, "max": None, "n": 0, "values": []}
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs),
            "n": len(xs), "values": xs}


def quantile(xs, q):
    """Linear-interpolated quantile (q in [0, 1]) of a list; None if empty."""
    xs = sorted(xs)
    if not xs:
        return None
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


_KV = re.compile(r'([A-Za-z_][A-Za-z0-9_.\-]*)=("[^"]*"|\S+)')


def parse_kv(line):
    d = {}
    for k, v in _KV.findall(line):
        v = v.strip('"')
        try:
            d[k] = int(v)
        except ValueError:
            try:
                d[k] = float(v)
            except ValueError:
                d[k] = v
    return d


def write_json(path, obj, compact=False):
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        if compact:
            json.dump(obj, f, sort_keys=True, separators=(",", ":"))
        else:
            json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def write_text(path, text):
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def shell_join(argv):
    import shlex
    return " ".join(shlex.quote(a) for a in argv)


def rel(path):
    """Path relative to the repository root, for the report."""
    try:
        return os.path.relpath(path, ROOT)
    except ValueError:
        return path
