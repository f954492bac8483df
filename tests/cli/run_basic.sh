#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `iolat run` on a real file with two groups: finishes, prints both groups in
# the table, and its JSON parses (python3 -m json.tool) and carries the
# table's fields for both groups. Skips (77) without the binary or a writable
# directory. Uses $IOLAT (set by tests/runtests.sh), $TMPDIR or /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
cli_tmpdir iolat-cli

cat >"$dir/two.fio" <<JOB
[global]
size=16m
runtime=1s
time_based=1
direct=0

[group:main]
target=5ms

[group:system/fbpkg]

[web]
filename=$dir/read.dat
group=main
rw=randread
bs=4k
iodepth=2

[download]
filename=$dir/write.dat
group=system/fbpkg
rw=write
bs=256k
iodepth=4
JOB

"$IOLAT" run -q "$dir/two.fio" >"$dir/table.txt" 2>"$dir/err.txt"
rc=$?
cat "$dir/table.txt"
[ $rc -eq 0 ] || { cat "$dir/err.txt"; fail "iolat run exited $rc"; }
for w in IOPS MiB/s p50 p90 p99 max depth; do
	grep -q -- "$w" "$dir/table.txt" || fail "table has no '$w' column"
done
grep -qE '^main +[0-9]' "$dir/table.txt" || fail "no row for group main"
grep -qE '^system/fbpkg +[0-9]' "$dir/table.txt" || fail "no row for group system/fbpkg"
[ -s "$dir/read.dat" ] && [ -s "$dir/write.dat" ] || fail "files were not laid out"

"$IOLAT" run -q --output-format=json "$dir/two.fio" >"$dir/out.json" 2>"$dir/err.txt" ||
	{ cat "$dir/err.txt"; fail "iolat run --output-format=json failed"; }
python3 -m json.tool "$dir/out.json" >/dev/null || fail "the JSON does not parse"
python3 - "$dir/out.json" <<'PY' || fail "JSON fields"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema_version"] == 2, doc.get("schema_version")
assert doc["interrupted"] is False, doc.get("interrupted")
groups = {g["name"]: g for g in doc["groups"]}
for name in ("main", "system/fbpkg"):
    g = groups[name]
    for key in ("iops", "mib_s", "errors", "depth_final", "depth_min", "throttled_ms",
                "windows_ok", "windows_missed", "scale_downs", "scale_ups"):
        assert key in g, (name, key)
    for key in ("p50", "p90", "p99", "max"):
        assert key in g["lat_us"], (name, key)
    assert g["errors"] == 0, (name, g["errors"])
    for key in ("depth_final", "depth_min"):
        assert isinstance(g[key], int) and (g[key] == -1 or g[key] >= 1), (name, key, g[key])
assert groups["main"]["read"]["ios"] > 0, "main did no reads"
assert groups["system/fbpkg"]["write"]["ios"] > 0, "fbpkg did no writes"
assert groups["main"]["target_us"] == 5000, groups["main"]["target_us"]
PY

# Without the controller: the same rows, no controller figures, exit 0.
"$IOLAT" run -q --no-control "$dir/two.fio" >"$dir/nc.txt" 2>"$dir/err.txt" ||
	{ cat "$dir/err.txt"; fail "--no-control failed"; }
grep -q 'controller off' "$dir/nc.txt" || fail "--no-control: controller not off"
grep -qE '^main +[0-9]' "$dir/nc.txt" || fail "--no-control: no row for main"
echo "ok"
