/* SPDX-License-Identifier: MIT */
/*
 * test_reconfig.c - live reconfiguration under load, on the real clock.
 *
 * RECONFIG_THREADS (default 6) I/O threads do blocking I/O - iolat_throttle(),
 * a 10-200 us sleep as "device time", iolat_done() (sometimes
 * iolat_done_unissued(), a META bypass or a NOWAIT try) - through a 3-level
 * tree (fg/{web/{w0,w1}, db/{d0}}, bg/batch/{b0,b1,b2}) while one reconfig
 * thread, for RECONFIG_SECONDS (default 30; 5 with IOLAT_TEST_SHORT=1), sets
 * and clears targets at every level, retires and recreates the leaves,
 * changes nr_requests, ticks, and checks the invariants that hold under load
 * (t_check_invariants(), and the core's iolat_ctl_check_invariants()). The library's timer thread ticks too. A watchdog
 * aborts with a dump of every group when one I/O waits more than 10 s.
 * At the end every level must be idle: inflight 0, no waiter.
 *
 * Leaf retirement handshake. iolat_group_destroy() must not run
 * concurrently with a call on the group (iolat_throttle()), but it may run
 * while the group's I/O is in flight: it answers -EBUSY until the last
 * iolat_done(). So each leaf has a "retiring" flag and an rwlock: an I/O
 * thread holds the read side only across iolat_throttle() (after checking
 * the flag), never across the device time or iolat_done(). The reconfig
 * thread sets the flag (no new I/O starts on the leaf), takes the write side
 * (no thread is inside iolat_throttle() on it), then retries destroy while it
 * returns -EBUSY - completions on other threads run meanwhile - recreates
 * the leaf, publishes it and clears the flag.
 *
 * Threads: main (set-up, joins, final checks), the I/O threads, the reconfig
 * thread, the watchdog, the library's timer thread. Failures on other
 * threads are recorded and asserted by main after the joins.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "core/ctl.h"           /* iolat_ctl_check_invariants() */
#include "iolatency.h"
#include "helpers/t_stress.h"
#include "util/units.h"

#define MAX_IO_THREADS  64
#define WAIT_LIMIT_NS   (10 * NSEC_PER_SEC)  /* the watchdog's limit on one wait */

/* Permanent groups: two top levels and three in the middle. */
enum { G_FG, G_BG, G_WEB, G_DB, G_BATCH, NR_PERM };

static const struct {
	const char *name;
	int parent;             /* index in perm[], or -1: the root */
} perm_def[NR_PERM] = {
	[G_FG] = { "fg", -1 }, [G_BG] = { "bg", -1 },
	[G_WEB] = { "web", G_FG }, [G_DB] = { "db", G_FG }, [G_BATCH] = { "batch", G_BG },
};

#define NR_LEAVES 6
static const struct {
	const char *name;
	int parent;
} leaf_def[NR_LEAVES] = {
	{ "w0", G_WEB }, { "w1", G_WEB }, { "d0", G_DB },
	{ "b0", G_BATCH }, { "b1", G_BATCH }, { "b2", G_BATCH },
};

struct leaf {
	pthread_rwlock_t lock;     /* read: inside iolat_throttle(g); write: retiring g */
	atomic_bool retiring;      /* set: no new I/O may start on g */
	struct iolat_group *g;     /* written under the write lock */
};

struct io_thread {
	pthread_t th;
	uint64_t seed;
	_Atomic uint64_t wait_since;  /* CLOCK_MONOTONIC ns when iolat_throttle() began; 0 */
	/* Owned by the thread, read after the join. */
	uint64_t ios, eagain, unissued, bypass, skipped, max_wait_ns, waits_1ms;
};

struct reconfig_stats {
	uint64_t targets, retires, busy_retries, qd_changes, ticks, inv_checks, mid_busy;
	uint64_t max_destroy_wait_ns;
};

static struct {
	struct iolat_ctl *ctl;
	struct iolat_group *perm[NR_PERM];
	struct leaf leaves[NR_LEAVES];
	struct io_thread io[MAX_IO_THREADS];
	unsigned nr_io;
	uint64_t seconds;
	atomic_bool stop_io, stop_watchdog;
	struct reconfig_stats rs;
	/* The first failure on a non-main thread. */
	pthread_mutex_t fail_lock;
	char fail_msg[512];
	atomic_bool failed;
} T;

static void record_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void record_failure(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&T.fail_lock);
	if (!atomic_load(&T.failed)) {
		va_start(ap, fmt);
		vsnprintf(T.fail_msg, sizeof(T.fail_msg), fmt, ap);
		va_end(ap);
		atomic_store(&T.failed, true);
	}
	pthread_mutex_unlock(&T.fail_lock);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NSEC_PER_SEC),
			       .tv_nsec = (long)(ns % NSEC_PER_SEC) };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* ---- the I/O threads ---- */

static void *io_main(void *arg)
{
	struct io_thread *me = arg;

	while (!atomic_load(&T.stop_io)) {
		uint32_t r = t_stress_below(&me->seed, 100);
		struct leaf *lf = NULL;
		struct iolat_group *g;
		struct iolat_io io;
		unsigned flags = 0;
		uint64_t t0, waited;
		int ret;

		if (r < 80) {
			/* w0 (protected in calm phases) and w1 (its throttled sibling)
			 * take most of it, so that w1 queues. */
			uint32_t k = t_stress_below(&me->seed, 10);

			lf = &T.leaves[k < 3 ? 0 : k < 6 ? 1 : 2 + (k - 6)];
			/* The handshake: no new I/O on a retiring leaf. */
			if (atomic_load(&lf->retiring) || pthread_rwlock_tryrdlock(&lf->lock)) {
				me->skipped++;
				sched_yield();
				continue;
			}
			if (atomic_load(&lf->retiring)) {
				pthread_rwlock_unlock(&lf->lock);
				me->skipped++;
				continue;
			}
			g = lf->g;
		} else {
			g = T.perm[G_WEB + t_stress_below(&me->seed, 3)];
		}
		r = t_stress_below(&me->seed, 100);
		if (r < 4) {
			flags = IOLAT_IO_META;
			me->bypass++;
		} else if (r < 8) {
			flags = IOLAT_IO_NOWAIT;
		}

		t0 = t_stress_now_ns();
		atomic_store(&me->wait_since, t0);
		ret = iolat_throttle(g, flags, &io);
		atomic_store(&me->wait_since, 0);
		waited = t_stress_now_ns() - t0;
		if (lf)
			pthread_rwlock_unlock(&lf->lock);
		if (waited > me->max_wait_ns)
			me->max_wait_ns = waited;
		me->waits_1ms += waited > NSEC_PER_MSEC;
		if (ret == -EAGAIN && (flags & IOLAT_IO_NOWAIT)) {
			me->eagain++;
			continue;
		}
		if (ret) {
			record_failure("iolat_throttle(%s, %#x): %d", iolat_group_name(g), flags, ret);
			break;
		}
		/* Device time. The group may be retired meanwhile: g is not used again. */
		sleep_ns(10 * NSEC_PER_USEC + t_stress_below(&me->seed, 191) * NSEC_PER_USEC);
		if (t_stress_below(&me->seed, 100) < 3) {
			iolat_done_unissued(&io);
			me->unissued++;
		} else {
			iolat_done(&io);
		}
		me->ios++;
		/* Charged delay, served at a safe point (permanent groups only). */
		if (!lf && t_stress_below(&me->seed, 100) < 5)
			iolat_maybe_throttle(g);
	}
	return NULL;
}

/* ---- the reconfig thread ---- */

static uint64_t random_target(uint64_t *seed)
{
	static const uint64_t targets[] = {
		0, 0, 200 * NSEC_PER_USEC, 500 * NSEC_PER_USEC, 1 * NSEC_PER_MSEC,
		2 * NSEC_PER_MSEC, 5 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC,
	};

	return targets[t_stress_below(seed, sizeof(targets) / sizeof(targets[0]))];
}

static void retire_and_recreate(struct leaf *lf, int i, uint64_t *seed, bool with_target)
{
	uint64_t t0, dt;
	int ret;

	atomic_store(&lf->retiring, true);
	pthread_rwlock_wrlock(&lf->lock);
	/* Nobody is inside iolat_throttle() on lf->g; its I/O may still be in flight. */
	t0 = t_stress_now_ns();
	while ((ret = iolat_group_destroy(lf->g)) == -EBUSY) {
		T.rs.busy_retries++;
		if (t_stress_now_ns() - t0 > WAIT_LIMIT_NS) {
			record_failure("leaf %s: destroy still -EBUSY after 10 s",
				       leaf_def[i].name);
			break;
		}
		sleep_ns(20 * NSEC_PER_USEC);
	}
	dt = t_stress_now_ns() - t0;
	if (dt > T.rs.max_destroy_wait_ns)
		T.rs.max_destroy_wait_ns = dt;
	if (ret) {
		record_failure("leaf %s: destroy: %d", leaf_def[i].name, ret);
	} else {
		ret = iolat_group_create(T.ctl, T.perm[leaf_def[i].parent], leaf_def[i].name,
					 &lf->g);
		if (ret)
			record_failure("leaf %s: create: %d", leaf_def[i].name, ret);
		else if (with_target)
			iolat_group_set_target(lf->g, random_target(seed));
		T.rs.retires++;
	}
	pthread_rwlock_unlock(&lf->lock);
	if (!ret)
		atomic_store(&lf->retiring, false);
	/* else: the leaf stays retired; the failure is reported at the end. */
}

/* The calm phases' targets: w0 protected against w1, web against db. */
static void protect(void)
{
	iolat_group_set_target(T.perm[G_WEB], 1 * NSEC_PER_MSEC);
	iolat_group_set_target(T.leaves[0].g, 200 * NSEC_PER_USEC);
	iolat_group_set_target(T.leaves[1].g, 0);
	iolat_group_set_target(T.perm[G_DB], 0);
	T.rs.targets += 4;
}

/*
 * Storms (0.5 s: every kind of change, targets included) alternate with calm
 * phases (3 s: the protect() targets stay, so throttling builds up and I/O
 * queues, while leaves are retired and qd changes underneath).
 */
static void *reconfig_main(void *arg)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull, start, deadline;
	static const uint32_t qds[] = { 4, 8, 16, 32, 64 };
	bool calm = false;

	(void)arg;
	start = t_stress_now_ns();
	deadline = start + T.seconds * NSEC_PER_SEC;
	while (!atomic_load(&T.failed) && t_stress_now_ns() < deadline) {
		uint64_t in_cycle = (t_stress_now_ns() - start) % (3500 * NSEC_PER_MSEC);
		uint32_t r = t_stress_below(&seed, 100);

		if (calm != (in_cycle >= 500 * NSEC_PER_MSEC)) {
			calm = !calm;
			if (calm)
				protect();
			else if (t_stress_env_flag("RECONFIG_DEBUG"))
				t_dump_groups(T.ctl, stderr);
		}
		if (r < 35 && calm)
			r = 35 + t_stress_below(&seed, 65);
		if (r < 35) {
			/* A target on any level: leaves are ours to touch (we alone retire them). */
			uint32_t k = t_stress_below(&seed, NR_PERM + NR_LEAVES);
			struct iolat_group *g = k < NR_PERM ? T.perm[k] : T.leaves[k - NR_PERM].g;
			int ret = iolat_group_set_target(g, random_target(&seed));

			if (ret)
				record_failure("set_target(%s): %d", iolat_group_name(g), ret);
			T.rs.targets++;
		} else if (r < 60) {
			/* In calm phases w0 and w1 stay: destroying w0 would release
			 * the throttling of w1, and a new w1 starts unthrottled. */
			uint32_t i = calm ? 2 + t_stress_below(&seed, NR_LEAVES - 2) :
				     t_stress_below(&seed, NR_LEAVES);

			/* A new leaf's target would reset its parent's throttling:
			 * only in storms. */
			retire_and_recreate(&T.leaves[i], (int)i, &seed,
					    !calm && t_stress_below(&seed, 2));
		} else if (r < 65) {
			/* A top-level group with children: always refused. Nobody else
			 * calls anything on fg or bg. */
			struct iolat_group *g = T.perm[t_stress_below(&seed, 2)];
			int ret = iolat_group_destroy(g);

			if (ret != -EBUSY)
				record_failure("destroy(%s) with children: %d", iolat_group_name(g), ret);
			T.rs.mid_busy++;
		} else if (r < 77) {
			uint32_t qd = qds[t_stress_below(&seed, sizeof(qds) / sizeof(qds[0]))];
			int ret = iolat_ctl_set_nr_requests(T.ctl, qd);

			if (ret || iolat_ctl_nr_requests(T.ctl) != qd)
				record_failure("set_nr_requests(%u): %d", qd, ret);
			T.rs.qd_changes++;
		} else if (r < 78) {
			/* An extra tick besides the timer thread's (at most one runs). */
			iolat_ctl_tick(T.ctl);
			T.rs.ticks++;
		} else {
			int bad = t_check_invariants(T.ctl);
			char why[256];

			if (bad)
				record_failure("t_check_invariants: %d violations under load", bad);
			/* The core's own check (src/core/check.c) must agree. */
			if (iolat_ctl_check_invariants(T.ctl, why, sizeof(why)))
				record_failure("iolat_ctl_check_invariants under load: %s", why);
			T.rs.inv_checks++;
		}
		sleep_ns(50 * NSEC_PER_USEC + t_stress_below(&seed, 950) * NSEC_PER_USEC);
	}
	return NULL;
}

/* ---- the watchdog ---- */

static void *watchdog_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&T.stop_watchdog)) {
		uint64_t now = t_stress_now_ns();

		for (unsigned i = 0; i < T.nr_io; i++) {
			uint64_t since = atomic_load(&T.io[i].wait_since);

			if (since && now > since && now - since > WAIT_LIMIT_NS) {
				fprintf(stderr, "test_reconfig: watchdog: I/O thread %u has waited "
					"%.1f s in iolat_throttle(); groups:\n", i,
					(double)(now - since) / 1e9);
				t_dump_groups(T.ctl, stderr);
				abort();
			}
		}
		sleep_ns(50 * NSEC_PER_MSEC);
	}
	return NULL;
}

/* ---- the test ---- */

static void check_group_idle(struct iolat_group *g)
{
	struct iolat_group_stat st;

	assert_int_equal(iolat_group_stat(g, &st), 0);
	if (st.inflight || st.waiters)
		fail_msg("group %s: inflight %u waiters %u at the end", iolat_group_name(g),
			 st.inflight, st.waiters);
}

/* The controller, its permanent groups and first leaves, the article's
 * targets, its timer thread. */
static void setup_controller(void)
{
	struct iolat_ctl_config cfg = {
		.nr_requests = 32, .rotational = 0, .max_groups = 64,
		.delay_cap_ns = 10 * NSEC_PER_MSEC,
	};

	assert_int_equal(iolat_ctl_create(&cfg, &T.ctl), 0);
	for (int i = 0; i < NR_PERM; i++)
		assert_int_equal(iolat_group_create(T.ctl, perm_def[i].parent < 0 ? NULL :
						    T.perm[perm_def[i].parent],
						    perm_def[i].name, &T.perm[i]), 0);
	for (int i = 0; i < NR_LEAVES; i++) {
		assert_int_equal(pthread_rwlock_init(&T.leaves[i].lock, NULL), 0);
		assert_int_equal(iolat_group_create(T.ctl, T.perm[leaf_def[i].parent],
						    leaf_def[i].name, &T.leaves[i].g), 0);
	}
	/* Start with the protected/bulk shape of the article. */
	assert_int_equal(iolat_group_set_target(T.perm[G_WEB], 1 * NSEC_PER_MSEC), 0);
	assert_int_equal(iolat_group_set_target(T.leaves[0].g, 500 * NSEC_PER_USEC), 0);
	assert_int_equal(iolat_ctl_start_timer(T.ctl), 0);
}

/* What the I/O threads did, summed (the longest wait: the longest of all). */
struct io_totals {
	uint64_t ios, eagain, unissued, bypass, skipped, max_wait, waits;
};

/* The I/O threads and the watchdog run while the reconfiguring thread
 * does; then they stop, and their counts are summed in @tot. */
static void run_under_load(struct io_totals *tot)
{
	pthread_t reconfig, watchdog;

	assert_int_equal(pthread_create(&watchdog, NULL, watchdog_main, NULL), 0);
	for (unsigned i = 0; i < T.nr_io; i++) {
		T.io[i].seed = 0x243f6a8885a308d3ull * (i + 1);
		assert_int_equal(pthread_create(&T.io[i].th, NULL, io_main, &T.io[i]), 0);
	}
	assert_int_equal(pthread_create(&reconfig, NULL, reconfig_main, NULL), 0);
	pthread_join(reconfig, NULL);
	atomic_store(&T.stop_io, true);
	for (unsigned i = 0; i < T.nr_io; i++) {
		pthread_join(T.io[i].th, NULL);
		tot->ios += T.io[i].ios;
		tot->eagain += T.io[i].eagain;
		tot->unissued += T.io[i].unissued;
		tot->bypass += T.io[i].bypass;
		tot->skipped += T.io[i].skipped;
		tot->waits += T.io[i].waits_1ms;
		if (T.io[i].max_wait_ns > tot->max_wait)
			tot->max_wait = T.io[i].max_wait_ns;
	}
	atomic_store(&T.stop_watchdog, true);
	pthread_join(watchdog, NULL);
}

/* Everything completed: every level idle; then the groups and the
 * controller go away. */
static void check_idle_and_destroy(void)
{
	if (t_check_idle(T.ctl)) {
		t_dump_groups(T.ctl, stderr);
		fail_msg("controller not idle at the end");
	}
	for (int i = 0; i < NR_LEAVES; i++)
		check_group_idle(T.leaves[i].g);
	for (int i = 0; i < NR_PERM; i++)
		check_group_idle(T.perm[i]);
	check_group_idle(iolat_ctl_root(T.ctl));

	for (int i = 0; i < NR_LEAVES; i++) {
		assert_int_equal(iolat_group_destroy(T.leaves[i].g), 0);
		pthread_rwlock_destroy(&T.leaves[i].lock);
	}
	for (int i = NR_PERM - 1; i >= 0; i--)
		assert_int_equal(iolat_group_destroy(T.perm[i]), 0);
	assert_false(iolat_ctl_enabled(T.ctl));
	iolat_ctl_destroy(T.ctl);
}

static void test_reconfig_under_load(void **state)
{
	struct io_totals tot = { 0 };
	uint64_t t0;

	(void)state;
	T.seconds = t_stress_env_u64("RECONFIG_SECONDS",
				     t_stress_env_flag("IOLAT_TEST_SHORT") ? 5 : 30);
	T.nr_io = (unsigned)t_stress_env_u64("RECONFIG_THREADS", 6);
	if (T.nr_io < 4)
		T.nr_io = 4;
	if (T.nr_io > MAX_IO_THREADS)
		T.nr_io = MAX_IO_THREADS;
	pthread_mutex_init(&T.fail_lock, NULL);
	setup_controller();

	t0 = t_stress_now_ns();
	run_under_load(&tot);
	print_message("reconfig: %.1f s, %u I/O threads: %llu I/Os (%llu unissued, %llu bypass, "
		      "%llu NOWAIT refused, %llu skipped on retiring leaves), %llu waited > 1 ms, "
		      "longest wait %.1f ms\n",
		      (double)(t_stress_now_ns() - t0) / 1e9, T.nr_io, (unsigned long long)tot.ios,
		      (unsigned long long)tot.unissued, (unsigned long long)tot.bypass,
		      (unsigned long long)tot.eagain, (unsigned long long)tot.skipped,
		      (unsigned long long)tot.waits, tot.max_wait / 1e6);
	print_message("reconfig: %llu target changes, %llu leaf retirements (%llu -EBUSY "
		      "retries, longest %.1f ms), %llu refused parent destroys, %llu qd changes, "
		      "%llu ticks, %llu invariant checks\n",
		      (unsigned long long)T.rs.targets, (unsigned long long)T.rs.retires,
		      (unsigned long long)T.rs.busy_retries, T.rs.max_destroy_wait_ns / 1e6,
		      (unsigned long long)T.rs.mid_busy, (unsigned long long)T.rs.qd_changes,
		      (unsigned long long)T.rs.ticks, (unsigned long long)T.rs.inv_checks);
	if (atomic_load(&T.failed))
		fail_msg("%s", T.fail_msg);
	assert_true(tot.ios > 0);
	assert_true(T.rs.retires > 0);
	check_idle_and_destroy();
	pthread_mutex_destroy(&T.fail_lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reconfig_under_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
