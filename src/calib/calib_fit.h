/* SPDX-License-Identifier: MIT */
/*
 * calib_fit.h - the knee of `iolat calibrate` fitted through every paced
 * point it measured (calib_fit.c; docs/calibrate.md says why).
 * Context: any thread; pure functions of their arguments.
 */
#ifndef IOLAT_CALIB_FIT_H
#define IOLAT_CALIB_FIT_H

#include "calib/calib_types.h"

/*
 * A point's margin: the lower of its reads/s over half the solo reads/s and
 * the threshold over its p90, at most 2 (within: at least 1).
 */
double iolat_calib_margin(const struct iolat_calib_point *pt, const struct iolat_calib_point *solo,
			  uint64_t threshold_ns);

/*
 * The knee from the points of the bisection and the curve, judged against
 * r->solo_ref and r->threshold_ns: where a least-squares line of the margins
 * of the points at 0.7-1.4 x the bisection's knee (r->knee_mb_s on entry)
 * crosses 1, kept in the range of knees that contradict the fewest verdicts
 * when none contradicts another, else within the points on the line; no
 * line: the bisection's knee brought into the range. Sets knee_mb_s,
 * knee_bps, knee_lo/hi_mb_s, contradicting and fit_points; keeps the
 * bisection's knee in knee_bisect_*.
 */
void iolat_calib_fit_knee(struct iolat_calib_result *r);

#endif /* IOLAT_CALIB_FIT_H */
