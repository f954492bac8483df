/* SPDX-License-Identifier: MIT */
/*
 * report.c - the results collector (see report.h): per-row cumulative and
 * per-interval histograms and counters, the per-interval time series, the
 * controller figures copied from bound groups, and reading them back. The
 * writers are report_table.c, report_json.c and report_csv.c (CSV, plots).
 * Determinism: rows and jobs are written in job-file order, every number with
 * a fixed printf format, nothing depends on wall time or addresses.
 * Context: one mutex guards the counters: iolat_report_add_io() from any
 * thread; the rest from the runner's thread. Writers only read finished data.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hist.h"
#include "report/report.h"
#include "report/report_priv.h"
#include "util/units.h"

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
	r->weights = cfg->weights && !cfg->no_control;
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
	if (f->engine)
		snprintf(r->jobs[job_index].engine, sizeof(r->jobs[job_index].engine), "%s", f->engine);
	for (;;) {
		faults_add(&r->rows[row].c, f);
		if (r->rows[row].parent < 0)
			break;
		row = (unsigned)r->rows[row].parent;
	}
	pthread_mutex_unlock(&r->lock);
}

void iolat_report_add_openloop(struct iolat_report *r, unsigned job_index,
			       const struct iolat_report_openloop *o)
{
	struct io_counts *c;

	if (!r || !o || job_index >= r->jf->nr_jobs)
		return;
	c = &r->jobs[job_index];
	pthread_mutex_lock(&r->lock);
	c->open_loop = true;
	c->ol.asked_iops += o->asked_iops;
	c->ol.arrived += o->arrived;
	c->ol.started += o->started;
	c->ol.late += o->late;
	c->ol.started_iops += o->started_iops;
	if (o->max_backlog > c->ol.max_backlog)
		c->ol.max_backlog = o->max_backlog;
	pthread_mutex_unlock(&r->lock);
}

bool iolat_report_job_openloop(const struct iolat_report *r, unsigned job_index,
			       struct iolat_report_openloop *o, double *iops)
{
	const struct io_counts *c;

	if (!r || job_index >= r->jf->nr_jobs || !r->jobs[job_index].open_loop)
		return false;
	c = &r->jobs[job_index];
	if (o)
		*o = c->ol;
	if (iops)
		*iops = report_per_sec(c->ios_r + c->ios_w, iolat_report_duration_ns(r));
	return true;
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

/* Weights: the group's share at the sample. */
static void sample_share(struct iolat_group *g, struct series_pt *pt)
{
	struct iolat_group_share s;

	if (iolat_group_share(g, &s))
		return;
	pt->weight = s.weight;
	pt->hweight = s.hweight;
	pt->share_bps = s.share_bps;
	pt->use_bps = s.use_bps;
	pt->donated_bps = s.donated_bps;
	pt->budget_bps = s.budget_bps;
}

/* Weights: the means of @w's samples from the first period on (the row's summary). */
static void share_means(const struct row *w, struct iolat_report_row *out)
{
	double hw = 0, share = 0, use = 0, don = 0;
	size_t n = 0;

	for (size_t p = 0; p < w->nr_pts; p++) {
		const struct series_pt *pt = &w->pts[p];

		if (!pt->bound || pt->hweight <= 0)
			continue; /* before the first period: nothing divided yet */
		out->weight = pt->weight;
		hw += pt->hweight;
		share += (double)pt->share_bps;
		use += (double)pt->use_bps;
		don += (double)pt->donated_bps;
		n++;
	}
	if (!n)
		return;
	out->hweight = hw / (double)n;
	out->share_bps = (uint64_t)(share / (double)n);
	out->use_bps = (uint64_t)(use / (double)n);
	out->donated_bps = (uint64_t)(don / (double)n);
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
			pt.step = st.last_step;
			pt.pace_bps = st.pace_bps;
			if (r->weights)
				sample_share(w->g, &pt);
			if (r->adaptive && iolat_group_parent(w->g) &&
			    iolat_group_stat(iolat_group_parent(w->g), &st) == 0) {
				pt.decision = st.last_decision;
				pt.hold_ns = st.probe_hold_ns;
				pt.limit_bps = st.limit_bps;
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

/* Adaptive: is @w's group the one its parent protects, found unattainable? */
static void mark_unattainable(struct row *w)
{
	struct iolat_group *p = w->g ? iolat_group_parent(w->g) : NULL;
	struct iolat_group_stat ps;

	if (!p || iolat_group_scale_grp(p) != w->g || iolat_group_stat(p, &ps) || !ps.unattainable)
		return;
	w->unattainable = true;
	w->sibling_limit_bps = ps.limit_bps;
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
		mark_unattainable(w);
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

unsigned iolat_report_nr_rows(const struct iolat_report *r)
{
	unsigned n = 0;
	for (unsigned k = 0; k < r->nr_rows; k++)
		n += r->rows[k].shown;
	return n;
}

int iolat_report_row(const struct iolat_report *r, unsigned i, struct iolat_report_row *out)
{
	int k = r ? report_visible_row(r, i) : -1;
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
	out->iops = report_per_sec(c->ios_r + c->ios_w, dur);
	out->mib_s = report_per_sec(c->bytes_r + c->bytes_w, dur) / 1048576.0;
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
	out->unattainable = out->bound && w->unattainable;
	out->sibling_limit_bps = out->unattainable ? w->sibling_limit_bps : 0;
	out->faulty = c->faulty;
	out->faults = c->faults;
	if (r->weights && out->bound) {
		out->weighted = true;
		out->weight = k < (int)r->jf->nr_groups && r->jf->groups[k].weight ?
			      r->jf->groups[k].weight : IOLAT_WEIGHT_DEFAULT;
		share_means(w, out);
	}
	return 0;
}

void iolat_report_set_interrupted(struct iolat_report *r, bool interrupted)
{
	r->interrupted = interrupted;
}
