/* SPDX-License-Identifier: MIT */
/*
 * test_knee.c - the adaptive mode's rate decision (src/core/knee.c), rule by
 * rule, on a virtual clock of 100 ms windows, and as a loop against a plant
 * with a sharp knee (the protected group misses whenever the siblings' rate
 * is above K): the first limit, the back-off and its base, settling, the
 * hold and the probe (gain, doubling, the margin under a rate that missed,
 * the jump to a recent good rate), the good-rate estimate and its memory,
 * futility and its end, the lift, and the loop settling and following a
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
};

static void kt_init(struct kt *t)
{
	memset(t, 0, sizeof(*t));
	knee_reset(&t->k);
	t->now = 10 * S;
}

/*
 * One window: the protected group's 1000 I/Os, a mean of @mean_us; missed
 * (half of them over target) unless @ok; the siblings moved @mbps x 10^6
 * bytes per second of 1 MB I/Os, and waited at the gate if @waited.
 */
static enum knee_act win_mean(struct kt *t, bool ok, uint64_t mbps, bool waited, uint64_t mean_us)
{
	struct knee_obs o = {
		.win_ns = WIN, .nr = 1000, .missed = ok ? 0 : 500, .sum_ns = 1000 * mean_us * 1000,
		.bytes = mbps * MB / 10, .ios = mbps / 10, .waited = waited ? 5 : 0,
	};

	t->now += WIN;
	o.now = t->now;
	return knee_window(&t->k, &o, ok);
}

/* A window whose mean follows the verdict: 50 us when ok, 5 ms when missed. */
static enum knee_act win(struct kt *t, bool ok, uint64_t mbps, bool waited)
{
	return win_mean(t, ok, mbps, waited, ok ? 50 : 5000);
}

static uint64_t lim_mb(const struct kt *t)
{
	return t->k.limit_bps / MB;
}

/* Miss, then two measured misses at @mbps: the first limit. */
static void limit_at(struct kt *t, uint64_t mbps)
{
	assert_int_equal(win(t, false, mbps, false), KNEE_WATCH);
	assert_int_equal(win(t, false, mbps, false), KNEE_NONE);
	assert_int_equal(win(t, false, mbps, false), KNEE_SET);
}

/* Good windows at the limit (bound, waiting) until the next decision that is not a hold. */
static enum knee_act hold_until_probe(struct kt *t, unsigned max_windows)
{
	for (unsigned i = 0; i < max_windows; i++) {
		enum knee_act a = win(t, true, lim_mb(t), true);

		if (a != KNEE_NONE || t->k.decision != IOLAT_STEP_HOLD)
			return a;
	}
	return KNEE_NONE;
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
	assert_int_equal(win(&t, false, 0, false), KNEE_WATCH);
	assert_int_equal(win(&t, false, 0, false), KNEE_NONE);
	assert_int_equal(win(&t, false, 0, false), KNEE_NONE);
	assert_int_equal(t.k.phase, KNEE_MEASURE);
	/* One hiccup of the device in a measured window: the best window counts. */
	assert_int_equal(win(&t, false, 400, false), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 360 * MB);
	kt_init(&t);
	win(&t, false, 3000, false);
	win(&t, false, 300, false);  /* a window the writer barely moved in */
	assert_int_equal(win(&t, false, 2000, false), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 1800 * MB);
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

static void test_backoff_after_settling(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	/* The first two windows after a change settle, the next three judge
	 * the level: no decision before. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(win(&t, false, 1800, true), KNEE_NONE);
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	/* Then a miss backs off by 0.9 (not a halving). */
	assert_int_equal(win(&t, false, 1800, true), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(t.k.limit_bps, 1620 * MB);
	assert_int_equal(t.k.backoffs, 1);
	/* Siblings that used only 1000 of 1620 after settling: 0.9 x 1000, not
	 * 0.9 x the limit (the base is what they actually did). */
	for (int i = 0; i < 4; i++)
		win(&t, true, 1000, false);
	assert_int_equal(win(&t, false, 1000, false), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 900 * MB);
}

static void test_hold_then_probe(void **state)
{
	struct kt t;
	uint64_t changed;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	changed = t.now;
	/* Good and bound: held still for the hold (>= 1 s and 10 windows). */
	assert_int_equal(hold_until_probe(&t, 40), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
	assert_true(t.now - changed >= 1 * S);
	assert_true(t.now - changed < 1 * S + 2 * WIN);
	assert_int_equal(t.k.limit_bps, 1890 * MB); /* +5 % */
	/* Three good windows (>= 300 ms): the probe holds; hold stays at its
	 * minimum, the next step doubles. */
	assert_int_equal(win(&t, true, 1890, true), KNEE_NONE);
	assert_int_equal(win(&t, true, 1890, true), KNEE_NONE);
	assert_int_equal(win(&t, true, 1890, true), KNEE_NONE);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE_OK);
	assert_int_equal(t.k.hold_ns, 1 * S);
	assert_int_equal(t.k.gain_pm, 100);
	assert_int_equal(hold_until_probe(&t, 40), KNEE_SET);
	assert_int_equal(t.k.limit_bps, 2079 * MB); /* +10 % */
	assert_int_equal(t.k.probes, 2);
}

static void test_no_probe_while_unused(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	/* Good, but the siblings use half their limit: raising it is pointless. */
	for (int i = 0; i < 30; i++)
		assert_int_equal(win(&t, true, 900, false), KNEE_NONE);
	assert_int_equal(t.k.probes, 0);
	assert_int_equal(t.k.limit_bps, 1800 * MB);
}

static void test_probe_fail_margin_and_ceiling(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	assert_int_equal(hold_until_probe(&t, 40), KNEE_SET);   /* 1890 */
	assert_int_equal(win(&t, false, 1890, true), KNEE_SET); /* a miss in the probe */
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE_FAIL);
	assert_int_equal(t.k.limit_bps, 1710 * MB);   /* 0.95 x 1800: a margin under */
	assert_int_equal(t.k.hold_ns, 2 * S);         /* doubled */
	assert_int_equal(t.k.gain_pm, KNEE_GAIN_MIN_PM);
	assert_int_equal(t.k.probe_fails, 1);
	/* The next probe: +5 % of 1710 = 1795.5, under 0.95 x 1890 = 1795.5. */
	assert_int_equal(hold_until_probe(&t, 40), KNEE_SET);
	assert_int_equal(t.k.limit_bps / 1000, 1795500);
	win(&t, true, 1795, true);
	win(&t, true, 1795, true);
	win(&t, true, 1795, true);
	assert_int_equal(t.k.decision, IOLAT_STEP_PROBE_OK);
	/* Just under the rate that missed: hold and step stay (2 s, +5 %). */
	assert_int_equal(t.k.hold_ns, 2 * S);
	assert_int_equal(t.k.gain_pm, KNEE_GAIN_MIN_PM);
	/* At the ceiling, the next probe re-tests the miss with the smallest
	 * step, after the hold. */
	assert_int_equal(hold_until_probe(&t, 40), KNEE_SET);
	assert_int_equal(t.k.limit_bps / 1000, 1885275); /* 1795.5 x 1.05 */
	assert_int_equal(t.k.probes, 3);
}

static void test_hold_doubles_to_max(void **state)
{
	static const uint64_t holds[] = { 2, 4, 8, 16, 32, 32 };
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	for (unsigned i = 0; i < sizeof(holds) / sizeof(holds[0]); i++) {
		uint64_t from = t.now;

		t.k.bad_at = 0; /* keep probing (the ceiling is tested above) */
		assert_int_equal(hold_until_probe(&t, 1000), KNEE_SET);
		assert_int_equal(t.k.decision, IOLAT_STEP_PROBE);
		assert_true(t.now - from >= (i ? holds[i - 1] : 1) * S);
		assert_int_equal(win(&t, false, lim_mb(&t), true), KNEE_SET);
		assert_int_equal(t.k.hold_ns, holds[i] * S);
	}
}

static void test_good_rate_estimate(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	assert_int_equal(knee_good_rate(&t.k, t.now), 0);
	limit_at(&t, 2000);
	win(&t, true, 1500, false);
	win(&t, true, 1750, false);
	win(&t, true, 1600, false);
	win(&t, true, 1600, false);
	assert_int_equal(knee_good_rate(&t.k, t.now), 1750 * MB); /* a max */
	/* A missed window caps the estimate at the rate backed off to. */
	assert_int_equal(win(&t, false, 1800, true), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	assert_int_equal(knee_good_rate(&t.k, t.now), t.k.limit_bps);
	assert_true(t.k.limit_bps < 1750 * MB);
	/* Remembered 10 s, forgotten after. */
	assert_int_equal(knee_good_rate(&t.k, t.now + 9 * S), t.k.limit_bps);
	assert_int_equal(knee_good_rate(&t.k, t.now + 11 * S), 0);
}

static void test_probe_jumps_to_recent_good(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 2000);
	/* Good at 1750 just before the limit was cut to 1000 (say, by an
	 * administrator's own change of the limit in the test): the probe goes
	 * straight to just under 1750, not +5 %. */
	win(&t, true, 1750, false);
	t.k.limit_bps = 1000 * MB;
	assert_int_equal(hold_until_probe(&t, 40), KNEE_SET);
	assert_int_equal(t.k.limit_bps / 1000, 1706250); /* 0.975 x 1750 */
}

static void test_futility(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	/* The target is below what the group gets alone: every window misses;
	 * unthrottled the mean is 5 ms, at 1800 already 300 us, lower no better. */
	win_mean(&t, false, 2000, false, 5000);
	win_mean(&t, false, 2000, false, 5000);
	win_mean(&t, false, 2000, false, 5000);                 /* limit 1800 */
	for (int i = 0; i < 5; i++)
		win_mean(&t, false, 1800, true, 300);               /* helped: 5 ms -> 300 us */
	assert_int_equal(t.k.limit_bps, 1620 * MB);
	assert_int_equal(t.k.futile_steps, 0);
	for (int i = 0; i < 5; i++)
		win_mean(&t, false, 1620, true, 300);               /* no help: 1 */
	assert_int_equal(t.k.limit_bps, 1458 * MB);
	assert_int_equal(t.k.futile_steps, 1);
	for (int i = 0; i < 4; i++)
		assert_int_equal(win_mean(&t, false, 1458, true, 290), KNEE_NONE);
	assert_int_equal(win_mean(&t, false, 1458, true, 290), KNEE_SET); /* no help: 2 */
	assert_int_equal(t.k.decision, IOLAT_STEP_FUTILE);
	assert_true(knee_unattainable(&t.k));
	/* Back to the highest level as good as the best (within 10 %): 1800. */
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	assert_int_equal(t.k.best_mean_ns, 290 * 1000);
	/* Now periods of 3 windows, from 2 windows after a change, are judged
	 * against 1.5 x the best mean: 400 us is fine (no back-off)... */
	for (int i = 0; i < 8; i++)
		assert_int_equal(win_mean(&t, false, 1800, true, 400), KNEE_NONE);
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	/* ... 500 us (> 435) is a miss: a back-off. */
	win_mean(&t, false, 1800, true, 500);
	win_mean(&t, false, 1800, true, 500);
	assert_int_equal(win_mean(&t, false, 1800, true, 500), KNEE_SET);
	assert_int_equal(t.k.decision, IOLAT_STEP_BACKOFF);
	/* Five windows within the target: attainable again. */
	for (int i = 0; i < 5; i++)
		win_mean(&t, true, 1620, true, 50);
	assert_false(knee_unattainable(&t.k));
}

/* Unattainable, then another tenant makes it worse: lowering does not help
 * again, so the limit goes back up to the best level, and the worse mean
 * becomes the reference instead of a slide to the floor. */
static void test_futile_again_goes_back_up(void **state)
{
	struct kt t;
	unsigned backoffs = 0;

	(void)state;
	kt_init(&t);
	win_mean(&t, false, 2000, false, 5000);
	win_mean(&t, false, 2000, false, 5000);
	win_mean(&t, false, 2000, false, 5000);                 /* limit 1800 */
	for (int i = 0; i < 15; i++)
		win_mean(&t, false, lim_mb(&t), true, 300);         /* no help, twice */
	assert_true(knee_unattainable(&t.k));
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	/* The other tenant: 2 ms whatever the limit. Two back-offs that do
	 * not help, then back to the best level, with the worse mean as the
	 * new reference. */
	for (int i = 0; i < 30; i++) {
		if (win_mean(&t, false, lim_mb(&t), true, 2000) != KNEE_SET)
			continue;
		if (t.k.decision != IOLAT_STEP_BACKOFF)
			break;
		backoffs++;
	}
	assert_int_equal(t.k.decision, IOLAT_STEP_FUTILE);
	assert_int_equal(backoffs, 2);
	assert_int_equal(t.k.limit_bps, 1800 * MB);
	assert_int_equal(t.k.best_mean_ns, 2000 * 1000);
	/* From then on the limit holds still (probes aside). */
	for (int i = 0; i < 30; i++)
		win_mean(&t, false, lim_mb(&t), true, 2000);
	assert_true(t.k.limit_bps >= 1800 * MB);
}

static void test_floor_is_futile(void **state)
{
	struct kt t;

	(void)state;
	kt_init(&t);
	limit_at(&t, 64);
	t.k.limit_bps = 1 * MB; /* at the floor: base / 64 */
	for (int i = 0; i < 5; i++)
		win(&t, false, 1, true);
	assert_true(knee_unattainable(&t.k));
	assert_true(t.k.limit_bps >= 1 * MB);
}

static void test_lift(void **state)
{
	struct kt t;

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
	uint64_t last_use = t.now, lifted = 0;

	for (int i = 0; i < 60 && !lifted; i++)
		if (win(&t, true, 100, false) == KNEE_RELEASE)
			lifted = t.now;
	assert_true(lifted >= last_use + 4 * S && lifted <= last_use + 5 * S);
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

		p->windows++;
		p->good += ok;
		p->work += got;
		if (win(t, ok, got, want < p->demand) == KNEE_SET && el >= settle * S)
			p->changes++;
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
	print_message("settle: %llu changes in 57 s, limit %llu..%llu median %llu, good %llu/%llu\n",
		      (unsigned long long)p.changes, (unsigned long long)p.lim[0],
		      (unsigned long long)p.lim[p.nr_lim - 1], (unsigned long long)med,
		      (unsigned long long)p.good, (unsigned long long)p.windows);
	assert_true(p.changes <= 57);                     /* at most one a second */
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
		cmocka_unit_test(test_backoff_after_settling),
		cmocka_unit_test(test_hold_then_probe),
		cmocka_unit_test(test_no_probe_while_unused),
		cmocka_unit_test(test_probe_fail_margin_and_ceiling),
		cmocka_unit_test(test_hold_doubles_to_max),
		cmocka_unit_test(test_good_rate_estimate),
		cmocka_unit_test(test_probe_jumps_to_recent_good),
		cmocka_unit_test(test_futility),
		cmocka_unit_test(test_futile_again_goes_back_up),
		cmocka_unit_test(test_floor_is_futile),
		cmocka_unit_test(test_lift),
		cmocka_unit_test(test_loop_settles_at_the_knee),
		cmocka_unit_test(test_loop_follows_a_moving_knee),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
