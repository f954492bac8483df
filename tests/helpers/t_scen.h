/* SPDX-License-Identifier: MIT */
/*
 * t_scen.h - test helper for the scenario tests: parse an example job file
 * (or a buffer), optionally alter it (mode: no control, a static cap, kernel
 * compat), simulate it, and read the measured figures back: per-window
 * latency against a target, throughput over a span, depth over time.
 * Header-only (static inline), included by tests/sim/test_scen_*.c,
 * tests/sim/test_openloop.c and tests/run/test_sim_run.c.
 * Context: the test's one thread.
 */
#ifndef T_SCEN_H
#define T_SCEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "job/jobfile.h"
#include "report/report.h"
#include "run/run_sim.h"

#define T_MS 1000000ull
#define T_S 1000000000ull

#ifndef T_SRCDIR
#define T_SRCDIR "."
#endif

enum t_mode { T_CONTROL, T_NO_CONTROL, T_STATIC_CAP };

static inline const char *t_mode_name(enum t_mode m)
{
	return m == T_CONTROL ? "io.latency" : m == T_NO_CONTROL ? "no control" : "static cap";
}

/* Parse examples/NAME (from the repository root, where tests run). */
static inline struct iolat_jobfile *t_load(const char *name)
{
	char path[512], err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_jobfile *jf = NULL;

	snprintf(path, sizeof(path), "%s/examples/%s", T_SRCDIR, name);
	if (iolat_jobfile_parse_file(path, &jf, err, sizeof(err))) {
		fprintf(stderr, "t_load: %s\n", err);
		return NULL;
	}
	return jf;
}

static inline struct iolat_jobfile *t_parse(const char *text)
{
	char err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_jobfile *jf = NULL;

	if (iolat_jobfile_parse_buf(text, strlen(text), "test.ini", &jf, err, sizeof(err))) {
		fprintf(stderr, "t_parse: %s\n", err);
		return NULL;
	}
	return jf;
}

static inline struct iolat_job *t_job(struct iolat_jobfile *jf, const char *name)
{
	for (unsigned i = 0; i < jf->nr_jobs; i++)
		if (!strcmp(jf->jobs[i].name, name))
			return &jf->jobs[i];
	return NULL;
}

/*
 * Take job @name out of the run (its group stays): it is moved to the end
 * and hidden by nr_jobs. Return the old nr_jobs, to restore before freeing.
 */
static inline unsigned t_drop_job(struct iolat_jobfile *jf, const char *name)
{
	unsigned n = jf->nr_jobs;

	for (unsigned i = 0; i < n; i++) {
		if (strcmp(jf->jobs[i].name, name))
			continue;
		struct iolat_job tmp = jf->jobs[i];

		memmove(&jf->jobs[i], &jf->jobs[i + 1], (n - i - 1) * sizeof(tmp));
		jf->jobs[n - 1] = tmp;
		for (unsigned k = 0; k < n; k++)
			jf->jobs[k].index = k;
		jf->nr_jobs = n - 1;
		break;
	}
	return n;
}

/* Simulate @jf in @mode (for T_STATIC_CAP, job @capped gets rate=@cap_bps). */
static inline struct iolat_sim_result *t_run(struct iolat_jobfile *jf, enum t_mode mode,
					     const char *capped, uint64_t cap_bps, int compat)
{
	struct iolat_sim_opts o = { .control = mode == T_CONTROL, .kernel_compat = compat };
	struct iolat_sim_result *res = NULL;
	char err[512];
	uint64_t saved = 0;
	struct iolat_job *j = capped ? t_job(jf, capped) : NULL;

	if (mode == T_STATIC_CAP && j) {
		saved = j->rate_bps;
		j->rate_bps = cap_bps;
	}
	if (iolat_sim_run(jf, &o, &res, err, sizeof(err))) {
		fprintf(stderr, "t_run: %s\n", err);
		res = NULL;
	}
	if (mode == T_STATIC_CAP && j)
		j->rate_bps = saved;
	return res;
}

static inline const struct iolat_sim_group *t_grp(const struct iolat_sim_result *r, const char *path)
{
	int i = iolat_sim_find_group(r, path);

	return i < 0 ? NULL : &r->groups[i];
}

/* Fraction of @g's measured windows starting at or after @from_ns whose p90
 * (mean if @mean) is within its target. */
static inline double t_win_ok(const struct iolat_sim_group *g, uint64_t from_ns, bool mean)
{
	size_t n = 0, ok = 0;

	for (size_t i = 0; i < g->nr_windows; i++) {
		const struct iolat_sim_window *w = &g->windows[i];

		if (w->t_ns < from_ns)
			continue;
		n++;
		if ((mean ? w->mean_ns : w->p90_ns) <= g->target_ns)
			ok++;
	}
	return n ? (double)ok / (double)n : 0;
}

/* MiB/s of @g over samples ending in (from_ns, to_ns]. */
static inline double t_mibs(const struct iolat_sim_result *r, const struct iolat_sim_group *g,
			    uint64_t from_ns, uint64_t to_ns)
{
	uint64_t bytes = 0, t_lo = UINT64_MAX, t_hi = 0;

	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_sim_sample *s = &g->samples[i];
		uint64_t start = i ? g->samples[i - 1].t_ns : 0;

		if (start < from_ns || s->t_ns > to_ns)
			continue;
		bytes += s->bytes;
		if (start < t_lo)
			t_lo = start;
		t_hi = s->t_ns;
	}
	return t_hi > t_lo ? (double)bytes / 1048576.0 / ((double)(t_hi - t_lo) / 1e9) : 0;
}

/* The report's row for @path (whole-run figures: p50/p90/mean, MiB/s). */
static inline struct iolat_report_row t_row(const struct iolat_sim_result *r, const char *path)
{
	struct iolat_report_row row;

	memset(&row, 0, sizeof(row));
	for (unsigned i = 0; i < iolat_report_nr_rows(r->report); i++)
		if (!iolat_report_row(r->report, i, &row) && !strcmp(row.name, path))
			return row;
	memset(&row, 0, sizeof(row));
	return row;
}

static inline const struct iolat_sim_sample *t_last(const struct iolat_sim_result *r,
						   const struct iolat_sim_group *g)
{
	return r->nr_samples ? &g->samples[r->nr_samples - 1] : NULL;
}

static inline uint64_t t_min_depth(const struct iolat_sim_result *r, const struct iolat_sim_group *g)
{
	uint32_t m = IOLAT_DEPTH_MAX;

	for (size_t i = 0; i < r->nr_samples; i++)
		if (g->samples[i].depth < m)
			m = g->samples[i].depth;
	return m;
}

static inline const char *t_depth_str(uint32_t d, char *buf, size_t len)
{
	if (d == IOLAT_DEPTH_MAX)
		snprintf(buf, len, "max");
	else
		snprintf(buf, len, "%u", d);
	return buf;
}

/* One line per group with I/O: what the tests print, and what the lead reads. */
static inline void t_print(const char *title, const struct iolat_sim_result *r)
{
	printf("== %s (%s, %.1f s, %llu events)\n", title, r->device, r->duration_ns / 1e9,
	       (unsigned long long)r->events);
	for (unsigned i = 0; i < r->nr_groups; i++) {
		const struct iolat_sim_group *g = &r->groups[i];
		const struct iolat_sim_sample *last = r->nr_samples ? &g->samples[r->nr_samples - 1] : NULL;
		char d1[16], d2[16];

		if (!g->nr_ios)
			continue;
		printf("  %-14s %8.0f IOPS %8.1f MiB/s", g->path,
		       (double)g->nr_ios / (r->duration_ns / 1e9),
		       (double)g->bytes / 1048576.0 / (r->duration_ns / 1e9));
		if (g->target_ns)
			printf("  target %6.0fus win-ok(>2s) %5.1f%%", g->target_ns / 1e3,
			       100 * t_win_ok(g, 2 * T_S, r->rotational));
		if (last)
			printf("  depth %s min %s  scale -%llu/+%llu", t_depth_str(last->depth, d1, 16),
			       t_depth_str((uint32_t)t_min_depth(r, g), d2, 16),
			       (unsigned long long)last->scale_downs, (unsigned long long)last->scale_ups);
		printf("\n");
	}
}

#endif /* T_SCEN_H */
