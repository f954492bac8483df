/* SPDX-License-Identifier: MIT */
/*
 * test_inflight_mode.c - a level's in-flight count while it is unlimited is
 * counted per thread (distributed) and folded into the shared counter before
 * a limit is set (src/core/inflight.c, docs/fastpath.md):
 *  - unlimited: admissions count on the thread's own slot, nothing on the
 *    shared counter; iolat_group_stat() and iolat_group_destroy() see them;
 *  - a scale-down from unlimited (kernel and adaptive rules) folds: the
 *    shared counter is exact at once and the new limit holds for the very
 *    next admission;
 *  - the scale-up back to the default cookie counts distributed again, and
 *    the I/O admitted while exact completes correctly;
 *  - completions on another thread (its own slot, or the shared last slot)
 *    keep the sum right, and a fold then gives the exact count;
 *  - the exact read of the checker folds without leaving the mode.
 * White-box through src/core/ctl.h (mode, locals, the shared counter).
 * Context: cmocka on the virtual clock; main, and one short-lived helper
 * thread per test that needs a second thread (joined before any check).
 */
#include "helpers/t_ctl.h"

#include <pthread.h>

#include "core/ctl.h"

#define QD 8 /* the first scale-down step: unlimited -> 4 */

/* This thread's id assigned (its first admission runs out of line and
 * counts on the shared counter): done on a controller of its own. */
static void own_a_slot(void)
{
	struct iolat_ctl_config cfg = { .nr_stat_slots = 16 };
	struct iolat_ctl *ctl;
	struct iolat_group *g;
	struct iolat_io io;

	assert_int_equal(iolat_ctl_create(&cfg, &ctl), 0);
	assert_int_equal(iolat_group_create(ctl, NULL, "warm", &g), 0);
	assert_int_equal(iolat_group_set_target(g, T_MS), 0);
	assert_int_equal(iolat_throttle_async(g, 0, &io, NULL), 0);
	iolat_done(&io);
	iolat_ctl_destroy(ctl);
}

struct pair {
	struct iolat_ctl *ctl;
	struct iolat_group *fast, *slow;
};

static struct pair setup(unsigned flags, uint32_t slots)
{
	struct iolat_ctl_config cfg = { .nr_requests = QD, .flags = flags, .max_groups = 16,
					.nr_stat_slots = slots };
	struct pair p;

	own_a_slot();
	p.ctl = t_ctl_new_cfg(cfg);
	p.fast = t_grp(p.ctl, NULL, "fast", 1 * T_MS);
	p.slow = t_grp(p.ctl, NULL, "slow", 0);
	return p;
}

static int64_t locals(const struct iolat_group *g)
{
	const struct iolat_slot *s = grp_slots(g);
	int64_t sum = 0;

	for (uint32_t i = 0; i < g->last_slot; i++)
		sum += atomic_load(&s[i].local);
	return sum;
}

static uint32_t shared(const struct iolat_group *g)
{
	return atomic_load(&g->inflight);
}

static uint32_t mode(const struct iolat_group *g)
{
	return atomic_load(&g->mode);
}

static void submit_n(struct iolat_group *g, struct iolat_io *io, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(t_submit(g, 0, &io[i], NULL), 0);
}

/* A completion 1 us later: with a latency, so that it takes the inline path
 * (a completion at its admission's time goes out of line). */
static void done_later(struct iolat_io *io)
{
	t_advance(T_US);
	t_done(io);
}

static int nowait(struct iolat_group *g, struct iolat_io *io)
{
	return t_submit(g, IOLAT_IO_NOWAIT, io, NULL);
}

/* fast misses; slow's next (NOWAIT) submit applies the step: its result. */
static int miss_then_submit(struct pair *p, struct iolat_io *io)
{
	t_miss(p->fast);
	return nowait(p->slow, io);
}

static void test_unlimited_counts_per_thread(void **state)
{
	struct pair p = setup(0, 16);
	struct iolat_io io[5];

	submit_n(p.slow, io, 5);
	assert_int_equal(mode(p.slow), IOLAT_MODE_DIST);
	assert_int_equal(shared(p.slow), 0);
	assert_int_equal(locals(p.slow), 5);
	assert_int_equal(t_stat(p.slow).inflight, 5);
	/* Not idle: destroy must see the I/O counted on the slots (its exact
	 * read folds them; the level stays distributed). */
	assert_int_equal(iolat_group_destroy(p.slow), -EBUSY);
	assert_int_equal(shared(p.slow), 5);
	assert_int_equal(locals(p.slow), 0);
	assert_int_equal(mode(p.slow), IOLAT_MODE_DIST);
	for (int i = 0; i < 5; i++)
		done_later(&io[i]);
	assert_int_equal(locals(p.slow), -5);
	assert_int_equal(t_stat(p.slow).inflight, 0);
	assert_int_equal(t_check_idle(p.ctl), 0);
	assert_int_equal(iolat_group_destroy(p.slow), 0);
	iolat_ctl_destroy(p.ctl);
}

/* Six I/Os in flight on the slots; the scale-down to 4 folds them. */
static void check_fold_and_limit(unsigned flags)
{
	struct pair p = setup(flags, 16);
	struct iolat_io io[6], x, y;

	submit_n(p.slow, io, 6);
	assert_int_equal(shared(p.slow), 0);
	assert_int_equal(miss_then_submit(&p, &x), -EAGAIN); /* 6 >= 4 at once */
	assert_int_equal(t_depth(p.slow), 4);
	assert_int_equal(mode(p.slow), IOLAT_MODE_EXACT);
	assert_int_equal(shared(p.slow), 6);
	assert_int_equal(locals(p.slow), 0);
	assert_int_equal(t_check_invariants(p.ctl), 0);
	/* Completions of I/O admitted on the slots release the shared count. */
	for (int i = 0; i < 3; i++)
		done_later(&io[i]);
	assert_int_equal(shared(p.slow), 3);
	assert_int_equal(nowait(p.slow, &x), 0);
	assert_int_equal(nowait(p.slow, &y), -EAGAIN); /* 4 of 4 */
	assert_int_equal(locals(p.slow), 0);
	for (int i = 3; i < 6; i++)
		done_later(&io[i]);
	done_later(&x);
	assert_int_equal(t_check_idle(p.ctl), 0);
	iolat_ctl_destroy(p.ctl);
}

static void test_scale_down_folds(void **state)
{
	check_fold_and_limit(0);
}

/* The adaptive mode throttles by rate: a miss never limits the depth, so
 * the level stays distributed. */
static void test_adaptive_stays_distributed(void **state)
{
	struct pair p = setup(IOLAT_CTL_ADAPTIVE, 16);
	struct iolat_io io[6], x;

	submit_n(p.slow, io, 6);
	assert_int_equal(miss_then_submit(&p, &x), 0);
	assert_int_equal(t_depth(p.slow), IOLAT_DEPTH_MAX);
	assert_int_equal(mode(p.slow), IOLAT_MODE_DIST);
	assert_int_equal(t_stat(p.slow).inflight, 7); /* no fold: locals + the slow path's one */
	assert_int_equal(locals(p.slow), 7 - (int64_t)shared(p.slow));
	for (int i = 0; i < 6; i++)
		done_later(&io[i]);
	done_later(&x);
	assert_int_equal(t_check_idle(p.ctl), 0);
	iolat_ctl_destroy(p.ctl);
}

/* Down one step, then back up to the default: distributed again. */
static void test_scale_up_distributes(void **state)
{
	struct pair p = setup(0, 16);
	struct iolat_io io[2], x, held;

	assert_int_equal(miss_then_submit(&p, &held), 0);
	assert_int_equal(t_depth(p.slow), 4);
	assert_int_equal(mode(p.slow), IOLAT_MODE_EXACT);
	assert_int_equal(shared(p.slow), 1);
	/* qd 8: the cookie went down by 2; up by 1 per good window. */
	t_pass(p.fast);
	t_poke(p.slow);
	assert_int_equal(t_depth(p.slow), 5);
	assert_int_equal(mode(p.slow), IOLAT_MODE_EXACT);
	t_pass(p.fast);
	assert_int_equal(t_cookie_of(iolat_ctl_root(p.ctl)), T_D);
	assert_int_equal(nowait(p.slow, &x), 0);
	assert_int_equal(t_depth(p.slow), T_MAX);
	assert_int_equal(mode(p.slow), IOLAT_MODE_DIST);
	/* x went out of line (the cookie moved): on the shared counter; the
	 * next admissions count on the slot. */
	assert_int_equal(shared(p.slow), 2);
	submit_n(p.slow, io, 2);
	assert_int_equal(shared(p.slow), 2);
	assert_int_equal(locals(p.slow), 2);
	assert_int_equal(t_stat(p.slow).inflight, 4);
	/* The I/O admitted while exact completes on the slot: the sum holds. */
	done_later(&held);
	assert_int_equal(t_stat(p.slow).inflight, 3);
	done_later(&x);
	done_later(&io[0]);
	done_later(&io[1]);
	assert_int_equal(t_stat(p.slow).inflight, 0);
	assert_int_equal(locals(p.slow), -2); /* +2 -4 on the slot, +2 shared */
	assert_int_equal(t_check_idle(p.ctl), 0); /* an exact read: folds */
	assert_int_equal(shared(p.slow), 0);
	assert_int_equal(locals(p.slow), 0);
	iolat_ctl_destroy(p.ctl);
}

/* A second thread completes (or admits) I/O of main's. */
struct helper {
	struct iolat_group *g; /* admit into it, else complete */
	struct iolat_io *io;
	unsigned n;
	bool own;              /* take an owned slot first */
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;

	if (h->own)
		own_a_slot();
	for (unsigned i = 0; i < h->n; i++) {
		if (h->g)
			assert_int_equal(t_submit(h->g, 0, &h->io[i], NULL), 0);
		else
			done_later(&h->io[i]);
	}
	return NULL;
}

static void run_helper(struct helper *h)
{
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, helper_main, h), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
}

static void test_other_thread_completes(void **state)
{
	struct pair p = setup(0, 16);
	struct iolat_io io[3], x;
	struct helper h = { .io = io, .n = 2, .own = true };

	submit_n(p.slow, io, 3);
	run_helper(&h); /* completes io[0], io[1] on its own slot */
	assert_int_equal(shared(p.slow), 0);
	assert_int_equal(locals(p.slow), 1);
	assert_int_equal(t_stat(p.slow).inflight, 1);
	/* The fold gathers +3 and -2 from two slots: exactly 1. */
	assert_int_equal(miss_then_submit(&p, &x), 0);
	assert_int_equal(mode(p.slow), IOLAT_MODE_EXACT);
	assert_int_equal(shared(p.slow), 2);
	assert_int_equal(locals(p.slow), 0);
	h.io = &io[2];
	h.n = 1;
	run_helper(&h);
	done_later(&x);
	assert_int_equal(t_check_idle(p.ctl), 0);
	iolat_ctl_destroy(p.ctl);
}

/* Two stat slots: slot 0 is main's, every other thread shares slot 1 and
 * counts on the shared counter, even while distributed. */
static void test_shared_slot_thread(void **state)
{
	struct pair p = setup(0, 2);
	struct iolat_io io[3], x;
	struct helper h = { .g = p.slow, .io = io, .n = 2 };

	assert_int_equal(p.slow->last_slot, 1);
	run_helper(&h); /* admits io[0], io[1]: shared counter */
	assert_int_equal(shared(p.slow), 2);
	assert_int_equal(locals(p.slow), 0);
	submit_n(p.slow, &io[2], 1);
	done_later(&io[0]); /* main, on its slot: -1 there */
	assert_int_equal(shared(p.slow), 2);
	assert_int_equal(locals(p.slow), 0); /* +1 -1 on main's slot */
	done_later(&io[1]);
	assert_int_equal(locals(p.slow), -1);
	assert_int_equal(t_stat(p.slow).inflight, 1);
	assert_int_equal(miss_then_submit(&p, &x), 0);
	assert_int_equal(shared(p.slow), 2);
	done_later(&io[2]);
	done_later(&x);
	assert_int_equal(t_check_idle(p.ctl), 0);
	iolat_ctl_destroy(p.ctl);
}

/* The checker's exact read folds, and the level stays distributed. */
static void test_exact_read_keeps_mode(void **state)
{
	struct pair p = setup(0, 16);
	struct iolat_io io[4];

	submit_n(p.slow, io, 4);
	assert_int_equal(iolat_inflight_exact(p.slow), 4);
	assert_int_equal(mode(p.slow), IOLAT_MODE_DIST);
	assert_int_equal(shared(p.slow), 4);
	assert_int_equal(locals(p.slow), 0);
	done_later(&io[0]); /* on the slot again: -1 */
	assert_int_equal(locals(p.slow), -1);
	assert_int_equal(iolat_ctl_check_invariants(p.ctl, NULL, 0), 0);
	assert_int_equal(shared(p.slow), 3);
	assert_int_equal(locals(p.slow), 0);
	for (int i = 1; i < 4; i++)
		done_later(&io[i]);
	assert_int_equal(t_check_idle(p.ctl), 0);
	iolat_ctl_destroy(p.ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlimited_counts_per_thread),
		cmocka_unit_test(test_scale_down_folds),
		cmocka_unit_test(test_adaptive_stays_distributed),
		cmocka_unit_test(test_scale_up_distributes),
		cmocka_unit_test(test_other_thread_completes),
		cmocka_unit_test(test_shared_slot_thread),
		cmocka_unit_test(test_exact_read_keeps_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
