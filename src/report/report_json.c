/* SPDX-License-Identifier: MIT */
/*
 * report_json.c - the JSON report (iolat_report_write_json), schema
 * IOLAT_REPORT_SCHEMA_VERSION.
 * Determinism: every number with a fixed printf format, rows and jobs in
 * job-file order. Context: the runner's thread, after the report finished.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report/report_priv.h"

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* ",\n<ind>"percentiles_us": {"99.5": ...}" for percentile_list=; nothing without it. */
static void json_percentiles(FILE *f, const struct iolat_hist *h,
			     const struct iolat_jobfile_global *g, const char *ind)
{
	if (!g->nr_percentiles)
		return;
	fprintf(f, ",\n%s\"percentiles_us\": {", ind);
	for (unsigned i = 0; i < g->nr_percentiles; i++)
		fprintf(f, "%s\"%g\": %.3f", i ? ", " : "", g->percentiles[i],
			(double)iolat_hist_percentile(h, g->percentiles[i]) / 1e3);
	fprintf(f, "}");
}

static void json_counts(FILE *f, const struct io_counts *c, uint64_t dur, const char *ind,
			const struct iolat_jobfile_global *g)
{
	const struct iolat_hist *h = &c->hist;
	fprintf(f, "%s\"read\": {\"ios\": %llu, \"bytes\": %llu},\n", ind,
		(unsigned long long)c->ios_r, (unsigned long long)c->bytes_r);
	fprintf(f, "%s\"write\": {\"ios\": %llu, \"bytes\": %llu},\n", ind,
		(unsigned long long)c->ios_w, (unsigned long long)c->bytes_w);
	fprintf(f, "%s\"errors\": %llu,\n", ind, (unsigned long long)c->errors);
	fprintf(f, "%s\"iops\": %.3f,\n", ind, report_per_sec(c->ios_r + c->ios_w, dur));
	fprintf(f, "%s\"mib_s\": %.3f,\n", ind, report_per_sec(c->bytes_r + c->bytes_w, dur) / 1048576.0);
	fprintf(f, "%s\"lat_us\": {\"min\": %.3f, \"mean\": %.3f, \"p50\": %.3f, \"p90\": %.3f, "
		"\"p99\": %.3f, \"p99.9\": %.3f, \"max\": %.3f}", ind,
		(double)iolat_hist_min(h) / 1e3, (double)iolat_hist_mean(h) / 1e3,
		(double)iolat_hist_percentile(h, 50) / 1e3, (double)iolat_hist_percentile(h, 90) / 1e3,
		(double)iolat_hist_percentile(h, 99) / 1e3, (double)iolat_hist_percentile(h, 99.9) / 1e3,
		(double)iolat_hist_max(h) / 1e3);
	json_percentiles(f, h, g, ind);
}

/* ",\n<ind>"injected": {...}" when a faulty engine ran; nothing otherwise. */
static void json_faults(FILE *f, const struct io_counts *c, const char *ind)
{
	const struct iolat_report_faults *x = &c->faults;

	if (!c->faulty)
		return;
	fprintf(f, ",\n%s\"injected\": {\"errors\": %llu, \"eio\": %llu, \"enospc\": %llu, "
		"\"short\": %llu, \"spikes\": %llu, \"stalls\": %llu, \"held\": %llu", ind,
		(unsigned long long)(x->eio + x->enospc + x->short_io), (unsigned long long)x->eio,
		(unsigned long long)x->enospc, (unsigned long long)x->short_io,
		(unsigned long long)x->spikes, (unsigned long long)x->stalls,
		(unsigned long long)x->held);
	if (c->engine[0]) {
		fprintf(f, ", \"engine\": ");
		json_str(f, c->engine);
	}
	fputc('}', f);
}

/* A depth: an integer, -1 for unlimited ("max"), as in the CSV. */
static void json_depth(FILE *f, uint32_t d)
{
	if (d == IOLAT_DEPTH_MAX)
		fprintf(f, "-1");
	else
		fprintf(f, "%u", d);
}

/* One group's object in "groups" (@i: visible row). */
static void json_group(FILE *f, const struct iolat_report *r, unsigned i, uint64_t dur)
{
	const struct iolat_jobfile *jf = r->jf;
	struct iolat_report_row row;
	const struct row *w = &r->rows[report_visible_row(r, i)];
	iolat_report_row(r, i, &row);
	fprintf(f, "%s\n    {\n      \"name\": ", i ? "," : "");
	json_str(f, row.name);
	fprintf(f, ",\n      \"target_us\": ");
	if (row.target_ns)
		fprintf(f, "%.3f", (double)row.target_ns / 1e3);
	else
		fprintf(f, "null");
	fprintf(f, ",\n");
	json_counts(f, &w->c, dur, "      ", &jf->global);
	fprintf(f, ",\n      \"controlled\": %s", row.bound ? "true" : "false");
	if (row.bound) {
		fprintf(f, ",\n      \"depth_final\": ");
		json_depth(f, row.depth_final);
		fprintf(f, ",\n      \"depth_min\": ");
		json_depth(f, row.depth_min);
		fprintf(f, ",\n      \"throttled_ms\": %.3f", (double)row.throttled_ns / 1e6);
		fprintf(f, ",\n      \"delay_slept_ms\": %.3f", (double)row.delay_slept_ns / 1e6);
		fprintf(f, ",\n      \"windows_ok\": %llu,\n      \"windows_missed\": %llu",
			(unsigned long long)row.windows_ok, (unsigned long long)row.windows_missed);
		fprintf(f, ",\n      \"scale_downs\": %llu,\n      \"scale_ups\": %llu",
			(unsigned long long)row.scale_downs, (unsigned long long)row.scale_ups);
		fprintf(f, ",\n      \"bypass_ios\": %llu", (unsigned long long)row.nr_bypass);
		fprintf(f, ",\n      \"io_stat\": ");
		json_str(f, row.io_stat);
		if (r->adaptive)
			fprintf(f, ",\n      \"unattainable\": %s,\n      \"sibling_limit_bps\": %llu",
				row.unattainable ? "true" : "false",
				(unsigned long long)row.sibling_limit_bps);
		if (row.weighted)
			fprintf(f, ",\n      \"weight\": %u,\n      \"hweight\": %.4f"
				",\n      \"share_bps\": %llu,\n      \"use_bps\": %llu"
				",\n      \"donated_bps\": %llu", row.weight, row.hweight,
				(unsigned long long)row.share_bps, (unsigned long long)row.use_bps,
				(unsigned long long)row.donated_bps);
	}
	json_faults(f, &w->c, "      ");
	fprintf(f, ",\n      \"samples\": %zu\n    }", w->nr_pts);
}

/* An open-loop job's "open_loop" object (nothing for another job). */
static void json_openloop(FILE *f, const struct iolat_report *r, unsigned j)
{
	struct iolat_report_openloop o;

	if (!iolat_report_job_openloop(r, j, &o, NULL))
		return;
	fprintf(f, ",\n      \"open_loop\": {\"asked_iops\": %.3f, \"started_iops\": %.3f, "
		"\"arrivals\": %llu, \"started\": %llu, \"late\": %llu, \"never_started\": %llu, "
		"\"max_backlog\": %llu}",
		o.asked_iops, o.started_iops, (unsigned long long)o.arrived, (unsigned long long)o.started,
		(unsigned long long)o.late, (unsigned long long)(o.arrived - o.started),
		(unsigned long long)o.max_backlog);
}

/* One job's object in "jobs". */
static void json_job(FILE *f, const struct iolat_report *r, unsigned j, uint64_t dur)
{
	const struct iolat_jobfile *jf = r->jf;
	const struct iolat_job *job = &jf->jobs[j];
	fprintf(f, "%s\n    {\n      \"name\": ", j ? "," : "");
	json_str(f, job->name);
	fprintf(f, ",\n      \"group\": ");
	json_str(f, job->group < 0 ? ROOT_NAME : jf->groups[job->group].path);
	fprintf(f, ",\n      \"rw\": \"%s\",\n      \"bs\": %u,\n      \"iodepth\": %u,\n"
		"      \"numjobs\": %u,\n", iolat_rw_name(job->rw), job->bs, job->iodepth,
		job->numjobs);
	json_counts(f, &r->jobs[j], dur, "      ", &jf->global);
	json_faults(f, &r->jobs[j], "      ");
	json_openloop(f, r, j);
	fprintf(f, "\n    }");
}

int iolat_report_write_json(const struct iolat_report *r, FILE *f)
{
	const struct iolat_jobfile *jf = r->jf;
	uint64_t dur = iolat_report_duration_ns(r);
	unsigned n = iolat_report_nr_rows(r);

	fprintf(f, "{\n  \"schema_version\": %d,\n  \"label\": ", IOLAT_REPORT_SCHEMA_VERSION);
	if (r->label)
		json_str(f, r->label);
	else
		fprintf(f, "null");
	fprintf(f, ",\n  \"file\": ");
	json_str(f, jf->file);
	fprintf(f, ",\n  \"seed\": %llu,\n", (unsigned long long)jf->global.seed);
	fprintf(f, "  \"control\": %s,\n", jf->global.control && !r->no_control ? "true" : "false");
	fprintf(f, "  \"duration_s\": %.6f,\n", (double)dur / 1e9);
	fprintf(f, "  \"interrupted\": %s,\n", r->interrupted ? "true" : "false");
	fprintf(f, "  \"sample_interval_s\": %.6f,\n", (double)r->sample_interval_ns / 1e9);
	if (r->verify_set) {
		const struct iolat_report_verify *v = &r->verify;

		fprintf(f, "  \"verify\": {\"block_bytes\": %u, \"blocks_checked\": %llu, "
			"\"blocks_written\": %llu, \"blocks_bad\": %llu, \"blocks_unspecified\": %llu, "
			"\"first_bad\": ", v->block, (unsigned long long)v->checked,
			(unsigned long long)v->written, (unsigned long long)v->bad,
			(unsigned long long)v->unspecified);
		if (v->first_bad[0])
			json_str(f, v->first_bad);
		else
			fprintf(f, "null");
		fprintf(f, "},\n");
	}
	fprintf(f, "  \"groups\": [");
	for (unsigned i = 0; i < n; i++)
		json_group(f, r, i, dur);
	fprintf(f, "\n  ],\n  \"jobs\": [");
	for (unsigned j = 0; j < jf->nr_jobs; j++)
		json_job(f, r, j, dur);
	fprintf(f, "\n  ]\n}\n");
	return ferror(f) ? -EIO : 0;
}
