/* SPDX-License-Identifier: MIT */
/*
 * test_spare.c - who a scale-down spares (docs/controller.md R5 step 1, R12 step 5):
 * siblings whose target is equal to or tighter than the asking group's
 * (scale_lat) keep their depth; a looser one is throttled (once it did more
 * than 5% of the I/O); a group without target always is. A tighter group
 * that misses takes the throttling over (scale_grp, scale_lat), and then the
 * former asker is the looser one.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

enum { FAST, EQ, TIGHT, LOOSE, NONE, NR };

static const char *const names[NR] = { "fast", "eq", "tight", "loose", "none" };
static const uint64_t targets[NR] = { 2 * T_MS, 2 * T_MS, 1 * T_MS, 5 * T_MS, 0 };

static void poke_all(struct iolat_group **g)
{
	for (int i = 0; i < NR; i++)
		t_poke(g[i]);
}

static void assert_depths(struct iolat_group **g, const uint32_t *want)
{
	for (int i = 0; i < NR; i++) {
		if (t_depth(g[i]) != want[i])
			print_error("%s: depth %u, want %u\n", names[i], t_depth(g[i]), want[i]);
		assert_int_equal(t_depth(g[i]), want[i]);
	}
}

static void test_spare_by_target(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *g[NR];

	for (int i = 0; i < NR; i++)
		g[i] = t_grp(ctl, NULL, names[i], targets[i]);

	/* 1: fast (2 ms) misses. Only "none" has done enough I/O to be
	 * throttled yet (it has no target: the 5% rule does not apply). */
	t_miss(g[FAST]);
	assert_int_equal(t_stat(root).child_scale_lat_ns, 2 * T_MS);
	for (int i = EQ; i <= LOOSE; i++)
		assert_true(t_window(g[i], 10, 100 * T_US, 0, 0, 0));
	poke_all(g);
	assert_depths(g, (const uint32_t[NR]){ T_MAX, T_MAX, T_MAX, T_MAX, 32 });

	/* 2: fast misses again: the looser one is throttled, equal and tighter spared. */
	t_miss(g[FAST]);
	assert_int_equal(t_cookie_of(root), T_D - 32);
	assert_int_equal(t_stat(root).child_nr_samples, 40);
	poke_all(g);
	assert_depths(g, (const uint32_t[NR]){ T_MAX, T_MAX, T_MAX, 32, 16 });

	t_miss(g[FAST]);
	poke_all(g);
	assert_depths(g, (const uint32_t[NR]){ T_MAX, T_MAX, T_MAX, 16, 8 });
	assert_ptr_equal(iolat_group_scale_grp(root), g[FAST]);

	/* 3: tight (1 ms) misses: it takes over, fast and eq are now looser. */
	t_miss(g[TIGHT]);
	assert_ptr_equal(iolat_group_scale_grp(root), g[TIGHT]);
	assert_int_equal(t_stat(root).child_scale_lat_ns, 1 * T_MS);
	assert_int_equal(t_cookie_of(root), T_D - 64);
	poke_all(g);
	assert_depths(g, (const uint32_t[NR]){ 32, 32, T_MAX, 8, 4 });
	for (int i = 0; i < NR; i++)
		assert_int_equal(t_use_delay(g[i]), 0);
	assert_int_equal(t_check_idle(ctl), 0);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spare_by_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
