/* SPDX-License-Identifier: MIT */
/*
 * test_thread_ids.c - thread ids are reused (src/core/thread_id.c, the exit
 * hook in src/sync/ctl_sync.c): a thread's id picks its stat slot, and only
 * the first nr_stat_slots - 1 ids own one, so a program whose threads come
 * and go must get the ids of exited threads back, or its later threads all
 * run on the shared slot (the slow path, exact counting).
 *  - 60 threads one after the other (16 stat slots): each admits two I/Os
 *    of an unlimited group and exits without completing them. Every one got
 *    an owned id, so every second admission was counted in the thread's own
 *    slot (the first goes out of line, on inflight): inflight holds 60, the
 *    slots' locals 60 (without reuse: inflight 60 + 45, locals 15);
 *  - 8 threads alive at once get 8 different ids;
 *  - main completes everything: the exact count is 0, the checker is happy.
 * Context: main and the threads it starts, one batch at a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>

#include "core/ctl.h"
#include "iolatency.h"
#include "iolatency_internal.h"

#define SERIAL    60
#define TOGETHER  8

static struct iolat_ctl *ctl;
static struct iolat_group *grp;
static struct iolat_io ios[2 * SERIAL + 2 * TOGETHER];
static uint32_t ids[SERIAL + TOGETHER];
static pthread_barrier_t all_in;

struct work {
	unsigned n;     /* which thread: its two I/O records and its id's place */
	bool together;  /* wait at the barrier while holding its id */
};

static void *thread_main(void *arg)
{
	const struct work *w = arg;

	for (unsigned k = 0; k < 2; k++)
		if (iolat_throttle_async(grp, IOLAT_IO_NOWAIT, &ios[2 * w->n + k], NULL) != 0)
			return (void *)1;
	ids[w->n] = iolat_my_thread_id;
	if (w->together)
		pthread_barrier_wait(&all_in);
	return NULL;
}

static int64_t sum_locals(void)
{
	const struct iolat_slot *s = grp_slots(grp);
	int64_t sum = 0;

	for (uint32_t i = 0; i < grp->last_slot; i++)
		sum += atomic_load(&s[i].local);
	return sum;
}

static void test_exited_ids_are_reused(void **state)
{
	struct iolat_ctl_config cfg = { .nr_requests = 64, .nr_stat_slots = 16 };
	struct work w[SERIAL + TOGETHER];
	pthread_t t[TOGETHER];
	char reason[256];
	void *ret;

	(void)state;
	assert_int_equal(iolat_ctl_create(&cfg, &ctl), 0);
	assert_int_equal(iolat_group_create(ctl, NULL, "busy", &grp), 0);
	assert_int_equal(iolat_group_set_target(grp, 1000 * 1000 * 1000), 0);
	for (unsigned i = 0; i < SERIAL; i++) {
		w[i] = (struct work){ .n = i };
		assert_int_equal(pthread_create(&t[0], NULL, thread_main, &w[i]), 0);
		assert_int_equal(pthread_join(t[0], &ret), 0);
		assert_null(ret);
		assert_true(ids[i] < grp->last_slot);
	}
	assert_int_equal(atomic_load(&grp->mode), IOLAT_MODE_DIST);
	assert_int_equal(atomic_load(&grp->inflight), SERIAL);
	assert_int_equal(sum_locals(), SERIAL);

	assert_int_equal(pthread_barrier_init(&all_in, NULL, TOGETHER), 0);
	for (unsigned i = 0; i < TOGETHER; i++) {
		w[SERIAL + i] = (struct work){ .n = SERIAL + i, .together = true };
		assert_int_equal(pthread_create(&t[i], NULL, thread_main, &w[SERIAL + i]), 0);
	}
	for (unsigned i = 0; i < TOGETHER; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_null(ret);
	}
	pthread_barrier_destroy(&all_in);
	for (unsigned i = SERIAL; i < SERIAL + TOGETHER; i++) {
		assert_true(ids[i] < grp->last_slot);
		for (unsigned k = SERIAL; k < i; k++)
			assert_int_not_equal(ids[i], ids[k]);
	}

	for (unsigned i = 0; i < 2 * (SERIAL + TOGETHER); i++)
		iolat_done(&ios[i]);
	assert_int_equal(iolat_inflight_exact(grp), 0);
	assert_int_equal(iolat_ctl_check_invariants(ctl, reason, sizeof(reason)), 0);
	assert_int_equal(iolat_group_destroy(grp), 0);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exited_ids_are_reused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
