/* SPDX-License-Identifier: MIT */
/*
 * report_table.c - the per-group table (iolat_report_write_table) and the latency
 * format it uses (iolat_format_latency).
 * Determinism: every number with a fixed printf format, rows and jobs in
 * job-file order. Context: the runner's thread, after the report finished.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report/report_priv.h"

const char *iolat_format_latency(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", (double)ns / 1e9);
	return buf;
}

static const char *fmt_depth(uint32_t d, char *buf, size_t len)
{
	if (d == IOLAT_DEPTH_MAX)
		snprintf(buf, len, "max");
	else
		snprintf(buf, len, "%u", d);
	return buf;
}

/* A line per open-loop job: the rate asked and got, the arrivals that waited. */
static void write_openloop(const struct iolat_report *r, FILE *f)
{
	for (unsigned j = 0; j < r->jf->nr_jobs; j++) {
		struct iolat_report_openloop o;

		if (!iolat_report_job_openloop(r, j, &o, NULL))
			continue;
		fprintf(f, "open loop: job '%s': asked %.1f IOPS, started %.1f; %llu of %llu started "
			"late, max backlog %llu, %llu never started (latency from each arrival)\n",
			r->jf->jobs[j].name, o.asked_iops, o.started_iops, (unsigned long long)o.late,
			(unsigned long long)o.started, (unsigned long long)o.max_backlog,
			(unsigned long long)(o.arrived - o.started));
	}
}

/*
 * Weights (docs/weights.md): a line per bound group: its weight, and the
 * means over the run's samples of its hweight, share, use and donated share.
 */
static void write_weights(const struct iolat_report *r, FILE *f, int namew)
{
	unsigned n = iolat_report_nr_rows(r);

	fprintf(f, "weights (means of the samples, MiB/s):\n%-*s %7s %8s %9s %9s %9s\n", namew,
		"group", "weight", "hweight", "share", "use", "donated");
	for (unsigned i = 0; i < n; i++) {
		struct iolat_report_row row;

		iolat_report_row(r, i, &row);
		if (!row.weighted)
			continue;
		fprintf(f, "%-*s %7u %8.3f %9.2f %9.2f %9.2f\n", namew, row.name, row.weight,
			row.hweight, (double)row.share_bps / 1048576.0,
			(double)row.use_bps / 1048576.0, (double)row.donated_bps / 1048576.0);
	}
}

int iolat_report_write_table(const struct iolat_report *r, FILE *f)
{
	unsigned n = iolat_report_nr_rows(r);
	int namew = 5;
	char b[8][48];

	for (unsigned i = 0; i < n; i++) {
		struct iolat_report_row row;
		iolat_report_row(r, i, &row);
		int l = (int)strlen(row.name);
		if (l > namew)
			namew = l;
	}
	if (r->label)
		fprintf(f, "== %s ==\n", r->label);
	fprintf(f, "%-*s %10s %9s %9s %9s %9s %9s %9s %9s %9s %13s %11s %6s\n", namew, "group",
		"IOPS", "MiB/s", "p50", "p90", "p99", "max", "depth", "depth_min", "throttled",
		"windows ok/x", "scale -/+", "errors");
	for (unsigned i = 0; i < n; i++) {
		struct iolat_report_row row;
		iolat_report_row(r, i, &row);
		fprintf(f, "%-*s %10.1f %9.2f %9s %9s %9s %9s ", namew, row.name, row.iops, row.mib_s,
			iolat_format_latency(row.lat_p50_ns, b[0], sizeof(b[0])),
			iolat_format_latency(row.lat_p90_ns, b[1], sizeof(b[1])),
			iolat_format_latency(row.lat_p99_ns, b[2], sizeof(b[2])),
			iolat_format_latency(row.lat_max_ns, b[3], sizeof(b[3])));
		if (row.bound) {
			snprintf(b[6], sizeof(b[6]), "%llu/%llu", (unsigned long long)row.windows_ok,
				 (unsigned long long)row.windows_missed);
			snprintf(b[7], sizeof(b[7]), "%llu/%llu", (unsigned long long)row.scale_downs,
				 (unsigned long long)row.scale_ups);
			fprintf(f, "%9s %9s %9s %13s %11s",
				fmt_depth(row.depth_final, b[4], sizeof(b[4])),
				fmt_depth(row.depth_min, b[5], sizeof(b[5])),
				iolat_format_latency(row.throttled_ns, b[0], sizeof(b[0])), b[6], b[7]);
		} else {
			fprintf(f, "%9s %9s %9s %13s %11s", "-", "-", "-", "-", "-");
		}
		fprintf(f, " %6llu\n", (unsigned long long)row.errors);
	}
	for (unsigned i = 0; i < n; i++) {
		struct iolat_report_row row;

		iolat_report_row(r, i, &row);
		if (row.unattainable)
			fprintf(f, "note: %s: target unattainable: p90 %s at sibling rate %.0f MiB/s "
				"(lowering its siblings stopped lowering its latency)\n", row.name,
				iolat_format_latency(row.lat_p90_ns, b[0], sizeof(b[0])),
				(double)row.sibling_limit_bps / 1048576.0);
	}
	if (r->weights)
		write_weights(r, f, namew);
	write_openloop(r, f);
	if (r->interrupted)
		fprintf(f, "interrupted: the figures above cover the %.3f s that ran\n",
			(double)iolat_report_duration_ns(r) / 1e9);
	return ferror(f) ? -EIO : 0;
}
