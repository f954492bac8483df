#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `iolat status` on a status file in iolatd's format (a fixture in a temp
# run dir, with this shell's pid as the daemon's so it reads as running):
# the table lists each group with its limit in force and the v1 writeback
# note; --json parses and carries the groups' fields as numbers; no status
# file: exit 1 with one line; a stale one (its daemon gone): exit 3; bad
# usage: exit 2. Also the rule in force, a group waiting for its cgroup, a
# limit that does not hold and the cgroups carrying a limit. With weights:
# each group's weight, hweight, share, use, donation and budget (table,
# JSON, metrics), and a disk where the kernel's own weights are in force.
set -u
. "$(dirname "$0")/lib.sh"
need_iolat
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
cli_tmpdir iolat-status /tmp

cat >"$dir/status" <<STATUS
iolatd pid=$$ time=1700000000 uptime_s=42 cgroup=v1 root=/sys/fs/cgroup/blkio control=1 dry_run=0 source=ok observed=1234 unattributed=5 writeback_throttled=0 version=0.1.0 start_time=1699999958 lat_edges_us=8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304,8388608
device dev=254:0 disk=vda nr_requests=256 rule=mean rule_from=queue/rotational unattributed_bps=2097152 unattributed_bytes_total=88080384
waiting path=app/mian
group path=app dev=254:0 disk=vda configured=0 target_us=0 rule=mean depth=-1 use_delay=0 delay_used=0 ios=0 avg_lat_us=0 p50_us=0 p90_us=0 p99_us=0 windows_ok=0 windows_missed=0 scale_downs=0 scale_ups=0 limited_ms=0 limited=0 rbps=0 wbps=0 riops=0 wiops=0 carriers=0 left_out=0 holds=1 cause=none not_holding_s=0 misses_from_elsewhere=0 writes=0 write_errors=0 written_ago_ms=-1 reads_total=5000 writes_total=4000 read_bytes_total=20480000 write_bytes_total=4194304000 lat_sum_ns=9000000000 lat_buckets=0,0,0,0,0,100,2000,3000,1000,100,0,3800,0,0,0,0,0,0,0,0,0,0
group path=app/reader dev=254:0 disk=vda configured=1 target_us=1000 rule=mean depth=-1 use_delay=0 delay_used=0 ios=812 avg_lat_us=140 p50_us=98 p90_us=260 p99_us=900 windows_ok=120 windows_missed=7 scale_downs=0 scale_ups=0 limited_ms=0 limited=0 rbps=0 wbps=0 riops=0 wiops=0 carriers=0 left_out=0 holds=1 cause=none not_holding_s=0 misses_from_elsewhere=0 writes=0 write_errors=0 written_ago_ms=-1 reads_total=5000 writes_total=1200 read_bytes_total=20480000 write_bytes_total=9830400 lat_sum_ns=868000000 lat_buckets=0,0,0,0,0,100,2000,3000,1000,100,0,0,0,0,0,0,0,0,0,0,0,0
group path=app/writer dev=254:0 disk=vda configured=0 target_us=0 rule=mean depth=1 use_delay=5 delay_used=2 ios=300 avg_lat_us=2100 p50_us=2000 p90_us=3000 p99_us=4000 windows_ok=0 windows_missed=0 scale_downs=9 scale_ups=1 limited_ms=12500 limited=1 rbps=0 wbps=104857600 riops=0 wiops=100 carriers=1 left_out=0 holds=0 cause=not_enforced_or_new_cgroups not_holding_s=4 misses_from_elsewhere=0 writes=31 write_errors=0 written_ago_ms=300 reads_total=0 writes_total=2800 read_bytes_total=0 write_bytes_total=2936012800 lat_sum_ns=8132000000 lat_buckets=0,0,0,0,0,0,0,0,0,0,0,2799,0,0,0,0,0,0,0,0,0,1
limit path=app/writer/a dev=254:0 disk=vda for=app/writer rbps=0 wbps=104857600 riops=0 wiops=100 writes=31 write_errors=0 written_ago_ms=300
STATUS

out=$("$IOLAT" status --run-dir "$dir") || fail "status exited $?"
echo "$out"
echo "$out" | grep -q 'cgroup v1 at /sys/fs/cgroup/blkio' || fail "no daemon line"
echo "$out" | grep -q 'cannot throttle background writeback' || fail "no v1 writeback note"
echo "$out" | grep -E '^app/writer +254:0 +- +1 +2 +300 ' | grep -q 'wbps=100.0MiB/s wiops=100/s on 1 cgroup' || fail "writer's limit not shown"
echo "$out" | grep -q 'disk vda (254:0): mean rule (from queue/rotational)' || fail "the rule in force is not shown"
echo "$out" | grep -q 'waiting for app/mian to appear' || fail "the missing group is not shown"
echo "$out" | grep -q 'app/writer: the limit does not hold (not_enforced_or_new_cgroups)' || fail "the limit that does not hold is not shown"
echo "$out" | grep -E '^  app/writer/a +254:0 ' | grep -q 'wbps=100.0MiB/s wiops=100/s  for app/writer, 0.3s ago' || fail "the cgroup carrying the limit is not shown"
echo "$out" | grep -E '^app/reader +254:0 +1000us +max ' | grep -q ' 120/7 ' || fail "reader's line wrong"

"$IOLAT" status --run-dir "$dir" --json >"$dir/out.json" || fail "--json exited $?"
python3 - "$dir/out.json" <<'PY' || fail "JSON content"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["daemon"]["cgroup"] == "v1" and j["daemon"]["observed"] == 1234
g = {x["path"]: x for x in j["groups"]}
assert j["schema_version"] == 2
assert set(g) == {"app", "app/reader", "app/writer"}
assert g["app/writer"]["wbps"] == 104857600 and g["app/writer"]["limited"] == 1
assert g["app/writer"]["depth"] == 1 and g["app/reader"]["depth"] == -1
assert g["app/reader"]["written_ago_ms"] == -1
assert j["limits"][0]["path"] == "app/writer/a" and j["limits"][0]["for"] == "app/writer"
assert j["devices"][0]["rule"] == "mean" and j["waiting"][0]["path"] == "app/mian"
for x in j["groups"] + j["limits"] + j["devices"]:
    for k, v in x.items():
        assert k in ("path", "dev", "disk", "rule", "rule_from", "cause", "for", "lat_buckets") or isinstance(v, int), (k, v)
PY

# Prometheus: the format and the names checked (promtool when installed, our checker always).
"$IOLAT" status --run-dir "$dir" --format=prometheus >"$dir/out.prom" || fail "--format=prometheus exited $?"
python3 scripts/promcheck.py "$dir/out.prom" || fail "--format=prometheus: not valid exposition text"
if command -v promtool >/dev/null; then
	promtool check metrics <"$dir/out.prom" || fail "promtool check metrics: $(promtool check metrics <"$dir/out.prom" 2>&1)"
fi
for want in 'iolatd_group_limit_bytes_per_second{group="app/writer",device="vda",direction="write"} 104857600' \
	'iolatd_group_windows_total{group="app/reader",device="vda",result="missed"} 7' \
	'iolatd_group_target_seconds{group="app/reader",device="vda"} 0.001' \
	'iolatd_group_limit_holds{group="app/writer",device="vda"} 0' \
	'iolatd_group_limited_seconds_total{group="app/writer",device="vda"} 12.5' \
	'iolatd_group_requests_total{group="app/reader",device="vda",direction="write"} 1200' \
	'iolatd_group_bytes_total{group="app/writer",device="vda",direction="write"} 2936012800' \
	'iolatd_group_latency_seconds_bucket{group="app/reader",device="vda",le="0.000256"} 100' \
	'iolatd_group_latency_seconds_bucket{group="app/reader",device="vda",le="0.001024"} 5100' \
	'iolatd_group_latency_seconds_bucket{group="app/reader",device="vda",le="8.388608"} 6200' \
	'iolatd_group_latency_seconds_bucket{group="app/writer",device="vda",le="8.388608"} 2799' \
	'iolatd_group_latency_seconds_bucket{group="app/writer",device="vda",le="+Inf"} 2800' \
	'iolatd_group_latency_seconds_count{group="app/reader",device="vda"} 6200' \
	'iolatd_group_latency_seconds_sum{group="app/reader",device="vda"} 0.868' \
	'iolatd_cgroup_limit_bytes_per_second{cgroup="app/writer/a",device="vda",for="app/writer",direction="write"} 104857600' \
	'iolatd_device_info{device="vda",major_minor="254:0",rule="mean"} 1' \
	'iolatd_device_nr_requests{device="vda"} 256' \
	'iolatd_device_unattributed_bytes_total{device="vda"} 88080384' \
	'iolatd_build_info{version="0.1.0"} 1' \
	'process_start_time_seconds 1699999958'; do
	grep -qxF "$want" "$dir/out.prom" || fail "--format=prometheus lacks: $want"
done
grep -q 'iolatd_group_limit_bytes_per_second{group="app/reader"' "$dir/out.prom" && fail "a limit sample for a group not limited"
# app is neither configured nor limited: no series (its children's are).
grep -q 'group="app",' "$dir/out.prom" && fail "series for a group neither configured nor limited"
# Counters only for what accumulates: no "last second" gauges left.
grep -qE '_last_second|unattributed_bytes_per_second|latency_(mean|p90)_seconds|uptime_seconds' "$dir/out.prom" && fail "a last-second gauge is left"
# The checker itself fails on what breaks the conventions.
printf '# HELP x_ms a\n# TYPE x_ms counter\nx_ms 1\n# HELP y b\n# TYPE y gauge\ny 1\nx_ms{a="b"} 2\n' >"$dir/bad.prom"
python3 scripts/promcheck.py "$dir/bad.prom" >"$dir/bad.out" && fail "promcheck passed a bad file"
grep -q "ends in _total" "$dir/bad.out" && grep -q "not together" "$dir/bad.out" && grep -q "base units" "$dir/bad.out" ||
	fail "promcheck missed problems: $(cat "$dir/bad.out")"
# ...and on a histogram that is not cumulative, lacks +Inf, or whose _count is not its +Inf bucket.
printf '# HELP h_seconds a\n# TYPE h_seconds histogram\nh_seconds_bucket{le="1"} 5\nh_seconds_bucket{le="2"} 4\nh_seconds_sum 1\nh_seconds_count 4\nh_seconds_bucket{g="x",le="1"} 1\nh_seconds_sum{g="x"} 1\nh_seconds_count{g="x"} 1\nh_seconds_bucket{g="y",le="+Inf"} 2\nh_seconds_sum{g="y"} 1\nh_seconds_count{g="y"} 3\n' >"$dir/badh.prom"
python3 scripts/promcheck.py "$dir/badh.prom" >"$dir/bad.out" && fail "promcheck passed a bad histogram"
grep -q "not cumulative" "$dir/bad.out" && grep -q 'g=x}: no le="+Inf"' "$dir/bad.out" && grep -q "_count 3.0 is not" "$dir/bad.out" ||
	fail "promcheck missed histogram problems: $(cat "$dir/bad.out")"

# Weights (issue 28): a disk where iolatd's act, each weighted group's weight, hweight, share, use,
# donation and budget in the table, as numbers in JSON, as the weights' gauges in the metrics; a disk
# where the kernel's own weights are in force said so.
mkdir -p "$dir/w"
cat >"$dir/w/status" <<STATUS
iolatd pid=$$ time=1700000000 uptime_s=42 cgroup=v2 root=/sys/fs/cgroup control=1 mode=adaptive dry_run=0 source=ok observed=1 unattributed=0 writeback_throttled=1 version=0.1.0 start_time=1699999958 lat_edges_us=8,16
device dev=254:0 disk=vda nr_requests=256 rule=p90 rule_from=mode unattributed_bps=0 unattributed_bytes_total=0 weights=iolatd kernel_weights=none kernel_weights_on=0 weighted=1 capacity_bps=419430400
device dev=8:0 disk=sda nr_requests=64 rule=p90 rule_from=mode unattributed_bps=0 unattributed_bytes_total=0 weights=kernel kernel_weights=bfq kernel_weights_on=1 weighted=1 capacity_bps=0
group path=app/a dev=254:0 disk=vda configured=1 target_us=0 depth=-1 limited=1 wbps=327155712 weight=300 weight_from=config weighted=1 weight_active=1 hweight_ppm=750000 share_bps=327155712 use_bps=310378496 donated_bps=0 budget_bps=327155712
group path=app/b dev=254:0 disk=vda configured=1 target_us=0 depth=-1 limited=0 weight=100 weight_from=unit weighted=1 weight_active=0 hweight_ppm=250000 share_bps=109051904 use_bps=0 donated_bps=109051904 budget_bps=-1
STATUS
out=$("$IOLAT" status --run-dir "$dir/w") || fail "weights: status exited $?"
echo "$out"
echo "$out" | grep -q 'disk vda (254:0): .*, weights by iolatd (capacity 400.0MiB/s)$' || fail "weights: the disk's weights not said"
echo "$out" | grep -q "disk sda (8:0): .*, weights: the kernel's (bfq): iolatd stands aside$" || fail "weights: standing aside not said"
echo "$out" | grep -E '^  app/a +254:0 +300 config +75.0% +312.0MiB/s +296.0MiB/s +- +312.0MiB/s$' >/dev/null ||
	fail "weights: app/a's line"
echo "$out" | grep -E '^  app/b +254:0 +100 unit +25.0% +104.0MiB/s +- +104.0MiB/s +none  \(idle\)$' >/dev/null ||
	fail "weights: app/b's line"
"$IOLAT" status --run-dir "$dir" | grep -q '^weights' && fail "weights shown where none are configured"
"$IOLAT" status --run-dir "$dir/w" --json >"$dir/w.json" || fail "weights: --json exited $?"
python3 - "$dir/w.json" <<'PY' || fail "weights: JSON content"
import json, sys
j = json.load(open(sys.argv[1]))
g = {x["path"]: x for x in j["groups"]}
assert g["app/a"]["weight"] == 300 and g["app/a"]["hweight_ppm"] == 750000 and g["app/a"]["budget_bps"] == 327155712
assert g["app/b"]["budget_bps"] == -1 and g["app/b"]["weight_from"] == "unit" and g["app/b"]["donated_bps"] == 109051904
assert j["devices"][0]["weights"] == "iolatd" and j["devices"][1]["kernel_weights"] == "bfq"
PY
"$IOLAT" status --run-dir "$dir/w" --format=prometheus >"$dir/w.prom" || fail "weights: --format=prometheus exited $?"
python3 scripts/promcheck.py "$dir/w.prom" || fail "weights: not valid exposition text"
if command -v promtool >/dev/null; then
	promtool check metrics <"$dir/w.prom" || fail "weights: promtool check metrics"
fi
grep -q '^iolatd_group_weight{group="app/a",device="vda"} 300$' "$dir/w.prom" &&
grep -q '^iolatd_group_hweight_ratio{group="app/a",device="vda"} 0.75$' "$dir/w.prom" &&
grep -q '^iolatd_group_weight_budget_bytes_per_second{group="app/b",device="vda"} +Inf$' "$dir/w.prom" &&
grep -q '^iolatd_group_donated_bytes_per_second{group="app/b",device="vda"} 109051904$' "$dir/w.prom" &&
grep -q '^iolatd_device_kernel_weights{device="sda"} 1$' "$dir/w.prom" &&
grep -q '^iolatd_device_capacity_bytes_per_second{device="vda"} 419430400$' "$dir/w.prom" ||
	fail "weights: the metrics: $(grep -E 'weight|capacity|donated' "$dir/w.prom")"
grep -qE '^(iolatd_group_weight|iolatd_device_capacity)' "$dir/out.prom" && fail "weights' series where none are configured"

# A status file whose daemon is gone: shown, and exit 3.
sed "1s/pid=$$ /pid=999999999 /" "$dir/status" >"$dir/status.new" && mv "$dir/status.new" "$dir/status"
"$IOLAT" status --run-dir "$dir" >"$dir/stale.out"; rc=$?
[ "$rc" -eq 3 ] || fail "stale status: exit $rc, want 3"
grep -q 'NOT RUNNING: stale status' "$dir/stale.out" || fail "stale status not said"
"$IOLAT" status --run-dir "$dir" --json >/dev/null 2>"$dir/err"; rc=$?
[ "$rc" -eq 3 ] && grep -q 'stale' "$dir/err" || fail "stale --json: exit $rc: $(cat "$dir/err")"
"$IOLAT" status --run-dir "$dir" --format=yaml 2>/dev/null; [ $? -eq 2 ] || fail "bad --format: want exit 2"

rm "$dir/status"
"$IOLAT" status --run-dir "$dir" 2>"$dir/err"; rc=$?
[ "$rc" -eq 1 ] || fail "missing status: exit $rc, want 1"
[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q 'iolatd is not running' "$dir/err" || fail "missing status message: $(cat "$dir/err")"
"$IOLAT" status --bogus 2>/dev/null; [ $? -eq 2 ] || fail "bad option: want exit 2"
echo "PASS"
