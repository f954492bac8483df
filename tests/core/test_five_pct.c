/* SPDX-License-Identifier: MIT */
/*
 * test_five_pct.c - the 5% rule (docs/controller.md R5 step 1, C12): a
 * looser sibling with a target is spared a scale-down when its samples at
 * its last summation are <= max(1, parent's summed samples x 5 / 100)
 * (integer division). 1000 summed: 50 spared, 51 throttled.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

struct pct_case {
	unsigned fast_n;   /* fast's samples at the second scale event */
	unsigned loose_n;  /* loose's samples at its last summation */
	bool throttled;
};

static const struct pct_case cases[] = {
	{ 950, 50, false },   /* 1000 summed, threshold 50 */
	{ 949, 51, true },
	{ 1900, 100, false }, /* 2000: threshold 100 */
	{ 1899, 101, true },
	{ 10, 1, false },     /* 11 x 5 / 100 = 0: threshold max(1, 0) = 1 */
	{ 10, 2, true },
	{ 30, 1, false },
};

static void test_five_percent(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pct_case *c = &cases[i];
		struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
		struct iolat_group *root = iolat_ctl_root(ctl);
		struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
		struct iolat_group *loose = t_grp(ctl, NULL, "loose", 5 * T_MS);

		t_miss(fast);
		/* loose sees the first move with no samples summed yet: spared. */
		assert_true(t_window(loose, c->loose_n, 100 * T_US, 0, 0, 0));
		assert_int_equal(t_depth(loose), T_MAX);
		/* Second move, by fast with fast_n samples in its window. */
		assert_false(t_window(fast, c->fast_n, 2 * T_MS, 0, 0,
				      t_last_event(root) + IOLAT_MIN_ADJUST_NS));
		assert_int_equal(t_cookie_of(root), T_D - 32);
		assert_int_equal(t_stat(root).child_nr_samples, c->fast_n + c->loose_n);
		t_poke(loose);
		if ((t_depth(loose) != T_MAX) != c->throttled)
			print_error("case %zu: %u of %u samples\n", i, c->loose_n,
				    c->fast_n + c->loose_n);
		assert_int_equal(t_depth(loose), c->throttled ? 32 : T_MAX);
		assert_int_equal(t_stat(loose).cookie, T_D - 32);
		iolat_ctl_destroy(ctl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_five_percent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
