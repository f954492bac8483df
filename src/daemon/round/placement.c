/* SPDX-License-Identifier: MIT */
/*
 * placement.c - dividing a v1 budget among the cgroups that carry it
 * (placement.h).
 * Context: any thread; pure functions.
 */
#include <string.h>

#include "daemon/round/placement.h"

#define SATURATED 0.8    /* using this much of its part: it may want more */
#define HEADROOM 1.5     /* an unsaturated carrier's part: its use times this */

/* The direction (0 read, 1 write) of a limit kind. */
static int place_dir(enum cg_limit_kind k)
{
	return k == CG_WBPS || k == CG_WIOPS;
}

static uint64_t at_least(double v, uint64_t floor)
{
	return v < (double)floor ? floor : v > 1e18 ? (uint64_t)1e18 : (uint64_t)v;
}

/* One kind: water-filling as described in placement.h. */
static void split_kind(enum cg_limit_kind k, double budget, struct carrier *c, unsigned n,
		       uint64_t floor)
{
	double give[PLACE_MAX_CARRIERS], unsat_sum = 0, rest, least;
	unsigned nsat = 0, np = 0;

	for (unsigned j = 0; j < n; j++) {
		give[j] = -1; /* saturated, or not taking part */
		if (!c[j].seen[place_dir(k)])
			continue;
		np++;
		if (c[j].last.v[k] && c[j].rate[k] < SATURATED * (double)c[j].last.v[k]) {
			give[j] = c[j].rate[k] * HEADROOM;
			unsat_sum += give[j];
		} else {
			nsat++;
		}
	}
	if (!np)
		return;
	rest = budget - unsat_sum;
	least = budget * nsat / (2.0 * np);
	if (!nsat && unsat_sum > 0) {
		/* Nobody wants more: the whole budget, in proportion to use. */
		for (unsigned j = 0; j < n; j++)
			if (give[j] >= 0)
				give[j] *= budget / unsat_sum;
	} else if (rest < least) {
		double scale = unsat_sum > 0 ? (budget - least) / unsat_sum : 0;

		for (unsigned j = 0; j < n; j++)
			if (give[j] >= 0)
				give[j] *= scale;
		rest = least;
	}
	for (unsigned j = 0; j < n; j++) {
		if (!c[j].seen[place_dir(k)])
			continue;
		c[j].part.v[k] = at_least(give[j] >= 0 ? give[j] : rest / nsat, floor);
	}
}

void iolatd_place_split(const struct cg_limits *budget, struct carrier *c, unsigned n,
		 uint64_t min_bps, uint64_t min_iops, struct cg_limits *sum)
{
	if (n > PLACE_MAX_CARRIERS)
		n = PLACE_MAX_CARRIERS;
	for (unsigned j = 0; j < n; j++)
		memset(&c[j].part, 0, sizeof(c[j].part));
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (budget->v[k])
			split_kind(k, (double)budget->v[k], c, n,
				   k == CG_RBPS || k == CG_WBPS ? min_bps : min_iops);
	if (!sum)
		return;
	memset(sum, 0, sizeof(*sum));
	for (unsigned j = 0; j < n; j++)
		for (int k = 0; k < CG_NR_LIMITS; k++)
			sum->v[k] += c[j].part.v[k];
}
