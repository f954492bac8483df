/* SPDX-License-Identifier: MIT */
/*
 * test_hier.c - hierarchical admission (docs/controller.md R3, R4, R8):
 *  - an I/O holds one slot at every level from its group up to, not
 *    including, the root (bypass I/O too), and completion releases each;
 *  - with two throttled levels, an async waiter granted at the lower level
 *    continues up and queues, FIFO, at the upper one;
 *  - NOWAIT refused at an upper level and a cancelled waiter release the
 *    lower-level slots they had taken.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

static void test_slot_at_every_level(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0);
	struct iolat_group *b = t_grp(ctl, a, "b", 0);
	struct iolat_group *c = t_grp(ctl, b, "c", 0);
	struct iolat_io io[4];

	(void)t_grp(ctl, NULL, "t", 1 * T_MS); /* enables the controller */
	assert_int_equal(t_submit(c, 0, &io[0], NULL), 0);
	assert_int_equal(t_submit(c, IOLAT_IO_SWAP, &io[1], NULL), 0);
	assert_int_equal(t_submit(b, 0, &io[2], NULL), 0);
	assert_int_equal(t_submit(root, 0, &io[3], NULL), 0);
	assert_int_equal(t_stat(c).inflight, 2);
	assert_int_equal(t_stat(b).inflight, 3);
	assert_int_equal(t_stat(a).inflight, 3);
	assert_int_equal(t_stat(root).inflight, 0);
	t_advance(1 * T_MS);
	t_done(&io[0]);
	assert_int_equal(t_stat(c).inflight, 1);
	assert_int_equal(t_stat(b).inflight, 2);
	assert_int_equal(t_stat(a).inflight, 2);
	for (int i = 1; i < 4; i++)
		t_done(&io[i]);
	assert_int_equal(t_stat(a).inflight, 0);
	assert_int_equal(t_check_idle(ctl), 0);
	iolat_ctl_destroy(ctl);
}

struct two_levels {
	struct iolat_ctl *ctl;
	struct iolat_group *root, *p, *q, *c, *c2;
};

/* root -> { p -> { c, c2 (1 ms) }, q (1 ms) }, qd 2: q and c2 miss once,
 * so p (under root) and c (under p) are at depth 1. */
static struct two_levels two_levels(void)
{
	struct two_levels t;

	t.ctl = t_ctl_new(2, 0, 0);
	t.root = iolat_ctl_root(t.ctl);
	t.p = t_grp(t.ctl, NULL, "p", 0);
	t.q = t_grp(t.ctl, NULL, "q", 1 * T_MS);
	t.c = t_grp(t.ctl, t.p, "c", 0);
	t.c2 = t_grp(t.ctl, t.p, "c2", 1 * T_MS);
	t_miss(t.c2); /* first: its I/O must pass p before p is throttled */
	t_miss(t.q);
	t_poke(t.c);
	assert_int_equal(t_depth(t.p), 1);
	assert_int_equal(t_depth(t.c), 1);
	assert_int_equal(t_depth(t.c2), T_MAX);
	return t;
}

static void test_waiter_continues_up(void **state)
{
	struct two_levels t = two_levels();
	struct t_waiter w1, w2;
	struct iolat_io io0;

	assert_int_equal(t_submit(t.c, 0, &io0, NULL), 0);        /* holds c, p */
	t_waiter_init(&w1, 1);
	t_waiter_init(&w2, 2);
	assert_int_equal(t_wsubmit(t.c, 0, &w1), IOLAT_QUEUED);   /* waits at c */
	assert_int_equal(t_wsubmit(t.c2, 0, &w2), IOLAT_QUEUED);  /* holds c2, waits at p */
	assert_int_equal(t_stat(t.c).waiters, 1);
	assert_int_equal(t_stat(t.p).waiters, 1);
	assert_int_equal(t_stat(t.c2).inflight, 1);
	/* io0 done: w1 gets c and moves up to p, behind w2; w2 gets p. */
	t_advance(1 * T_MS);
	t_done(&io0);
	assert_int_equal(t_nr_grants, 1);
	assert_int_equal(t_grants[0], 2);
	assert_int_equal(t_stat(t.c).waiters, 0);
	assert_int_equal(t_stat(t.c).inflight, 1);
	assert_int_equal(t_stat(t.p).waiters, 1);
	assert_int_equal(t_stat(t.p).inflight, 1);
	assert_int_equal(w1.granted, 0);
	t_done(&w2.io);
	assert_int_equal(t_nr_grants, 2);
	assert_int_equal(t_grants[1], 1);
	assert_int_equal(t_stat(t.p).inflight, 1);
	t_done(&w1.io);
	assert_int_equal(t_check_idle(t.ctl), 0);
	iolat_ctl_destroy(t.ctl);
}

static void test_refused_and_cancelled_hold_nothing(void **state)
{
	struct two_levels t = two_levels();
	struct t_waiter w3;
	struct iolat_io io0, nw;

	assert_int_equal(t_submit(t.c, 0, &io0, NULL), 0);
	/* c2 has room, p has not. */
	assert_int_equal(t_submit(t.c2, IOLAT_IO_NOWAIT, &nw, NULL), -EAGAIN);
	assert_int_equal(t_stat(t.c2).inflight, 0);
	assert_int_equal(t_stat(t.p).inflight, 1);
	t_waiter_init(&w3, 3);
	assert_int_equal(t_wsubmit(t.c2, 0, &w3), IOLAT_QUEUED);
	assert_int_equal(t_stat(t.c2).inflight, 1);
	assert_int_equal(iolat_throttle_cancel(&w3.io), 0);
	assert_int_equal(t_stat(t.c2).inflight, 0);
	assert_int_equal(t_stat(t.p).waiters, 0);
	t_done(&io0);
	assert_int_equal(t_nr_grants, 0);
	assert_int_equal(t_check_idle(t.ctl), 0);
	iolat_ctl_destroy(t.ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_at_every_level),
		cmocka_unit_test(test_waiter_continues_up),
		cmocka_unit_test(test_refused_and_cancelled_hold_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
