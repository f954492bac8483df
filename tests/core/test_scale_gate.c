/* SPDX-License-Identifier: MIT */
/*
 * test_scale_gate.c - when a window's end may move the parent's cookie
 * (docs/controller.md R12 steps 2-6):
 *  - at least 500 ms between scale events per parent (499.999999 ms: no;
 *    500 ms: yes); windows in between are carried in cur_stat;
 *  - a scale-up needs >= 5 samples in cur_stat (they accumulate); a
 *    scale-down does not;
 *  - only scale_grp scales up; a looser group's miss while a tighter one
 *    owns the throttling changes nothing (not even last_scale_event); an
 *    equal-target group's miss scales down but does not take scale_grp.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

#define GATE IOLAT_MIN_ADJUST_NS

struct duo {
	struct iolat_ctl *ctl;
	struct iolat_group *root, *fast;
};

static struct duo duo(void)
{
	struct duo d;

	d.ctl = t_ctl_new(64, 0, 0);
	d.root = iolat_ctl_root(d.ctl);
	d.fast = t_grp(d.ctl, NULL, "fast", 1 * T_MS);
	(void)t_grp(d.ctl, NULL, "slow", 0);
	return d;
}

static void test_gate_down(void **state)
{
	struct duo d = duo();
	uint64_t last;

	t_miss(d.fast);
	last = t_last_event(d.root);
	assert_int_equal(t_cookie_of(d.root), T_D - 16);
	/* A miss 1 ns short of 500 ms: judged, not acted on, carried. */
	assert_false(t_window(d.fast, 10, 2 * T_MS, 0, 0, last + GATE - 1));
	assert_int_equal(t_cookie_of(d.root), T_D - 16);
	assert_int_equal(t_last_event(d.root), last);
	assert_int_equal(t_stat(d.fast).windows_missed, 2);
	assert_int_equal(t_stat(d.fast).cur_stat_samples, 10);
	/* The next one acts, on both windows' samples. */
	assert_false(t_window(d.fast, 10, 2 * T_MS, 0, 0, 0));
	assert_int_equal(t_cookie_of(d.root), T_D - 32);
	assert_int_equal(t_stat(d.root).child_nr_samples, 20);
	assert_int_equal(t_stat(d.fast).cur_stat_samples, 0);
	iolat_ctl_destroy(d.ctl);

	/* Exactly 500 ms: acts. */
	d = duo();
	t_miss(d.fast);
	last = t_last_event(d.root);
	assert_false(t_window(d.fast, 10, 2 * T_MS, 0, 0, last + GATE));
	assert_int_equal(t_cookie_of(d.root), T_D - 32);
	assert_int_equal(t_last_event(d.root), last + GATE);
	iolat_ctl_destroy(d.ctl);
}

static void test_gate_up(void **state)
{
	struct duo d = duo();
	uint64_t last;

	t_miss(d.fast);
	last = t_last_event(d.root);
	assert_true(t_window(d.fast, 10, 500 * T_US, 0, 0, last + GATE - 1));
	assert_int_equal(t_cookie_of(d.root), T_D - 16);
	assert_int_equal(t_stat(d.fast).cur_stat_samples, 10);
	assert_true(t_window(d.fast, 10, 500 * T_US, 0, 0, 0));
	assert_int_equal(t_cookie_of(d.root), T_D - 12);
	iolat_ctl_destroy(d.ctl);
}

static void test_min_good_samples(void **state)
{
	struct duo d = duo();
	uint64_t last;

	/* A scale-down needs no minimum: one missed I/O suffices. */
	assert_false(t_window(d.fast, 1, 2 * T_MS, 0, 0, 0));
	assert_int_equal(t_cookie_of(d.root), T_D - 16);
	last = t_last_event(d.root);
	/* 4 good samples: no scale-up, kept. */
	assert_true(t_window(d.fast, 4, 500 * T_US, 0, 0, last + GATE));
	assert_int_equal(t_cookie_of(d.root), T_D - 16);
	assert_int_equal(t_last_event(d.root), last);
	assert_int_equal(t_stat(d.fast).cur_stat_samples, 4);
	/* One more makes 5. */
	assert_true(t_window(d.fast, 1, 500 * T_US, 0, 0, 0));
	assert_int_equal(t_cookie_of(d.root), T_D - 12);
	assert_int_equal(t_stat(d.fast).cur_stat_samples, 0);
	iolat_ctl_destroy(d.ctl);
}

static void test_only_scale_grp_scales_up(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *fast2 = t_grp(ctl, NULL, "fast2", 1 * T_MS);
	struct iolat_group *other = t_grp(ctl, NULL, "other", 2 * T_MS);
	uint64_t last;

	(void)t_grp(ctl, NULL, "slow", 0);
	t_miss(fast);
	last = t_last_event(root);
	assert_ptr_equal(iolat_group_scale_grp(root), fast);

	/* other is fine, 500 ms later: not the asker, nothing moves; its
	 * cur_stat is still consumed. */
	assert_true(t_window(other, 10, 100 * T_US, 0, 0, last + GATE));
	assert_int_equal(t_cookie_of(root), T_D - 16);
	assert_int_equal(t_last_event(root), last);
	assert_int_equal(t_stat(other).cur_stat_samples, 0);

	/* other (looser than the asker) misses: nothing, not even the time. */
	assert_false(t_window(other, 10, 4 * T_MS, 0, 0, 0));
	assert_int_equal(t_cookie_of(root), T_D - 16);
	assert_int_equal(t_last_event(root), last);
	assert_ptr_equal(iolat_group_scale_grp(root), fast);
	assert_int_equal(t_stat(root).child_scale_lat_ns, 1 * T_MS);

	/* So fast may scale up at once, less than 500 ms after other's miss. */
	assert_true(t_window(fast, 10, 500 * T_US, 0, 0, 0));
	assert_int_equal(t_cookie_of(root), T_D - 12);
	last = t_last_event(root);

	/* fast2 (same target) misses: scales down, fast stays the asker. */
	t_miss(fast2);
	assert_int_equal(t_cookie_of(root), T_D - 28);
	assert_ptr_equal(iolat_group_scale_grp(root), fast);
	assert_true(t_last_event(root) >= last + GATE);
	/* fast2 passing changes nothing; fast passing scales up. */
	t_pass(fast2);
	assert_int_equal(t_cookie_of(root), T_D - 28);
	t_pass(fast);
	assert_int_equal(t_cookie_of(root), T_D - 24);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_down),
		cmocka_unit_test(test_gate_up),
		cmocka_unit_test(test_min_good_samples),
		cmocka_unit_test(test_only_scale_grp_scales_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
