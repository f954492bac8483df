/* SPDX-License-Identifier: MIT */
/*
 * test_knee.c - the adaptive mode's rate decision (src/core/knee.c), rule by
 * rule, on a virtual clock of 100 ms windows, and as a loop against a plant
 * with a sharp knee (the protected group misses whenever the siblings' rate
 * is above K): the first limit; the period verdict (bad, good, the dead zone
 * between, by I/Os and by windows); cuts whose step grows with bad periods
 * in a row, from what was delivered; at most one change per period; cruise
 * under the knee estimate; the probe cycle (up, then a drain); the
 * emergency cut; the actuator's word (a change not in force is not judged);
 * futility and its end; the lift; and the loop settling and following a
 * knee that moves.
 * Context: single-threaded cmocka program; pure logic, no controller.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "core/knee.h"

#define MS 1000000ull
#define S 1000000000ull
#define WIN (100 * MS)
#define MB 1000000ull

struct kt {
	struct iolat_knee k;
	uint64_t now;
	/* the actuator's word, when @applied */
	bool applied;
	uint64_t applied_mb, applied_at;
	uint64_t nr; /* the protected group's I/Os per window (0: 1000) */
};

static void kt_init(struct kt *t)
{
	memset(t, 0, sizeof(*t));
	knee_reset(&t->k);
	t->now = 10 * S;
}

/*
 * One window: the protected group's 1000 I/Os (t->nr if set), @late per mille
 * of them over its 1 ms target (the window is ok when under 100), a mean of
 * @mean_us; the siblings moved @mbps x 10^6 bytes per second of 1 MB I/Os,
 * and waited at the gate if @waited. With 1000 I/Os and a mean of 200 us or
 * more the group keeps 2 or more in flight (a queued, open-loop reader).
 * Those in time take the mean or the target, whichever is less (the most
 * they can); the late ones the rest (at least the target each).
 */
static enum knee_act win_late(struct kt *t, uint64_t late, uint64_t mbps, bool waited,
			      uint64_t mean_us)
{
	uint64_t n = t->nr ? t->nr : 1000, missed = late * n / 1000;
	uint64_t sum = n * mean_us * 1000, in_time = (n - missed) * (mean_us < 1000 ? mean_us : 1000) * 1000;
	uint64_t late_ns = sum > in_time ? sum - in_time : 0;
	struct knee_obs o = {
		.win_ns = WIN, .nr = n, .missed = missed, .sum_ns = sum,
		.late_ns = late_ns > missed * MS ? late_ns : missed * MS,
		.target_ns = 1000 * 1000,
		.bytes = mbps * MB / 10, .ios = mbps / 10, .waited = waited ? 5 : 0,
		.applied = t->applied, .applied_bps = t->applied_mb * MB,
		.applied_at = t->applied_at,
	};

	t->now += WIN;
	o.now = t->now;
	return knee_window(&t->k, &o, late < 100);
}

/* A window closed by a stall (stall.c): nothing completed, @out I/Os still
 * outstanding counted late with their wait so far, @mean_us. */
static enum knee_act win_stalled(struct kt *t, uint64_t out, uint64_t mbps, uint64_t mean_us)
{
	struct knee_obs o = {
		.win_ns = WIN, .nr = out, .missed = out, .stalled = out, .sum_ns = out * mean_us * 1000,
		.late_ns = out * mean_us * 1000,
		.target_ns = 1000 * 1000, .bytes = mbps * MB / 10, .ios = mbps / 10, .waited = 5,
	};

	t->now += WIN;
	o.now = t->now;
	return knee_window(&t->k, &o, false);
}

/* A window missed (600 of 1000 late: mostly) or not, mean 5 ms or 50 us. */
static enum knee_act win_mean(struct kt *t, bool ok, uint64_t mbps, bool waited, uint64_t mean_us)
{
	return win_late(t, ok ? 0 : 600, mbps, waited, mean_us);
}

static enum knee_act win(struct kt *t, bool ok, uint64_t mbps, bool waited)
{
	return win_mean(t, ok, mbps, waited, ok ? 50 : 5000);
}

static uint64_t lim_mb(const struct kt *t)
{
	return t->k.limit_bps / MB;
}

/* Miss, then two measured misses at @mbps, each just over the line (100 of
 * 1000 late: no late step): the first limit, 0.9 x @mbps. */
static void limit_at(struct kt *t, uint64_t mbps)
{
	assert_int_equal(win_late(t, 100, mbps, false, 5000), KNEE_WATCH);
	assert_int_equal(win_late(t, 100, mbps, false, 5000), KNEE_NONE);
	assert_int_equal(win_late(t, 100, mbps, false, 5000), KNEE_SET);
}

/* Windows @late per mille late at @mbps (0: the limit), bound, until one
 * decides; its number (0: none within @max). */
static unsigned late_until_set(struct kt *t, uint64_t late, uint64_t mbps, uint64_t mean_us,
			       unsigned max)
{
	for (unsigned i = 1; i <= max; i++)
		if (win_late(t, late, mbps ? mbps : lim_mb(t), true, mean_us) == KNEE_SET)
			return i;
	return 0;
}

/* @n good windows at the limit, bound; the number of the first that decided (0: none). */
static unsigned good_until_set(struct kt *t, unsigned n)
{
	for (unsigned i = 1; i <= n; i++)
		if (win(t, true, lim_mb(t), true) == KNEE_SET)
			return i;
	return 0;
}

static void test_lone_miss_limits_nothing(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	assert_int_equal(win(&t, true, 3000, false), KNEE_NONE);
	assert_int_equal(t.k.phase, KNEE_OFF);
	assert_int_equal(win(&t, false, 3000, false), KNEE_WATCH);
	assert_int_equal(t.k.decision, IOLAT_STEP_MEASURE);
	assert_int_equal(win(&t, true, 3000, false), KNEE_RELEASE);
	assert_int_equal(t.k.phase, KNEE_OFF);
	assert_int_equal(t.k.limit_bps, 0);
	/* Siblings doing nothing in the measured windows: nothing to limit yet. */
	assert_int_equal(win_late(&t, 100, 0, false, 5000), KNEE_WATCH);
	assert_int_equal(win_late(&t, 100, 0, false, 5000), KNEE_NONE);
	assert_int_equal(win_late(&t, 100, 0, false, 5000), KNEE_NONE);
	assert_int_equal(t.k.phase, KNEE_MEASURE);
	/* Windows they did nothing in are left out of their mean rate: 400. */
	assert_int_equal(win_late(&t, 100, 400, false, 5000), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 360 * MB);
}

static void test_first_limit(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	assert_int_equal(t.k.decision, IOLAT_STEP_LIMIT);
	assert_int_equal(t.k.base_bps, 2000 * MB);
	assert_int_equal(t.k.limit_bps, 1800 * MB); /* 0.9 x measured */
	assert_int_equal(t.k.limit_iops, 1800);     /* the I/O rate, the same factor */
}

/*
 * The first limit starts from the mean of the measuring windows, not their
 * best (one window can read far above it under a throttle's clumps).
 */
static void test_first_limit_from_the_mean(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	assert_int_equal(win_late(&t, 100, 2000, false, 5000), KNEE_WATCH);
	assert_int_equal(win_late(&t, 100, 3000, false, 5000), KNEE_NONE);
	assert_int_equal(win_late(&t, 100, 1000, false, 5000), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 1800 * MB); /* 0.9 x (3000 + 1000) / 2 */
	assert_int_equal(t.k.limit_iops, 1800);
	assert_int_equal(t.k.base_bps, 3000 * MB); /* the floor and the probe cap keep the best */
}

/*
 * Measuring windows that miss by far take the far step at once: a queued
 * group 15 % late, to 10 / 15 of the mean; 60 % late, to a quarter (the
 * most one step takes); 15 % late with a mean of 2 ms (reads fast or stuck
 * behind a write: the late ones at least 7.7 ms), to 10 / 15 too. A group
 * not queued - under 2 in flight (100 I/Os a window of 1.5 ms each), or its
 * late ones late by little (25 % late, a mean of 1.5 ms: the late ones at
 * least 3 ms, under 4 x the target) - 0.9 x, as a queued one 11 % late
 * (10 / 11) or just on the line.
 */
static void test_first_limit_takes_the_far_step(void **state)
{
	static const struct { uint64_t nr, late, mean_us, mb; } c[] = {
		{ 0, 150, 5000, 666 }, { 0, 600, 5000, 250 }, { 0, 150, 2000, 666 },
		{ 100, 250, 1500, 900 }, { 0, 250, 1500, 900 },
		{ 0, 110, 5000, 900 }, { 0, 100, 5000, 900 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct kt t;

		kt_init(&t);
		t.nr = c[i].nr;
		assert_int_equal(win_late(&t, c[i].late, 1000, false, c[i].mean_us), KNEE_WATCH);
		assert_int_equal(win_late(&t, c[i].late, 1000, false, c[i].mean_us), KNEE_NONE);
		assert_int_equal(win_late(&t, c[i].late, 1000, false, c[i].mean_us), KNEE_SET);
		print_message("first limit: %llu per mille late: %llu MB/s\n",
			      (unsigned long long)c[i].late, (unsigned long long)lim_mb(&t));
		assert_int_equal(lim_mb(&t), c[i].mb);
	}
}

/*
 * A measuring window that drowned (>= 90 % late, mean >= 4 x the target) for
 * a queued group: the first limit at once, no second measuring window, and
 * by the whole far step, not at most to a quarter: to 10 % / its share late
 * (95 % late at 2000: 210). A window that drowned for a group at depth 1
 * (not queued), or one under 90 % late, measures two windows as before.
 */
static void test_drowned_start(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	assert_int_equal(win_late(&t, 950, 2000, false, 5000), KNEE_WATCH);
	assert_int_equal(win_late(&t, 950, 2000, false, 5000), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_LIMIT);
	assert_int_equal(lim_mb(&t), 210);
	assert_int_equal(t.k.base_bps, 2000 * MB);
	/* All late: a tenth. */
	kt_init(&t);
	assert_int_equal(win_late(&t, 1000, 2000, false, 5000), KNEE_WATCH);
	assert_int_equal(win_late(&t, 1000, 2000, false, 5000), KNEE_SET);
	assert_int_equal(lim_mb(&t), 200);
	/* At depth 1 (10 reads of 5 ms a window: 0.5 in flight): measured as before. */
	kt_init(&t);
	t.nr = 10;
	assert_int_equal(win_late(&t, 1000, 2000, false, 5000), KNEE_WATCH);
	assert_int_equal(win_late(&t, 1000, 2000, false, 5000), KNEE_NONE);
	assert_int_equal(win_late(&t, 1000, 2000, false, 5000), KNEE_SET);
	assert_int_equal(lim_mb(&t), 1800); /* 0.9 x, as before */
	/* 85 % late, queued: not drowned; measured, then at most a quarter. */
	kt_init(&t);
	assert_int_equal(win_late(&t, 850, 2000, false, 5000), KNEE_WATCH);
	assert_int_equal(win_late(&t, 850, 2000, false, 5000), KNEE_NONE);
	assert_int_equal(win_late(&t, 850, 2000, false, 5000), KNEE_SET);
	assert_int_equal(lim_mb(&t), 500);
}

/*
 * Far above a knee the protected group's latency stays at its worst until the
 * rate nears the knee: a period whose every window drowned (all late, the
 * mean 20 x the target, unchanged by the cuts) is cut by the far step again
 * and again, not counted as a cut that did not help (which would end the far
 * steps and, twice, go back up to the best level seen).
 */
static void test_drowned_periods_keep_the_far_step(void **state)
{
	struct kt t;
	uint64_t lim[64];
	unsigned n = 0;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000); /* 1800; its floor: 2000 / 64 = 31 */
	for (int i = 0; i < 25 && lim_mb(&t) > 2000 / KNEE_FLOOR_DIV; i++) {
		if (win_late(&t, 1000, lim_mb(&t), true, 20000) == KNEE_SET && n < 64)
			lim[n++] = lim_mb(&t);
		assert_int_equal(t.k.phase, KNEE_LIMIT); /* never futile on the way down */
	}
	for (unsigned i = 0; i < n; i++)
		print_message("drowned: cut %u to %llu\n", i, (unsigned long long)lim[i]);
	assert_true(n >= 3);
	for (unsigned i = 1; i < n; i++) /* each a far step: queued, all late: to a quarter */
		assert_true(lim[i] * 1000 <= lim[i - 1] * 260 || lim[i] == 2000 / KNEE_FLOOR_DIV);
	/* The same periods with a mean of 2 x the target are not drowned: the
	 * second cut that does not help ends the far steps. */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 40 && t.k.phase == KNEE_LIMIT; i++)
		win_late(&t, 1000, lim_mb(&t), true, 2000);
	assert_int_equal(t.k.phase, KNEE_FUTILE);
}

/* A probe goes no further than 1.1 x the most the siblings delivered. */
static void test_probe_stays_near_what_was_delivered(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 1000); /* 900 */
	t.k.up_streak = KNEE_UP_LEVELS - 1; /* the largest gain: +25 % */
	t.k.cruise_periods = KNEE_CRUISE_PERIODS - 1;
	assert_int_equal(good_until_set(&t, 8), 7);
	assert_int_equal(t.k.cycle, KNEE_UP);
	assert_int_equal(t.k.limit_bps, 1100 * MB); /* not 900 x 1.25 = 1125 */
}

/* Good, the dead zone, bad: by the share of late I/Os, and of late windows. */
static void test_period_verdict(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	/* 2 windows settle, then the first limit's short period (0.5 s): 2 %
	 * late is good (the knee estimate learns what was delivered), and
	 * nothing before its end. (The budget, 7.5 % of ~10 periods, holds
	 * here and below: 1.5 % late over the measuring windows and these.) */
	for (int i = 0; i < 6; i++)
		assert_int_equal(win_late(&t, 20, 1800, true, 50), KNEE_NONE);
	assert_int_equal(knee_good_rate(&t.k, t.now), 0);
	assert_int_equal(win_late(&t, 20, 1800, true, 50), KNEE_NONE);
	assert_int_equal(knee_good_rate(&t.k, t.now), 1800 * MB);
	assert_int_equal(t.k.cruise_periods, 1);
	/* 8.5 % late (every window ok by the p90 rule): the dead zone. */
	for (int i = 0; i < 10; i++)
		assert_int_equal(win_late(&t, 85, 1800, true, 50), KNEE_NONE);
	assert_int_equal(t.k.cruise_periods, 1);
	assert_int_equal(t.k.bad_streak, 0);
	/* A good period; then one window of ten missed with the group's usual
	 * count of I/Os (2 % of the period's late): judged by its I/Os, good. */
	for (int i = 0; i < 10; i++)
		assert_int_equal(win_late(&t, 0, 1800, true, 50), KNEE_NONE);
	assert_int_equal(t.k.cruise_periods, 2);
	assert_int_equal(win_late(&t, 200, 1800, true, 50), KNEE_NONE);
	for (int i = 0; i < 9; i++)
		assert_int_equal(win_late(&t, 0, 1800, true, 50), KNEE_NONE);
	assert_int_equal(t.k.cruise_periods, 3);
	/* One window of ten late and starved (60 I/Os of the usual 1000, a
	 * stall held the group: 25 late, 0.3 % of the period's I/Os): one late
	 * window in ten, the dead zone. */
	for (int i = 0; i < 10; i++) {
		struct knee_obs o = { .win_ns = WIN, .nr = i ? 1000 : 60, .missed = i ? 0 : 25,
				      .sum_ns = (i ? 1000 : 60) * 50 * 1000, .target_ns = MS,
				      .bytes = 180 * MB, .ios = 180, .waited = 5 };

		t.now += WIN;
		o.now = t.now;
		assert_int_equal(knee_window(&t.k, &o, i != 0), KNEE_NONE);
	}
	assert_int_equal(t.k.cruise_periods, 3);
	assert_int_equal(t.k.dead_streak, 1);
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	/* A second dead-zone period in a row, the limit used: the smallest cut. */
	for (int i = 0; i < 9; i++)
		assert_int_equal(win_late(&t, 85, 1800, true, 50), KNEE_NONE);
	assert_int_equal(win_late(&t, 85, 1800, true, 50), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 1728 * MB);
	/* Then (after 2 settling windows) a good period. */
	for (int i = 0; i < 12; i++)
		assert_int_equal(win_late(&t, 0, 1728, true, 50), KNEE_NONE);
	assert_int_equal(t.k.limit_bps, 1728 * MB);
	/* 15 % late: bad, and certain after 7 windows (1 050 late, over 10 %
	 * of the 10 000 I/Os the period will have at this rate). */
	for (int i = 0; i < 6; i++)
		assert_int_equal(win_late(&t, 150, 1728, true, 50), KNEE_NONE);
	assert_int_equal(win_late(&t, 150, 1728, true, 50), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.limit_bps, 1658880 * 1000); /* 0.96 x 1728 */
	/* Two stalled windows of ten (a reader at depth 1: few I/Os, all late)
	 * with 1 % of the period's I/Os: bad by its windows. */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 12; i++) /* the first limit's period, half of the next */
		assert_int_equal(win_late(&t, 0, 1800, true, 50), KNEE_NONE);
	for (int i = 0; i < 2; i++) {
		struct knee_obs o = { .win_ns = WIN, .nr = 60, .missed = 25, .sum_ns = 60 * 5 * MS,
				      .bytes = 180 * MB, .ios = 180, .waited = 5 };

		t.now += WIN;
		o.now = t.now;
		assert_int_equal(knee_window(&t.k, &o, false), i ? KNEE_SET : KNEE_NONE);
	}
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.emergencies, 0); /* 25 of 60 late: not mostly */
}

/* Bad periods in a row: 4, 8, 15, 25 %, each a period after the last (2
 * windows settle, then 10: a period 11 % late by its I/Os, its late windows
 * with the group's usual count, is not certain before its end; the first
 * limit's period is 5), from what was delivered; at least the far step
 * (11 % late, queued with a mean of 5 ms: to 10 / 11, 9.1 %; with its late
 * ones late by little - a mean of 1.3 ms: they are at least 3.7 ms, under
 * 4 x the target - or with a mean of 50 us (under 2 in flight): twice the
 * share late beyond the good line, 7 %). */
static void test_cut_steps_grow(void **state)
{
	static const uint64_t pm[] = { 909, 920, 850, 750, 750 };
	struct kt t;
	uint64_t lim, mean = 5000;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	for (unsigned c = 0; c < sizeof(pm) / sizeof(pm[0]); c++) {
		lim = t.k.limit_bps;
		assert_int_equal(late_until_set(&t, 110, lim / MB, mean, 20), c ? 12 : 7);
		assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
		assert_int_equal(t.k.limit_bps, lim / MB * MB / 1000 * pm[c]);
		mean = c ? mean * 3 / 4 : 1300; /* each cut helped: no futility */
	}
	/* A good period resets the step. */
	for (int i = 0; i < 12; i++)
		win_late(&t, 0, lim_mb(&t), true, 50);
	assert_int_equal(t.k.bad_streak, 0);
	lim = t.k.limit_bps;
	assert_true(late_until_set(&t, 110, 500, 50, 20));
	/* Delivered 500 over the period (under the limit): the base is what was
	 * delivered, not the limit, and not under half the limit. */
	assert_int_equal(t.k.limit_bps, (lim / 2 > 500 * MB ? lim / 2 : 500 * MB) / 1000 * 930);
}

/* A period that misses by far is cut by far at once: at least twice the
 * share of its I/Os late beyond 7.5 % once over 10 %, up to 45 % (20 % late:
 * 25 %), from what was delivered; one that misses by a little keeps the
 * streak's small step. */
static void test_far_miss_cuts_far(void **state)
{
	struct kt t;

	(void)state;
	assert_int_equal(knee_late_step_pm(100, 1000, 0, 0, 0, 0), 0); /* not bad */
	assert_int_equal(knee_late_step_pm(110, 1000, 0, 0, 0, 0), 70);
	assert_int_equal(knee_late_step_pm(150, 1000, 0, 0, 0, 0), 150);
	assert_int_equal(knee_late_step_pm(200, 1000, 0, 0, 0, 0), 250);
	assert_int_equal(knee_late_step_pm(300, 1000, 0, 0, 0, 0), 450);
	assert_int_equal(knee_late_step_pm(325, 1000, 0, 0, 0, 0), 450);
	assert_int_equal(knee_late_step_pm(850, 1000, 0, 0, 0, 0), 450);
	assert_int_equal(knee_late_step_pm(1000, 1000, 0, 0, 0, 0), 450);
	assert_int_equal(knee_late_step_pm(5, 0, 0, 0, 0, 0), 0);
	/* Queued: 2 or more in flight on average (latencies summing to 2 x the
	 * time) with the late ones at 4 x the 1 ms target or more on average:
	 * to 10 % / the share late, at most to a quarter. */
	assert_int_equal(knee_late_step_pm(100, 1000, 100 * 5 * MS, 5 * S, 100 * MS, MS), 0);
	assert_int_equal(knee_late_step_pm(110, 1000, 110 * 5 * MS, 5 * S, 100 * MS, MS), 91);
	assert_int_equal(knee_late_step_pm(150, 1000, 150 * 5 * MS, 5 * S, 100 * MS, MS), 334);
	assert_int_equal(knee_late_step_pm(200, 1000, 200 * 5 * MS, 5 * S, 100 * MS, MS), 500);
	assert_int_equal(knee_late_step_pm(850, 1000, 850 * 5 * MS, 5 * S, 100 * MS, MS), 750);
	assert_int_equal(knee_late_step_pm(15, 100, 15 * 5 * MS, 500 * MS, 100 * MS, MS), 334);
	assert_int_equal(knee_late_step_pm(15, 100, 15 * 5 * MS, 199 * MS, 100 * MS, MS), 150); /* 1.99 in flight */
	assert_int_equal(knee_late_step_pm(150, 1000, 150 * 4 * MS - 1, 1449 * MS, 100 * MS, MS), 150); /* 4 ms - */
	assert_int_equal(knee_late_step_pm(150, 1000, 150 * 4 * MS, 1450 * MS, 100 * MS, MS), 334); /* 4 ms */
	assert_int_equal(knee_late_step_pm(150, 1000, 150 * 5 * MS, 5 * S, 100 * MS, 0), 150); /* no target */
	/* Measured at 1 ms: 12 % late at 6.4 ms, the rest at 0.1 ms. Queued by
	 * the late ones' own mean; a bound from the whole mean that took each
	 * I/O in time at the target (1 x 880 + 4 x 120 = 1.36 s > 0.856) was not. */
	assert_int_equal(knee_late_step_pm(120, 1000, 120 * 6400 * 1000ull, 856 * MS, 100 * MS, MS), 167);
	kt_init(&t);
	limit_at(&t, 2000);
	/* 2 settling windows, then a window 85 % late while the limit binds:
	 * an emergency, its own small step (futility does not judge it). */
	for (int i = 0; i < 2; i++)
		win_late(&t, 0, 1800, true, 50);
	assert_int_equal(win_late(&t, 850, 1800, true, 5000), KNEE_SET);
	assert_int_equal(t.k.emergencies, 1);
	assert_int_equal(t.k.limit_bps, 1620 * MB);
	/* The next bad period (a streak of 2: 8 %) takes the far step, to a
	 * quarter, from the 1000 delivered, not the 1620 in force. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(win_late(&t, 850, 1000, true, 5000), KNEE_NONE);
	assert_int_equal(win_late(&t, 850, 1000, true, 4000), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.limit_bps, 250 * MB);
	/* The same with 10 I/Os a window (under 2 in flight: a reader at depth
	 * 1): 45 %. */
	kt_init(&t);
	t.nr = 10;
	limit_at(&t, 2000);
	for (int i = 0; i < 2; i++)
		win_late(&t, 0, 1800, true, 50);
	assert_int_equal(win_late(&t, 850, 1800, true, 5000), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 1620 * MB);
	for (int i = 0; i < 4; i++)
		assert_int_equal(win_late(&t, 850, 1000, true, 4000), KNEE_NONE);
	assert_int_equal(win_late(&t, 850, 1000, true, 3000), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 550 * MB);
}

/*
 * Drowning: a judged window 90 % late or more while the limit binds is cut
 * by far at once, again at the next judged window as long as each cut
 * lowered the mean by 10 %; a cut that did not help leaves it to the period.
 */
static void test_drowning_cuts_at_once(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	/* 2 settling windows, then all late, mean 20 ms: the far step at once
	 * (queued: to a quarter), from the 1800 delivered. */
	for (int i = 0; i < 2; i++)
		assert_int_equal(win_late(&t, 1000, 1800, true, 20000), KNEE_NONE);
	assert_int_equal(win_late(&t, 1000, 1800, true, 20000), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.limit_bps, 450 * MB);
	assert_int_equal(t.k.emergencies, 0);
	/* Settling, then 95 % late at a mean of 10 ms (helped): a quarter
	 * again, from the 450 in force (the delivered rate since the change). */
	for (int i = 0; i < 2; i++)
		assert_int_equal(win_late(&t, 950, 450, true, 10000), KNEE_NONE);
	assert_int_equal(win_late(&t, 950, 450, true, 10000), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 112500 * 1000);
	/* Still drowning but the mean did not fall by 10 % (9.5 ms): no cut
	 * at once; the period (closed early: 3 late windows) cuts. */
	for (int i = 0; i < 2; i++)
		win_late(&t, 950, 112, true, 9500);
	for (int i = 0; i < 2; i++)
		assert_int_equal(win_late(&t, 950, 112, true, 9500), KNEE_NONE);
	assert_int_equal(win_late(&t, 950, 112, true, 9500), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.lv[1].cut, true); /* the period's cut: futility looks */
	/* 89 % late is not drowning (the emergency's, once a period). */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 2; i++)
		win_late(&t, 0, 1800, true, 50);
	assert_int_equal(win_late(&t, 890, 1800, true, 20000), KNEE_SET);
	assert_int_equal(t.k.emergencies, 1);
	assert_int_equal(t.k.limit_bps, 1620 * MB);
	/* All late but a mean under 4 x the 1 ms target (3 ms): a target
	 * missed by little (or out of reach) is not drowning either. */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 2; i++)
		win_late(&t, 0, 1800, true, 50);
	assert_int_equal(win_late(&t, 1000, 1800, true, 3000), KNEE_SET);
	assert_int_equal(t.k.emergencies, 1);
	/* A window a stall closed (2 reads outstanding for 20 ms, nothing
	 * completed: a stall, or a count that outlived its I/O) is not drowning
	 * either: the emergency's small cut, not 45 %. */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 2; i++)
		win_late(&t, 0, 1800, true, 50);
	assert_int_equal(win_stalled(&t, 2, 1800, 20000), KNEE_SET);
	assert_int_equal(t.k.emergencies, 1);
	assert_int_equal(t.k.limit_bps, 1620 * MB);
	assert_int_equal(t.k.limit_bps, 1620 * MB);
	/* Not while the limit does not bind (the siblings are not the cause). */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 2; i++)
		win_late(&t, 0, 500, false, 50);
	assert_int_equal(win_late(&t, 1000, 500, false, 20000), KNEE_NONE);
	assert_int_equal(t.k.limit_bps, 1800 * MB);
}

/*
 * Memory: an episode that ends (the protected group went quiet) leaves its
 * cruise rate; a new episode within 30 s starts there instead of 0.9 x the
 * rate measured unthrottled, the I/O rate keeping today's ratio; later, or
 * above 0.9 x what was measured, as before.
 */
static void test_memory_of_the_knee(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	assert_int_equal(good_until_set(&t, 100), 37); /* a probe: 1836, the estimate 1800 */
	knee_reset(&t.k);                                /* quiet: the episode ends */
	assert_int_equal(t.k.phase, KNEE_OFF);
	assert_int_equal(t.k.limit_bps, 0);
	assert_int_equal(t.k.mem.bps, 1800 * MB / 1000 * 980);
	/* Back 5 s later, the siblings now at 3000: the first limit is the memory. */
	t.now += 5 * S;
	limit_at(&t, 3000);
	assert_int_equal(t.k.decision, IOLAT_STEP_LIMIT);
	assert_int_equal(t.k.base_bps, 3000 * MB);
	assert_int_equal(t.k.limit_bps, 1764 * MB);
	assert_int_equal(t.k.limit_iops, 1764); /* 2700 x 1764 / 2700: 1 MB I/Os */
	/* An episode without a good period leaves the limit in force. */
	assert_int_equal(win(&t, false, 1764, true), KNEE_NONE); /* settling */
	knee_reset(&t.k);
	assert_int_equal(t.k.mem.bps, 1764 * MB);
	/* Back after 30 s: forgotten, 0.9 x the measured rate. */
	t.now += 30 * S;
	limit_at(&t, 3000);
	assert_int_equal(t.k.limit_bps, 2700 * MB);
	/* A memory above 0.9 x what is measured now is not used. */
	knee_reset(&t.k);
	t.now += S;
	limit_at(&t, 1000);
	assert_int_equal(t.k.limit_bps, 900 * MB);
}

/*
 * Memory recalled at once: within 30 s of a limited episode's end, a window
 * with more than half its I/Os late (a reader back from idle behind siblings
 * at full speed) takes the episode's cruise rate at once, with its base,
 * instead of measuring the siblings unthrottled for two more windows. A
 * lesser miss measures as before; an older memory is forgotten.
 */
static void test_memory_recalled_at_once(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	assert_int_equal(good_until_set(&t, 100), 37); /* a probe: the estimate 1800 */
	knee_reset(&t.k);
	assert_int_equal(t.k.mem.bps, 1764 * MB);
	assert_int_equal(t.k.mem.iops, 1764);
	t.now += 3 * S;
	assert_int_equal(win(&t, false, 0, false), KNEE_SET); /* 600 of 1000 late */
	assert_int_equal(t.k.phase, KNEE_LIMIT);
	assert_int_equal(t.k.decision, IOLAT_STEP_LIMIT);
	assert_int_equal(t.k.limit_bps, 1764 * MB);
	assert_int_equal(t.k.limit_iops, 1764);
	assert_int_equal(t.k.base_bps, 2000 * MB); /* the floor and the probe's cap kept */
	/* It is judged as a first limit: settling, then a short period. */
	assert_int_equal(win(&t, true, 1764, true), KNEE_NONE);
	assert_int_equal(t.k.limit_bps, 1764 * MB);
	/* Half late or less: measured first, as before (then the memory, lower). */
	knee_reset(&t.k);
	t.now += S;
	assert_int_equal(win_late(&t, 500, 3000, false, 5000), KNEE_WATCH);
	assert_int_equal(t.k.phase, KNEE_MEASURE);
	/* 30 s after the episode's end: forgotten, measured. */
	knee_reset(&t.k);
	t.now += 30 * S;
	assert_int_equal(win(&t, false, 3000, false), KNEE_WATCH);
	assert_int_equal(t.k.limit_bps, 0);
}

/*
 * The budget goes on across episodes while the memory is kept: a reader
 * back from idle (its window 60 % late, the memory recalled) finds the
 * budget its last busy spell left, plus that window; 30 s after the last
 * episode's end it starts over with the I/Os that made the limit.
 */
static void test_budget_kept_with_memory(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000); /* 200 of 2000 late */
	assert_int_equal(good_until_set(&t, 100), 37); /* 2 + 5 + 3 x 10 windows, none late */
	knee_reset(&t.k);
	/* I/Os 2000 -> 6800 -> 16120 -> 24508 -> 32058; late 200 -> 180 -> 162 -> 146 -> 132 */
	assert_int_equal(t.k.budget_nr, 32058);
	assert_int_equal(t.k.budget_late, 132);
	t.now += 3 * S;
	assert_int_equal(win(&t, false, 0, false), KNEE_SET); /* recalled: 600 of 1000 late */
	assert_int_equal(t.k.budget_nr, 32058 - 3205 + 1000);
	assert_int_equal(t.k.budget_late, 132 - 13 + 600);
	knee_reset(&t.k);
	t.now += 30 * S;
	limit_at(&t, 2000);
	assert_int_equal(t.k.budget_nr, 2000);
	assert_int_equal(t.k.budget_late, 200);
}

/* Cruise under the estimate, the probe cycle: up a little, held, up again;
 * not held: a drain, then cruise at 0.98 x the estimate, probes under the
 * rate that failed. */
static void test_cruise_and_probe_cycle(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	/* 2 settling windows, the first limit's short period and 3 good
	 * periods at cruise, bound: then a probe, +2 %. */
	assert_int_equal(good_until_set(&t, 100), 37);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
	assert_int_equal(t.k.limit_bps, 1836 * MB);
	/* A short period (5 windows) good: held, the next at once, +4 %. */
	assert_int_equal(good_until_set(&t, 100), 5);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
	assert_int_equal(knee_good_rate(&t.k, t.now), 1836 * MB);
	assert_int_equal(t.k.limit_bps, 1909440 * 1000);
	/* A late window: the probe ends at once, a drain at 0.92 x the estimate. */
	assert_int_equal(win(&t, false, 1909, true), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE_FAIL);
	assert_int_equal(t.k.limit_bps, 1689120 * 1000);
	assert_int_equal(t.k.probe_fails, 1);
	/* The drain: 2 settling windows and a short period; then cruise at
	 * 0.98 x the estimate. */
	assert_int_equal(good_until_set(&t, 100), 7);
	assert_int_equal(t.k.limit_bps, 1836 * MB / 1000 * 980);
	assert_int_equal(t.k.cycle, KNEE_CRUISE);
	/* The next probe: +2 % of the estimate, under 0.99 x the rate that failed. */
	assert_int_equal(good_until_set(&t, 100), 42);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
	assert_int_equal(t.k.limit_bps, 1836 * MB / 1000 * 1020);
	assert_true(t.k.limit_bps < 1909440 * 1000 / 1000 * 990);
	/* Unused limits are not probed. */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 35; i++)
		assert_int_equal(win(&t, true, 900, false), KNEE_NONE);
	assert_int_equal(t.k.probes, 0);
}

/*
 * A far cut that overshot (a cliff, not a slope): the first limit cut a
 * queued group 60 % late from 2000 to a quarter; its first period there is
 * good with nothing late, where a share late in proportion to the rate
 * would have been 15 %: a probe at once, half way back to 0.99 x 2000 (or the
 * probe's own gain when larger); held, the next; one that fails ends the
 * search (a drain). A good period 7 % late after a cut to 0.4 x from 25 %
 * late (10 % in proportion: not under half of it) is a slope: cruise; so
 * is a good period after a cut from a period only 15 % late.
 */
static void test_overshoot_bisects(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	for (int i = 0; i < 3; i++)
		win_late(&t, 600, 2000, false, 5000);
	assert_int_equal(lim_mb(&t), 500);
	/* 2 settling windows, then the first limit's short period (5). */
	assert_int_equal(good_until_set(&t, 100), 7);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
	assert_int_equal(lim_mb(&t), 1240); /* 500 + (1980 - 500) / 2 */
	assert_int_equal(good_until_set(&t, 100), 5);
	assert_int_equal(lim_mb(&t), 1610);
	assert_int_equal(good_until_set(&t, 100), 5);
	assert_int_equal(lim_mb(&t), 1795);
	assert_int_equal(good_until_set(&t, 100), 5);
	assert_int_equal(lim_mb(&t), 1980); /* +16 % (the fourth held), not above 0.99 x 2000 */
	assert_int_equal(win(&t, false, 1980, true), KNEE_SET); /* over the cliff */
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE_FAIL);
	assert_false(t.k.bisect);
	/* A slope: 7 % late at half the rate of 25 % late. */
	kt_init(&t);
	for (int i = 0; i < 3; i++)
		win_late(&t, 250, 2000, false, 5000);
	assert_int_equal(lim_mb(&t), 800);
	for (int i = 0; i < 7; i++)
		assert_int_equal(win_late(&t, 70, 800, true, 300), KNEE_NONE);
	assert_int_equal(t.k.probes, 0);
	/* A cut from a period 15 % late that lands on a good period: cruise. */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 7; i++)
		win_late(&t, 0, 1800, true, 50);
	for (int i = 0; i < 10 && t.k.decision != IOLAT_STEP_BACKOFF; i++)
		win_late(&t, 150, 1800, true, 5000);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(good_until_set(&t, 7), 0);
	assert_int_equal(t.k.probes, 0);
}

/* A window mostly late while the limit binds: a cut at once, from the rate
 * delivered over the last period; not again within a period of a cut. */
static void test_emergency_cut(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 14; i++)
		win(&t, true, 1800, true);
	assert_int_equal(win(&t, false, 1800, true), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.limit_bps, 1620 * MB); /* 0.9 x 1800 */
	assert_int_equal(t.k.emergencies, 1);
	/* Mostly late again just after: judged in the period, no second cut. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(win(&t, false, 1620, true), KNEE_NONE);
	assert_int_equal(t.k.emergencies, 1);
	/* The base: the rate delivered over the last second of windows, or
	 * since the last change (or period) when lower: a knee that dropped. */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 12; i++)
		win(&t, true, 1800, true);     /* the first period closes at the 7th */
	win(&t, true, 1000, true);
	win(&t, true, 1000, true);
	assert_int_equal(win(&t, false, 1000, true), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 1350 * MB); /* 0.9 x 1500 (the last second: 1560) */
	/* Not while the limit does not bind (the siblings are not the cause). */
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 14; i++)
		win(&t, true, 500, false);
	assert_int_equal(win(&t, false, 500, false), KNEE_NONE);
	assert_int_equal(t.k.emergencies, 0);
}

/* The actuator's word: a probe never put in force is not judged held, and is
 * given up after 3 s; one put in force late is judged from then on. */
static void test_change_not_in_force(void **state)
{
	struct kt t;
	uint64_t probe_at;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	t.applied = true;
	t.applied_mb = 1800;
	t.applied_at = t.now;
	assert_int_equal(good_until_set(&t, 100), 37);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
	probe_at = t.now;
	/* The caller keeps 1800 in force (said after the change): not judged. */
	for (int i = 0; i < 29; i++) {
		t.applied_at = t.now + WIN;
		assert_int_equal(win(&t, true, 1800, true), KNEE_NONE);
	}
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
	assert_int_equal(knee_good_rate(&t.k, t.now), 1800 * MB);
	t.applied_at = t.now + WIN;
	win(&t, true, 1800, true); /* 3 s: given up for what is in force */
	assert_true(t.now - probe_at >= KNEE_APPLY_WAIT_NS);
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	assert_int_equal(t.k.cycle, KNEE_CRUISE);
	assert_int_equal(knee_good_rate(&t.k, t.now), 1800 * MB);
	/* The next probe, put in force 3 windows late: judged over 5 windows from then. */
	assert_int_equal(good_until_set(&t, 100), 42);
	for (int i = 0; i < 3; i++) {
		t.applied_at = t.now + WIN;
		assert_int_equal(win(&t, true, 1800, true), KNEE_NONE);
	}
	t.applied_mb = 1836;
	t.applied_at = t.now + 1;
	for (int i = 0; i < 4; i++)
		assert_int_equal(win(&t, true, 1836, true), KNEE_NONE);
	assert_int_equal(win(&t, true, 1836, true), KNEE_SET); /* held: the next */
	assert_int_equal(knee_good_rate(&t.k, t.now), 1836 * MB);
}

static void test_futility(void **state)
{
	struct kt t;
	uint64_t lim;

	(void)state;
	kt_init(&t);
	t.nr = 100; /* under 2 in flight: the share late's step is twice its excess */
	/* The target is below what the group gets alone: every window misses
	 * (15 % late); unthrottled the mean is 5 ms, limited 300 us whatever
	 * the limit. */
	limit_at(&t, 2000);
	assert_true(late_until_set(&t, 150, 1800, 300, 20));
	assert_int_equal(t.k.limit_bps, 1530 * MB);  /* 15 %; no level left by a cut yet */
	assert_int_equal(t.k.futile_steps, 0);
	assert_true(late_until_set(&t, 150, 1530, 300, 20));
	assert_int_equal(t.k.futile_steps, 1);       /* 1800 -> 1530 did not help */
	assert_int_equal(t.k.futile_from_bps, 1800 * MB);
	/* Cuts go on while the limit is above half of 1800: not yet futile. */
	while (t.k.limit_bps * 2 > 1800 * MB) {
		assert_true(late_until_set(&t, 150, 0, 290, 20));
		if (t.k.decision == IOLAT_STEP_FUTILE)
			break;
		assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
		assert_false(knee_unattainable(&t.k));
	}
	assert_true(t.k.limit_bps * 2 <= 1800 * MB); /* a cut took it to half */
	assert_true(late_until_set(&t, 150, 0, 290, 20));
	assert_int_equal(t.k.decision, IOLAT_STEP_FUTILE);
	assert_true(knee_unattainable(&t.k));
	/* Back to the highest level as good as the best (within 10 %): 1800. */
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	assert_int_equal(t.k.best_mean_ns, 290 * 1000);
	/* Now judged against 1.5 x the best mean: 400 us is fine, and as
	 * lowering did not help, a probe follows the first good period... */
	for (int i = 0; i < 11; i++)
		assert_int_equal(win_late(&t, 150, 1800, true, 400), KNEE_NONE);
	assert_int_equal(win_late(&t, 150, 1800, true, 400), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
	/* ... 500 us (> 435) is bad: the probe ends, then the drain's period
	 * is bad too: a cut, the streak's small one even with every I/O over
	 * the target (out of reach: the share late says nothing here). */
	assert_int_equal(win_late(&t, 150, lim_mb(&t), true, 500), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE_FAIL);
	for (int i = 0; i < 4; i++)
		assert_int_equal(win_late(&t, 1000, lim_mb(&t), true, 500), KNEE_NONE);
	lim = t.k.limit_bps;
	assert_int_equal(win_late(&t, 1000, lim_mb(&t), true, 500), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.limit_bps, lim / MB * MB / 1000 * 960);
	/* A period within the target: attainable again. */
	for (int i = 0; i < 12; i++)
		win_late(&t, 0, lim_mb(&t), true, 50);
	assert_false(knee_unattainable(&t.k));
}

/* A plateau: the mean holds over two cuts (reads fast or stuck behind a
 * write in about the same share), then falls under the knee: never futile,
 * and the chase ends where the target is met. */
static void test_plateau_is_not_futile(void **state)
{
	struct kt t;
	unsigned cuts = 0;

	(void)state;
	kt_init(&t);
	t.nr = 100;
	limit_at(&t, 2000);
	while (t.k.limit_bps > 1000 * MB && cuts < 20) {
		assert_true(late_until_set(&t, 150, 0, 2000, 20));
		assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
		cuts++;
	}
	assert_true(cuts >= 3); /* 2 that did not help, and more */
	assert_true(t.k.futile_steps >= KNEE_FUTILE_STEPS);
	assert_false(knee_unattainable(&t.k));
	/* Under the knee the mean falls: a cut helped, the count starts over. */
	assert_true(late_until_set(&t, 150, 0, 900, 20));
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.futile_steps, 0);
	for (int i = 0; i < 30; i++)
		assert_int_not_equal(win_late(&t, 20, lim_mb(&t), true, 200) == KNEE_SET &&
					     t.k.decision == IOLAT_STEP_BACKOFF, true);
	assert_false(knee_unattainable(&t.k));
}

/*
 * The budget (a p90 target allows 10 % late over a run, not per period):
 * the share late of ~10 periods, each weighing 1/10 less a period on. The
 * measuring windows (10 % late) and the first limit's period in the dead
 * zone (8.5 %) leave it over the good line: the dead zone takes the smallest
 * cut at once, not after a second such period. Then periods 7 % late (good)
 * do not count toward a probe while the budget is over the line; once the
 * older periods have faded under it, they do, and the probe follows.
 */
static void test_budget(void **state)
{
	struct kt t;
	unsigned windows = 0, closed = 0, burned = 0;
	uint32_t was = 0;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000); /* two measuring windows, 10 % late */
	assert_int_equal(t.k.budget_nr, 2000);
	assert_int_equal(t.k.budget_late, 200);
	assert_int_equal(late_until_set(&t, 85, 1800, 50, 20), 7);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.limit_bps, 1728 * MB);
	assert_int_equal(t.k.budget_nr, 1800 + 5000);
	assert_int_equal(t.k.budget_late, 180 + 425); /* 8.9 % */
	for (; windows < 300; windows++) {
		if (win_late(&t, 70, lim_mb(&t), true, 50) == KNEE_SET)
			break;
		if (t.k.per.windows || !was) {
			was = t.k.per.windows;
			continue;
		}
		was = 0; /* a period closed */
		closed++;
		if (t.k.budget_late * 1000 > t.k.budget_nr * KNEE_GOOD_PM) {
			burned++;
			assert_int_equal(t.k.cruise_periods, 0);
		}
	}
	print_message("budget: %u of %u periods over the line, then a probe\n", burned, closed);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
	assert_true(burned >= 1);
	assert_int_equal(closed, burned + KNEE_CRUISE_PERIODS - 1);
}

/*
 * The edge while the budget is spent: periods 8.5 % late (the dead zone)
 * one after another, the budget over the good line: each takes a cut at
 * once, and the steps grow as bad periods' do (4, 8, 15, 25 %): a limit far
 * above a knee the group only grazes (a reader whose distribution is two
 * humps, fast or stuck behind a write) comes down in a few periods, not
 * 4 % a second.
 */
static void test_edge_steps_grow_while_spent(void **state)
{
	static const uint64_t pm[] = { 960, 920, 850, 750, 750 };
	struct kt t;
	uint64_t lim;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000); /* two measuring windows, 10 % late: spent */
	for (unsigned c = 0; c < sizeof(pm) / sizeof(pm[0]); c++) {
		lim = t.k.limit_bps;
		assert_true(late_until_set(&t, 85, lim / MB, 50, 20));
		assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
		assert_true(t.k.budget_late * 1000 > t.k.budget_nr * KNEE_GOOD_PM);
		assert_int_equal(t.k.limit_bps, lim / MB * MB / 1000 * pm[c]);
	}
	/* A good period ends the streak: the next edge takes the smallest cut. */
	for (int i = 0; i < 12; i++)
		win_late(&t, 0, lim_mb(&t), true, 50);
	assert_int_equal(t.k.bad_streak, 0);
}

/* Unattainable, then another tenant makes it worse: lowering does not help
 * again, so the limit goes back up to the best level, and the worse mean
 * becomes the reference instead of a slide to the floor. */
static void test_futile_again_goes_back_up(void **state)
{
	struct kt t;
	unsigned cuts = 0;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	for (int i = 0; i < 60 && !knee_unattainable(&t.k); i++)
		win_late(&t, 150, lim_mb(&t), true, 300);
	assert_true(knee_unattainable(&t.k));
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	for (int i = 0; i < 100; i++) {
		if (win_late(&t, 150, lim_mb(&t), true, 2000) != KNEE_SET)
			continue;
		if (t.k.decision != IOLAT_STEP_BACKOFF)
			break;
		cuts++;
	}
	assert_int_equal(t.k.decision, IOLAT_STEP_FUTILE);
	assert_int_equal(cuts, 2);
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	assert_int_equal(t.k.best_mean_ns, 2000 * 1000);
}

static void test_floor_is_futile(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 64);
	win_late(&t, 150, 1, true, 300);
	t.k.limit_bps = t.k.force_bps = 1 * MB; /* at the floor: base / 64 */
	for (int i = 0; i < 5; i++)
		win_late(&t, 150, 1, true, 300);
	assert_true(knee_unattainable(&t.k));
	assert_true(t.k.limit_bps >= 1 * MB);
}

static void test_lift(void **state)
{
	struct kt t;
	uint64_t last_use, lifted = 0;

	(void)state;
	kt_init(&t);
	limit_at(&t, 1000);
	/* Siblings that keep using a limit while the protected group is fine
	 * are not released: the limit is probed upward, past what they did
	 * unthrottled (a base measured low in a noisy window grows with it). */
	for (int i = 0; i < 200; i++)
		win(&t, true, lim_mb(&t), true);
	assert_int_equal(t.k.phase, KNEE_LIMIT);
	assert_true(t.k.limit_bps > 2000 * MB);
	assert_true(t.k.base_bps > 1000 * MB);
	/* A limit the siblings do not use for 4 s is lifted (not before). */
	last_use = t.now;
	for (int i = 0; i < 80 && !lifted; i++)
		if (win(&t, true, 100, false) == KNEE_RELEASE)
			lifted = t.now;
	assert_true(lifted >= last_use + 4 * S && lifted <= last_use + 6 * S);
	assert_int_equal(t.k.decision, IOLAT_STEP_LIFT);
	assert_int_equal(t.k.limit_bps, 0);
	assert_int_equal(t.k.phase, KNEE_OFF);
}

/*
 * The loop against a plant: the siblings want @demand MB/s and may have
 * min(demand, limit); the device delivers at most 1.1 x the knee K(t) (the
 * knee sits just under its bandwidth); the protected group misses when the
 * siblings are given more than K. Returns the share of good windows from @from on; counts limit
 * changes and records the limit after @settle.
 */
struct plant {
	uint64_t demand, k_lo, k_hi, lo_from, lo_to;  /* K = k_lo in [lo_from, lo_to) */
	uint64_t changes, windows, good, work;
	uint64_t last_set, min_gap;                    /* between changes, emergencies aside */
	uint64_t lim[1000];
	unsigned nr_lim;
};

static void run_plant(struct kt *t, struct plant *p, uint64_t seconds, uint64_t settle)
{
	uint64_t start = t->now;

	for (uint64_t w = 0; w < seconds * 10; w++) {
		uint64_t el = t->now - start;
		uint64_t knee = el >= p->lo_from * S && el < p->lo_to * S ? p->k_lo : p->k_hi;
		uint64_t lim = t->k.limit_bps ? lim_mb(t) : UINT64_MAX;
		uint64_t want = p->demand < lim ? p->demand : lim;
		uint64_t got = want < knee * 11 / 10 ? want : knee * 11 / 10;
		bool ok = want <= knee;

		uint64_t emergencies = t->k.emergencies;

		p->windows++;
		p->good += ok;
		p->work += got;
		if (win(t, ok, got, want < p->demand) == KNEE_SET) {
			p->changes += el >= settle * S;
			if (t->k.emergencies == emergencies && p->last_set &&
			    (!p->min_gap || t->now - p->last_set < p->min_gap))
				p->min_gap = t->now - p->last_set;
			p->last_set = t->now;
		}
		if (el >= settle * S && p->nr_lim < 1000)
			p->lim[p->nr_lim++] = lim_mb(t);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_loop_settles_at_the_knee(void **state)
{
	struct plant p = { .demand = 3000, .k_lo = 2500, .k_hi = 2500 };
	struct kt t;
	uint64_t med;

	(void)state;
	kt_init(&t);
	run_plant(&t, &p, 60, 3);
	qsort(p.lim, p.nr_lim, sizeof(p.lim[0]), cmp_u64);
	med = p.lim[p.nr_lim / 2];
	print_message("settle: %llu changes in 57 s (%llu ms apart at least), limit %llu..%llu median %llu, "
		      "good %llu/%llu\n", (unsigned long long)p.changes,
		      (unsigned long long)(p.min_gap / MS), (unsigned long long)p.lim[0],
		      (unsigned long long)p.lim[p.nr_lim - 1], (unsigned long long)med,
		      (unsigned long long)p.good, (unsigned long long)p.windows);
	assert_true(p.changes <= 57);                     /* at most one a second */
	assert_true(p.min_gap >= KNEE_UP_NS);             /* one per period (0.5 s at the shortest) */
	assert_true(p.lim[0] >= med * 3 / 4 && p.lim[p.nr_lim - 1] <= med * 5 / 4);
	assert_true(med >= 2250 && med <= 2500);          /* >= 0.9 x the knee, under it */
	assert_true(p.good * 100 >= p.windows * 95);
}

static void test_loop_follows_a_moving_knee(void **state)
{
	struct plant p = { .demand = 3000, .k_lo = 1200, .k_hi = 2500, .lo_from = 20, .lo_to = 40 };
	struct kt t;

	(void)state;
	kt_init(&t);
	run_plant(&t, &p, 60, 0);
	print_message("moving: good %llu/%llu, work %llu (cap at 1200: %llu)\n",
		      (unsigned long long)p.good, (unsigned long long)p.windows,
		      (unsigned long long)p.work, (unsigned long long)(1200ull * p.windows));
	assert_true(p.good * 100 >= p.windows * 95);
	/* More work than the best static cap that protects all along (1200). */
	assert_true(p.work > 1200ull * p.windows * 13 / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lone_miss_limits_nothing),
		cmocka_unit_test(test_first_limit),
		cmocka_unit_test(test_first_limit_from_the_mean),
		cmocka_unit_test(test_first_limit_takes_the_far_step),
		cmocka_unit_test(test_drowned_start),
		cmocka_unit_test(test_probe_stays_near_what_was_delivered),
		cmocka_unit_test(test_drowned_periods_keep_the_far_step),
		cmocka_unit_test(test_period_verdict),
		cmocka_unit_test(test_cut_steps_grow),
		cmocka_unit_test(test_far_miss_cuts_far),
		cmocka_unit_test(test_drowning_cuts_at_once),
		cmocka_unit_test(test_memory_of_the_knee),
		cmocka_unit_test(test_memory_recalled_at_once),
		cmocka_unit_test(test_budget_kept_with_memory),
		cmocka_unit_test(test_cruise_and_probe_cycle),
		cmocka_unit_test(test_overshoot_bisects),
		cmocka_unit_test(test_emergency_cut),
		cmocka_unit_test(test_change_not_in_force),
		cmocka_unit_test(test_futility),
		cmocka_unit_test(test_plateau_is_not_futile),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_edge_steps_grow_while_spent),
		cmocka_unit_test(test_futile_again_goes_back_up),
		cmocka_unit_test(test_floor_is_futile),
		cmocka_unit_test(test_lift),
		cmocka_unit_test(test_loop_settles_at_the_knee),
		cmocka_unit_test(test_loop_follows_a_moving_knee),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
