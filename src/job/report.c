/* SPDX-License-Identifier: MIT */
/*
 * The results collector (see report.h): per-row cumulative and per-interval
 * histograms and counters, the per-interval time series, the controller
 * figures copied from bound groups, and the table/JSON/CSV/gnuplot writers.
 * Determinism: rows and jobs are written in job-file order, every number with
 * a fixed printf format, nothing depends on wall time or addresses.
 * Context: one mutex guards the counters: iolat_report_add_io() from any
 * thread; the rest from the runner's thread. Writers only read finished data.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job/hist.h"
#include "job/report.h"
#include "util/units.h"

#define ROOT_NAME    "(root)"
#define IO_STAT_MAX  256

struct series_pt {
	uint64_t t_ns;            /* end of the interval, since start */
	uint64_t dt_ns;           /* its length */
	uint64_t ios, bytes;      /* completed in it */
	uint64_t p50_ns, p90_ns, p99_ns, max_ns;
	bool bound;               /* the controller figures below are valid */
	uint32_t depth, inflight;
	int use_delay;
	uint64_t scale_events, throttled_ns, windows_missed;
	/* Adaptive mode: this group's rung and step, its parent's probe state. */
	uint32_t rung, step, decision;
	uint64_t pace_bps, hold_ns;
};

struct io_counts {
	uint64_t ios_r, ios_w, bytes_r, bytes_w, errors;
	struct iolat_hist hist;   /* cumulative */
	bool faulty;              /* iolat_report_add_faults() was called for it */
	struct iolat_report_faults faults;
};

struct row {
	const char *name;         /* group path or ROOT_NAME (not owned) */
	int parent;               /* row index of the parent group, or -1 */
	uint64_t target_ns;
	bool shown;
	struct io_counts c;
	struct iolat_hist ihist;  /* current interval */
	uint64_t i_ios, i_bytes;
	struct iolat_group *g;    /* bound until finish */
	bool bound;
	uint32_t depth_min;
	struct iolat_group_stat final;
	struct iolat_group_stat base;  /* at the end of ramp_time: subtracted (zero: none) */
	char io_stat[IO_STAT_MAX];
	struct series_pt *pts;
	size_t nr_pts, cap_pts;
	char file[IOLAT_GROUP_PATH_MAX + 16];   /* CSV name */
};

struct iolat_report {
	const struct iolat_jobfile *jf;
	char *label;
	uint64_t sample_interval_ns;
	uint32_t nr_requests;
	bool no_control;            /* the run had no controller */
	bool adaptive;              /* adaptive columns in the CSV */
	pthread_mutex_t lock;
	unsigned nr_rows;         /* nr_groups + 1 (root) */
	struct row *rows;
	struct io_counts *jobs;
	uint64_t start_ns, last_sample_ns, end_ns;
	bool started, finished;
	bool verify_set;
	bool interrupted;           /* the run was stopped before its end */
	struct iolat_report_verify verify;
	char verify_first_bad[320];
};

unsigned iolat_report_root_index(const struct iolat_report *r)
{
	return r->jf->nr_groups;
}

static void counts_init(struct io_counts *c)
{
	memset(c, 0, sizeof(*c));
	iolat_hist_reset(&c->hist);
}

int iolat_report_create(const struct iolat_report_cfg *cfg, struct iolat_report **out)
{
	struct iolat_report *r;
	const struct iolat_jobfile *jf;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!cfg || !cfg->jf)
		return -EINVAL;
	jf = cfg->jf;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->jf = jf;
	r->sample_interval_ns = cfg->sample_interval_ns ? cfg->sample_interval_ns : NSEC_PER_SEC;
	r->nr_requests = cfg->nr_requests ? cfg->nr_requests : 64;
	r->no_control = cfg->no_control;
	r->adaptive = cfg->adaptive && !cfg->no_control;
	r->nr_rows = jf->nr_groups + 1;
	r->rows = calloc(r->nr_rows, sizeof(*r->rows));
	r->jobs = calloc(jf->nr_jobs ? jf->nr_jobs : 1, sizeof(*r->jobs));
	if ((cfg->label && !(r->label = strdup(cfg->label))) || !r->rows || !r->jobs ||
	    pthread_mutex_init(&r->lock, NULL)) {
		free(r->label);
		free(r->rows);
		free(r->jobs);
		free(r);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < r->nr_rows; i++) {
		struct row *w = &r->rows[i];
		bool root = i == jf->nr_groups;
		w->name = root ? ROOT_NAME : jf->groups[i].path;
		w->parent = root ? -1 : jf->groups[i].parent;
		w->target_ns = root ? 0 : jf->groups[i].target_ns;
		w->shown = !root;
		counts_init(&w->c);
		iolat_hist_reset(&w->ihist);
		w->depth_min = IOLAT_DEPTH_MAX;
	}
	for (unsigned j = 0; j < jf->nr_jobs; j++) {
		counts_init(&r->jobs[j]);
		if (jf->jobs[j].group < 0)
			r->rows[jf->nr_groups].shown = true;
	}
	/* CSV names: '/' becomes '.', the root row is "root"; a clash gets "-<row>" */
	for (unsigned i = 0; i < r->nr_rows; i++) {
		struct row *w = &r->rows[i];
		if (i == jf->nr_groups)
			snprintf(w->file, sizeof(w->file), "root");
		else
			snprintf(w->file, sizeof(w->file), "%s", w->name);
		for (char *c = w->file; *c; c++)
			if (*c == '/')
				*c = '.';
		for (unsigned k = 0; k < i; k++) {
			if (strcmp(r->rows[k].file, w->file) == 0) {
				size_t n = strlen(w->file);
				snprintf(w->file + n, sizeof(w->file) - n, "-%u", i);
				break;
			}
		}
	}
	*out = r;
	return 0;
}

void iolat_report_destroy(struct iolat_report *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->nr_rows; i++)
		free(r->rows[i].pts);
	pthread_mutex_destroy(&r->lock);
	free(r->rows);
	free(r->jobs);
	free(r->label);
	free(r);
}

static void faults_add(struct io_counts *c, const struct iolat_report_faults *f)
{
	c->faulty = true;
	c->faults.eio += f->eio;
	c->faults.enospc += f->enospc;
	c->faults.short_io += f->short_io;
	c->faults.spikes += f->spikes;
	c->faults.stalls += f->stalls;
	c->faults.held += f->held;
}

void iolat_report_add_faults(struct iolat_report *r, unsigned job_index,
			     const struct iolat_report_faults *f)
{
	if (!r || !f || job_index >= r->jf->nr_jobs)
		return;
	int gi = r->jf->jobs[job_index].group;
	unsigned row = gi < 0 ? r->jf->nr_groups : (unsigned)gi;

	pthread_mutex_lock(&r->lock);
	faults_add(&r->jobs[job_index], f);
	for (;;) {
		faults_add(&r->rows[row].c, f);
		if (r->rows[row].parent < 0)
			break;
		row = (unsigned)r->rows[row].parent;
	}
	pthread_mutex_unlock(&r->lock);
}

void iolat_report_set_verify(struct iolat_report *r, const struct iolat_report_verify *v)
{
	if (!r || !v)
		return;
	pthread_mutex_lock(&r->lock);
	r->verify = *v;
	snprintf(r->verify_first_bad, sizeof(r->verify_first_bad), "%s",
		 v->first_bad ? v->first_bad : "");
	r->verify.first_bad = r->verify_first_bad;
	r->verify_set = true;
	pthread_mutex_unlock(&r->lock);
}

int iolat_report_bind_group(struct iolat_report *r, unsigned gi, struct iolat_group *g)
{
	struct iolat_group_stat st;

	if (!r || gi >= r->nr_rows || !g || r->finished)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	r->rows[gi].g = g;
	r->rows[gi].bound = true;
	if (iolat_group_stat(g, &st) == 0 && st.depth < r->rows[gi].depth_min)
		r->rows[gi].depth_min = st.depth;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

void iolat_report_end_ramp(struct iolat_report *r, uint64_t now_ns)
{
	pthread_mutex_lock(&r->lock);
	for (unsigned i = 0; i < r->nr_rows; i++) {
		struct row *w = &r->rows[i];

		counts_init(&w->c);
		iolat_hist_reset(&w->ihist);
		w->i_ios = w->i_bytes = 0;
		w->nr_pts = 0;
		w->depth_min = IOLAT_DEPTH_MAX;
		if (w->g)
			iolat_group_stat(w->g, &w->base);
	}
	for (unsigned j = 0; j < r->jf->nr_jobs; j++)
		counts_init(&r->jobs[j]);
	r->start_ns = r->last_sample_ns = r->end_ns = now_ns;
	pthread_mutex_unlock(&r->lock);
}

void iolat_report_start(struct iolat_report *r, uint64_t now_ns)
{
	pthread_mutex_lock(&r->lock);
	r->start_ns = r->last_sample_ns = r->end_ns = now_ns;
	r->started = true;
	pthread_mutex_unlock(&r->lock);
}

static void count_io(struct io_counts *c, bool write, uint32_t bytes, uint64_t lat_ns, int err)
{
	if (err) {
		c->errors++;
		return;
	}
	if (write) {
		c->ios_w++;
		c->bytes_w += bytes;
	} else {
		c->ios_r++;
		c->bytes_r += bytes;
	}
	iolat_hist_add(&c->hist, lat_ns);
}

void iolat_report_add_io(struct iolat_report *r, unsigned job_index, bool write,
			 uint32_t bytes, uint64_t lat_ns, int err)
{
	if (!r || job_index >= r->jf->nr_jobs)
		return;
	int gi = r->jf->jobs[job_index].group;
	pthread_mutex_lock(&r->lock);
	count_io(&r->jobs[job_index], write, bytes, lat_ns, err);
	/* the job's group and every ancestor (subtree totals); the root row only for root jobs */
	unsigned row = gi < 0 ? r->jf->nr_groups : (unsigned)gi;
	for (;;) {
		struct row *w = &r->rows[row];
		count_io(&w->c, write, bytes, lat_ns, err);
		if (!err) {
			iolat_hist_add(&w->ihist, lat_ns);
			w->i_ios++;
			w->i_bytes += bytes;
		}
		if (w->parent < 0)
			break;
		row = (unsigned)w->parent;
	}
	pthread_mutex_unlock(&r->lock);
}

static int sample_locked(struct iolat_report *r, uint64_t now_ns)
{
	int ret = 0;

	if (now_ns < r->last_sample_ns)
		now_ns = r->last_sample_ns;
	uint64_t dt = now_ns - r->last_sample_ns;
	for (unsigned i = 0; i < r->nr_rows; i++) {
		struct row *w = &r->rows[i];
		struct series_pt pt = { .t_ns = now_ns - r->start_ns, .dt_ns = dt };
		struct iolat_group_stat st;

		if (w->g && iolat_group_stat(w->g, &st) == 0) {
			if (st.depth < w->depth_min)
				w->depth_min = st.depth;
			pt.bound = true;
			pt.depth = st.depth;
			pt.inflight = st.inflight;
			pt.use_delay = st.use_delay;
			pt.scale_events = st.scale_downs + st.scale_ups - w->base.scale_downs -
					  w->base.scale_ups;
			pt.throttled_ns = st.throttled_ns - w->base.throttled_ns;
			pt.windows_missed = st.windows_missed - w->base.windows_missed;
			pt.rung = st.rung;
			pt.step = st.last_step;
			pt.pace_bps = st.pace_bps;
			if (r->adaptive && iolat_group_parent(w->g) &&
			    iolat_group_stat(iolat_group_parent(w->g), &st) == 0) {
				pt.decision = st.last_decision;
				pt.hold_ns = st.probe_hold_ns;
			}
		}
		if (dt == 0)
			continue;   /* nothing to close: only the minimum depth is updated */
		pt.ios = w->i_ios;
		pt.bytes = w->i_bytes;
		pt.p50_ns = iolat_hist_percentile(&w->ihist, 50);
		pt.p90_ns = iolat_hist_percentile(&w->ihist, 90);
		pt.p99_ns = iolat_hist_percentile(&w->ihist, 99);
		pt.max_ns = iolat_hist_max(&w->ihist);
		iolat_hist_reset(&w->ihist);
		w->i_ios = w->i_bytes = 0;
		if (w->nr_pts == w->cap_pts) {
			size_t ncap = w->cap_pts ? w->cap_pts * 2 : 64;
			struct series_pt *n = realloc(w->pts, ncap * sizeof(*n));
			if (!n) {
				ret = -ENOMEM;
				continue;
			}
			w->pts = n;
			w->cap_pts = ncap;
		}
		w->pts[w->nr_pts++] = pt;
	}
	r->last_sample_ns = now_ns;
	if (now_ns > r->end_ns)
		r->end_ns = now_ns;
	return ret;
}

int iolat_report_sample(struct iolat_report *r, uint64_t now_ns)
{
	if (!r || r->finished)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	int ret = sample_locked(r, now_ns);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int iolat_report_finish(struct iolat_report *r, uint64_t now_ns)
{
	int ret = 0;

	if (!r)
		return -EINVAL;
	if (r->finished)
		return 0;
	pthread_mutex_lock(&r->lock);
	if (now_ns > r->last_sample_ns)
		ret = sample_locked(r, now_ns);
	r->end_ns = now_ns > r->start_ns ? now_ns : r->start_ns;
	if (r->end_ns < r->last_sample_ns)
		r->end_ns = r->last_sample_ns;
	for (unsigned i = 0; i < r->nr_rows; i++) {
		struct row *w = &r->rows[i];
		if (!w->g)
			continue;
		if (iolat_group_stat(w->g, &w->final) == 0 && w->final.depth < w->depth_min)
			w->depth_min = w->final.depth;
		if (iolat_group_format_stat(w->g, w->io_stat, sizeof(w->io_stat)) < 0)
			w->io_stat[0] = '\0';
		w->g = NULL;
	}
	r->finished = true;
	pthread_mutex_unlock(&r->lock);
	return ret;
}

uint64_t iolat_report_duration_ns(const struct iolat_report *r)
{
	return r->end_ns - r->start_ns;
}

/* ---- read back ---- */

/* Visible row @i -> index in rows[], or -1. */
static int visible_row(const struct iolat_report *r, unsigned i)
{
	unsigned seen = 0;
	for (unsigned k = 0; k < r->nr_rows; k++) {
		if (!r->rows[k].shown)
			continue;
		if (seen++ == i)
			return (int)k;
	}
	return -1;
}

unsigned iolat_report_nr_rows(const struct iolat_report *r)
{
	unsigned n = 0;
	for (unsigned k = 0; k < r->nr_rows; k++)
		n += r->rows[k].shown;
	return n;
}

static double per_sec(uint64_t x, uint64_t dur_ns)
{
	return dur_ns ? (double)x * 1e9 / (double)dur_ns : 0.0;
}

int iolat_report_row(const struct iolat_report *r, unsigned i, struct iolat_report_row *out)
{
	int k = r ? visible_row(r, i) : -1;
	if (k < 0 || !out)
		return -EINVAL;
	const struct row *w = &r->rows[k];
	const struct io_counts *c = &w->c;
	uint64_t dur = iolat_report_duration_ns(r);

	memset(out, 0, sizeof(*out));
	out->name = w->name;
	out->target_ns = w->target_ns;
	out->ios_read = c->ios_r;
	out->ios_write = c->ios_w;
	out->bytes_read = c->bytes_r;
	out->bytes_write = c->bytes_w;
	out->errors = c->errors;
	out->lat_min_ns = iolat_hist_min(&c->hist);
	out->lat_mean_ns = iolat_hist_mean(&c->hist);
	out->lat_p50_ns = iolat_hist_percentile(&c->hist, 50);
	out->lat_p90_ns = iolat_hist_percentile(&c->hist, 90);
	out->lat_p99_ns = iolat_hist_percentile(&c->hist, 99);
	out->lat_p999_ns = iolat_hist_percentile(&c->hist, 99.9);
	out->lat_max_ns = iolat_hist_max(&c->hist);
	out->iops = per_sec(c->ios_r + c->ios_w, dur);
	out->mib_s = per_sec(c->bytes_r + c->bytes_w, dur) / 1048576.0;
	out->bound = w->bound && r->finished;
	out->depth_final = out->bound ? w->final.depth : 0;
	out->depth_min = out->bound ? w->depth_min : 0;
	if (out->bound) {
		out->throttled_ns = w->final.throttled_ns - w->base.throttled_ns;
		out->delay_slept_ns = w->final.slept_ns - w->base.slept_ns;
		out->windows_ok = w->final.windows_ok - w->base.windows_ok;
		out->windows_missed = w->final.windows_missed - w->base.windows_missed;
		out->scale_downs = w->final.scale_downs - w->base.scale_downs;
		out->scale_ups = w->final.scale_ups - w->base.scale_ups;
		out->nr_bypass = w->final.nr_bypass - w->base.nr_bypass;
	}
	out->io_stat = out->bound ? w->io_stat : "";
	out->faulty = c->faulty;
	out->faults = c->faults;
	return 0;
}

/* ---- formatting ---- */

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
	if (r->interrupted)
		fprintf(f, "interrupted: the figures above cover the %.3f s that ran\n",
			(double)iolat_report_duration_ns(r) / 1e9);
	return ferror(f) ? -EIO : 0;
}

void iolat_report_set_interrupted(struct iolat_report *r, bool interrupted)
{
	r->interrupted = interrupted;
}

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
	fprintf(f, "%s\"iops\": %.3f,\n", ind, per_sec(c->ios_r + c->ios_w, dur));
	fprintf(f, "%s\"mib_s\": %.3f,\n", ind, per_sec(c->bytes_r + c->bytes_w, dur) / 1048576.0);
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
		"\"short\": %llu, \"spikes\": %llu, \"stalls\": %llu, \"held\": %llu}", ind,
		(unsigned long long)(x->eio + x->enospc + x->short_io), (unsigned long long)x->eio,
		(unsigned long long)x->enospc, (unsigned long long)x->short_io,
		(unsigned long long)x->spikes, (unsigned long long)x->stalls,
		(unsigned long long)x->held);
}

/* A depth: an integer, -1 for unlimited ("max"), as in the CSV. */
static void json_depth(FILE *f, uint32_t d)
{
	if (d == IOLAT_DEPTH_MAX)
		fprintf(f, "-1");
	else
		fprintf(f, "%u", d);
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
	for (unsigned i = 0; i < n; i++) {
		struct iolat_report_row row;
		const struct row *w = &r->rows[visible_row(r, i)];
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
		}
		json_faults(f, &w->c, "      ");
		fprintf(f, ",\n      \"samples\": %zu\n    }", w->nr_pts);
	}
	fprintf(f, "\n  ],\n  \"jobs\": [");
	for (unsigned j = 0; j < jf->nr_jobs; j++) {
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
		fprintf(f, "\n    }");
	}
	fprintf(f, "\n  ]\n}\n");
	return ferror(f) ? -EIO : 0;
}

/* ---- CSV and plots ---- */

static const char csv_header[] =
	"time_s,ios,iops,mib_s,p50_us,p90_us,p99_us,max_us,depth,inflight,use_delay,"
	"scale_events,throttled_ms,windows_missed,group";

/* Appended in the adaptive mode (docs/controller-adaptive.md). */
static const char csv_adaptive_header[] = ",rung,pace_mib_s,step,probe,hold_ms";

const char *iolat_report_csv_header(void)
{
	return csv_header;
}

int iolat_report_write_csv(const struct iolat_report *r, unsigned i, FILE *f)
{
	int k = visible_row(r, i);
	if (k < 0)
		return -EINVAL;
	const struct row *w = &r->rows[k];

	fprintf(f, "%s%s\n", csv_header, r->adaptive ? csv_adaptive_header : "");
	for (size_t p = 0; p < w->nr_pts; p++) {
		const struct series_pt *pt = &w->pts[p];
		fprintf(f, "%.3f,%llu,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f,", (double)pt->t_ns / 1e9,
			(unsigned long long)pt->ios, per_sec(pt->ios, pt->dt_ns),
			per_sec(pt->bytes, pt->dt_ns) / 1048576.0, (double)pt->p50_ns / 1e3,
			(double)pt->p90_ns / 1e3, (double)pt->p99_ns / 1e3, (double)pt->max_ns / 1e3);
		if (pt->bound)
			fprintf(f, "%lld,%u,%d,%llu,%.3f,%llu,",
				pt->depth == IOLAT_DEPTH_MAX ? -1LL : (long long)pt->depth, pt->inflight,
				pt->use_delay, (unsigned long long)pt->scale_events,
				(double)pt->throttled_ns / 1e6, (unsigned long long)pt->windows_missed);
		else
			fprintf(f, ",,,,,,");
		/* Group paths hold no ',' or '"' (jobfile.c checks them). */
		fprintf(f, "%s", w->name);
		if (r->adaptive && pt->bound)
			fprintf(f, ",%u,%.3f,%s,%s,%llu", pt->rung, (double)pt->pace_bps / 1048576.0,
				iolat_step_name(pt->step), iolat_step_name(pt->decision),
				(unsigned long long)(pt->hold_ns / 1000000));
		else if (r->adaptive)
			fprintf(f, ",,,,,");
		fprintf(f, "\n");
	}
	return ferror(f) ? -EIO : 0;
}

static int write_file(const char *dir, const char *name, int (*fn)(const struct iolat_report *,
		      unsigned, FILE *), const struct iolat_report *r, unsigned i, char *err, size_t errlen)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		if (err && errlen)
			snprintf(err, errlen, "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		int e = errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: cannot create: %s", path, strerror(e));
		return -e;
	}
	int ret = fn(r, i, f);
	if (fclose(f) != 0 && !ret)
		ret = -EIO;
	if (ret && err && errlen)
		snprintf(err, errlen, "%s: write failed: %s", path, strerror(-ret));
	return ret;
}

/*
 * The adaptive mode's plot, pace.png: per controlled group its pace rung
 * (steps, left axis), the rate it is paced at (right axis, MiB/s) and its
 * parent's probe hold (seconds, left axis, dotted). CSV columns 15-19.
 */
static void write_gnuplot_adaptive(const struct iolat_report *r, FILE *f)
{
	unsigned n = iolat_report_nr_rows(r);
	bool first = true;

	fprintf(f, "\nset output 'pace.png'\n"
		   "set title 'adaptive: pace rung (steps), pace rate (MiB/s, right), probe hold (s, dotted)'\n"
		   "set ylabel 'rung / hold (s)'\nset y2label 'pace MiB/s'\nset y2tics\n"
		   "set yrange [0:*]\nset y2range [0:*]\nplot \\\n");
	for (unsigned i = 0; i < n; i++) {
		const struct row *w = &r->rows[visible_row(r, i)];

		if (!w->bound)
			continue;
		fprintf(f, "%s  '%s.csv' using 1:16 with steps lw 2 lc %u title '%s rung', \\\n"
			   "  '%s.csv' using 1:17 axes x1y2 with lines lc %u title '%s pace (0: none)', \\\n"
			   "  '%s.csv' using 1:($20/1000) with steps dt 3 lc %u title '%s hold'",
			first ? "" : ", \\\n", w->file, i + 1, w->name, w->file, i + 1, w->name,
			w->file, i + 1, w->name);
		first = false;
	}
	fprintf(f, "\n");
}

static int write_gnuplot(const struct iolat_report *r, unsigned unused, FILE *f)
{
	unsigned n = iolat_report_nr_rows(r);
	bool any_bound = false;
	(void)unused;

	fprintf(f, "# gnuplot script written by iolat: latency and depth over time per group.\n"
		   "# Run it in this directory: gnuplot plot.gp\n"
		   "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "  set terminal pngcairo size 1200,600 noenhanced\n"
		   "} else {\n"
		   "  set terminal png size 1200,600 noenhanced\n"
		   "}\n"
		   "set datafile separator ','\n"
		   "set key outside right top\n"
		   "set grid\n"
		   "set xlabel 'time (s)'\n\n");
	char label[128] = "";
	if (r->label) {
		snprintf(label, sizeof(label), ": %s", r->label);
		for (char *c = label; *c; c++)
			if (*c == '\'' || *c == '\\' || (unsigned char)*c < 0x20)
				*c = ' ';
	}
	fprintf(f, "set output 'latency.png'\nset title 'p50 (dashed) and p99 latency per interval%s'\n"
		   "set ylabel 'latency (ms)'\nset logscale y\nplot \\\n", label);
	for (unsigned i = 0; i < n; i++) {
		const struct row *w = &r->rows[visible_row(r, i)];
		fprintf(f, "  '%s.csv' using 1:($7 > 0 ? $7/1000 : NaN) with lines lw 2 lc %u title '%s p99', \\\n"
			   "  '%s.csv' using 1:($5 > 0 ? $5/1000 : NaN) with lines dt 2 lc %u title '%s p50'",
			w->file, i + 1, w->name, w->file, i + 1, w->name);
		if (w->target_ns)
			fprintf(f, ", \\\n  %.3f with lines dt 3 lc %u title '%s target'",
				(double)w->target_ns / 1e6, i + 1, w->name);
		fprintf(f, "%s\n", i + 1 < n ? ", \\" : "");
		any_bound |= w->bound;
	}
	fprintf(f, "unset logscale y\n\n");
	fprintf(f, "set output 'depth.png'\n"
		   "set title 'queue depth allowed per group (max shown as nr_requests = %u)'\n"
		   "set ylabel 'depth'\nset yrange [0:*]\n", r->nr_requests);
	if (!any_bound) {
		fprintf(f, "set label 1 'no controller figures (control=0)' at graph 0.5,0.5 center\n"
			   "plot NaN notitle\n");
	} else {
		fprintf(f, "plot \\\n");
		bool first = true;
		for (unsigned i = 0; i < n; i++) {
			const struct row *w = &r->rows[visible_row(r, i)];
			if (!w->bound)
				continue;
			fprintf(f, "%s  '%s.csv' using 1:($9 < 0 ? %u : $9) with steps lw 2 lc %u title '%s'",
				first ? "" : ", \\\n", w->file, r->nr_requests, i + 1, w->name);
			first = false;
		}
		fprintf(f, "\n");
	}
	if (r->adaptive && any_bound)
		write_gnuplot_adaptive(r, f);
	return ferror(f) ? -EIO : 0;
}

static int csv_fn(const struct iolat_report *r, unsigned i, FILE *f)
{
	return iolat_report_write_csv(r, i, f);
}

/* Full path of an executable @name on PATH, or false. */
static bool find_on_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return false;
	while (*path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		if (n && (size_t)snprintf(out, len, "%.*s/%s", (int)n, path, name) < len &&
		    access(out, X_OK) == 0)
			return true;
		path += n + (end ? 1 : 0);
	}
	return false;
}

static int run_gnuplot(const char *gnuplot, const char *dir)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* child: async-signal-safe calls only */
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (chdir(dir) == 0)
			execl(gnuplot, "gnuplot", "plot.gp", (char *)NULL);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : -EIO;
}

int iolat_report_write_log(const struct iolat_report *r, const char *dir, unsigned *flags_out,
			   char *err, size_t errlen)
{
	unsigned flags = 0;
	int ret;
	char name[IOLAT_GROUP_PATH_MAX + 32], gp[4096];
	struct stat st;

	if (flags_out)
		*flags_out = 0;
	if (err && errlen)
		err[0] = '\0';
	if (!r || !dir || !*dir)
		return -EINVAL;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		ret = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: cannot create directory: %s", dir, strerror(-ret));
		return ret;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		if (err && errlen)
			snprintf(err, errlen, "%s: not a directory", dir);
		return -ENOTDIR;
	}
	unsigned n = iolat_report_nr_rows(r);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s.csv", r->rows[visible_row(r, i)].file);
		ret = write_file(dir, name, csv_fn, r, i, err, errlen);
		if (ret)
			return ret;
	}
	ret = write_file(dir, "plot.gp", write_gnuplot, r, 0, err, errlen);
	if (ret)
		return ret;
	if (!find_on_path("gnuplot", gp, sizeof(gp)))
		flags |= IOLAT_LOG_NO_GNUPLOT;
	else if (run_gnuplot(gp, dir) == 0)
		flags |= IOLAT_LOG_PLOTTED;
	else
		flags |= IOLAT_LOG_PLOT_FAILED;
	if (flags_out)
		*flags_out = flags;
	return 0;
}
