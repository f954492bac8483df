/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.c - allowed depth to rate limits by Little's law, and the
 * adaptive mode's rate split by direction (ratelimit.h).
 * Context: any thread; pure functions.
 */
#include <string.h>

#include "iolatency.h"
#include "daemon/round/ratelimit.h"

#define RATE_MAX_HALVINGS 30

/* Did the group do direction @d in this period, as more than a stray request? */
static bool seen_doing(const struct rate_sample *s, int d)
{
	uint64_t all = s->bytes[0] + s->bytes[1];

	return s->ios[d] >= RATE_MIN_IOS || (s->ios[d] && s->bytes[d] * RATE_STRAY_SHARE >= all);
}

void iolatd_rate_est_update(struct rate_est *e, const struct rate_sample *s)
{
	for (int d = 0; d < 2; d++) {
		double secs, bps, iops;

		e->mix_bytes[d] += ((double)s->bytes[d] - e->mix_bytes[d]) / 8;
		e->mix_ios[d] += ((double)s->ios[d] - e->mix_ios[d]) / 8;
		if (seen_doing(s, d))
			e->quiet[d] = 0;
		else if (e->quiet[d] < RATE_SEEN_PERIODS)
			e->quiet[d]++;
		if (s->ios[d] < RATE_MIN_IOS || s->lat_ns[d] < RATE_MIN_LAT_NS)
			continue;
		secs = (double)s->lat_ns[d] / 1e9;
		bps = (double)s->bytes[d] / secs;
		iops = (double)s->ios[d] / secs;
		if (!e->valid[d]) {
			e->bps_slot[d] = bps;
			e->iops_slot[d] = iops;
			e->valid[d] = true;
		} else {
			e->bps_slot[d] += (bps - e->bps_slot[d]) / 4;
			e->iops_slot[d] += (iops - e->iops_slot[d]) / 4;
		}
	}
}

static uint64_t floor_at(double v, uint64_t min)
{
	return v < (double)min ? min : v > 1e18 ? (uint64_t)1e18 : (uint64_t)v;
}

bool iolatd_rate_limits(const struct rate_est *e, uint32_t depth, int use_delay,
		 uint64_t min_bps, uint64_t min_iops, struct cg_limits *out)
{
	double slots;
	bool any = false;

	memset(out, 0, sizeof(*out));
	if (depth == IOLAT_DEPTH_MAX && use_delay <= 0)
		return false;
	slots = depth == IOLAT_DEPTH_MAX ? 1.0 : (double)(depth ? depth : 1);
	if (use_delay > 0) {
		int u = use_delay > RATE_MAX_HALVINGS ? RATE_MAX_HALVINGS : use_delay;

		slots = 1.0 / (double)(1u << u);
	}
	for (int d = 0; d < 2; d++) {
		if (!e->valid[d] || e->quiet[d] >= RATE_SEEN_PERIODS)
			continue;
		out->v[d == RATE_READ ? CG_RBPS : CG_WBPS] = floor_at(slots * e->bps_slot[d], min_bps);
		out->v[d == RATE_READ ? CG_RIOPS : CG_WIOPS] = floor_at(slots * e->iops_slot[d], min_iops);
		any = true;
	}
	return any;
}

/* @d's share of @v[] (both 0: the whole, as neither says otherwise). */
static double share_of(const double *v, int d)
{
	double all = v[0] + v[1];

	return all > 0 ? v[d] / all : 1.0;
}

bool iolatd_rate_split(const struct rate_est *e, uint64_t bps, uint64_t iops, uint64_t min_bps,
		uint64_t min_iops, struct cg_limits *out)
{
	bool any = false;

	memset(out, 0, sizeof(*out));
	if (!bps && !iops)
		return false;
	for (int d = 0; d < 2; d++) {
		if (e->quiet[d] >= RATE_SEEN_PERIODS || (!e->valid[d] && !e->mix_ios[d]))
			continue;
		if (bps)
			out->v[d == RATE_READ ? CG_RBPS : CG_WBPS] =
				floor_at((double)bps * share_of(e->mix_bytes, d) + 0.5, min_bps);
		if (iops && (!bps || e->mix_bytes[d] < (double)RATE_IOPS_MAX_REQ_BYTES * e->mix_ios[d]))
			out->v[d == RATE_READ ? CG_RIOPS : CG_WIOPS] =
				floor_at((double)iops * share_of(e->mix_ios, d) + 0.5, min_iops);
		any = true;
	}
	return any;
}

bool iolatd_rate_at_floor(const struct cg_limits *l, uint64_t min_bps, uint64_t min_iops)
{
	bool any = false;

	for (int k = 0; k < CG_NR_LIMITS; k++) {
		if (!l->v[k])
			continue;
		any = true;
		if (l->v[k] > (k == CG_RBPS || k == CG_WBPS ? min_bps : min_iops))
			return false;
	}
	return any;
}
