/* SPDX-License-Identifier: MIT */
/*
 * test_five_pct.c - the 5% rule (docs/controller.md R5 step 1, C12): a
 * looser sibling with a target is spared a scale-down when its samples at
 * its last summation are <= max(1, parent's summed samples x 5 / 100)
 * (integer division). 1000 summed: 50 spared, 51 throttled. With
 * IOLAT_CTL_BYPASS_SHARE a throttled group's bypass I/O counts in its share
 * (and its parent's sum); without it (the kernel's count) it does not.
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

/* One window of @g in which it does only @n bypass (swap) I/Os, closed
 * after 1 s: not recorded while @g is throttled. */
static void bypass_window(struct iolat_group *g, unsigned n)
{
	t_fill(g, n, 100 * T_US, IOLAT_IO_SWAP);
	t_advance(1000 * T_MS);
	assert_true(t_close(g));
}

/*
 * loose is throttled (depth 32) after recorded I/O; then it does only bypass
 * I/O, 20 swap writes a window, for two windows (the first still carries its
 * recorded samples). At fast's next miss its share is 0 of 10 (spared, stays
 * at 32) with the kernel's count, 20 of 30 (halved to 16) with the flag.
 */
static void test_bypass_share(void **state)
{
	uint64_t summed[2];

	for (int share = 0; share < 2; share++) {
		struct iolat_ctl *ctl = t_ctl_new(64, 0, share ? IOLAT_CTL_BYPASS_SHARE : 0);
		struct iolat_group *root = iolat_ctl_root(ctl);
		struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
		struct iolat_group *loose = t_grp(ctl, NULL, "loose", 5 * T_MS);

		t_miss(fast);
		assert_true(t_window(loose, 100, 100 * T_US, 0, 0, 0));
		t_miss(fast);
		t_poke(loose);
		assert_int_equal(t_depth(loose), 32);
		bypass_window(loose, 20);
		bypass_window(loose, 20);
		assert_int_equal(t_stat(loose).nr_bypass, 40);
		assert_int_equal(t_stat(loose).cur_stat_samples, 0);   /* latencies: none */
		summed[share] = t_stat(root).child_nr_samples;
		t_miss(fast);
		t_poke(loose);
		assert_int_equal(t_depth(loose), share ? 16 : 32);
		iolat_ctl_destroy(ctl);
	}
	assert_int_equal(summed[1] - summed[0], 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_five_percent),
		cmocka_unit_test(test_bypass_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
