#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# promcheck.py - checks text in Prometheus's exposition format (0.0.4) and
# the naming conventions iolatd follows, for the tests where promtool is not
# installed (and beside it where it is): every family has one HELP and one
# TYPE line before its samples, its samples are together, names and label
# names are valid, label values properly quoted, values are numbers (or
# +Inf), no sample repeats; counters end in _total; names use base units
# (no _ms, _us, _percent, no "millis"). A histogram's samples are its
# _bucket, _sum and _count; per label set: buckets with an le label in
# increasing order, cumulative (never decreasing), the last le="+Inf", equal
# to _count, and a _sum. Usage: promcheck.py FILE; prints one line per
# problem, exit 1 if any.
import re, sys

NAME = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*$')
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"\s*(,|$)')
VALUE = re.compile(r'^[-+]?(\d+(\.\d*)?([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|Inf|NaN)$')

def labels(text, where, problems):
    out, pos = [], 0
    while pos < len(text):
        m = LABEL.match(text, pos)
        if not m:
            problems.append(f"{where}: bad labels '{text}'")
            return None
        out.append((m.group(1), m.group(2)))
        pos = m.end()
    return tuple(out)

def family_of(name, typ):
    """A histogram's _bucket, _sum and _count samples belong to its family."""
    for suffix in ('_bucket', '_sum', '_count'):
        base = name[:-len(suffix)]
        if name.endswith(suffix) and typ.get(base) == 'histogram':
            return base, suffix
    return name, ''

def check_histograms(hist, problems):
    """hist: (family, labels without le) -> {'buckets': [(le, value)], '_sum': v, '_count': v}."""
    for (name, lab), h in hist.items():
        where = f"{name}{{{','.join(k + '=' + v for k, v in lab)}}}"
        b = h.get('buckets', [])
        if not b or b[-1][0] != float('inf'):
            problems.append(f"{where}: no le=\"+Inf\" bucket last")
        if any(b[i][0] >= b[i + 1][0] for i in range(len(b) - 1)):
            problems.append(f"{where}: buckets not in increasing le")
        if any(b[i][1] > b[i + 1][1] for i in range(len(b) - 1)):
            problems.append(f"{where}: buckets not cumulative")
        if '_count' not in h or '_sum' not in h:
            problems.append(f"{where}: no _count or _sum")
        elif b and b[-1][1] != h['_count']:
            problems.append(f"{where}: _count {h['_count']} is not the +Inf bucket's {b[-1][1]}")

def check(lines):
    problems, typ, helped, done, seen, current, hist = [], {}, set(), set(), set(), None, {}
    for n, line in enumerate(lines, 1):
        where = f"line {n}"
        if not line.strip():
            continue
        if line.startswith('#'):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ('HELP', 'TYPE'):
                name = parts[2]
                if not NAME.match(name):
                    problems.append(f"{where}: bad metric name '{name}'")
                if name in done:
                    problems.append(f"{where}: {name}: {parts[1]} after its samples ended")
                if parts[1] == 'TYPE':
                    if name in typ:
                        problems.append(f"{where}: {name}: second TYPE")
                    t = parts[3] if len(parts) > 3 else ''
                    if t not in ('counter', 'gauge', 'histogram', 'summary', 'untyped'):
                        problems.append(f"{where}: {name}: unknown type '{t}'")
                    typ[name] = t
                else:
                    if name in helped:
                        problems.append(f"{where}: {name}: second HELP")
                    helped.add(name)
            continue
        m = re.match(r'^([^{\s]+)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$', line)
        if not m:
            problems.append(f"{where}: not a sample: '{line}'")
            continue
        sample, lab, value = m.group(1), m.group(3) or '', m.group(4)
        name, suffix = family_of(sample, typ)
        if not NAME.match(name):
            problems.append(f"{where}: bad metric name '{name}'")
        if typ.get(name) == 'histogram' and not suffix:
            problems.append(f"{where}: {name}: a histogram's sample is _bucket, _sum or _count")
        if name not in typ or name not in helped:
            problems.append(f"{where}: {name}: sample before its HELP and TYPE")
        if current != name:
            if current:
                done.add(current)
            if name in done:
                problems.append(f"{where}: {name}: its samples are not together")
            current = name
        labs = labels(lab, where, problems)
        key = (sample, labs)
        if key in seen:
            problems.append(f"{where}: repeated sample {sample}{{{lab}}}")
        seen.add(key)
        if not VALUE.match(value):
            problems.append(f"{where}: {name}: value '{value}' is not a number")
            continue
        if suffix and labs is not None:
            le = [v for k, v in labs if k == 'le']
            h = hist.setdefault((name, tuple((k, v) for k, v in labs if k != 'le')), {})
            if suffix == '_bucket':
                if len(le) != 1:
                    problems.append(f"{where}: {sample}: no le label")
                    continue
                try:
                    h.setdefault('buckets', []).append((float(le[0].replace('Inf', 'inf')), float(value)))
                except ValueError:
                    problems.append(f"{where}: {sample}: le '{le[0]}' is not a number")
            else:
                h[suffix] = float(value)
    check_histograms(hist, problems)
    for name, t in typ.items():
        if t == 'counter' and not name.endswith('_total'):
            problems.append(f"{name}: a counter's name ends in _total")
        if t != 'counter' and name.endswith('_total'):
            problems.append(f"{name}: only counters end in _total")
        if re.search(r'_(ms|us|ns|msec|usec|percent|millis|kb|mb)(_|$)', name):
            problems.append(f"{name}: not in base units (seconds, bytes, ratios)")
    return problems

if __name__ == '__main__':
    problems = check(open(sys.argv[1]).read().split('\n'))
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)
