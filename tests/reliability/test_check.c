/* SPDX-License-Identifier: MIT */
/*
 * test_check.c - the core's debug invariant check, iolat_ctl_check_invariants()
 * (src/core/check.c):
 *  - a sound controller passes: idle, with waiters queued at a clamped level,
 *    and under load (I/O threads, ticks and target changes on other threads,
 *    the checker looping meanwhile: no false alarm);
 *  - each kind of broken state it promises to catch is caught, with a reason
 *    naming the group: wrapped counters, a wait queue out of step with nwait
 *    or naming another level, a clamped root, depth 0, a level clamped while
 *    it counts distributed (per thread), cookies above the
 *    default, negative use_delay, a wrong nr_children or enable_cnt, a bad
 *    parent, a scale_grp that is not a child;
 *  - the reason fits any buffer (truncated, NUL-terminated), or none.
 * The broken states are made by hand through src/core/ctl.h and undone.
 * Threads: main; the load test adds I/O threads, a reconfig thread and the
 * library's timer thread, and checks from main.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "core/ctl.h"
#include "helpers/t_stress.h"
#include "iolatency.h"

struct tio {
	struct iolat_io io;
	struct iolat_waiter w;
	int granted;
};

static void on_granted(struct iolat_waiter *w)
{
	struct tio *t = (struct tio *)((char *)w - offsetof(struct tio, w));

	t->granted++;
}

static int submit(struct iolat_group *g, struct tio *t)
{
	memset(t, 0, sizeof(*t));
	t->w.granted = on_granted;
	return iolat_throttle_async(g, 0, &t->io, &t->w);
}

struct fixture {
	struct iolat_ctl *ctl;
	struct iolat_group *fg, *web, *batch;   /* fg/{web (target), batch} */
};

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	assert_int_equal(iolat_ctl_create(NULL, &f.ctl), 0);
	assert_int_equal(iolat_group_create(f.ctl, NULL, "fg", &f.fg), 0);
	assert_int_equal(iolat_group_create(f.ctl, f.fg, "web", &f.web), 0);
	assert_int_equal(iolat_group_create(f.ctl, f.fg, "batch", &f.batch), 0);
	assert_int_equal(iolat_group_set_target(f.web, 5000000), 0);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	iolat_ctl_destroy(f->ctl);
	return 0;
}

static void expect_sound(struct iolat_ctl *ctl)
{
	char why[256] = "x";
	int ret = iolat_ctl_check_invariants(ctl, why, sizeof(why));

	if (ret)
		fail_msg("unexpected violation: %s", why);
	assert_string_equal(why, "");
}

static void expect_broken(struct iolat_ctl *ctl, const char *what)
{
	char why[256];

	assert_int_equal(iolat_ctl_check_invariants(ctl, why, sizeof(why)), -EUCLEAN);
	if (!strstr(why, what))
		fail_msg("reason '%s' does not say '%s'", why, what);
}

static void test_sound_idle(void **state)
{
	struct fixture *f = *state;

	expect_sound(f->ctl);
	assert_int_equal(iolat_ctl_check_invariants(NULL, NULL, 0), -EINVAL);
}

/* batch clamped to depth 1 by hand: one I/O holds the slot, two wait. */
static void test_sound_with_waiters(void **state)
{
	struct fixture *f = *state;
	struct tio t[3];

	iolat_depth_set(f->batch, 1); /* a limit: the in-flight count goes exact */
	assert_int_equal(submit(f->batch, &t[0]), 0);
	assert_int_equal(submit(f->batch, &t[1]), IOLAT_QUEUED);
	assert_int_equal(submit(f->batch, &t[2]), IOLAT_QUEUED);
	expect_sound(f->ctl);

	/* nwait out of step with the queue, both ways. */
	atomic_fetch_add(&f->batch->nwait, 1);
	expect_broken(f->ctl, "group 3 (batch): nwait differs from the wait queue's length 2");
	atomic_fetch_sub(&f->batch->nwait, 2);
	expect_broken(f->ctl, "(batch): wait queue longer than nwait 1");
	atomic_fetch_add(&f->batch->nwait, 1);
	/* A queued I/O that claims to wait elsewhere. */
	atomic_store(&t[2].io.wait_level_, f->fg->idx);
	expect_broken(f->ctl, "(batch): a queued I/O names another wait level: 1");
	atomic_store(&t[2].io.wait_level_, f->batch->idx);
	/* A queued I/O of a group outside the subtree. */
	t[1].io.group_ = f->web->idx;
	expect_broken(f->ctl, "(batch): a queued I/O comes from outside the subtree, group 2");
	t[1].io.group_ = f->batch->idx;
	expect_sound(f->ctl);

	/* Completions hand the slot on, FIFO; then everything is idle. */
	iolat_done(&t[0].io);
	assert_int_equal(t[1].granted, 1);
	expect_sound(f->ctl);
	iolat_done(&t[1].io);
	assert_int_equal(t[2].granted, 1);
	iolat_done(&t[2].io);
	iolat_depth_set(f->batch, IOLAT_DEPTH_MAX);
	expect_sound(f->ctl);
	iolat_inflight_relax(f->batch); /* back to per-thread counting */
	expect_sound(f->ctl);
	assert_int_equal(t_check_idle(f->ctl), 0);
}

/* Each broken state, made by hand, is named; undoing it makes the check pass. */
static void test_broken_states(void **state)
{
	struct fixture *f = *state;
	struct iolat_group *root = iolat_ctl_root(f->ctl);
	uint32_t u32;
	int i;
	uint64_t u64;

	u32 = atomic_exchange(&f->web->inflight, UINT32_MAX);
	expect_broken(f->ctl, "group 2 (web): inflight wrapped: 4294967295");
	atomic_store(&f->web->inflight, u32);

	u32 = atomic_exchange(&f->batch->nwait, 1u << 31);
	expect_broken(f->ctl, "(batch): nwait wrapped");
	atomic_store(&f->batch->nwait, u32);

	atomic_store(&root->inflight, 1);
	expect_broken(f->ctl, "group 0 (root): the root holds slots or waiters, inflight 1");
	atomic_store(&root->inflight, 0);

	atomic_store(&root->max_depth, 4);
	expect_broken(f->ctl, "(root): the root is clamped, depth 4");
	atomic_store(&root->max_depth, IOLAT_DEPTH_MAX);

	atomic_store(&f->batch->max_depth, 0);
	expect_broken(f->ctl, "(batch): max_depth is 0");
	atomic_store(&f->batch->max_depth, IOLAT_DEPTH_MAX);

	/* A limit stored without the fold (inflight.c): admissions would pass it. */
	atomic_store(&f->batch->max_depth, 5);
	expect_broken(f->ctl, "(batch): counts distributed (per thread) but is clamped, depth 5");
	atomic_store(&f->batch->max_depth, IOLAT_DEPTH_MAX);

	atomic_store(&f->fg->child_cookie, IOLAT_DEFAULT_COOKIE + 1);
	expect_broken(f->ctl, "(fg): child_cookie above the default: 1000001");
	atomic_store(&f->fg->child_cookie, IOLAT_DEFAULT_COOKIE);

	atomic_store(&f->web->scale_cookie, IOLAT_DEFAULT_COOKIE + 7);
	expect_broken(f->ctl, "(web): scale_cookie above the default");
	atomic_store(&f->web->scale_cookie, IOLAT_DEFAULT_COOKIE);

	i = atomic_exchange(&f->batch->use_delay, -1);
	expect_broken(f->ctl, "(batch): use_delay is negative");
	atomic_store(&f->batch->use_delay, i);

	u64 = atomic_exchange(&f->batch->delay_nsec, UINT64_MAX - 5);
	expect_broken(f->ctl, "(batch): delay_nsec wrapped");
	atomic_store(&f->batch->delay_nsec, u64);

	atomic_fetch_add(&f->fg->nr_children, 1);
	expect_broken(f->ctl, "(fg): nr_children differs from the children in use, counted 2");
	atomic_fetch_sub(&f->fg->nr_children, 1);

	atomic_fetch_add(&f->ctl->enable_cnt, 1);
	expect_broken(f->ctl, "enable_cnt differs from the groups with a target, counted 1");
	atomic_fetch_sub(&f->ctl->enable_cnt, 1);

	u32 = atomic_exchange(&f->batch->parent, f->batch->idx);
	expect_broken(f->ctl, "(batch): bad parent 3");
	atomic_store(&f->batch->parent, u32);

	/* A cycle: fg under web, web under fg. */
	atomic_store(&f->fg->parent, f->web->idx);
	expect_broken(f->ctl, "not under the root (a cycle)");
	atomic_store(&f->fg->parent, IOLAT_ROOT_IDX);

	/* scale_grp must be a child in use: web is a grandchild of the root. */
	atomic_store(&root->scale_grp, f->web->idx);
	expect_broken(f->ctl, "(root): scale_grp is not a child in use: 2");
	atomic_store(&root->scale_grp, IOLAT_NO_GROUP);

	expect_sound(f->ctl);
}

/* The reason fits any buffer; without one the verdict still comes back. */
static void test_reason_buffer(void **state)
{
	struct fixture *f = *state;
	char small[8];

	memset(small, 'x', sizeof(small));
	atomic_store(&f->batch->max_depth, 0);
	assert_int_equal(iolat_ctl_check_invariants(f->ctl, small, sizeof(small)), -EUCLEAN);
	assert_string_equal(small, "group 3");
	small[0] = 'x';
	assert_int_equal(iolat_ctl_check_invariants(f->ctl, small, 1), -EUCLEAN);
	assert_int_equal(small[0], '\0');
	assert_int_equal(iolat_ctl_check_invariants(f->ctl, NULL, 0), -EUCLEAN);
	atomic_store(&f->batch->max_depth, IOLAT_DEPTH_MAX);
	assert_int_equal(iolat_ctl_check_invariants(f->ctl, NULL, 0), 0);
}

/* ---- under load: no false alarm ---- */

#define LOAD_THREADS 4

struct load {
	struct iolat_ctl *ctl;
	struct iolat_group *leaf[3];   /* fg/web (tight target), fg/batch, bg */
	atomic_bool stop;
	atomic_bool churn;             /* second half: targets change too */
	_Atomic uint64_t ios;
};

static void sleep_us(unsigned us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)us * 1000 };

	nanosleep(&ts, NULL);
}

static void *io_thread(void *arg)
{
	struct load *l = arg;
	uint64_t seed = (uint64_t)(uintptr_t)&seed | 1;

	while (!atomic_load(&l->stop)) {
		struct iolat_group *g = l->leaf[t_stress_below(&seed, 3)];
		struct iolat_io io;
		unsigned flags = t_stress_below(&seed, 20) == 0 ? IOLAT_IO_META : 0;

		if (iolat_throttle(g, flags, &io))
			continue;
		sleep_us(20 + t_stress_below(&seed, 200));
		if (t_stress_below(&seed, 16) == 0)
			iolat_done_unissued(&io);
		else
			iolat_done(&io);
		atomic_fetch_add(&l->ios, 1);
	}
	return NULL;
}

/*
 * Ticks, then (churn) targets set and cleared and nr_requests changed too,
 * while the checker runs. Each target change resets the parent's throttling,
 * so the calm phase leaves web's misses time to clamp batch (it queues).
 */
static void *reconfig_thread(void *arg)
{
	struct load *l = arg;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	while (!atomic_load(&l->stop)) {
		unsigned r = t_stress_below(&seed, 4);

		if (!atomic_load(&l->churn))
			r = 2;   /* calm: ticks only */
		switch (r) {
		case 0:
			iolat_group_set_target(l->leaf[1], t_stress_below(&seed, 2) ? 2000000 : 0);
			break;
		case 1:
			iolat_group_set_target(l->leaf[0], 30000 + t_stress_below(&seed, 3) * 20000);
			break;
		case 2:
			iolat_ctl_tick(l->ctl);
			break;
		default:
			iolat_ctl_set_nr_requests(l->ctl, 2 + t_stress_below(&seed, 30));
			break;
		}
		sleep_us(500 + t_stress_below(&seed, 2000));
	}
	return NULL;
}

static void test_sound_under_load(void **state)
{
	struct load l = { 0 };
	struct iolat_ctl_config cfg = { .nr_requests = 4 };
	struct iolat_group *fg, *bg;
	pthread_t th[LOAD_THREADS + 1];
	uint64_t end, checks = 0, queued_seen = 0;
	struct iolat_group_stat st;
	char why[256];
	/* Calm 1.5 s (batch clamped to 2 then 1 by 0.6 s), then churn. */
	double calm = 1.5, secs = calm + (t_stress_under_tsan() ||
					  t_stress_env_flag("IOLAT_TEST_SHORT") ? 0.5 : 1.5);

	(void)state;
	assert_int_equal(iolat_ctl_create(&cfg, &l.ctl), 0);
	assert_int_equal(iolat_group_create(l.ctl, NULL, "fg", &fg), 0);
	assert_int_equal(iolat_group_create(l.ctl, NULL, "bg", &bg), 0);
	assert_int_equal(iolat_group_create(l.ctl, fg, "web", &l.leaf[0]), 0);
	assert_int_equal(iolat_group_create(l.ctl, fg, "batch", &l.leaf[1]), 0);
	l.leaf[2] = bg;
	/* A target the 20-220 us "device" misses: batch gets clamped and queues. */
	assert_int_equal(iolat_group_set_target(l.leaf[0], 50000), 0);
	assert_int_equal(iolat_ctl_start_timer(l.ctl), 0);
	for (int i = 0; i < LOAD_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, io_thread, &l), 0);
	assert_int_equal(pthread_create(&th[LOAD_THREADS], NULL, reconfig_thread, &l), 0);
	end = t_stress_now_ns() + (uint64_t)(secs * 1e9);
	while (t_stress_now_ns() < end) {
		if (t_stress_now_ns() + (uint64_t)((secs - calm) * 1e9) > end)
			atomic_store(&l.churn, true);
		if (iolat_ctl_check_invariants(l.ctl, why, sizeof(why))) {
			atomic_store(&l.stop, true);
			for (int i = 0; i <= LOAD_THREADS; i++)
				pthread_join(th[i], NULL);
			fail_msg("false alarm under load: %s", why);
		}
		checks++;
		if (iolat_group_stat(l.leaf[1], &st) == 0 && st.waiters)
			queued_seen++;
		sleep_us(100);
	}
	atomic_store(&l.stop, true);
	for (int i = 0; i <= LOAD_THREADS; i++)
		pthread_join(th[i], NULL);
	print_message("check_invariants: %llu checks during %llu I/Os (%llu with batch's I/O "
		      "queued), no violation\n", (unsigned long long)checks,
		      (unsigned long long)atomic_load(&l.ios), (unsigned long long)queued_seen);
	assert_true(checks > 10);
	assert_true(atomic_load(&l.ios) > 100);
	assert_true(queued_seen > 0);   /* it was checked with waiters queued */
	expect_sound(l.ctl);
	assert_int_equal(t_check_idle(l.ctl), 0);
	iolat_ctl_destroy(l.ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sound_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sound_with_waiters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reason_buffer, setup, teardown),
		cmocka_unit_test(test_sound_under_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
