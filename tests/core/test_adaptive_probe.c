/* SPDX-License-Identifier: MIT */
/*
 * test_adaptive_probe.c - IOLAT_CTL_ADAPTIVE's probe back-off on the virtual
 * clock, qd = 64 (up step 4, down step 16 near the default):
 *  - a miss records the cookie it happened at (the ceiling); up steps below
 *    it are the kernel's; the step into it is held until 2 s after the last
 *    miss, then made as a probe whose depth step is half the kernel's;
 *  - a miss within 2 s of a probe reverts the cookie to where the probe
 *    started at once (not 500 ms later), doubles the hold, and the throttled
 *    sibling undoes its step (depth restored, not halved);
 *  - a good period after a probe halves the hold and makes the next step a
 *    probe again; the shortest hold is 20 of the asker's windows (>= 2 s);
 *  - against a sibling that hurts at depth >= 32, article mode cycles
 *    (a miss every 2.5 s) and adaptive converges to depth 28 with probes
 *    at growing intervals.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

/* Every test: qd 64, fast's target 1 ms, slow without one. */
static struct t_trio setup(unsigned flags)
{
	return t_trio_new(64, flags, 1 * T_MS);
}

static unsigned decision(const struct t_trio *p)
{
	return t_stat(p->root).last_decision;
}

/* A miss closed at its window's end (100 ms), not 500 ms after the last event. */
static void quick_miss(struct iolat_group *g)
{
	assert_false(t_window(g, 10, 2 * iolat_group_target(g), 0, 0, 0));
}

/* Two misses (ceiling at D-16), then three ups: slow at 28, cookie D-20. */
static uint64_t to_28(struct t_trio *p)
{
	static const uint32_t up[] = { 20, 24, 28 };
	uint64_t last_miss;

	t_miss(p->fast);
	t_poke(p->slow);
	assert_int_equal(t_depth(p->slow), 32);
	assert_int_equal(t_stat(p->root).probe_ceiling, T_D);
	t_miss(p->fast);
	last_miss = t_now;
	t_poke(p->slow);
	assert_int_equal(t_depth(p->slow), 16);
	assert_int_equal(t_stat(p->root).probe_ceiling, T_D - 16);
	assert_int_equal(decision(p), IOLAT_STEP_MISS);
	for (unsigned k = 0; k < 3; k++) {
		t_pass(p->fast);
		t_poke(p->slow);
		assert_int_equal(decision(p), IOLAT_STEP_UP);
		assert_int_equal(t_depth(p->slow), up[k]);
	}
	assert_int_equal(t_cookie_of(p->root), T_D - 20);
	return last_miss;
}

/* Passes until the step into the ceiling is made; every refusal was a hold. */
static void pass_until_probe(struct t_trio *p, uint64_t last_miss, uint64_t hold)
{
	uint64_t holds = t_stat(p->root).holds;

	for (;;) {
		uint32_t before = t_cookie_of(p->root);

		t_pass(p->fast);
		if (decision(p) != IOLAT_STEP_HOLD)
			break;
		assert_true(t_now - last_miss < hold);
		assert_int_equal(t_cookie_of(p->root), before);
		assert_int_equal(t_stat(p->root).holds, ++holds);
	}
	assert_int_equal(decision(p), IOLAT_STEP_PROBE);
	assert_true(t_now - last_miss >= hold);
}

static void test_hold_probe_fail_undo(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	uint64_t last_miss = to_28(&p), revert_at;

	(void)state;
	assert_int_equal(t_stat(p.root).probe_hold_ns, 2 * T_S);
	pass_until_probe(&p, last_miss, 2 * T_S);
	assert_int_equal(t_stat(p.root).probes, 1);
	assert_int_equal(t_cookie_of(p.root), T_D - 16);
	t_poke(p.slow);
	assert_int_equal(t_depth(p.slow), 30); /* 28 + 4/2: a probe's half step */

	/* The probe hurts: reverted at the first missed window. */
	revert_at = t_now;
	quick_miss(p.fast);
	assert_true(t_now - revert_at < IOLAT_MIN_ADJUST_NS);
	assert_int_equal(decision(&p), IOLAT_STEP_PROBE_FAIL);
	assert_int_equal(t_cookie_of(p.root), T_D - 20);
	assert_int_equal(t_stat(p.root).probe_fails, 1);
	assert_int_equal(t_stat(p.root).probe_hold_ns, 4 * T_S);
	assert_int_equal(t_stat(p.root).probe_ceiling, T_D - 16);
	t_poke(p.slow);
	assert_int_equal(t_depth(p.slow), 28); /* undone: not halved to 15 */
	assert_int_equal(t_stat(p.slow).last_step, IOLAT_STEP_UNDO);
	assert_int_equal(t_stat(p.slow).undos, 1);

	/* The hold is now 4 s from that miss; then a probe that holds. */
	pass_until_probe(&p, t_now, 4 * T_S);
	t_poke(p.slow);
	assert_int_equal(t_depth(p.slow), 30);
	t_pass(p.fast);
	assert_int_equal(decision(&p), IOLAT_STEP_PROBE); /* ok, and the next is a probe */
	assert_int_equal(t_stat(p.root).probe_hold_ns, 2 * T_S);
	assert_int_equal(t_stat(p.root).probe_fails, 1);
	assert_int_equal(t_stat(p.root).probes, 3);
	assert_int_equal(t_cookie_of(p.root), T_D - 12);
	assert_int_equal(t_stat(p.root).probe_ceiling, T_D - 12);
	t_poke(p.slow);
	assert_int_equal(t_depth(p.slow), 32);
	iolat_ctl_destroy(p.ctl);
}

/* A miss long after a probe is an ordinary miss: the kernel's step. */
static void test_late_miss_is_kernel_step(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	uint64_t last_miss = to_28(&p);

	(void)state;
	pass_until_probe(&p, last_miss, 2 * T_S);
	t_poke(p.slow);
	assert_int_equal(t_depth(p.slow), 30);
	t_advance(3 * T_S);
	t_miss(p.fast);
	assert_int_equal(decision(&p), IOLAT_STEP_MISS);
	assert_int_equal(t_cookie_of(p.root), T_D - 32);
	assert_int_equal(t_stat(p.root).probe_hold_ns, 2 * T_S); /* not doubled */
	assert_int_equal(t_stat(p.root).probe_ceiling, T_D - 16);
	t_poke(p.slow);
	assert_int_equal(t_depth(p.slow), 15);
	assert_int_equal(t_stat(p.slow).last_step, IOLAT_STEP_HALVE);
	iolat_ctl_destroy(p.ctl);
}

/* The shortest hold is 20 of the asker's windows (at least 2 s): 9.6 s for
 * a 30 ms target (480 ms windows) on the mean rule; it still doubles. */
static void test_hold_scales_with_window(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 1, IOLAT_CTL_ADAPTIVE);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 30 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 0);
	uint64_t last_miss;

	(void)state;
	assert_int_equal(t_stat(fast).win_ns, 480 * T_MS);
	t_miss(fast);
	t_poke(slow);
	t_miss(fast);
	last_miss = t_now;
	t_poke(slow);
	assert_int_equal(t_stat(root).probe_hold_ns, 9600 * T_MS);
	/* Up to the ceiling, then held until 9.6 s after the last miss. */
	for (;;) {
		t_pass(fast);
		if (t_stat(root).last_decision == IOLAT_STEP_PROBE)
			break;
		assert_true(t_stat(root).last_decision == IOLAT_STEP_UP ||
			    (t_stat(root).last_decision == IOLAT_STEP_HOLD &&
			     t_now - last_miss < 9600 * T_MS));
	}
	assert_true(t_now - last_miss >= 9600 * T_MS);
	quick_miss(fast);
	assert_int_equal(t_stat(root).last_decision, IOLAT_STEP_PROBE_FAIL);
	assert_int_equal(t_stat(root).probe_hold_ns, 19200 * T_MS);
	iolat_ctl_destroy(ctl);
}

/* Article mode: a miss right after an up step waits for the 500 ms gap. */
static void test_article_no_early_revert(void **state)
{
	struct t_trio p = setup(0);

	(void)state;
	t_miss(p.fast);
	t_pass(p.fast);
	assert_int_equal(t_cookie_of(p.root), T_D - 12);
	quick_miss(p.fast);
	assert_int_equal(t_cookie_of(p.root), T_D - 12);
	assert_int_equal(t_stat(p.root).probes, 0);
	iolat_ctl_destroy(p.ctl);
}

/*
 * A steady contest: fast misses whenever slow's depth is >= 32, passes
 * otherwise; one decision every 500 ms for 60 s. Returns the misses; the
 * smallest depth of slow over the last 20 s goes to @min_late.
 */
static unsigned contest(unsigned flags, uint32_t *min_late)
{
	struct t_trio p = setup(flags);
	uint64_t t0 = t_now;
	unsigned misses = 0;

	*min_late = T_MAX;
	while (t_now - t0 < 60 * T_S) {
		uint32_t d;

		t_poke(p.slow);
		d = t_depth(p.slow);
		if (t_now - t0 >= 40 * T_S && d < *min_late)
			*min_late = d;
		if (d >= 32) {
			t_miss(p.fast);
			misses++;
		} else {
			t_pass(p.fast);
		}
	}
	iolat_ctl_destroy(p.ctl);
	return misses;
}

static void test_converges_instead_of_cycling(void **state)
{
	uint32_t min_article, min_adaptive;
	unsigned article = contest(0, &min_article);
	unsigned adaptive = contest(IOLAT_CTL_ADAPTIVE, &min_adaptive);

	(void)state;
	print_message("misses in 60 s: article %u (min depth late %u), adaptive %u (%u)\n",
		      article, min_article, adaptive, min_adaptive);
	/* Article: 4 ups + 1 down, a miss every 2.5 s: the saw-tooth. */
	assert_true(article >= 20);
	assert_int_equal(min_article, 16);
	/* Adaptive: the initial descent (2) + probes at 2, 4, 8, 16, 32 s holds. */
	assert_true(adaptive <= 7);
	assert_true(min_adaptive >= 28);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold_probe_fail_undo),
		cmocka_unit_test(test_late_miss_is_kernel_step),
		cmocka_unit_test(test_hold_scales_with_window),
		cmocka_unit_test(test_article_no_early_revert),
		cmocka_unit_test(test_converges_instead_of_cycling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
