/* SPDX-License-Identifier: MIT */
/*
 * weight.h - proportional shares (docs/weights.md) as pure logic: the
 * division of one parent's pool among its children by weight (hweight,
 * activity, donation by water-filling, a lone active child unlimited, a
 * child with a latency target exempt), and the device's capacity estimate (a
 * max filter of the throughput delivered over the last periods). The glue
 * (weight_ctl.c) feeds them once a period and enforces the budgets.
 *
 * Context: the caller serialises every call on one struct (the controller's
 * weight_lock); no atomics, no clock of its own, no allocation.
 */
#ifndef IOLAT_CORE_WEIGHT_H
#define IOLAT_CORE_WEIGHT_H

#include <stdbool.h>
#include <stdint.h>

/* Constants (docs/weights.md, "Constants", says why each). */
#define WEIGHT_PERIOD_NS  1000000000ull /* a period: shares decided this often */
#define WEIGHT_SHORT_PM         920u /* the device delivered under 0.92 x what the budgets
					* allowed: it was the limit, the estimate is what it did */
#define WEIGHT_MET_PM           980u /* at least 0.98 x: the budgets were met, it may grow;
					* between the two the estimate holds (a throttle
					* delivers a few per cent under its limit) */
#define WEIGHT_SLACK_NS     2000000ull /* the gate's virtual time may lag now by 2 ms */
#define WEIGHT_GROW_LEVELS        4u /* budgets all met: the estimate grows by a step ... */
#define WEIGHT_GROW_STEPS_PM { 10u, 20u, 40u, 80u } /* ... +1, 2, 4, 8 % */
#define WEIGHT_CEIL_PM          980u /* the steps stop at 0.98 x the ceiling ... */
#define WEIGHT_CEIL_PROBE_PM     10u /* ... and go on by +1 % a period above it */
#define WEIGHT_CEIL_WEAR_PM     950u /* a short period: the ceiling is its total, or 0.95 x itself */
#define WEIGHT_BUSY_PM          900u /* busy: used >= 0.9 x its budget (or waited at the gate) */
#define WEIGHT_FRESH_NS   250000000ull /* activated this recently: busy, not yet measured; ...
					* later in its first period: measured since then */
#define WEIGHT_STOP_NS    200000000ull /* served nothing this long, nothing outstanding: stopped */
#define WEIGHT_DONOR_PM        1250u /* a donor keeps 1.25 x its use ... */
#define WEIGHT_DONOR_FLOOR_DIV    8u /* ... and at least 1/8 of its fair share */
#define WEIGHT_EXEMPT_FLOOR_DIV  16u /* a target's use leaves its siblings >= 1/16 of the pool */
#define WEIGHT_SPLIT_MAX        256u /* children of one parent divided (more: unlimited) */

#define WEIGHT_UNLIMITED UINT64_MAX

/* One child of a parent, in and out of weight_divide(). */
struct weight_node {
	/* in */
	uint32_t weight;
	bool active;          /* did I/O in the last period */
	bool exempt;          /* has a latency target: never budgeted */
	bool busy;            /* wanted more: waited at the gate, or used >= 0.9 x its budget */
	uint64_t use_bps;     /* delivered over the last period */
	/* out */
	double hweight;       /* parent's x weight / active siblings' weights (itself counted) */
	uint64_t share_bps;   /* hweight x capacity */
	uint64_t fair_bps;    /* its weight's part of the pool before donation */
	uint64_t budget_bps;  /* WEIGHT_UNLIMITED: none */
	uint64_t donated_bps; /* share - budget when it donates */
	bool donor;           /* used less than its part: kept its use plus headroom */
};

/*
 * weight_divide() - divide @pool_bps among @n children of a parent whose
 * hweight is @parent_hw and whose own budget is @parent_budget
 * (WEIGHT_UNLIMITED at the root or for a lone child), against the device's
 * @cap_bps (0: unknown, nothing is budgeted).
 */
void weight_divide(struct weight_node *c, uint32_t n, double parent_hw, uint64_t cap_bps,
		   uint64_t pool_bps, uint64_t parent_budget);

/* The capacity estimate (docs/weights.md, "Capacity"). */
struct weight_cap {
	uint64_t bps;          /* the estimate; 0: unknown */
	uint32_t grow_streak;  /* periods whose budgets were all met since the last short one */
	uint64_t ceiling_bps;  /* the most the device delivered in a short period (it was the
				* limit), worn down by WEIGHT_CEIL_WEAR_PM at each; 0: none yet */
};

/*
 * weight_cap_update() - a period ended in which the device delivered
 * @total_bps. @budgeted: some active group had a budget that bound under
 * no ancestor's; @allowed_bps: what the budgets allowed (the total with each
 * such group's use replaced by its budget, a donor's kept). Without budgets
 * the estimate is the best of itself and the total (a lone group that wants
 * little says nothing of the device). With budgets, by the total's part of
 * what was allowed: under WEIGHT_SHORT_PM the total (the device was the
 * limit); at least WEIGHT_MET_PM a step up that grows with such periods in
 * a row, but no step past WEIGHT_CEIL_PM of the ceiling (the most the device
 * delivered in a short period, worn down at each) and only +1 % a period
 * above it; between, held (neither a fall nor a step, the streak
 * kept). Return: the estimate.
 */
uint64_t weight_cap_update(struct weight_cap *c, uint64_t total_bps, bool budgeted,
			   uint64_t allowed_bps);

/* @v x @num / @den without overflow for the values used here (den > 0). */
uint64_t weight_mul_div(uint64_t v, uint64_t num, uint64_t den);

#endif
