/* SPDX-License-Identifier: MIT */
/*
 * calib_fit.c - the knee of `iolat calibrate` from every paced point it
 * measured (calib_fit.h), not from the bisection's last verdict alone.
 * Near the knee of a disk like this project's VM disk the reader's reads/s
 * falls slowly with the writer's rate and one measurement can be 15-20 %
 * off, so one verdict can move a bisection by a whole halving. Two rules,
 * docs/calibrate.md says why:
 * - the range the verdicts allow: the knees that contradict the fewest
 *   measured points (a point within above the knee, or not within below);
 * - where a least-squares line through the points around the bisection's
 *   knee (0.7-1.4 x) crosses the bar (each point's margin: the lower of its
 *   reads/s over half the solo reads/s and the threshold over its p90; 1 is
 *   the bar). Where no point contradicts another the knee stays in the
 *   range, so a sharp knee keeps the bisection's answer (its range is the
 *   interval between the last point within and the first not); where some
 *   do (noise, or a disk whose speed moved during the minute) the line
 *   decides, kept within the points it went through.
 * Context: the calling thread; pure function of the result.
 */
#include <stdbool.h>
#include <stddef.h>

#include "calib/calib_fit.h"

#define FIT_MAX (IOLAT_CALIB_MAX_STEPS + IOLAT_CALIB_MAX_CURVE)
#define FIT_BAND_LO 0.7
#define FIT_BAND_HI 1.4
#define MARGIN_CAP 2.0     /* a point far inside weighs no more than one just inside */

struct fit_point {
	double x;      /* the writer's delivered MB/s */
	double m;      /* the margin: >= 1 within */
	double pace;   /* its pace, MB/s */
};

double iolat_calib_margin(const struct iolat_calib_point *pt, const struct iolat_calib_point *solo,
			  uint64_t threshold_ns)
{
	double by_reads = solo->reads_s > 0 ? pt->reads_s * 2 / solo->reads_s : MARGIN_CAP;
	double by_p90 = pt->p90_ns ? (double)threshold_ns / (double)pt->p90_ns : MARGIN_CAP;
	double m = by_reads < by_p90 ? by_reads : by_p90;

	return m > MARGIN_CAP ? MARGIN_CAP : m;
}

/* The paced points, sorted by delivered rate. */
static unsigned gather(const struct iolat_calib_result *r, struct fit_point *p)
{
	const struct iolat_calib_point *src[FIT_MAX];
	unsigned n = 0;

	for (unsigned i = 0; i < r->nr_steps && n < FIT_MAX; i++)
		src[n++] = &r->steps[i];
	for (unsigned i = 0; i < r->nr_curve && n < FIT_MAX; i++)
		src[n++] = &r->curve[i];
	for (unsigned i = 0; i < n; i++) {
		struct fit_point q = {
			.x = src[i]->writer_mb_s,
			.m = iolat_calib_margin(src[i], &r->solo_ref, r->threshold_ns),
			.pace = (double)src[i]->rate_bps / 1e6,
		};
		unsigned j = i;

		for (; j > 0 && p[j - 1].x > q.x; j--)
			p[j] = p[j - 1];
		p[j] = q;
	}
	return n;
}

/*
 * The knees that contradict the fewest points: with the knee between point
 * s-1 and point s, the points under it that are not within and those over
 * it that are within count against it. Every s with the least count is
 * allowed; the range spans them all.
 */
static unsigned verdict_range(const struct fit_point *p, unsigned n, double top, double *lo,
			      double *hi)
{
	unsigned best = n + 1, s_lo = 0, s_hi = 0;

	for (unsigned s = 0; s <= n; s++) {
		unsigned against = 0;

		for (unsigned i = 0; i < n; i++)
			against += i < s ? p[i].m < 1 : p[i].m >= 1;
		if (against < best) {
			best = against;
			s_lo = s;
		}
		if (against == best)
			s_hi = s;
	}
	*lo = s_lo ? p[s_lo - 1].x : 0;
	*hi = s_hi < n ? p[s_hi].x : top;
	return best;
}

static bool in_band(const struct fit_point *q, double centre)
{
	return q->x >= FIT_BAND_LO * centre && q->x <= FIT_BAND_HI * centre;
}

/*
 * Where the line through the points in the band crosses the bar, and the
 * lowest and highest of those points; false: no falling line.
 */
static bool band_line(const struct fit_point *p, unsigned n, double centre, double *x_bar,
		      unsigned *used, double *x_min, double *x_max)
{
	double sx = 0, sm = 0, sxx = 0, sxm = 0;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!in_band(&p[i], centre))
			continue;
		if (!k || p[i].x < *x_min)
			*x_min = p[i].x;
		if (!k || p[i].x > *x_max)
			*x_max = p[i].x;
		sx += p[i].x;
		sm += p[i].m;
		sxx += p[i].x * p[i].x;
		sxm += p[i].x * p[i].m;
		k++;
	}
	*used = k;
	if (k < 3)
		return false;
	double var = sxx - sx * sx / k, cov = sxm - sx * sm / k;

	if (var <= 0 || cov >= 0)
		return false;
	double slope = cov / var, mx = sx / k, mm = sm / k;

	*x_bar = mx + (1.0 - mm) / slope;
	return true;
}

/*
 * The pace that delivers @k: the ratio of pace to delivered of the band's
 * points within at or under it (past the knee a saturated disk delivers
 * less than the pace); none: the bisection's own ratio.
 */
static double pace_of(const struct fit_point *p, unsigned n, double centre, double k,
		      const struct iolat_calib_result *r)
{
	double sp = 0, sx = 0;

	for (unsigned i = 0; i < n; i++)
		if (in_band(&p[i], centre) && p[i].x <= k && p[i].m >= 1) {
			sp += p[i].pace;
			sx += p[i].x;
		}
	if (sx > 0)
		return k * sp / sx;
	return r->knee_mb_s > 0 ? k * ((double)r->knee_bps / 1e6) / r->knee_mb_s : k;
}

void iolat_calib_fit_knee(struct iolat_calib_result *r)
{
	struct fit_point p[FIT_MAX];
	unsigned n = gather(r, p);
	double lo, hi, k, x_min = 0, x_max = 0, centre = r->knee_mb_s;

	r->knee_bisect_bps = r->knee_bps;
	r->knee_bisect_mb_s = r->knee_mb_s;
	r->fit_points = 0;
	if (r->no_knee || !n)
		return;
	r->contradicting = verdict_range(p, n, r->unpaced.writer_mb_s, &lo, &hi);
	r->knee_lo_mb_s = lo;
	r->knee_hi_mb_s = hi;
	if (centre > 0 && band_line(p, n, centre, &k, &r->fit_points, &x_min, &x_max)) {
		if (!r->contradicting)
			k = k < lo ? lo : k > hi ? hi : k;
		else
			k = k < x_min ? x_min : k > x_max ? x_max : k;
	} else {
		r->fit_points = 0;
		k = centre < lo ? lo : centre > hi ? hi : centre;
	}
	r->knee_bps = (uint64_t)(pace_of(p, n, centre, k, r) * 1e6);
	r->knee_mb_s = k;
}
