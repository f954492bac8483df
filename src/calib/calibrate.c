/* SPDX-License-Identifier: MIT */
/*
 * calibrate.c - the measurement of `iolat calibrate` (calibrate.h): the jobs
 * of one measurement built in code, run by the one runner with the
 * controller off, and the search for the knee (solo, unpaced, bisection,
 * the curve around the knee, solo again; the knee then from all the points,
 * calib_fit.c). The writer is paced by the kernel's block
 * throttle on the plan's cgroup when it names one, capped per measurement (the
 * actuator iolatd uses), else by the runner's rate=. The rules that judge a
 * point are at the end.
 * Context: the calling thread; blocks for the runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_fit.h"
#include "calib/calibrate.h"
#include "job/jobfile_build.h"
#include "report/report.h"
#include "run/run.h"
#include "util/units.h"

#define CALIB_STEP_DEF_NS   (3 * NSEC_PER_SEC)
#define CALIB_BISECT_DEF    6u
#define CALIB_READ_BS       4096u
#define CALIB_WRITE_BS      (1u << 20)
#define CALIB_WRITE_QD      32u

/* The curve: the writer at these thousandths of the knee (those from 800 to
 * 1250 are also the points the knee's line goes through). */
static const unsigned curve_pm[] = { 500, 800, 900, 1000, 1100, 1250 };

struct calib {
	const struct iolat_calib_plan *pl;
	struct iolat_calib_result *r;
	char *err;
	size_t errlen;
	uint64_t step_ns;
};

static int calib_err(struct calib *c, int ret, const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static bool stopped(const struct calib *c)
{
	return c->pl->stop && atomic_load(c->pl->stop);
}

/* A job of the measurement: its group, length, and file where there is one. */
static int fill(struct iolat_jobfile_builder *b, const struct calib *c, struct iolat_job *j,
		int group, const char *path, uint64_t offset, uint64_t size)
{
	j->group = group;
	j->runtime_ns = c->step_ns;
	j->time_based = true;
	j->direct = true;
	j->size = size;
	j->offset = offset;
	return path ? iolat_jobfile_build_filename(b, j, path) : 0;
}

/* The simulator's model and its keys, "KEY=VALUE" each. */
static void sim_device(struct iolat_jobfile_builder *b, const struct iolat_calib_plan *pl)
{
	iolat_jobfile_build_global(b)->device = pl->sim_device;
	for (unsigned i = 0; i < pl->nr_sim_keys; i++) {
		char key[64];
		const char *eq = strchr(pl->sim_keys[i], '=');
		size_t n = eq ? (size_t)(eq - pl->sim_keys[i]) : 0;

		if (!eq || n >= sizeof(key)) {
			iolat_jobfile_build_device_key(b, pl->sim_keys[i], "");   /* says what is wrong */
			continue;
		}
		memcpy(key, pl->sim_keys[i], n);
		key[n] = '\0';
		iolat_jobfile_build_device_key(b, key, eq + 1);
	}
}

/* The writer at @rate_bps (0: unpaced): by the kernel's throttle on its cgroup, or the runner's rate=. */
static void pace_writer(const struct iolat_calib_plan *pl, struct iolat_job *j, uint64_t rate_bps)
{
	if (!pl->throttle_cgroup) {
		j->rate_bps = rate_bps;
		return;
	}
	snprintf(j->cgroup, sizeof(j->cgroup), "%s", pl->throttle_cgroup);
	j->cgroup_write_bps = rate_bps;
}

/* The jobs of one measurement: the reader, and the writer at @rate_bps when @writer. */
static int build(const struct calib *c, uint64_t rate_bps, bool writer,
		 struct iolat_jobfile **out, char *err, size_t errlen)
{
	const struct iolat_calib_plan *pl = c->pl;
	struct iolat_jobfile_builder *b;
	struct iolat_job *j;
	bool sim = !pl->read_path;
	int ret, g;

	ret = iolat_jobfile_build_begin("calibrate", err, errlen, &b);
	if (ret)
		return ret;
	iolat_jobfile_build_global(b)->control = false;
	if (sim)
		sim_device(b, pl);
	g = iolat_jobfile_build_group(b, "reader", 0);
	if (g >= 0 && (j = iolat_jobfile_build_job(b, "reader")) &&
	    !fill(b, c, j, g, pl->read_path, pl->read_offset, pl->read_size)) {
		j->rw = IOLAT_RW_RANDREAD;
		j->bs = CALIB_READ_BS;
		j->iodepth = 1;
		if (pl->throttle_cgroup && pl->throttle_version == 2)   /* v2 moves the whole process */
			snprintf(j->cgroup, sizeof(j->cgroup), "%s", pl->throttle_cgroup);
	}
	g = writer ? iolat_jobfile_build_group(b, "writer", 0) : -1;
	if (g >= 0 && (j = iolat_jobfile_build_job(b, "writer")) &&
	    !fill(b, c, j, g, pl->write_path, pl->write_offset, pl->write_size)) {
		j->rw = IOLAT_RW_WRITE;
		j->bs = CALIB_WRITE_BS;
		j->iodepth = CALIB_WRITE_QD;
		pace_writer(pl, j, rate_bps == IOLAT_CALIB_UNPACED ? 0 : rate_bps);
	}
	return iolat_jobfile_build_end(b, out);   /* a failure above is returned here */
}

/* The reader's and the writer's figures of a finished run. */
static void collect(const struct iolat_run_result *res, struct iolat_calib_point *pt)
{
	double secs = (double)res->duration_ns / 1e9;
	struct iolat_report_row row;

	for (unsigned i = 0; i < iolat_report_nr_rows(res->report); i++) {
		if (iolat_report_row(res->report, i, &row))
			continue;
		if (!strcmp(row.name, "reader")) {
			pt->p50_ns = row.lat_p50_ns;
			pt->p90_ns = row.lat_p90_ns;
			pt->p99_ns = row.lat_p99_ns;
			pt->reads_s = secs > 0 ? (double)row.ios_read / secs : 0;
		} else if (!strcmp(row.name, "writer")) {
			pt->writer_mb_s = row.mib_s * 1.048576;
		}
	}
}

static void remember_device(struct calib *c, const struct iolat_run_result *res)
{
	snprintf(c->r->device, sizeof(c->r->device), "%s", res->device[0] ? res->device : "unknown");
	c->r->virtual_time = res->virtual_time;
	c->r->rotational = res->rotational;
}

/* One measurement through the runner. */
static int run_point(struct calib *c, uint64_t rate_bps, bool writer, struct iolat_calib_point *pt)
{
	struct iolat_run_opts ro = {
		.control = 0, .kernel_compat = -1, .stop = c->pl->stop,
		.note = c->pl->note, .ctx = c->pl->ctx,
	};
	struct iolat_run_result *res = NULL;
	struct iolat_jobfile *jf = NULL;
	int ret = build(c, rate_bps, writer, &jf, c->err, c->errlen);

	if (ret)
		return ret;
	ret = iolat_run(jf, c->pl->backend, &ro, &res, c->err, c->errlen);
	if (!ret) {
		collect(res, pt);
		remember_device(c, res);
		c->r->elapsed_s += (double)res->duration_ns / 1e9;
		if (res->interrupted)
			c->r->interrupted = true;
		if (res->nr_errors)
			ret = calib_err(c, -EIO, "%" PRIu64 " I/Os failed: %s", res->nr_errors,
					res->first_error);
	}
	iolat_run_result_free(res);
	iolat_jobfile_free(jf);
	return ret;
}

/* Measure the writer at @rate_bps (0: the reader alone) into @pt, judged against solo. */
static int measure(struct calib *c, const char *phase, uint64_t rate_bps, struct iolat_calib_point *pt)
{
	bool writer = rate_bps != 0;
	int ret;

	memset(pt, 0, sizeof(*pt));
	pt->rate_bps = rate_bps;
	ret = c->pl->measure ? c->pl->measure(c->pl->ctx, rate_bps, writer, pt) :
			       run_point(c, rate_bps, writer, pt);
	if (ret)
		return ret;
	if (c->pl->measure)
		c->r->elapsed_s += (double)c->step_ns / 1e9;
	pt->within = !writer || iolat_calib_within(pt, &c->r->solo_ref, c->r->threshold_ns);
	if (c->pl->progress && !c->r->interrupted)
		c->pl->progress(c->pl->ctx, phase, pt);
	return 0;
}

/*
 * The knee: the highest pace within, between 0 (within by definition) and
 * what the writer did unpaced (not within), halving the interval each step.
 */
static int bisect(struct calib *c, unsigned steps)
{
	struct iolat_calib_result *r = c->r;
	uint64_t lo = 0, hi = (uint64_t)(r->unpaced.writer_mb_s * 1e6);
	int ret;

	for (unsigned s = 0; s < steps && s < IOLAT_CALIB_MAX_STEPS && !stopped(c); s++) {
		uint64_t mid = lo + (hi - lo) / 2;
		struct iolat_calib_point *pt = &r->steps[r->nr_steps];

		if (mid == 0)
			break;
		ret = measure(c, "bisect", mid, pt);
		if (ret)
			return ret;
		if (r->interrupted)
			break;
		r->nr_steps++;
		if (pt->within) {
			lo = mid;
			r->knee_mb_s = pt->writer_mb_s;
		} else {
			hi = mid;
		}
	}
	r->knee_bps = lo;
	r->knee_bisect_bps = lo;
	r->knee_bisect_mb_s = r->knee_mb_s;
	return 0;
}

/* The reader beside the writer at a few fractions of the knee. */
static int curve(struct calib *c)
{
	struct iolat_calib_result *r = c->r;
	int ret;

	for (size_t i = 0; i < sizeof(curve_pm) / sizeof(curve_pm[0]) && !stopped(c); i++) {
		uint64_t rate = r->knee_bps / 1000 * curve_pm[i];

		if (!rate)
			continue;
		ret = measure(c, "curve", rate, &r->curve[r->nr_curve]);
		if (ret)
			return ret;
		if (r->interrupted)
			break;
		r->nr_curve++;
	}
	return 0;
}

/*
 * The reader alone once more: the disk's speed moves within minutes on a
 * shared host, and half the solo reads/s is the bar. Every point is judged
 * again against the mean of both solos, then the knee is fitted.
 */
static int judge_again(struct calib *c)
{
	struct iolat_calib_result *r = c->r;
	int ret = measure(c, "solo", 0, &r->solo_after);

	if (ret || r->interrupted)
		return ret;
	r->solo_ref.reads_s = (r->solo.reads_s + r->solo_after.reads_s) / 2;
	r->unpaced.within = iolat_calib_within(&r->unpaced, &r->solo_ref, r->threshold_ns);
	for (unsigned i = 0; i < r->nr_steps; i++)
		r->steps[i].within = iolat_calib_within(&r->steps[i], &r->solo_ref, r->threshold_ns);
	for (unsigned i = 0; i < r->nr_curve; i++)
		r->curve[i].within = iolat_calib_within(&r->curve[i], &r->solo_ref, r->threshold_ns);
	iolat_calib_fit_knee(r);
	return 0;
}

static int check_plan(struct calib *c)
{
	const struct iolat_calib_plan *pl = c->pl;

	if (!pl->measure && !pl->backend)
		return calib_err(c, -EINVAL, "calibrate: no backend to run on");
	if (!!pl->read_path != !!pl->write_path)
		return calib_err(c, -EINVAL, "calibrate: a reader's path needs a writer's");
	if (pl->read_path && (!pl->read_size || !pl->write_size))
		return calib_err(c, -EINVAL, "calibrate: the regions need a size");
	if (pl->throttle_cgroup && (!pl->read_path || (pl->throttle_version != 1 && pl->throttle_version != 2)))
		return calib_err(c, -EINVAL, "calibrate: the kernel's throttle paces a real disk's writer, "
				 "in a cgroup v1 or v2 hierarchy");
	return 0;
}

int iolat_calibrate(const struct iolat_calib_plan *pl, struct iolat_calib_result *r,
		    char *err, size_t errlen)
{
	struct calib c = { .pl = pl, .r = r, .err = err, .errlen = errlen,
			   .step_ns = pl->step_ns ? pl->step_ns : CALIB_STEP_DEF_NS };
	int ret;

	memset(r, 0, sizeof(*r));
	r->throttled = pl->throttle_cgroup != NULL;
	if (err && errlen)
		err[0] = '\0';
	ret = check_plan(&c);
	if (!ret)
		ret = measure(&c, "solo", 0, &r->solo);
	if (ret || r->interrupted)
		return ret;
	r->threshold_ns = iolat_calib_threshold(&r->solo, pl->target_ns);
	r->solo_ref = r->solo;
	ret = measure(&c, "unpaced", IOLAT_CALIB_UNPACED, &r->unpaced);
	if (ret || r->interrupted)
		return ret;
	if (r->unpaced.within) {
		r->no_knee = true;
		r->knee_bps = IOLAT_CALIB_UNPACED;
		r->knee_mb_s = r->unpaced.writer_mb_s;
	} else {
		ret = bisect(&c, pl->bisect_steps ? pl->bisect_steps : CALIB_BISECT_DEF);
		if (!ret && !r->interrupted)
			ret = curve(&c);
		if (!ret && !r->interrupted && !stopped(&c))
			ret = judge_again(&c);
	}
	r->target_given = pl->target_ns != 0;
	r->target_ns = pl->target_ns ? pl->target_ns : iolat_calib_suggest_target(r);
	return ret;
}

/* ---- the rules ---- */

uint64_t iolat_calib_threshold(const struct iolat_calib_point *solo, uint64_t target_ns)
{
	uint64_t t = 3 * solo->p90_ns;

	if (target_ns)
		return target_ns;
	return t > solo->p90_ns + 100 * NSEC_PER_USEC ? t : solo->p90_ns + 100 * NSEC_PER_USEC;
}

bool iolat_calib_within(const struct iolat_calib_point *pt, const struct iolat_calib_point *solo,
			uint64_t threshold_ns)
{
	return pt->p90_ns <= threshold_ns && pt->reads_s * 2 >= solo->reads_s;
}

uint64_t iolat_calib_nice_ceil(uint64_t ns)
{
	uint64_t us = (ns + NSEC_PER_USEC - 1) / NSEC_PER_USEC, p = 1;

	if (us <= 1)
		return NSEC_PER_USEC;
	while (p <= UINT64_MAX / 10 && p * 10 < us)
		p *= 10;
	/* us is in (p, 10p]: the first of 1p, 2p, 5p, 10p at or over it. */
	if (us <= p)
		return p * NSEC_PER_USEC;
	if (us <= 2 * p)
		return 2 * p * NSEC_PER_USEC;
	if (us <= 5 * p)
		return 5 * p * NSEC_PER_USEC;
	return 10 * p * NSEC_PER_USEC;
}

uint64_t iolat_calib_suggest_target(const struct iolat_calib_result *r)
{
	uint64_t t = 2 * r->solo.p90_ns;

	for (unsigned i = 0; i < r->nr_curve; i++)
		if (r->curve[i].within && r->curve[i].p90_ns + r->curve[i].p90_ns / 2 > t)
			t = r->curve[i].p90_ns + r->curve[i].p90_ns / 2;
	return iolat_calib_nice_ceil(t);
}

void iolat_calib_profile(const struct iolat_calib_result *r, struct iolat_calib_profile *p)
{
	double p50 = (double)r->solo.p50_ns / 1e3, p90 = (double)r->solo.p90_ns / 1e3;
	double xfer = CALIB_READ_BS / 3000.0;   /* us at the model's default read_mbps */

	/* The model's write pipe is its knee; a disk without one: its unpaced rate. */
	p->mbps = r->knee_mb_s > 1 ? r->knee_mb_s : 1;
	p->read_us = p50 > xfer ? p50 - xfer : 0;
	/* Jitter is uniform +-j around the fixed cost: its p90 is 0.8 j above the median. */
	p->jitter_pct = p50 > 0 ? (p90 / p50 - 1) / 0.8 * 100 : 0;
	p->jitter_pct = p->jitter_pct < 0 ? 0 : p->jitter_pct > 100 ? 100 : round(p->jitter_pct);
	p->rotational = r->rotational;
}
