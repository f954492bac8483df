/* SPDX-License-Identifier: MIT */
/*
 * test_stat_slots.c - per-thread stat slots lose no update, however many
 * threads a process has had. Completions record into a slot per thread: an
 * owner adds with a plain load+store, every other thread with atomic adds;
 * no thread may ever add into a slot that another thread owns. (Regression:
 * thread nr_slots+k used to share owner k's slot, and the owner's plain
 * load+store lost its adds: nr_done and the window counts came out short.)
 * Thread ids are handed out once per process, in order of first completion,
 * so this is its own program and the main thread completes first (id 0).
 * Threads: main and the workers each test starts; a virtual clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "iolatency.h"
#include "helpers/t_stress.h"

#define NR_MANY 24

static struct iolat_group *grp;
static pthread_barrier_t start; /* workers and main begin together (no spinning) */
static uint64_t pairs_per_thread;

static uint64_t fixed_clock(void *ctx)
{
	(void)ctx;
	return 1;
}

static const struct iolat_clock clk = { .now_ns = fixed_clock };

/* @n admissions and completions, each with a 1 ns latency (recorded). */
static void pairs(uint64_t n)
{
	struct iolat_io io;

	for (uint64_t i = 0; i < n; i++) {
		if (iolat_throttle_async_at(grp, 0, &io, NULL, 1) != 0)
			abort();
		iolat_done_at(&io, 2);
	}
}

static void *one_pair(void *arg)
{
	(void)arg;
	pairs(1);
	return NULL;
}

static void *many_pairs(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	pairs(pairs_per_thread);
	return NULL;
}

static struct iolat_ctl *make_ctl(uint32_t slots)
{
	struct iolat_ctl_config cfg = { .nr_stat_slots = slots, .clock = &clk };
	struct iolat_ctl *ctl;

	assert_int_equal(iolat_ctl_create(&cfg, &ctl), 0);
	assert_int_equal(iolat_group_create(ctl, NULL, "g", &grp), 0);
	assert_int_equal(iolat_group_set_target(grp, 1000000000), 0);
	return ctl;
}

static void check_counts(uint64_t expect)
{
	struct iolat_group_stat st;

	assert_int_equal(iolat_group_stat(grp, &st), 0);
	if (st.nr_done != expect || st.total != expect)
		print_message("nr_done %llu, window total %llu, expected %llu\n",
			      (unsigned long long)st.nr_done, (unsigned long long)st.total,
			      (unsigned long long)expect);
	assert_int_equal(st.nr_done, expect);
	assert_int_equal(st.total, expect); /* the window never closes: fixed clock */
	assert_int_equal(st.missed, 0);
}

/* 2 slots: main is thread 0 (an owner); thread 2 used to share its slot. */
static void test_owner_and_later_thread(void **state)
{
	struct iolat_ctl *ctl = make_ctl(2);
	pthread_t t;

	(void)state;
	pthread_barrier_init(&start, NULL, 2);
	pairs(1);                                               /* main: thread 0 */
	assert_int_equal(pthread_create(&t, NULL, one_pair, NULL), 0); /* thread 1 */
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, many_pairs, NULL), 0); /* thread 2 */
	pthread_barrier_wait(&start);
	pairs(pairs_per_thread);
	assert_int_equal(pthread_join(t, NULL), 0);
	check_counts(2 + 2 * pairs_per_thread);
	pthread_barrier_destroy(&start);
	iolat_ctl_destroy(ctl);
}

/* More threads than the default 16 slots, all completing at once. */
static void test_more_threads_than_slots(void **state)
{
	struct iolat_ctl *ctl = make_ctl(0);
	pthread_t t[NR_MANY];

	(void)state;
	pthread_barrier_init(&start, NULL, NR_MANY + 1);
	for (int i = 0; i < NR_MANY; i++)
		assert_int_equal(pthread_create(&t[i], NULL, many_pairs, NULL), 0);
	pthread_barrier_wait(&start);
	pairs(pairs_per_thread); /* main too: an owner */
	for (int i = 0; i < NR_MANY; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	check_counts((NR_MANY + 1) * pairs_per_thread);
	pthread_barrier_destroy(&start);
	iolat_ctl_destroy(ctl);
}

/* One slot: nobody owns it, everybody adds atomically. */
static void test_single_shared_slot(void **state)
{
	struct iolat_ctl *ctl = make_ctl(1);
	pthread_t t[4];

	(void)state;
	pthread_barrier_init(&start, NULL, 5);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, many_pairs, NULL), 0);
	pthread_barrier_wait(&start);
	pairs(pairs_per_thread);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	check_counts(5 * pairs_per_thread);
	pthread_barrier_destroy(&start);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_and_later_thread), /* first: main is thread 0 */
		cmocka_unit_test(test_more_threads_than_slots),
		cmocka_unit_test(test_single_shared_slot),
	};

	/* Enough for lost updates to show (they did at 10^5 a thread) without the bug's
	 * fix; TSan instruments every access: keep it to seconds there. */
	pairs_per_thread = t_stress_under_tsan() ? 20000 :
			   t_stress_env_flag("IOLAT_TEST_SHORT") ? 100000 : 1000000;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
