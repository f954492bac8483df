/* SPDX-License-Identifier: MIT */
/*
 * test_waiters.c - slot acquisition, FIFO waiters and hand-off
 * (docs/controller.md R3, R4):
 *  - waiters are granted in arrival order, the waker taking the slot on the
 *    waiter's behalf (so an arrival right after a completion finds it taken);
 *  - a new arrival never overtakes a queued waiter, even with a free slot;
 *  - a scale-up wakes all: as many as fit are granted, in order;
 *  - NOWAIT gives -EAGAIN and holds nothing; cancel returns 0 for a queued
 *    waiter (which is then never granted) and -EALREADY once granted;
 *  - no lost wake-up when everything completes just as a waiter queues
 *    (step 3): checked by threads hammering a depth-1 group (the interleaving
 *    cannot be forced from one thread; a probabilistic check, stronger the
 *    more cores really run in parallel). IOLAT_WAKE_ITERS sets its length.
 * Context: cmocka program on the virtual clock; the last test runs threads.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "helpers/t_ctl.h"
#include "core/ctl.h"

struct duo {
	struct iolat_ctl *ctl;
	struct iolat_group *root, *fast, *slow;
};

/* @misses misses of fast at qd @qd; slow (no target) applies each. */
static struct duo duo(uint32_t qd, unsigned misses)
{
	struct duo d;

	d.ctl = t_ctl_new(qd, 0, 0);
	d.root = iolat_ctl_root(d.ctl);
	d.fast = t_grp(d.ctl, NULL, "fast", 1 * T_MS);
	d.slow = t_grp(d.ctl, NULL, "slow", 0);
	for (unsigned k = 0; k < misses; k++) {
		t_miss(d.fast);
		t_poke(d.slow);
	}
	assert_int_equal(t_depth(d.slow), 1);
	return d;
}

static void assert_grants(const int *want, unsigned n)
{
	assert_int_equal(t_nr_grants, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(t_grants[i], want[i]);
}

static void test_fifo_handoff(void **state)
{
	struct duo d = duo(2, 1);
	struct t_waiter w[5], x;
	struct iolat_io io0;

	assert_int_equal(t_submit(d.slow, 0, &io0, NULL), 0);
	for (int i = 0; i < 5; i++) {
		t_waiter_init(&w[i], i + 1);
		assert_int_equal(t_wsubmit(d.slow, 0, &w[i]), IOLAT_QUEUED);
	}
	assert_int_equal(t_stat(d.slow).waiters, 5);
	assert_int_equal(t_stat(d.slow).inflight, 1);
	t_advance(1 * T_MS);
	t_done(&io0);
	assert_grants((const int[]){ 1 }, 1);
	/* Handed off: the slot is w1's already, a newcomer queues. */
	assert_int_equal(t_stat(d.slow).inflight, 1);
	t_waiter_init(&x, 9);
	assert_int_equal(t_wsubmit(d.slow, 0, &x), IOLAT_QUEUED);
	for (int i = 0; i < 5; i++) {
		t_advance(1 * T_MS);
		t_done(&w[i].io);
		assert_int_equal(t_stat(d.slow).inflight, 1);
	}
	assert_grants((const int[]){ 1, 2, 3, 4, 5, 9 }, 6);
	for (int i = 0; i < 5; i++)
		assert_int_equal(w[i].granted, 1);
	t_done(&x.io);
	assert_int_equal(t_check_idle(d.ctl), 0);
	iolat_ctl_destroy(d.ctl);
}

/* A slot free while someone waits (the limit was raised, the wake-up not yet
 * run): the newcomer still queues behind. */
static void test_no_overtaking(void **state)
{
	struct duo d = duo(2, 1);
	struct t_waiter w1, w2, x;
	struct iolat_io io0, nw;

	assert_int_equal(t_submit(d.slow, 0, &io0, NULL), 0);
	t_waiter_init(&w1, 1);
	t_waiter_init(&w2, 2);
	t_waiter_init(&x, 9);
	assert_int_equal(t_wsubmit(d.slow, 0, &w1), IOLAT_QUEUED);
	assert_int_equal(t_wsubmit(d.slow, 0, &w2), IOLAT_QUEUED);
	atomic_store(&d.slow->max_depth, 2);
	assert_int_equal(t_wsubmit(d.slow, 0, &x), IOLAT_QUEUED);
	assert_int_equal(t_submit(d.slow, IOLAT_IO_NOWAIT, &nw, NULL), -EAGAIN);
	assert_int_equal(t_stat(d.slow).inflight, 1);
	iolat_wake(d.slow, true); /* the raise's wake-all: one fits */
	assert_grants((const int[]){ 1 }, 1);
	t_done(&io0);
	t_done(&w1.io);
	assert_grants((const int[]){ 1, 2, 9 }, 3);
	t_done(&w2.io);
	t_done(&x.io);
	assert_int_equal(t_check_idle(d.ctl), 0);
	iolat_ctl_destroy(d.ctl);
}

static void test_wake_all_after_scale_up(void **state)
{
	struct duo d = duo(64, 6); /* depth 1; one up step gives 1 + 64/16 = 5 */
	struct t_waiter w[6], x;
	struct iolat_io io0;

	assert_int_equal(t_use_delay(d.slow), 0);
	assert_int_equal(t_submit(d.slow, 0, &io0, NULL), 0);
	for (int i = 0; i < 6; i++) {
		t_waiter_init(&w[i], i + 1);
		assert_int_equal(t_wsubmit(d.slow, 0, &w[i]), IOLAT_QUEUED);
	}
	t_pass(d.fast);
	assert_int_equal(t_nr_grants, 0); /* slow has not seen it yet */
	t_waiter_init(&x, 9);
	assert_int_equal(t_wsubmit(d.slow, 0, &x), IOLAT_QUEUED);
	assert_int_equal(t_depth(d.slow), 5);
	assert_grants((const int[]){ 1, 2, 3, 4 }, 4);
	assert_int_equal(t_stat(d.slow).inflight, 5);
	assert_int_equal(t_stat(d.slow).waiters, 3);
	t_done(&io0);
	t_done(&w[0].io);
	t_done(&w[1].io);
	assert_grants((const int[]){ 1, 2, 3, 4, 5, 6, 9 }, 7);
	for (int i = 2; i < 6; i++)
		t_done(&w[i].io);
	t_done(&x.io);
	assert_int_equal(t_check_idle(d.ctl), 0);
	iolat_ctl_destroy(d.ctl);
}

static void test_nowait(void **state)
{
	struct duo d = duo(2, 1);
	struct iolat_io io0, nw;
	struct t_waiter w1;

	assert_int_equal(t_submit(d.slow, IOLAT_IO_NOWAIT, &io0, NULL), 0);
	assert_int_equal(t_submit(d.slow, IOLAT_IO_NOWAIT, &nw, NULL), -EAGAIN);
	assert_int_equal(t_stat(d.slow).inflight, 1);
	assert_int_equal(t_stat(d.slow).waiters, 0);
	/* A waiter given with NOWAIT is not queued either. */
	t_waiter_init(&w1, 1);
	assert_int_equal(t_wsubmit(d.slow, IOLAT_IO_NOWAIT, &w1), -EAGAIN);
	assert_int_equal(t_stat(d.slow).waiters, 0);
	t_done(&io0);
	assert_int_equal(t_nr_grants, 0);
	assert_int_equal(t_check_idle(d.ctl), 0);
	iolat_ctl_destroy(d.ctl);
}

static void test_cancel(void **state)
{
	struct duo d = duo(2, 1);
	struct t_waiter w[4];
	struct iolat_io io0;

	assert_int_equal(t_submit(d.slow, 0, &io0, NULL), 0);
	for (int i = 0; i < 3; i++) {
		t_waiter_init(&w[i], i + 1);
		assert_int_equal(t_wsubmit(d.slow, 0, &w[i]), IOLAT_QUEUED);
	}
	/* Cancel the middle one, then the tail, then queue another. */
	assert_int_equal(iolat_throttle_cancel(&w[1].io), 0);
	assert_int_equal(iolat_throttle_cancel(&w[2].io), 0);
	assert_int_equal(t_stat(d.slow).waiters, 1);
	assert_int_equal(t_stat(d.slow).inflight, 1);
	t_waiter_init(&w[3], 4);
	assert_int_equal(t_wsubmit(d.slow, 0, &w[3]), IOLAT_QUEUED);
	t_done(&io0);
	assert_grants((const int[]){ 1 }, 1);
	assert_int_equal(iolat_throttle_cancel(&w[0].io), -EALREADY);
	t_done(&w[0].io);
	assert_grants((const int[]){ 1, 4 }, 2);
	t_done(&w[3].io);
	assert_int_equal(w[1].granted + w[2].granted, 0);
	assert_int_equal(t_check_idle(d.ctl), 0);
	iolat_ctl_destroy(d.ctl);
}

/* ---- lost wake-ups, with threads ---- */

#define STUCK_NS (5 * T_S) /* a waiter with nothing in flight this long is lost */

struct spin_waiter {
	struct iolat_waiter w;   /* first: granted() casts back */
	_Atomic int granted;
};

static void spin_granted(struct iolat_waiter *w)
{
	atomic_store(&((struct spin_waiter *)w)->granted, 1);
}

struct hammer {
	struct iolat_group *g;
	unsigned iters, done, queued;
	int nr_threads;
	_Atomic int *lost, *ready;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * T_S + (uint64_t)ts.tv_nsec;
}

/*
 * Admit and complete in a loop; a queued admission spins (no sleep, so the
 * threads keep racing) until granted. If it stays queued while nothing is
 * in flight at its level for STUCK_NS, nobody will ever wake it: lost.
 */
static void *hammer_main(void *arg)
{
	struct hammer *h = arg;

	/* Start together, so that the threads really race. */
	atomic_fetch_add(h->ready, 1);
	for (unsigned spin = 1; atomic_load(h->ready) < h->nr_threads; spin++)
		if (spin % 4096 == 0)
			sched_yield();
	for (unsigned i = 0; i < h->iters && !atomic_load(h->lost); i++) {
		struct spin_waiter sw = { .w = { .granted = spin_granted } };
		struct iolat_io io;
		uint64_t idle_since = 0;
		int r = iolat_throttle_async_at(h->g, 0, &io, &sw.w, T_START_NS);

		if (r < 0) {
			atomic_store(h->lost, 2);
			break;
		}
		if (r == IOLAT_QUEUED)
			h->queued++;
		for (unsigned spin = 1; r == IOLAT_QUEUED && !atomic_load(&sw.granted); spin++) {
			if (spin % 4096 == 0)
				sched_yield(); /* let a preempted completer run */
			if (spin % 256)
				continue;
			if (atomic_load(&h->g->inflight)) {
				idle_since = 0;
				continue;
			}
			if (!idle_since) {
				idle_since = mono_ns();
			} else if (mono_ns() - idle_since > STUCK_NS &&
				   iolat_throttle_cancel(&io) == 0) {
				atomic_store(h->lost, 1);
				return NULL;
			}
		}
		iolat_done_at(&io, T_START_NS);
		h->done++;
	}
	return NULL;
}

static void test_no_lost_wakeup(void **state)
{
	enum { NT = 2 };
	struct duo d = duo(2, 1);
	struct hammer h[NT];
	pthread_t th[NT];
	_Atomic int lost = 0, ready = 0;
	unsigned iters = (unsigned)t_stress_env_u64("IOLAT_WAKE_ITERS",
						   t_stress_env_flag("IOLAT_TEST_SHORT") ? 50000 : 300000);
	uint64_t done0 = t_stat(d.slow).nr_done, queued = 0;

	for (int i = 0; i < NT; i++) {
		h[i] = (struct hammer){ .g = d.slow, .iters = iters, .nr_threads = NT,
					 .lost = &lost, .ready = &ready };
		assert_int_equal(pthread_create(&th[i], NULL, hammer_main, &h[i]), 0);
	}
	for (int i = 0; i < NT; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		queued += h[i].queued;
	}
	if (atomic_load(&lost))
		fail_msg("a waiter was never woken with nothing in flight (lost wake-up)");
	for (int i = 0; i < NT; i++)
		assert_int_equal(h[i].done, iters);
	print_message("%llu of %llu admissions waited\n", (unsigned long long)queued,
		      (unsigned long long)NT * iters);
	assert_int_equal(t_depth(d.slow), 1);
	assert_int_equal(t_stat(d.slow).nr_done - done0, (uint64_t)NT * iters);
	assert_int_equal(t_check_idle(d.ctl), 0);
	iolat_ctl_destroy(d.ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_handoff),
		cmocka_unit_test(test_no_overtaking),
		cmocka_unit_test(test_wake_all_after_scale_up),
		cmocka_unit_test(test_nowait),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_no_lost_wakeup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
