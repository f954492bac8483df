/* SPDX-License-Identifier: MIT */
/*
 * test_adaptive_threads.c - the adaptive mode under concurrency, on the real
 * clock: a protected group whose I/O always takes 2 ms against a 1 ms target
 * (every window misses) beside a bulk group of 3 threads issuing 64 KiB I/Os
 * through iolat_throttle_bytes() (the pace gate, then a blocking admission),
 * while a ticker calls iolat_ctl_tick(), reads stats and io.stat lines and
 * checks the invariants. For up to a few seconds: the bulk group is watched,
 * measured and paced (its pace rate becomes non-zero; its depth is never
 * limited); when the protected group stops, the pace gate stops holding it
 * back and a tick or two releases it (pace 0); nothing is left in flight; no
 * invariant breaks.
 * Under TSan this is the race check of adaptive.c and pace.c.
 * Threads: main (set-up, final checks), 1 protected, 3 bulk, 1 ticker.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "iolatency.h"
#include "helpers/t_stress.h"

#define NR_BULK 3

static struct iolat_ctl *ctl;
static struct iolat_group *fast, *bulk;
static atomic_bool stop_fast, stop_all;
static atomic_uint errors;
static _Atomic uint64_t max_pace;

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static void *fast_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_fast)) {
		struct iolat_io io;

		if (iolat_throttle(fast, 0, &io))
			atomic_fetch_add(&errors, 1);
		sleep_us(2000);
		iolat_done(&io);
	}
	return NULL;
}

static void *bulk_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_all)) {
		struct iolat_io io;

		if (iolat_throttle_bytes(bulk, 0, 64 * 1024, &io))
			atomic_fetch_add(&errors, 1);
		sleep_us(200);
		iolat_done(&io);
	}
	return NULL;
}

static void *ticker_main(void *arg)
{
	char line[256];

	(void)arg;
	while (!atomic_load(&stop_all)) {
		struct iolat_group_stat st;

		iolat_ctl_tick(ctl);
		if (iolat_group_stat(bulk, &st) == 0 && st.pace_bps > atomic_load(&max_pace))
			atomic_store(&max_pace, st.pace_bps);
		if (iolat_group_format_stat(bulk, line, sizeof(line)) < 0 ||
		    !strstr(line, " pace_bps="))
			atomic_fetch_add(&errors, 1);
		if (t_check_invariants_ex(ctl, T_INV_FIXED_QD))
			atomic_fetch_add(&errors, 1);
		sleep_us(20000);
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct iolat_ctl_config cfg = { .nr_requests = 64, .flags = IOLAT_CTL_ADAPTIVE };
	pthread_t f, b[NR_BULK], t;
	struct iolat_group_stat st;

	(void)state;
	assert_int_equal(iolat_ctl_create(&cfg, &ctl), 0);
	assert_int_equal(iolat_group_create(ctl, NULL, "fast", &fast), 0);
	assert_int_equal(iolat_group_create(ctl, NULL, "bulk", &bulk), 0);
	assert_int_equal(iolat_group_set_target(fast, 1000000), 0);
	assert_int_equal(pthread_create(&f, NULL, fast_main, NULL), 0);
	for (int i = 0; i < NR_BULK; i++)
		assert_int_equal(pthread_create(&b[i], NULL, bulk_main, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, ticker_main, NULL), 0);
	/* A miss, a measured window, then a limit: wait for a rate. */
	for (int i = 0; i < 200 && atomic_load(&max_pace) == 0; i++)
		sleep_us(50000);
	assert_true(atomic_load(&max_pace) > 0);
	assert_int_equal(iolat_group_stat(bulk, &st), 0);
	assert_int_equal(st.depth, IOLAT_DEPTH_MAX); /* a rate, never a depth */
	assert_int_equal(iolat_group_stat(iolat_ctl_root(ctl), &st), 0);
	assert_true(st.base_bps > 0 && st.limit_bps > 0);
	/* The protected group stops: the article's release at the tick. */
	atomic_store(&stop_fast, true);
	pthread_join(f, NULL);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(iolat_group_stat(bulk, &st), 0);
		if (st.pace_bps == 0)
			break;
		sleep_us(50000);
	}
	assert_int_equal(st.depth, IOLAT_DEPTH_MAX);
	assert_int_equal(st.pace_bps, 0);
	atomic_store(&stop_all, true);
	for (int i = 0; i < NR_BULK; i++)
		pthread_join(b[i], NULL);
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&errors), 0);
	assert_int_equal(t_check_idle(ctl), 0);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
