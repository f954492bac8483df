/* SPDX-License-Identifier: MIT */
/*
 * weight.c - the rules of proportional shares (weight.h; docs/weights.md
 * has the why and what came from io.cost):
 *
 *  - hweight: a child's weight over the sum of its active siblings' weights
 *    (its own counted; an inactive child is counted as if it joined), times
 *    its parent's hweight. Its share is hweight x the capacity estimate.
 *  - nothing is budgeted while the capacity is unknown, or while at most one
 *    child is active: a lone active child has its parent's budget
 *    (unlimited at the root).
 *  - a child with a latency target is never budgeted; its use comes off the
 *    pool its siblings divide (not below 1/16 of the pool).
 *  - the others water-fill the pool by weight: a child that is not busy and
 *    would use less than its part (1.25 x its use) is a donor: it keeps that
 *    (at least 1/8 of its part), the rest goes back to the pool for the
 *    others, until no new donor appears; the rest divide what is left by
 *    weight. When every one is a donor, what is left is spread by weight.
 *  - an inactive child's budget is what it would get joining the active
 *    ones (its weight's part of the pool with itself counted).
 *  - the capacity estimate: the device's total when it fell well short of
 *    what the budgets allowed (the device was the limit), growing by steps
 *    while they are met, held in between (a throttle's own shortfall of a
 *    few per cent is not the device's), never lowered while nothing is
 *    budgeted; the steps stop near the most the device delivered when it
 *    was the limit (its ceiling), above which it probes by +1 %.
 *
 * Context: weight.h (the caller serialises; pure).
 */
#include "core/weight.h"

uint64_t weight_mul_div(uint64_t v, uint64_t num, uint64_t den)
{
	return v / den * num + v % den * num / den;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t share_of(double hw, uint64_t cap)
{
	double s = hw * (double)cap;

	return s >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)s;
}

/* Water-fill @pool among the non-exempt active children by weight. */
static void fill(struct weight_node *c, uint32_t n, uint64_t pool)
{
	uint64_t left = pool, wopen = 0, wall = 0;
	bool moved = true;

	for (uint32_t i = 0; i < n; i++)
		if (c[i].active && !c[i].exempt)
			wopen += c[i].weight;
	wall = wopen;
	for (uint32_t i = 0; i < n; i++)
		if (c[i].active && !c[i].exempt)
			c[i].fair_bps = weight_mul_div(pool, c[i].weight, wall);
	while (moved && wopen) {
		moved = false;
		for (uint32_t i = 0; i < n; i++) {
			struct weight_node *x = &c[i];
			uint64_t part, want;

			if (!x->active || x->exempt || x->donor || x->busy)
				continue;
			part = weight_mul_div(left, x->weight, wopen);
			want = weight_mul_div(x->use_bps, WEIGHT_DONOR_PM, 1000);
			if (want >= part)
				continue;
			x->donor = true;
			x->budget_bps = max_u64(want, x->fair_bps / WEIGHT_DONOR_FLOOR_DIV);
			left = left > x->budget_bps ? left - x->budget_bps : 0;
			wopen -= x->weight;
			moved = true;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct weight_node *x = &c[i];

		if (!x->active || x->exempt)
			continue;
		if (!wopen) /* every one a donor: the rest as headroom, by weight */
			x->budget_bps += weight_mul_div(left, x->weight, wall);
		else if (!x->donor)
			x->budget_bps = max_u64(weight_mul_div(left, x->weight, wopen), 1);
		if (x->donor && x->share_bps > x->budget_bps)
			x->donated_bps = x->share_bps - x->budget_bps;
	}
}

void weight_divide(struct weight_node *c, uint32_t n, double parent_hw, uint64_t cap_bps,
		   uint64_t pool_bps, uint64_t parent_budget)
{
	uint64_t wact = 0, pool = pool_bps, used = 0;
	uint32_t nact = 0;

	for (uint32_t i = 0; i < n; i++) {
		c[i].donor = false;
		c[i].fair_bps = c[i].donated_bps = 0;
		c[i].budget_bps = parent_budget;
		if (c[i].active) {
			wact += c[i].weight;
			nact++;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t sum = wact + (c[i].active ? 0 : c[i].weight);

		c[i].hweight = sum ? parent_hw * (double)c[i].weight / (double)sum : 0;
		c[i].share_bps = share_of(c[i].hweight, cap_bps);
	}
	if (!cap_bps || nact <= 1)
		return; /* unknown, or a lone active child: its parent's budget */
	for (uint32_t i = 0; i < n; i++) {
		if (c[i].active && c[i].exempt) {
			c[i].budget_bps = WEIGHT_UNLIMITED;
			used += c[i].use_bps;
		} else if (!c[i].active) {
			c[i].budget_bps = max_u64(weight_mul_div(pool_bps, c[i].weight,
								 wact + c[i].weight), 1);
		}
	}
	pool = pool > used ? pool - used : 0;
	pool = max_u64(pool, pool_bps / WEIGHT_EXEMPT_FLOOR_DIV);
	fill(c, n, pool);
}

static const uint32_t grow_steps[WEIGHT_GROW_LEVELS] = WEIGHT_GROW_STEPS_PM;

/* A step up from @c->bps at streak level @lvl, checked against the ceiling. */
static uint64_t grow(const struct weight_cap *c, uint32_t lvl)
{
	uint64_t step = weight_mul_div(c->bps, 1000 + grow_steps[lvl], 1000);
	uint64_t probe = weight_mul_div(c->bps, 1000 + WEIGHT_CEIL_PROBE_PM, 1000);
	uint64_t lim = weight_mul_div(c->ceiling_bps, WEIGHT_CEIL_PM, 1000);

	if (!c->ceiling_bps)
		return step;
	if (c->bps >= lim)
		return probe;
	return step < lim ? step : max_u64(lim, probe);
}

uint64_t weight_cap_update(struct weight_cap *c, uint64_t total_bps, bool budgeted,
			   uint64_t allowed_bps)
{
	uint32_t lvl;

	if (!budgeted) {
		c->bps = max_u64(c->bps, total_bps);
		c->grow_streak = 0;
	} else if (!c->bps || total_bps < weight_mul_div(allowed_bps, WEIGHT_SHORT_PM, 1000)) {
		c->bps = total_bps;
		c->ceiling_bps = max_u64(total_bps, weight_mul_div(c->ceiling_bps,
								  WEIGHT_CEIL_WEAR_PM, 1000));
		c->grow_streak = 0;
	} else if (total_bps >= weight_mul_div(allowed_bps, WEIGHT_MET_PM, 1000)) {
		lvl = c->grow_streak < WEIGHT_GROW_LEVELS ? c->grow_streak : WEIGHT_GROW_LEVELS - 1;
		c->bps = max_u64(total_bps, grow(c, lvl));
		c->grow_streak++;
	} else {
		c->bps = max_u64(c->bps, total_bps);
	}
	return c->bps;
}
