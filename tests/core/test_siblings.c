/* SPDX-License-Identifier: MIT */
/*
 * test_siblings.c - targets act between siblings only (docs/controller.md R1,
 * R5). In root -> { a -> { fast (1 ms), slow (none) },
 * unrelated }, fast missing moves a's cookie and throttles slow, never
 * unrelated (a cousin) nor a (the parent); and unrelated missing throttles
 * its sibling a but not a's children. A group created meanwhile takes the
 * parent's current cookie: unthrottled until the next move.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

struct tree {
	struct iolat_ctl *ctl;
	struct iolat_group *root, *a, *fast, *slow, *unrelated;
};

static struct tree make_tree(uint64_t unrelated_target)
{
	struct tree t;

	t.ctl = t_ctl_new(64, 0, 0);
	t.root = iolat_ctl_root(t.ctl);
	t.a = t_grp(t.ctl, NULL, "a", 0);
	t.fast = t_grp(t.ctl, t.a, "fast", 1 * T_MS);
	t.slow = t_grp(t.ctl, t.a, "slow", 0);
	t.unrelated = t_grp(t.ctl, NULL, "unrelated", unrelated_target);
	return t;
}

static void test_fast_throttles_only_slow(void **state)
{
	static const uint32_t depth[] = { 32, 16, 8, 4, 2, 1, 1, 1, 1 };
	struct tree t = make_tree(0);

	for (unsigned k = 1; k <= 9; k++) {
		t_miss(t.fast);
		/* Everybody submits. */
		t_fill(t.slow, 1, 1 * T_MS, 0);
		t_fill(t.unrelated, 1, 1 * T_MS, 0);
		t_fill(t.a, 1, 1 * T_MS, 0);
		assert_int_equal(t_cookie_of(t.a), T_D - (k <= 5 ? 16 * k : 80 + (k - 5)));
		assert_int_equal(t_cookie_of(t.root), T_D);
		assert_int_equal(t_depth(t.slow), depth[k - 1]);
		assert_int_equal(t_use_delay(t.slow), k <= 6 ? 0 : (int)k - 6);
		assert_int_equal(t_depth(t.fast), T_MAX);
		assert_int_equal(t_depth(t.a), T_MAX);
		assert_int_equal(t_depth(t.unrelated), T_MAX);
		assert_int_equal(t_use_delay(t.a), 0);
		assert_int_equal(t_use_delay(t.unrelated), 0);
		assert_int_equal(t_stat(t.a).cookie, T_D);
		assert_int_equal(t_stat(t.unrelated).cookie, T_D);
		assert_int_equal(t_stat(t.a).scale_downs, 0);
		assert_int_equal(t_stat(t.unrelated).scale_downs, 0);
	}
	assert_true(iolat_group_congested(t.slow));
	assert_false(iolat_group_congested(t.fast));
	assert_false(iolat_group_congested(t.a));
	assert_false(iolat_group_congested(t.unrelated));
	assert_ptr_equal(iolat_group_scale_grp(t.a), t.fast);
	assert_null(iolat_group_scale_grp(t.root));
	assert_int_equal(t_check_idle(t.ctl), 0);
	iolat_ctl_destroy(t.ctl);
}

static void test_unrelated_throttles_a_only(void **state)
{
	struct tree t = make_tree(1 * T_MS);

	for (unsigned k = 1; k <= 2; k++) {
		t_miss(t.unrelated);
		t_fill(t.slow, 1, 1 * T_MS, 0);  /* passes through a */
		t_fill(t.fast, 1, 100 * T_US, 0);
	}
	assert_int_equal(t_cookie_of(t.root), T_D - 32);
	assert_int_equal(t_cookie_of(t.a), T_D);
	assert_int_equal(t_depth(t.a), 16);
	assert_int_equal(t_depth(t.slow), T_MAX);
	assert_int_equal(t_depth(t.fast), T_MAX);
	assert_int_equal(t_depth(t.unrelated), T_MAX);
	assert_int_equal(t_check_idle(t.ctl), 0);
	iolat_ctl_destroy(t.ctl);
}

/* A new group takes its parent's current cookie: it starts unthrottled
 * and acts on the next move only. */
static void test_newcomer_takes_current_cookie(void **state)
{
	struct tree t = make_tree(0);
	struct iolat_group *late;

	t_miss(t.fast);
	t_miss(t.fast);
	late = t_grp(t.ctl, t.a, "late", 0);
	assert_int_equal(t_stat(late).cookie, T_D - 32);
	t_fill(late, 1, 1 * T_MS, 0);
	t_fill(t.slow, 1, 1 * T_MS, 0);
	assert_int_equal(t_depth(late), T_MAX);
	assert_int_equal(t_depth(t.slow), 32);
	t_miss(t.fast);
	t_poke(late);
	assert_int_equal(t_depth(late), 32);
	iolat_ctl_destroy(t.ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_throttles_only_slow),
		cmocka_unit_test(test_unrelated_throttles_a_only),
		cmocka_unit_test(test_newcomer_takes_current_cookie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
