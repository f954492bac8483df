/* SPDX-License-Identifier: MIT */
/*
 * test_target.c - target changes and group lifetime (docs/controller.md R2, R14):
 *  - a changed target (set or cleared, on any child) resets the parent's
 *    child_lat: cookie to default, scale_grp and scale_lat cleared,
 *    last_scale_event forgotten; siblings return to unlimited (waiters
 *    granted); writing the same value changes nothing;
 *  - clearing a target clears the group's use_delay (and congestion);
 *  - destroying a group with I/O in flight, a waiter or children: -EBUSY;
 *    destroying the asking group resets its parent; the root: -EINVAL;
 *  - no target anywhere: the controller is disabled and I/O takes no slot;
 *    I/O admitted across an enable/disable flip stays balanced.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"
#include "core/ctl.h"

static void assert_reset(struct iolat_group *p)
{
	assert_int_equal(t_cookie_of(p), T_D);
	assert_null(iolat_group_scale_grp(p));
	assert_int_equal(t_stat(p).child_scale_lat_ns, 0);
	assert_int_equal(t_last_event(p), 0);
}

static void test_target_change_resets_parent(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(2, 0, 0);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 0);
	struct iolat_group *other = t_grp(ctl, NULL, "other", 0);
	struct iolat_io held;
	struct t_waiter w;

	t_miss(fast);
	t_poke(slow);
	assert_int_equal(t_depth(slow), 1);
	assert_int_equal(t_submit(slow, 0, &held, NULL), 0);
	t_waiter_init(&w, 1);
	assert_int_equal(t_wsubmit(slow, 0, &w), IOLAT_QUEUED);

	/* A sibling's new target: reset, and slow is released at once. */
	assert_int_equal(iolat_group_set_target(other, 5 * T_MS), 0);
	assert_reset(root);
	assert_int_equal(t_depth(slow), T_MAX);
	assert_int_equal(w.granted, 1);
	t_done(&held);
	t_done(&w.io);

	/* last_scale_event was forgotten: a miss right away acts. */
	assert_false(t_window(fast, 10, 2 * T_MS, 0, 0, 0));
	assert_int_equal(t_cookie_of(root), T_D - 1);
	/* The same value again: nothing. */
	assert_int_equal(iolat_group_set_target(other, 5 * T_MS), 0);
	assert_int_equal(t_cookie_of(root), T_D - 1);
	assert_ptr_equal(iolat_group_scale_grp(root), fast);
	/* The asker's own target changed: reset. */
	assert_int_equal(iolat_group_set_target(fast, 2 * T_MS), 0);
	assert_reset(root);
	/* Cleared: reset too. */
	t_miss(fast);
	assert_int_equal(t_cookie_of(root), T_D - 1);
	assert_int_equal(iolat_group_set_target(other, 0), 0);
	assert_reset(root);
	assert_int_equal(iolat_group_set_target(root, 1 * T_MS), -EINVAL);
	assert_int_equal(t_check_idle(ctl), 0);
	iolat_ctl_destroy(ctl);
}

/* The reset is the parent's: a group's own children keep their throttling. */
static void test_reset_is_parents_only(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0);
	struct iolat_group *fast = t_grp(ctl, a, "fast", 1 * T_MS);
	(void)t_grp(ctl, a, "slow", 0);

	t_miss(fast);
	assert_int_equal(t_cookie_of(a), T_D - 16);
	assert_int_equal(iolat_group_set_target(a, 50 * T_MS), 0);
	assert_int_equal(t_cookie_of(a), T_D - 16);
	assert_ptr_equal(iolat_group_scale_grp(a), fast);
	iolat_ctl_destroy(ctl);
}

static void test_clear_clears_delay(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(2, 0, 0);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 10 * T_MS);
	struct iolat_group *kid = t_grp(ctl, slow, "kid", 0);

	t_miss(fast);
	assert_true(t_window(slow, 10, 100 * T_US, 0, 0, 0));
	for (int k = 0; k < 3; k++) {
		t_miss(fast);
		t_poke(slow);
	}
	assert_int_equal(t_use_delay(slow), 2);
	t_fill(slow, 10, 2 * T_MS, IOLAT_IO_SWAP);
	assert_true(iolat_group_delay_due(slow) > 0);
	assert_true(iolat_group_congested(kid));
	assert_int_equal(iolat_group_set_target(slow, 0), 0);
	assert_int_equal(t_use_delay(slow), 0);
	assert_false(iolat_group_congested(slow));
	assert_false(iolat_group_congested(kid));
	assert_int_equal(iolat_group_delay_due(slow), 0);
	assert_int_equal(t_stat(slow).target_ns, 0);
	assert_int_equal(t_stat(slow).win_ns, 100 * T_MS);
	iolat_ctl_destroy(ctl);
}

/*
 * B5: clearing a target clears use_delay even when the parent's reset has
 * nothing to unclamp (the group already acted on the default cookie). The
 * state is made with the core's own use_delay step (src/core/ctl.h).
 */
static void test_clear_clears_stuck_delay(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(2, 0, 0);
	struct iolat_group *g = t_grp(ctl, NULL, "g", 10 * T_MS);

	iolat_delay_use(g);
	iolat_delay_use(g);
	assert_int_equal(t_use_delay(g), 2);
	assert_int_equal(t_stat(g).cookie, T_D);
	assert_int_equal(iolat_group_set_target(g, 5 * T_MS), 0); /* not cleared */
	assert_int_equal(t_use_delay(g), 2);
	assert_int_equal(iolat_group_set_target(g, 0), 0);
	assert_int_equal(t_use_delay(g), 0);
	assert_false(iolat_group_congested(g));
	iolat_ctl_destroy(ctl);
}

static void test_destroy(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(2, 0, 0);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 0);
	struct iolat_group *p = t_grp(ctl, NULL, "p", 0);
	struct iolat_group *c = t_grp(ctl, p, "c", 0);
	struct iolat_group *again = NULL;
	struct iolat_io io;
	struct t_waiter w;

	assert_int_equal(iolat_group_destroy(root), -EINVAL);
	assert_int_equal(iolat_group_destroy(p), -EBUSY); /* a child */
	/* I/O in flight (at c and, above it, at p). */
	assert_int_equal(t_submit(c, 0, &io, NULL), 0);
	assert_int_equal(iolat_group_destroy(c), -EBUSY);
	t_advance(1 * T_MS);
	t_done(&io);
	assert_int_equal(iolat_group_destroy(c), 0);
	assert_int_equal(t_stat(p).nr_children, 0);
	assert_int_equal(iolat_group_destroy(p), 0);

	/* A queued waiter. */
	t_miss(fast);
	t_poke(slow);
	assert_int_equal(t_submit(slow, 0, &io, NULL), 0);
	t_waiter_init(&w, 1);
	assert_int_equal(t_wsubmit(slow, 0, &w), IOLAT_QUEUED);
	t_done(&io);
	assert_int_equal(w.granted, 1);
	assert_int_equal(iolat_group_destroy(slow), -EBUSY);
	t_done(&w.io);
	assert_int_equal(t_submit(slow, 0, &io, NULL), 0);
	t_waiter_init(&w, 2);
	assert_int_equal(t_wsubmit(slow, 0, &w), IOLAT_QUEUED);
	assert_int_equal(iolat_throttle_cancel(&w.io), 0);
	t_done(&io);
	assert_int_equal(t_stat(slow).inflight, 0);

	/* Destroying the asker resets its parent: slow unclamped at once. */
	assert_ptr_equal(iolat_group_scale_grp(root), fast);
	assert_int_equal(iolat_group_destroy(fast), 0);
	assert_reset(root);
	assert_int_equal(t_depth(slow), T_MAX);
	assert_false(iolat_ctl_enabled(ctl));
	/* The name is free again. */
	assert_int_equal(iolat_group_create(ctl, NULL, "fast", &again), 0);
	assert_int_equal(iolat_group_destroy(again), 0);
	assert_int_equal(t_check_idle(ctl), 0);
	iolat_ctl_destroy(ctl);
}

static void test_disabled_path(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(2, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0);
	struct iolat_group *b = t_grp(ctl, a, "b", 0);
	struct iolat_io io[3];

	assert_false(iolat_ctl_enabled(ctl));
	for (int i = 0; i < 3; i++)
		assert_int_equal(t_submit(b, 0, &io[i], NULL), 0);
	assert_int_equal(t_stat(a).inflight, 0);
	assert_int_equal(t_stat(b).inflight, 0);
	/* Enabled while those are in flight; their completion takes nothing back. */
	assert_int_equal(iolat_group_set_target(a, 1 * T_MS), 0);
	assert_true(iolat_ctl_enabled(ctl));
	t_advance(1 * T_MS);
	for (int i = 0; i < 3; i++)
		t_done(&io[i]);
	assert_int_equal(t_stat(a).inflight, 0);
	assert_int_equal(t_stat(b).inflight, 0);
	assert_int_equal(t_stat(a).total, 0);
	/* Admitted while enabled, completed after the last target is gone. */
	assert_int_equal(t_submit(b, 0, &io[0], NULL), 0);
	assert_int_equal(t_stat(a).inflight, 1);
	assert_int_equal(iolat_group_set_target(a, 0), 0);
	assert_false(iolat_ctl_enabled(ctl));
	t_advance(1 * T_MS);
	t_done(&io[0]);
	assert_int_equal(t_stat(a).inflight, 0);
	assert_int_equal(t_stat(b).inflight, 0);
	assert_int_equal(t_check_idle(ctl), 0);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_change_resets_parent),
		cmocka_unit_test(test_reset_is_parents_only),
		cmocka_unit_test(test_clear_clears_delay),
		cmocka_unit_test(test_clear_clears_stuck_delay),
		cmocka_unit_test(test_destroy),
		cmocka_unit_test(test_disabled_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
