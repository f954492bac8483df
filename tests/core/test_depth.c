/* SPDX-License-Identifier: MIT */
/*
 * test_depth.c - a throttled sibling's queue depth, driven through real
 * window misses and passes of a protected sibling (docs/controller.md R5,
 * R6, "Worked figures") at qd = 64:
 *  - down: max -> 32 -> 16 -> 8 -> 4 -> 2 -> 1, then use_delay 1, 2, 3;
 *  - up from depth 1 with use_delay 3: three events only pay off delay, then
 *    5, 9, ..., 61, 64, and unlimited only when the cookie is the default;
 *  - a sibling that missed several cookie moves applies one step only.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

struct pair {
	struct iolat_ctl *ctl;
	struct iolat_group *root, *fast, *slow;
};

static struct pair setup_pair(void)
{
	struct pair p;

	p.ctl = t_ctl_new(64, 0, 0);
	p.root = iolat_ctl_root(p.ctl);
	p.fast = t_grp(p.ctl, NULL, "fast", 1 * T_MS);
	p.slow = t_grp(p.ctl, NULL, "slow", 0);
	return p;
}

/* Cookie distance below the default after k down events at qd 64 (docs/controller.md R7). */
static uint32_t down_dist(unsigned k)
{
	return k <= 5 ? 16 * k : 80 + (k - 5);
}

/* Nine misses of fast, each >= 500 ms after the previous, slow submitting between. */
static void drive_down(struct pair *p)
{
	static const uint32_t depth[] = { 32, 16, 8, 4, 2, 1, 1, 1, 1 };
	static const int use_delay[] = { 0, 0, 0, 0, 0, 0, 1, 2, 3 };
	uint64_t last = 0;

	for (unsigned k = 1; k <= 9; k++) {
		t_miss(p->fast);
		if (last)
			assert_true(t_last_event(p->root) >= last + IOLAT_MIN_ADJUST_NS);
		last = t_last_event(p->root);
		assert_int_equal(t_cookie_of(p->root), T_D - down_dist(k));
		assert_ptr_equal(iolat_group_scale_grp(p->root), p->fast);
		assert_int_equal(t_stat(p->root).child_scale_lat_ns, 1 * T_MS);
		/* slow only changes when it submits. */
		assert_int_equal(t_depth(p->slow), k == 1 ? T_MAX : depth[k - 2]);
		t_fill(p->slow, 1, 1 * T_MS, 0);
		assert_int_equal(t_depth(p->slow), depth[k - 1]);
		assert_int_equal(t_use_delay(p->slow), use_delay[k - 1]);
		assert_int_equal(iolat_group_congested(p->slow), use_delay[k - 1] > 0);
		assert_int_equal(t_stat(p->slow).cookie, T_D - down_dist(k));
		/* The group that asked is never throttled. */
		assert_int_equal(t_depth(p->fast), T_MAX);
		assert_int_equal(t_use_delay(p->fast), 0);
	}
}

static void test_scale_down_sequence(void **state)
{
	struct pair p = setup_pair();

	drive_down(&p);
	assert_int_equal(t_cookie_of(p.root), T_D - 84);
	assert_int_equal(t_stat(p.slow).scale_downs, 9);
	assert_int_equal(t_check_idle(p.ctl), 0);
	iolat_ctl_destroy(p.ctl);
}

static void test_scale_up_sequence(void **state)
{
	struct pair p = setup_pair();
	uint32_t cookie = T_D - 84;

	drive_down(&p);
	assert_int_equal(t_use_delay(p.slow), 3);
	/* 20 up events of +1 (84 -> 64 below the default), then 16 of +4. */
	for (unsigned i = 1; i <= 36; i++) {
		uint32_t want_depth;
		int want_delay = i <= 3 ? 3 - (int)i : 0;

		t_pass(p.fast);
		cookie += i <= 20 ? 1 : 4;
		assert_int_equal(t_cookie_of(p.root), cookie);
		t_fill(p.slow, 1, 1 * T_MS, 0);
		if (i <= 3)
			want_depth = 1;              /* only pays off one unit of delay */
		else if (i <= 18)
			want_depth = 1 + 4 * (i - 3); /* 5, 9, ..., 61 */
		else if (i < 36)
			want_depth = 64;             /* clamped at qd, not unlimited */
		else
			want_depth = T_MAX;          /* cookie back at the default */
		assert_int_equal(t_depth(p.slow), want_depth);
		assert_int_equal(t_use_delay(p.slow), want_delay);
		assert_int_equal(iolat_group_congested(p.slow), want_delay > 0);
	}
	assert_int_equal(cookie, T_D);
	/* 3 delay pay-offs + 16 depth steps + the return to unlimited. */
	assert_int_equal(t_stat(p.slow).scale_ups, 20);
	assert_int_equal(t_check_idle(p.ctl), 0);
	iolat_ctl_destroy(p.ctl);
}

/* R5: a child acts on at most one step per cookie change it observes. */
static void test_missed_moves_one_step(void **state)
{
	struct pair p = setup_pair();

	for (unsigned k = 1; k <= 5; k++)
		t_miss(p.fast);
	assert_int_equal(t_cookie_of(p.root), T_D - 80);
	assert_int_equal(t_depth(p.slow), T_MAX);
	t_fill(p.slow, 1, 1 * T_MS, 0);
	assert_int_equal(t_depth(p.slow), 32);
	t_fill(p.slow, 1, 1 * T_MS, 0); /* no new move: no new step */
	assert_int_equal(t_depth(p.slow), 32);
	iolat_ctl_destroy(p.ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_down_sequence),
		cmocka_unit_test(test_scale_up_sequence),
		cmocka_unit_test(test_missed_moves_one_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
