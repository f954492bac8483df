/* SPDX-License-Identifier: MIT */
/*
 * test_timer.c - the once-a-second tick (docs/controller.md R13):
 *  - default: at a tick, if the group that asked for throttling completed no
 *    I/O since the previous tick, its parent's cookie is reset to the default
 *    and everybody under that parent is unclamped at once (waiters granted),
 *    without anyone submitting; an active asker keeps the throttling;
 *  - IOLAT_CTL_KERNEL_COMPAT: scale_grp is forgotten once 5 s have passed
 *    since the last scale event (and the cookie does not move at that tick),
 *    then the cookie climbs one step per tick (by 1 while more than qd below
 *    the default, then by qd/16) without touching last_scale_event; a tick
 *    with no submission since the previous one does nothing.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

static void test_default_quiet_asker_unclamps(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(2, 0, 0);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 0);
	struct iolat_group *slow2 = t_grp(ctl, NULL, "slow2", 0);
	struct iolat_io held;
	struct t_waiter w;
	uint64_t l;

	/* Nothing throttled: a tick changes nothing. */
	iolat_ctl_tick(ctl);
	assert_int_equal(t_cookie_of(root), T_D);

	t_advance(400 * T_MS);
	iolat_ctl_tick(ctl); /* the tick before the throttling */
	t_miss(fast);
	l = t_last_event(root);
	assert_int_equal(t_cookie_of(root), T_D - 1); /* qd 2: step 1 */
	t_poke(slow);
	t_poke(slow2);
	assert_int_equal(t_depth(slow), 1);
	assert_int_equal(t_depth(slow2), 1);
	assert_int_equal(t_submit(slow, 0, &held, NULL), 0);
	t_waiter_init(&w, 1);
	assert_int_equal(t_wsubmit(slow, 0, &w), IOLAT_QUEUED);

	/* Tick 1: fast completed I/O (its window) since the previous tick. */
	t_set_now(l + 500 * T_MS);
	iolat_ctl_tick(ctl);
	assert_int_equal(t_cookie_of(root), T_D - 1);
	assert_ptr_equal(iolat_group_scale_grp(root), fast);

	/* Tick 2: fast did I/O again meanwhile. */
	t_fill(fast, 1, 500 * T_US, 0);
	t_set_now(l + 1500 * T_MS);
	iolat_ctl_tick(ctl);
	assert_int_equal(t_cookie_of(root), T_D - 1);
	assert_int_equal(t_depth(slow), 1);

	/* Tick 3: only slow was busy, fast was quiet: unclamp everybody. */
	t_fill(slow2, 1, 1 * T_MS, 0);
	t_set_now(l + 2500 * T_MS);
	assert_int_equal(w.granted, 0);
	iolat_ctl_tick(ctl);
	assert_int_equal(t_cookie_of(root), T_D);
	assert_null(iolat_group_scale_grp(root));
	assert_int_equal(t_stat(root).child_scale_lat_ns, 0);
	assert_int_equal(t_last_event(root), 0);
	assert_int_equal(t_depth(slow), T_MAX);  /* without submitting */
	assert_int_equal(t_depth(slow2), T_MAX);
	assert_int_equal(w.granted, 1);          /* its waiter got its slot */
	assert_int_equal(t_stat(slow).inflight, 2);
	t_done(&held);
	t_done(&w.io);
	/* The reset forgot the last event: the next miss acts at once. */
	assert_false(t_window(fast, 10, 2 * T_MS, 0, 0, 0));
	assert_int_equal(t_cookie_of(root), T_D - 1);
	assert_int_equal(t_check_idle(ctl), 0);
	iolat_ctl_destroy(ctl);
}

static void test_kernel_timer(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, IOLAT_CTL_KERNEL_COMPAT);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 0);
	uint32_t dist = 81;
	uint64_t l;

	for (unsigned k = 0; k < 6; k++) {
		t_miss(fast);
		t_poke(slow);
	}
	assert_int_equal(t_cookie_of(root), T_D - 81);
	assert_int_equal(t_depth(slow), 1);
	l = t_last_event(root);

	/* fast is quiet; slow keeps submitting. Under 5 s: nothing. */
	for (unsigned s = 1; s <= 4; s++) {
		t_poke(slow);
		t_set_now(l + s * T_S);
		iolat_ctl_tick(ctl);
		assert_ptr_equal(iolat_group_scale_grp(root), fast);
		assert_int_equal(t_cookie_of(root), T_D - 81);
	}
	t_poke(slow);
	t_set_now(l + 5 * T_S - 1);
	iolat_ctl_tick(ctl);
	assert_ptr_equal(iolat_group_scale_grp(root), fast);
	/* 5 s: the asker is forgotten; the cookie waits for the next tick. */
	t_poke(slow);
	t_set_now(l + 5 * T_S);
	iolat_ctl_tick(ctl);
	assert_null(iolat_group_scale_grp(root));
	assert_int_equal(t_cookie_of(root), T_D - 81);
	assert_int_equal(t_stat(root).child_scale_lat_ns, 1 * T_MS); /* not cleared */

	/* No submission since the previous tick: no tick work. */
	t_set_now(l + 6 * T_S);
	iolat_ctl_tick(ctl);
	assert_int_equal(t_cookie_of(root), T_D - 81);

	/* Then one step per tick: 17 of +1 (81 -> 64), 16 of +4. */
	for (unsigned s = 1; s <= 33; s++) {
		t_poke(slow);
		t_advance(1 * T_S);
		iolat_ctl_tick(ctl);
		dist -= dist > 64 ? 1 : 4;
		assert_int_equal(t_cookie_of(root), T_D - dist);
		assert_int_equal(t_last_event(root), l);
		/* Again without a submission: nothing. */
		t_advance(1 * T_S);
		iolat_ctl_tick(ctl);
		assert_int_equal(t_cookie_of(root), T_D - dist);
	}
	assert_int_equal(dist, 0);
	t_poke(slow);
	t_advance(1 * T_S);
	iolat_ctl_tick(ctl);
	assert_int_equal(t_cookie_of(root), T_D);
	t_poke(slow);
	assert_int_equal(t_depth(slow), T_MAX);
	assert_int_equal(t_use_delay(slow), 0);
	iolat_ctl_destroy(ctl);
}

/* The kernel's timer alone (IOLAT_CTL_COMPAT_TIMER) behaves the same. */
static void test_compat_timer_flag(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, IOLAT_CTL_COMPAT_TIMER);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 0);
	uint64_t l;

	t_miss(fast);
	l = t_last_event(root);
	/* fast quiet for several ticks: the default would have reset by now. */
	for (unsigned s = 1; s <= 3; s++) {
		t_poke(slow);
		t_set_now(l + s * T_S);
		iolat_ctl_tick(ctl);
	}
	assert_int_equal(t_cookie_of(root), T_D - 16);
	assert_ptr_equal(iolat_group_scale_grp(root), fast);
	t_poke(slow);
	t_set_now(l + 5 * T_S);
	iolat_ctl_tick(ctl);
	t_poke(slow);
	t_set_now(l + 6 * T_S);
	iolat_ctl_tick(ctl);
	assert_int_equal(t_cookie_of(root), T_D - 12);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_quiet_asker_unclamps),
		cmocka_unit_test(test_kernel_timer),
		cmocka_unit_test(test_compat_timer_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
