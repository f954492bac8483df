#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man pages (man/*.scd) say what the tools accept, no more, no less:
#   iolat.1        every option of iolat's --help texts (run, sim, demo, demo
#                  --cgroups, demo --memleak, status, calibrate, help) and every job-file
#                  key of `iolat help keys`, in the JOB FILES section;
#   iolatd.8       every option of iolatd --help;
#   iolatd.conf.5  the [global] and [group:] keys iolatd accepts (from the
#                  list its own error for an unknown key gives);
#   libiolatency.3 every function of include/iolatency.h;
# and the other way round: nothing there that the tools do not have. Short
# options are checked with their long form ("-q, --quiet" in --help, "*-q*,
# *--quiet*" in the page). With scdoc installed each page is also built and
# rendered by man(1) (when there) without a warning. A change to --help, a
# key or the header that is not made in the page fails here.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
[ -x "$IOLAT" ] && [ -x "$IOLATD" ] || skip "$IOLAT or $IOLATD not built"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

{ for c in "" run sim demo status calibrate; do "$IOLAT" help $c; done
  "$IOLAT" demo --cgroups --help; "$IOLAT" demo --memleak --help; } >"$tmp/iolat.help" 2>&1
"$IOLAT" help keys >"$tmp/iolat.keys" 2>&1 || { echo "iolat help keys failed"; exit 1; }
"$IOLATD" --help >"$tmp/iolatd.help" 2>&1 || { echo "iolatd --help failed"; exit 1; }
printf '[global]\nno_such_key=1\n' >"$tmp/g.conf"
printf '[group:a]\nno_such_key=1\n' >"$tmp/s.conf"
"$IOLATD" --dry-run --config "$tmp/g.conf" >"$tmp/global.err" 2>&1
"$IOLATD" --dry-run --config "$tmp/s.conf" >"$tmp/group.err" 2>&1

python3 - "$tmp" man include/iolatency.h <<'EOF'
import re, sys
tmp, mandir, header = sys.argv[1:4]
read = lambda p: open(p, encoding="utf-8").read()
fails = []

def longopts(text):
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))

def pairs(text):
    """'-q, --quiet' pairs of a --help text."""
    return set(re.findall(r"(?m)^\s+(-[A-Za-z]), (--[a-z][a-z0-9-]*)", text))

def section(text, start, end):
    m = re.search(r"(?ms)^# " + re.escape(start) + r"\n(.*?)(?=^# (?:" + end + r")\b)", text)
    return m.group(1) if m else ""

def compare(what, tools, page):
    for x in sorted(tools - page):
        fails.append(f"{what}: '{x}' is accepted but not in the man page")
    for x in sorted(page - tools):
        fails.append(f"{what}: '{x}' is in the man page but not accepted")

def check_opts(page, helptext, name):
    src = read(f"{mandir}/{page}.scd")
    compare(f"{page} options", longopts(helptext), longopts(src))
    for short, long in sorted(pairs(helptext)):
        if f"*{short}*, *{long}*" not in src:
            fails.append(f"{page}: '{short}, {long}' of {name} --help is not given as '*{short}*, *{long}*'")

# iolat(1): options and job-file keys.
check_opts("iolat.1", read(f"{tmp}/iolat.help"), "iolat")
keys = set()
for line in read(f"{tmp}/iolat.keys").splitlines()[1:]:
    if not line.strip():
        break
    keys.update(line.split()[0].split("|"))
jobs = section(read(f"{mandir}/iolat.1.scd"), "JOB FILES", "EXIT STATUS")
page_keys = set()
for m in re.finditer(r"\*([A-Za-z][A-Za-z0-9_.]*)\*(\\\*)?", jobs):
    tok = m.group(1) + ("*" if m.group(2) else "")
    if re.fullmatch(r"[a-z][a-z0-9_]*|[A-Za-z]+\.[a-z]*\*?|[a-z]+_\*", tok):
        page_keys.add(tok)
compare("iolat.1 job-file keys", keys, page_keys)

# iolatd(8): options.
check_opts("iolatd.8", read(f"{tmp}/iolatd.help"), "iolatd")

# iolatd.conf(5): the keys iolatd lists when given an unknown one.
def accepted(err, name):
    m = re.search(r"unknown key in [^(]*\(([^)]*)\)", read(f"{tmp}/{err}"))
    if not m:
        fails.append(f"iolatd.conf.5: iolatd did not list its {name} keys: {read(f'{tmp}/{err}').strip()}")
        return set()
    return {k.strip() for k in m.group(1).split(",")}
conf = read(f"{mandir}/iolatd.conf.5.scd")
compare("iolatd.conf.5 [global] keys", accepted("global.err", "[global]"),
        set(re.findall(r"(?m)^\*([a-z_]+)\*=", section(conf, "GLOBAL KEYS", "GROUP SECTIONS"))))
compare("iolatd.conf.5 [group:] keys", accepted("group.err", "[group:]"),
        set(re.findall(r"(?m)^\*([a-z_]+)\*=", section(conf, "GROUP SECTIONS", "CGROUP V2"))))

# libiolatency(3): the header's functions.
fn = lambda text: set(re.findall(r"\b(iolat_[a-z_]+)\(", text))
compare("libiolatency.3 functions", fn(read(header)), fn(read(f"{mandir}/libiolatency.3.scd")))

for f in fails:
    print("man_drift:", f)
sys.exit(1 if fails else 0)
EOF
rc=$?
[ $rc -eq 0 ] || exit 1

if command -v scdoc >/dev/null; then
	for src in man/*.scd; do
		page=$tmp/$(basename "$src" .scd)
		scdoc <"$src" >"$page" || { echo "man_drift: scdoc failed on $src"; exit 1; }
		if command -v man >/dev/null; then
			warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
			[ -z "$warn" ] || { echo "man_drift: $src renders with warnings: $warn"; exit 1; }
		fi
	done
	echo "man_drift: the pages build and render"
else
	echo "man_drift: scdoc not installed: the pages were not built (the drift check ran)"
fi
echo "man_drift: man/*.scd match iolat, iolatd and iolatency.h"
