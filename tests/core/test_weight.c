/* SPDX-License-Identifier: MIT */
/*
 * test_weight.c - weights (docs/weights.md), rule by rule on the virtual
 * clock, through the library: the weight's range and default; weights off
 * leave the gate and the shares inert; hweight over the ACTIVE siblings,
 * nested along the path; activity (a group idle for a period leaves the
 * division; a lone active group is unlimited); donation (a group using less
 * than its share keeps 1.25 x its use, the busy sibling gets the rest);
 * snap-back (a donor that reaches its reduced budget at the gate gets its
 * part back at once; fed by served reports, within one period); a group
 * with a latency target is never budgeted; and the loop against a plant of
 * fixed capacity (shares within 5 % of the weights, the device kept busy,
 * a sibling that starts and stops reflected within a period); the capacity
 * estimate (a throttle's shortfall is not a short device; budgets below a
 * lone top-level group grow it as the top level's do).
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "helpers/t_ctl.h"
#include "core/weight.h"

#define KIB 1024ull
#define MIB (1024ull * 1024)
#define UNL UINT64_MAX

static struct iolat_group_share share(const struct iolat_group *g)
{
	struct iolat_group_share s;

	assert_int_equal(iolat_group_share(g, &s), 0);
	return s;
}

/* @g was delivered @bytes in I/Os of @io at t_now, observed (never waits). */
static void run_bytes(struct iolat_group *g, uint64_t bytes, uint64_t io)
{
	for (uint64_t done = 0; done < bytes; done += io)
		assert_int_equal(iolat_observe_done_at(g, 0, io, 0, t_now), 0);
}

/* Close the period: the clock moves past its end and the tick runs it. */
static void period(struct iolat_ctl *ctl)
{
	t_advance(WEIGHT_PERIOD_NS);
	iolat_ctl_tick(ctl);
}

/*
 * The plant: a device that does @cap bytes/s, and @n groups each wanting
 * want[i] bytes/s (UNL: all it can get) in I/Os of 64 KiB, for @ms ms in
 * steps of 50 us (finer than an I/O's cost at the budgets used); in each
 * step the groups take turns (the first one rotates) while the device has
 * credit and the gate lets them; the tick runs once a second. got[i] +=
 * bytes each was served. Return: the total served.
 */
#define PLANT_STEP_NS (50 * T_US)
static uint64_t plant(struct iolat_ctl *ctl, struct iolat_group **g, unsigned n,
		      const uint64_t *want, uint64_t cap, unsigned ms, uint64_t *got)
{
	const uint64_t io = 64 * KIB, per_step_dev = cap / (T_S / PLANT_STEP_NS);
	uint64_t dev = 0, demand[8] = { 0 }, total = 0;
	unsigned steps = ms * (unsigned)(T_MS / PLANT_STEP_NS);

	for (unsigned step = 0; step < steps; step++) {
		bool moved = true;

		t_advance(PLANT_STEP_NS);
		if (t_now % T_S == 0)
			iolat_ctl_tick(ctl);
		dev = dev + per_step_dev > per_step_dev + io ? per_step_dev + io : dev + per_step_dev;
		for (unsigned i = 0; i < n; i++) {
			uint64_t per_step = want[i] / (T_S / PLANT_STEP_NS);

			if (want[i] == UNL)
				demand[i] = UNL; /* all it can get */
			else
				demand[i] = demand[i] + per_step > per_step + io ? per_step + io :
					    demand[i] + per_step;
		}
		while (moved) {
			moved = false;
			for (unsigned k = 0; k < n; k++) {
				unsigned i = (k + step) % n;

				if (dev < io || demand[i] < io ||
				    iolat_group_pace_due(g[i], io, t_now))
					continue;
				dev -= io;
				if (demand[i] != UNL)
					demand[i] -= io;
				got[i] += io;
				total += io;
				moved = true;
			}
		}
	}
	return total;
}

static void test_weight_range_and_default(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0);

	assert_int_equal(iolat_group_weight(a), IOLAT_WEIGHT_DEFAULT);
	assert_int_equal(iolat_group_set_weight(a, 0), -EINVAL);
	assert_int_equal(iolat_group_set_weight(a, IOLAT_WEIGHT_MAX + 1), -EINVAL);
	assert_int_equal(iolat_group_set_weight(iolat_ctl_root(ctl), 100), -EINVAL);
	assert_int_equal(iolat_group_weight(a), IOLAT_WEIGHT_DEFAULT);
	assert_int_equal(iolat_group_set_weight(a, IOLAT_WEIGHT_MIN), 0);
	assert_int_equal(iolat_group_weight(a), 1);
	assert_int_equal(iolat_group_set_weight(a, IOLAT_WEIGHT_MAX), 0);
	assert_int_equal(iolat_group_weight(a), 10000);
	iolat_ctl_destroy(ctl);
}

/* No weight set: nothing counted, no budget, the gate lets everything go. */
static void test_weights_off_are_inert(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);

	for (int s = 0; s < 3; s++) {
		run_bytes(a, 100 * MIB, MIB);
		run_bytes(b, 10 * MIB, MIB);
		period(ctl);
	}
	assert_false(share(a).active);
	assert_int_equal(share(a).budget_bps, UNL);
	assert_int_equal(share(a).use_bps, 0);
	assert_int_equal(share(a).capacity_bps, 0);
	assert_true(share(a).hweight == 1.0);
	iolat_ctl_destroy(ctl);
}

/* hweight: weight over the ACTIVE siblings' weights, times the parent's. */
static void test_hweight_nested_over_active_siblings(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);
	struct iolat_group *c = t_grp(ctl, NULL, "c", 0);
	struct iolat_group *a1 = t_grp(ctl, a, "a1", 0), *a2 = t_grp(ctl, a, "a2", 0);
	struct iolat_group *a3 = t_grp(ctl, a, "a3", 0);

	assert_int_equal(iolat_group_set_weight(a, 100), 0);
	assert_int_equal(iolat_group_set_weight(b, 300), 0);
	assert_int_equal(iolat_group_set_weight(c, 600), 0);   /* idle */
	assert_int_equal(iolat_group_set_weight(a1, 100), 0);
	assert_int_equal(iolat_group_set_weight(a2, 300), 0);
	assert_int_equal(iolat_group_set_weight(a3, 1000), 0); /* idle */
	run_bytes(a1, 10 * MIB, MIB);
	run_bytes(a2, 10 * MIB, MIB);
	run_bytes(b, 20 * MIB, MIB);
	period(ctl);
	/* Top level: a and b active (100 + 300); c idle, counted as if it joined. */
	assert_true(share(a).active && share(b).active && !share(c).active);
	assert_float_equal(share(a).hweight, 0.25, 1e-9);
	assert_float_equal(share(b).hweight, 0.75, 1e-9);
	assert_float_equal(share(c).hweight, 0.6, 1e-9);
	/* Under a: a1 and a2 active (100 + 300), times a's 0.25. */
	assert_float_equal(share(a1).hweight, 0.25 * 0.25, 1e-9);
	assert_float_equal(share(a2).hweight, 0.25 * 0.75, 1e-9);
	assert_float_equal(share(a3).hweight, 0.25 * 1000.0 / 1400.0, 1e-9);
	/* share = hweight x capacity (the device's total: 40 MiB over 1 s). */
	assert_int_equal(share(a).capacity_bps, 40 * MIB);
	assert_int_equal(share(b).share_bps, 30 * MIB);
	assert_int_equal(share(iolat_ctl_root(ctl)).use_bps, 40 * MIB);
	iolat_ctl_destroy(ctl);
}

/* Active: did I/O in the last period. A group alone is unlimited. */
static void test_activity_and_the_lone_group(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);

	assert_int_equal(iolat_group_set_weight(a, 100), 0);
	assert_int_equal(iolat_group_set_weight(b, 300), 0);
	run_bytes(a, 50 * MIB, MIB);
	run_bytes(b, 50 * MIB, MIB);
	period(ctl);
	assert_true(share(a).budget_bps < UNL && share(b).budget_bps < UNL);
	/* b stops: after one period without I/O it is inactive, and a is alone. */
	run_bytes(a, 50 * MIB, MIB);
	period(ctl);
	assert_false(share(b).active);
	assert_true(share(a).active);
	assert_float_equal(share(a).hweight, 1.0, 1e-9);
	assert_int_equal(share(a).budget_bps, UNL);
	/* b comes back: both active again, divided 1:3 at the next period. */
	run_bytes(a, 50 * MIB, MIB);
	run_bytes(b, MIB, MIB);
	period(ctl);
	assert_true(share(b).active);
	assert_float_equal(share(b).hweight, 0.75, 1e-9);
	assert_true(share(a).budget_bps < UNL);
	iolat_ctl_destroy(ctl);
}

/* A group using less than its part keeps 1.25 x its use; the busy one the rest. */
static void test_donation(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);
	struct iolat_group_share sa, sb;
	uint64_t pool;

	assert_int_equal(iolat_group_set_weight(a, 100), 0);
	assert_int_equal(iolat_group_set_weight(b, 300), 0);
	run_bytes(a, 90 * MIB, MIB); /* a: 90, b: 10 of a device doing 100 MiB/s */
	run_bytes(b, 10 * MIB, MIB);
	period(ctl);
	sa = share(a);
	sb = share(b);
	pool = 100 * MIB;
	assert_int_equal(sb.budget_bps, weight_mul_div(10 * MIB, WEIGHT_DONOR_PM, 1000));
	assert_int_equal(sb.donated_bps, sb.share_bps - sb.budget_bps);
	assert_int_equal(sb.share_bps, 75 * MIB);
	assert_int_equal(sa.budget_bps, pool - sb.budget_bps);
	assert_int_equal(sa.donated_bps, 0);
	/* The sum is the pool: the device stays busy. */
	assert_int_equal(sa.budget_bps + sb.budget_bps, pool);
	iolat_ctl_destroy(ctl);
}

/* The donor wants more: at the gate it gets its part back at once. */
static void test_snap_back_at_the_gate(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);
	uint64_t reduced;

	assert_int_equal(iolat_group_set_weight(a, 100), 0);
	assert_int_equal(iolat_group_set_weight(b, 300), 0);
	run_bytes(a, 90 * MIB, MIB);
	run_bytes(b, 10 * MIB, MIB);
	period(ctl);
	reduced = share(b).budget_bps;
	assert_true(reduced < 20 * MIB);
	/* b issues 1 MiB, then another 1 ms later: 80 ms early at 12.5 MiB/s. */
	assert_int_equal(iolat_group_pace_due(b, MIB, t_now), 0);
	t_advance(T_MS);
	assert_int_equal(iolat_group_pace_due(b, MIB, t_now), 0); /* not held back ... */
	assert_true(share(b).budget_bps > reduced);               /* ... its part is back */
	assert_int_equal(share(b).budget_bps,
			 weight_mul_div(100 * MIB,
					300, 400));
	/* At its whole part the gate holds it again: 1 MiB at ~78 MiB/s. */
	t_advance(T_MS);
	assert_true(iolat_group_pace_due(b, MIB, t_now) > 10 * T_MS);
	iolat_ctl_destroy(ctl);
}

/* Fed by served reports (iolatd): the donor that reached its budget is busy
 * at the next period and gets its whole part. */
/*
 * The first estimate, from writers that began within the first period (half
 * way through it): each counts by its rate since it began, not by its mean
 * over the whole period, which would halve it. Their reports every 100 ms
 * (iolatd's round): 100 MiB/s each from 0.5 s. Then the device does 400 MiB/s
 * in all (the first report's bytes, served before it, made the estimate too
 * high): the next period is short and the estimate falls to what was done.
 */
static void test_first_estimate_from_the_rate_since_start(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *g[2] = { t_grp(ctl, NULL, "a", 0), t_grp(ctl, NULL, "b", 0) };

	assert_int_equal(iolat_group_set_weight(g[0], 100), 0);
	assert_int_equal(iolat_group_set_weight(g[1], 100), 0);
	t_advance(WEIGHT_PERIOD_NS / 2);
	for (unsigned r = 0; r < 6; r++) {   /* at 0.5, 0.6 ... 1.0 s */
		for (unsigned i = 0; i < 2; i++)
			assert_int_equal(iolat_group_observe_served(g[i], 20 * MIB, 20, t_now), 0);
		if (r < 5)
			t_advance(WEIGHT_PERIOD_NS / 10);
	}
	iolat_ctl_tick(ctl);
	/* 120 MiB each since 0.5 s: 240 MiB/s each, 480 in all (over the whole period: 240). */
	assert_int_equal(share(g[0]).capacity_bps, 480 * MIB);
	assert_int_equal(share(g[0]).budget_bps, 240 * MIB);
	for (unsigned r = 0; r < 10; r++) {
		t_advance(WEIGHT_PERIOD_NS / 10);
		for (unsigned i = 0; i < 2; i++)
			assert_int_equal(iolat_group_observe_served(g[i], 20 * MIB, 20, t_now), 0);
	}
	iolat_ctl_tick(ctl);
	assert_int_equal(share(g[0]).capacity_bps, 400 * MIB);   /* short: what was done */
	assert_int_equal(share(g[0]).budget_bps, 200 * MIB);
	iolat_ctl_destroy(ctl);
}

static void test_snap_back_from_served_reports(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);
	uint64_t reduced, pool, was;

	assert_int_equal(iolat_group_set_weight(a, 100), 0);
	assert_int_equal(iolat_group_set_weight(b, 300), 0);
	/* Their first reports at a period's end: activated then, not yet
	 * measured (busy), so the first period gives each its part. */
	t_advance(WEIGHT_PERIOD_NS);
	assert_int_equal(iolat_group_observe_served(a, 90 * MIB, 90, t_now), 0);
	assert_int_equal(iolat_group_observe_served(b, 10 * MIB, 10, t_now), 0);
	iolat_ctl_tick(ctl);
	assert_int_equal(share(b).donated_bps, 0);
	assert_int_equal(share(b).budget_bps, weight_mul_div(share(b).capacity_bps, 300, 400));
	/* A whole period measured: b used 10 of its 75, a donor. */
	t_advance(WEIGHT_PERIOD_NS);
	assert_int_equal(iolat_group_observe_served(a, 90 * MIB, 90, t_now), 0);
	assert_int_equal(iolat_group_observe_served(b, 10 * MIB, 10, t_now), 0);
	iolat_ctl_tick(ctl);
	reduced = share(b).budget_bps;
	assert_int_equal(reduced, weight_mul_div(10 * MIB, WEIGHT_DONOR_PM, 1000));
	was = share(b).capacity_bps;
	/* Next period: b was served all of its reduced budget (the throttle held it). */
	t_advance(WEIGHT_PERIOD_NS);
	assert_int_equal(iolat_group_observe_served(a, 87 * MIB, 87, t_now), 0);
	assert_int_equal(iolat_group_observe_served(b, reduced, 13, t_now), 0);
	iolat_ctl_tick(ctl);
	/* Busy: not a donor; it and a divide the pool 3:1. */
	assert_int_equal(share(b).donated_bps, 0);
	pool = share(b).capacity_bps; /* budgets all met: it grew by a step */
	assert_true(pool > was && pool <= weight_mul_div(was, 1000 + 20, 1000));
	assert_int_equal(share(b).budget_bps, weight_mul_div(pool, 300, 400));
	assert_int_equal(share(a).budget_bps, weight_mul_div(pool, 100, 400));
	iolat_ctl_destroy(ctl);
}

/*
 * Fed by served reports every 100 ms (iolatd's round): a group that was
 * idle and reports bytes mid-period is active at once, and the shares are
 * divided again then, not at the period's end; a donor whose report shows
 * it served at its reduced budget's rate gets its part back at that report.
 */
static void test_activation_and_served_snap_back_mid_period(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);
	uint64_t part, reduced;

	assert_int_equal(iolat_group_set_weight(a, 100), 0);
	assert_int_equal(iolat_group_set_weight(b, 100), 0);
	/* a alone for 2 s, reporting 10 MiB per 100 ms: unlimited. */
	for (unsigned r = 0; r < 20; r++) {
		t_advance(100 * T_MS);
		assert_int_equal(iolat_group_observe_served(a, 10 * MIB, 10, t_now), 0);
		iolat_ctl_tick(ctl);
	}
	assert_int_equal(share(a).budget_bps, UNL);
	/* 300 ms into the next period b reports its first bytes. */
	for (unsigned r = 0; r < 3; r++) {
		t_advance(100 * T_MS);
		assert_int_equal(iolat_group_observe_served(a, 10 * MIB, 10, t_now), 0);
		iolat_ctl_tick(ctl);
	}
	assert_int_equal(share(a).budget_bps, UNL);
	assert_int_equal(iolat_group_observe_served(b, MIB, 1, t_now), 0);
	part = share(a).capacity_bps / 2;
	assert_true(share(b).active);
	assert_int_equal(share(a).budget_bps, part); /* divided at b's first report */
	assert_int_equal(share(b).budget_bps, part);
	/* Periods with b using little: b a donor on a reduced budget. */
	for (unsigned r = 0; r < 27; r++) {
		t_advance(100 * T_MS);
		assert_int_equal(iolat_group_observe_served(a, 9 * MIB, 9, t_now), 0);
		assert_int_equal(iolat_group_observe_served(b, MIB, 1, t_now), 0);
		iolat_ctl_tick(ctl);
	}
	reduced = share(b).budget_bps;
	part = share(b).share_bps; /* its part of today's estimate */
	assert_true(reduced < part / 2);
	assert_true(share(b).donated_bps > 0);
	/* b's next report: served at its reduced budget's rate over 100 ms. */
	t_advance(100 * T_MS);
	assert_int_equal(iolat_group_observe_served(b, reduced / 10, 1, t_now), 0);
	assert_int_equal(share(b).budget_bps, part); /* back at once, mid-period */
	iolat_ctl_destroy(ctl);
}

/*
 * A group activated late in a period is judged by its rate since then, not
 * over the whole period (where it would look like a donor for a period and
 * its sibling would keep its part): b starts 600 ms into a period at 50 MiB/s
 * beside a; at the period's end both are busy and split the pool evenly.
 * One activated under WEIGHT_FRESH_NS before the end is busy, not measured.
 */
static void test_late_activation_judged_since_then(void **state)
{
	for (unsigned late = 6; late <= 9; late += 3) {
		struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
		struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);

		assert_int_equal(iolat_group_set_weight(a, 100), 0);
		assert_int_equal(iolat_group_set_weight(b, 100), 0);
		for (unsigned r = 0; r < 20; r++) { /* a alone for 2 s, 100 MiB/s */
			t_advance(100 * T_MS);
			assert_int_equal(iolat_group_observe_served(a, 10 * MIB, 10, t_now), 0);
			iolat_ctl_tick(ctl);
		}
		for (unsigned r = 1; r <= 10; r++) {
			t_advance(100 * T_MS);
			assert_int_equal(iolat_group_observe_served(a, r <= late ? 10 * MIB : 5 * MIB,
								    10, t_now), 0);
			if (r >= late) /* b: 5 MiB a report from its first on */
				assert_int_equal(iolat_group_observe_served(b, 5 * MIB, 5, t_now), 0);
			iolat_ctl_tick(ctl);
		}
		print_message("b from %u00 ms: budget %.1f MiB/s (a %.1f), donated %.1f\n", late,
			      (double)share(b).budget_bps / MIB, (double)share(a).budget_bps / MIB,
			      (double)share(b).donated_bps / MIB);
		assert_true(share(b).active);
		assert_int_equal(share(b).donated_bps, 0);
		assert_int_equal(share(b).budget_bps, share(a).budget_bps);
		iolat_ctl_destroy(ctl);
	}
}

/* One iolatd round for @g: its outstanding count (when @infl >= 0), then what it was served. */
static void round_of(struct iolat_group *g, int infl, uint64_t bytes)
{
	if (infl >= 0)
		assert_int_equal(iolat_group_observe_inflight(g, (uint32_t)infl, t_now), 0);
	assert_int_equal(iolat_group_observe_served(g, bytes, bytes / MIB, t_now), 0);
}

/* a and b weighted 100:300, both busy for 2.5 s (10 MiB a report); b's last
 * round with nothing outstanding when @b_drained. a's budget. */
static uint64_t two_busy(struct iolat_ctl *ctl, struct iolat_group *a, struct iolat_group *b,
			 bool b_drained)
{
	for (unsigned r = 1; r <= 25; r++) {
		t_advance(100 * T_MS);
		round_of(a, 8, 10 * MIB);
		round_of(b, r == 25 && b_drained ? 0 : 8, 10 * MIB);
		iolat_ctl_tick(ctl);
	}
	assert_true(share(a).budget_bps < UNL && share(b).budget_bps < UNL);
	return share(a).budget_bps;
}

/* @dt on, a round in which b reports nothing served and nothing outstanding: it stopped, a alone. */
static void round_stops_b(struct iolat_group *a, struct iolat_group *b, uint64_t dt)
{
	t_advance(dt);
	round_of(a, 8, 10 * MIB);
	round_of(b, 0, 0);
	assert_false(share(b).active);
	assert_int_equal(share(a).budget_bps, UNL);
}

/*
 * A group that stops is deactivated WEIGHT_STOP_NS after its last served
 * bytes when its count of outstanding I/O has not moved for as long, and its
 * sibling gets the device then, not at the next period's end; it stays
 * inactive at that end, and its next bytes activate it again.
 */
static void test_stop_deactivates_early(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);
	uint64_t a_part;

	assert_int_equal(iolat_group_set_weight(a, 100), 0);
	assert_int_equal(iolat_group_set_weight(b, 300), 0);
	a_part = two_busy(ctl, a, b, true);
	/* b's last bytes were in that round: still active one round on... */
	t_advance(100 * T_MS);
	round_of(a, 8, 10 * MIB);
	round_of(b, 0, 0);
	assert_true(share(b).active);
	assert_int_equal(share(a).budget_bps, a_part);
	/* ... and stopped WEIGHT_STOP_NS after its last bytes: a alone, unlimited. */
	round_stops_b(a, b, WEIGHT_STOP_NS - 100 * T_MS);
	/* The period's end, with b's bytes early in it: b stays inactive (at
	 * every tick, the one that ends the period too). */
	for (unsigned r = 0; r < 10; r++) {
		t_advance(100 * T_MS);
		round_of(a, 8, 10 * MIB);
		round_of(b, 0, 0);
		iolat_ctl_tick(ctl);
		assert_false(share(b).active);
		assert_int_equal(share(a).budget_bps, UNL);
	}
	/* b's next bytes: active again, the pool divided 1:3 at once. */
	t_advance(100 * T_MS);
	round_of(b, 8, 10 * MIB);
	assert_true(share(b).active);
	assert_true(share(a).budget_bps < UNL);
	iolat_ctl_destroy(ctl);
}

/*
 * A group served nothing with I/O outstanding (held in the device behind its
 * sibling, completing little or nothing) is starved, not stopped, until its
 * count reaches 0; one without a count of what is outstanding is left to the
 * period's end.
 */
static void test_starved_is_not_stopped(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);
	struct iolat_group *c = t_grp(ctl, NULL, "c", 0);
	uint64_t a_part;

	assert_int_equal(iolat_group_set_weight(a, 100), 0);
	assert_int_equal(iolat_group_set_weight(b, 300), 0);
	a_part = two_busy(ctl, a, b, false);
	for (unsigned r = 0; r < 6; r++) {   /* 600 ms: 8 outstanding, then 4, none completing */
		t_advance(100 * T_MS);
		round_of(a, 8, 10 * MIB);
		round_of(b, r < 3 ? 8 : 4, 0);
	}
	assert_true(share(b).active);
	assert_int_equal(share(a).budget_bps, a_part);
	round_stops_b(a, b, 100 * T_MS);   /* the last ones complete: nothing outstanding */
	/* c reports served bytes but never a count of what is outstanding. */
	for (unsigned r = 0; r < 25; r++) {
		t_advance(100 * T_MS);
		round_of(a, 8, 10 * MIB);
		round_of(c, -1, 10 * MIB);
		iolat_ctl_tick(ctl);
	}
	assert_true(share(c).active);
	for (unsigned r = 0; r < 5; r++) {   /* 500 ms of nothing: left to the period */
		t_advance(100 * T_MS);
		round_of(a, 8, 10 * MIB);
		round_of(c, -1, 0);
	}
	assert_true(share(c).active);
	iolat_ctl_destroy(ctl);
}

/* A group with a target keeps its protection: never budgeted; its use
 * comes off what its siblings divide. */
static void test_target_is_never_budgeted(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *r = t_grp(ctl, NULL, "r", T_MS), *b = t_grp(ctl, NULL, "b", 0);
	struct iolat_group *c = t_grp(ctl, NULL, "c", 0);
	uint64_t pool = 130 * MIB;

	assert_int_equal(iolat_group_set_weight(r, 1), 0);
	assert_int_equal(iolat_group_set_weight(b, 100), 0);
	assert_int_equal(iolat_group_set_weight(c, 300), 0);
	run_bytes(r, 40 * MIB, MIB);
	run_bytes(b, 30 * MIB, MIB);
	run_bytes(c, 60 * MIB, MIB); /* both busy enough: neither donates */
	period(ctl);
	assert_int_equal(share(r).budget_bps, UNL);
	assert_int_equal(share(b).budget_bps, weight_mul_div(pool - 40 * MIB, 100, 400));
	assert_int_equal(share(c).budget_bps, weight_mul_div(pool - 40 * MIB, 300, 400));
	iolat_ctl_destroy(ctl);
}

/* The loop: two busy groups 100:300 on a 400 MiB/s device. */
static void test_loop_shares_follow_weights(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *g[2] = { t_grp(ctl, NULL, "a", 0), t_grp(ctl, NULL, "b", 0) };
	const uint64_t want[2] = { UNL, UNL }, cap = 400 * MIB;
	uint64_t got[2] = { 0 }, total;

	assert_int_equal(iolat_group_set_weight(g[0], 100), 0);
	assert_int_equal(iolat_group_set_weight(g[1], 300), 0);
	plant(ctl, g, 2, want, cap, 3000, got);
	got[0] = got[1] = 0;
	total = plant(ctl, g, 2, want, cap, 5000, got);
	print_message("a %.3f b %.3f of %.3f x the device\n", (double)got[0] / (double)total,
		      (double)got[1] / (double)total, (double)total / (double)(cap * 5));
	assert_true(total >= cap / 10 * 9 * 5);         /* the device kept busy */
	assert_true(fabs((double)got[0] / (double)total - 0.25) <= 0.25 * 0.05);
	assert_true(fabs((double)got[1] / (double)total - 0.75) <= 0.75 * 0.05);
	iolat_ctl_destroy(ctl);
}

/* A sibling that starts and stops: alone the other gets the whole device;
 * with it, the shares, within one period of its start. */
static void test_loop_a_sibling_starts_and_stops(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *g[2] = { t_grp(ctl, NULL, "a", 0), t_grp(ctl, NULL, "b", 0) };
	uint64_t want[2] = { UNL, 0 }, cap = 400 * MIB, got[2] = { 0 }, total;

	assert_int_equal(iolat_group_set_weight(g[0], 100), 0);
	assert_int_equal(iolat_group_set_weight(g[1], 100), 0);
	total = plant(ctl, g, 2, want, cap, 3000, got);
	assert_true(got[0] >= cap / 100 * 95 * 3);       /* alone: >= 0.95 x the device */
	want[1] = UNL;
	got[0] = got[1] = 0;
	plant(ctl, g, 2, want, cap, 1000, got);         /* the period it starts in */
	got[0] = got[1] = 0;
	total = plant(ctl, g, 2, want, cap, 3000, got);
	assert_true(total >= cap / 10 * 9 * 3);
	assert_true(fabs((double)got[0] / (double)total - 0.5) <= 0.5 * 0.05);
	want[1] = 0;                                      /* b stops */
	plant(ctl, g, 2, want, cap, 2000, got);
	got[0] = got[1] = 0;
	plant(ctl, g, 2, want, cap, 2000, got);
	assert_true(got[0] >= cap / 100 * 95 * 2);
	iolat_ctl_destroy(ctl);
}

/* The pure division: exempt floor, every one a donor, beyond capacity unknown. */
static void test_divide_edges(void **state)
{
	struct weight_node n[3] = {
		{ .weight = 100, .active = true, .use_bps = 10 },
		{ .weight = 300, .active = true, .use_bps = 10 },
		{ .weight = 100, .active = false },
	};

	/* Capacity unknown: nothing budgeted. */
	weight_divide(n, 3, 1.0, 0, 0, WEIGHT_UNLIMITED);
	assert_int_equal(n[0].budget_bps, WEIGHT_UNLIMITED);
	assert_int_equal(n[1].share_bps, 0);
	/* Both donors: the rest is spread by weight, the sum is the pool. */
	weight_divide(n, 3, 1.0, 1000, 1040, WEIGHT_UNLIMITED);
	assert_true(n[0].donor && n[1].donor);
	assert_in_range(n[0].budget_bps + n[1].budget_bps, 1038, 1040); /* rounding */
	assert_true(n[1].budget_bps > n[0].budget_bps);
	/* The inactive one: its part if it joined, 100 of 500. */
	assert_int_equal(n[2].budget_bps, 1040 * 100 / 500);
	/* An exempt group using everything leaves its siblings 1/16 of the pool. */
	n[0].exempt = true;
	n[0].use_bps = 5000;
	n[1].busy = true;
	n[2].active = true;
	n[2].busy = true;
	weight_divide(n, 3, 1.0, 1000, 1600, WEIGHT_UNLIMITED);
	assert_int_equal(n[0].budget_bps, WEIGHT_UNLIMITED);
	assert_int_equal(n[1].budget_bps + n[2].budget_bps, 1600 / WEIGHT_EXEMPT_FLOOR_DIV);
}

/* The gate's slack: a caller that wakes 1 ms after its wait ends (a busy
 * host) still gets its budget, though an I/O costs 80 us at it. */
static void test_gate_slack_keeps_the_budget(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0), *b = t_grp(ctl, NULL, "b", 0);
	uint64_t budget, got = 0, end;

	assert_int_equal(iolat_group_set_weight(a, 100), 0);
	assert_int_equal(iolat_group_set_weight(b, 100), 0);
	run_bytes(a, 50 * MIB, MIB);
	run_bytes(b, 50 * MIB, MIB);
	period(ctl);
	budget = share(a).budget_bps;
	assert_int_equal(budget, 50 * MIB);
	for (end = t_now + T_S / 2; t_now < end;) {
		uint64_t wait = iolat_group_pace_due(a, 4 * KIB, t_now);

		if (wait)
			t_advance(wait + T_MS); /* woken late */
		else
			got += 4 * KIB;
	}
	print_message("late caller: %.3f of its budget\n", (double)got * 2 / (double)budget);
	assert_true(got * 2 >= budget / 100 * 95);
	assert_true(got * 2 <= budget / 100 * 102);
	iolat_ctl_destroy(ctl);
}

/* The capacity estimate: kept while nothing is budgeted; the device's total
 * when it fell well short of the budgets; held when a little short; growing
 * by steps while they are met. */
static void test_capacity_estimate(void **state)
{
	struct weight_cap c = { 0 };

	assert_int_equal(weight_cap_update(&c, 1000, false, 0), 1000);     /* first */
	assert_int_equal(weight_cap_update(&c, 100, false, 0), 1000);      /* a lone group
									     * that wants little */
	assert_int_equal(c.ceiling_bps, 0);                                 /* unbudgeted: none */
	assert_int_equal(weight_cap_update(&c, 900, true, 1000), 900);     /* short (0.90) */
	assert_int_equal(c.ceiling_bps, 900);                               /* the device's most */
	assert_int_equal(weight_cap_update(&c, 900, true, 900), 909);      /* +1 % */
	assert_int_equal(weight_cap_update(&c, 909, true, 909), 918);      /* over 0.98 x the
									     * ceiling: +1 %, not +2 */
	assert_int_equal(weight_cap_update(&c, 890, true, 918), 918);      /* 0.97: held */
	assert_int_equal(weight_cap_update(&c, 700, true, 918), 700);      /* short: a dip */
	assert_int_equal(c.ceiling_bps, 855);                               /* 900 worn: 0.95 x */
	assert_int_equal(weight_cap_update(&c, 700, true, 700), 707);      /* under the ceiling, */
	assert_int_equal(weight_cap_update(&c, 707, true, 707), 721);      /* the steps grow: */
	assert_int_equal(weight_cap_update(&c, 721, true, 721), 749);      /* +1, 2, 4, 8 % */
	assert_int_equal(weight_cap_update(&c, 749, true, 749), 808);
	assert_int_equal(weight_cap_update(&c, 808, true, 808), 837);      /* +8 % stopped at
									     * 0.98 x 855 */
	assert_int_equal(weight_cap_update(&c, 837, true, 837), 845);      /* then +1 % */
	assert_int_equal(weight_cap_update(&c, 2000, true, 845), 2000);    /* the total, if more */
	assert_int_equal(weight_cap_update(&c, 1840, true, 2000), 2000);   /* 0.92: held */
	assert_int_equal(weight_cap_update(&c, 1839, true, 2000), 1839);   /* 0.9195: short */
	assert_int_equal(c.ceiling_bps, 1839);
	assert_int_equal(weight_cap_update(&c, 1500, true, 1839), 1500);   /* short again */
	assert_int_equal(weight_cap_update(&c, 1500, true, 1500), 1515);   /* from +1 % again */
}

/*
 * iolatd's plant: budgets become a kernel throttle that delivers a little
 * under its limit (0.96 x here, as io.max did in the VM); each group reports
 * what it was served once a period. The estimate must not read that
 * shortfall as a short device and ratchet down: after 20 periods the
 * budgets still sum to >= 0.95 x the device, divided 1:3. A device that
 * then really falls to half is found within two periods.
 */
static void test_throttle_shortfall_is_not_a_short_device(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *g[2] = { t_grp(ctl, NULL, "a", 0), t_grp(ctl, NULL, "b", 0) };
	uint64_t cap = 400 * MIB, sum = 0;

	assert_int_equal(iolat_group_set_weight(g[0], 100), 0);
	assert_int_equal(iolat_group_set_weight(g[1], 300), 0);
	for (unsigned p = 0; p < 24; p++) {
		uint64_t budget[2], served[2], want = 0;

		if (p == 22)
			cap /= 2;
		for (unsigned i = 0; i < 2; i++) {
			budget[i] = share(g[i]).budget_bps;
			served[i] = budget[i] == UNL ? cap : budget[i] / 100 * 96;
			want += served[i];
		}
		for (unsigned i = 0; i < 2; i++) {
			if (want > cap) /* the device divides what it has in proportion */
				served[i] = weight_mul_div(served[i], cap, want);
			assert_int_equal(iolat_group_observe_served(g[i], served[i], 1, t_now), 0);
		}
		t_advance(WEIGHT_PERIOD_NS);
		iolat_ctl_tick(ctl);
		if (p == 20) {
			sum = share(g[0]).budget_bps + share(g[1]).budget_bps;
			print_message("budgets after 20 periods: %.3f x the device\n",
				      (double)sum / (double)cap);
			assert_true(sum >= cap / 100 * 95);
			assert_int_equal(share(g[1]).budget_bps / 3 / MIB, share(g[0]).budget_bps / MIB);
		}
	}
	sum = share(g[0]).budget_bps + share(g[1]).budget_bps;
	print_message("after the device halved: %.3f x it\n", (double)sum / (double)cap);
	assert_true(sum <= cap / 100 * 105);
	iolat_ctl_destroy(ctl);
}

/*
 * Weights divided below a lone top-level group (iolatd's case when the
 * configured groups share a parent cgroup): the parent is unlimited, its
 * children are budgeted. A throttle that delivers exactly its limits, a
 * device of 400 MiB/s, and a first period in which the two writers were
 * still ramping (200 MiB/s between them). The capacity must grow from the
 * children's budgets being met as it does from the top level's: within 14
 * periods (+1, 2, 4 %, then +8 % a period: x 1.92) the budgets sum to >= 0.9 x
 * the device. (Judging only the top
 * level, the estimate saw nothing budgeted and grew by nothing: what the
 * throttle delivered over its limit, here none.)
 */
static void test_nested_budgets_grow_the_capacity(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *p = t_grp(ctl, NULL, "p", 0);
	struct iolat_group *g[2] = { t_grp(ctl, p, "a", 0), t_grp(ctl, p, "b", 0) };
	const uint64_t cap = 400 * MIB;
	uint64_t sum = 0;

	assert_int_equal(iolat_group_set_weight(g[0], 100), 0);
	assert_int_equal(iolat_group_set_weight(g[1], 300), 0);
	for (unsigned per = 0; per < 14; per++) {
		uint64_t served[2], want = 0;

		for (unsigned i = 0; i < 2; i++) {
			uint64_t b = share(g[i]).budget_bps;

			served[i] = per == 0 || b == UNL ? cap / 4 : b;
			want += served[i];
		}
		for (unsigned i = 0; i < 2; i++) {
			if (want > cap)   /* the device divides what it has in proportion */
				served[i] = weight_mul_div(served[i], cap, want);
			assert_int_equal(iolat_group_observe_served(g[i], served[i], 1, t_now), 0);
		}
		assert_int_equal(iolat_group_observe_served(p, served[0] + served[1], 2, t_now), 0);
		t_advance(WEIGHT_PERIOD_NS);
		iolat_ctl_tick(ctl);
	}
	assert_int_equal(share(p).budget_bps, UNL);
	sum = share(g[0]).budget_bps + share(g[1]).budget_bps;
	print_message("budgets after 14 periods: %.3f x the device\n", (double)sum / (double)cap);
	assert_true(sum >= cap / 10 * 9);
	assert_int_equal(share(g[1]).budget_bps / 3 / MIB, share(g[0]).budget_bps / MIB);
	iolat_ctl_destroy(ctl);
}

/*
 * A reader weighted 300 that wants about 150 MiB/s beside a writer weighted
 * 100 that wants all it can get, on a device of 400 MiB/s (the disk's case:
 * a 4 KiB reader cannot use its part in bytes). The reader donates; when its
 * rate rises by a tenth (170 MiB/s: over 0.9 x its budget of 1.25 x 150) it is
 * busy and gets its whole part back, leaves most of it unused the next
 * period, and that period must not read as a short device: after 24 periods
 * the estimate is still >= 0.9 x the device. (Counting that period's full
 * part as allowed, the estimate fell to the total each time: 0.36 x.)
 */
static void test_returning_donor_is_not_a_short_device(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *g[2] = { t_grp(ctl, NULL, "reader", 0), t_grp(ctl, NULL, "writer", 0) };
	const uint64_t cap = 400 * MIB;

	assert_int_equal(iolat_group_set_weight(g[0], 300), 0);
	assert_int_equal(iolat_group_set_weight(g[1], 100), 0);
	for (unsigned p = 0; p < 24; p++) {
		uint64_t want = (p % 3 == 2 ? 170 : 150) * MIB, served[2], budget[2];

		for (unsigned i = 0; i < 2; i++)
			budget[i] = share(g[i]).budget_bps;
		served[0] = want < budget[0] ? want : budget[0];
		served[1] = budget[1] < cap - served[0] ? budget[1] : cap - served[0];
		for (unsigned i = 0; i < 2; i++)
			assert_int_equal(iolat_group_observe_served(g[i], served[i], 1, t_now), 0);
		t_advance(WEIGHT_PERIOD_NS);
		iolat_ctl_tick(ctl);
	}
	print_message("the estimate after 24 periods: %.2f x the device\n",
		      (double)share(g[0]).capacity_bps / (double)cap);
	assert_true(share(g[0]).capacity_bps >= cap / 10 * 9);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weight_range_and_default),
		cmocka_unit_test(test_weights_off_are_inert),
		cmocka_unit_test(test_hweight_nested_over_active_siblings),
		cmocka_unit_test(test_activity_and_the_lone_group),
		cmocka_unit_test(test_donation),
		cmocka_unit_test(test_snap_back_at_the_gate),
		cmocka_unit_test(test_snap_back_from_served_reports),
		cmocka_unit_test(test_activation_and_served_snap_back_mid_period),
		cmocka_unit_test(test_late_activation_judged_since_then),
		cmocka_unit_test(test_stop_deactivates_early),
		cmocka_unit_test(test_starved_is_not_stopped),
		cmocka_unit_test(test_target_is_never_budgeted),
		cmocka_unit_test(test_loop_shares_follow_weights),
		cmocka_unit_test(test_loop_a_sibling_starts_and_stops),
		cmocka_unit_test(test_divide_edges),
		cmocka_unit_test(test_capacity_estimate),
		cmocka_unit_test(test_throttle_shortfall_is_not_a_short_device),
		cmocka_unit_test(test_nested_budgets_grow_the_capacity),
		cmocka_unit_test(test_first_estimate_from_the_rate_since_start),
		cmocka_unit_test(test_returning_donor_is_not_a_short_device),
		cmocka_unit_test(test_gate_slack_keeps_the_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
