/* SPDX-License-Identifier: MIT */
/*
 * test_inflight_switch.c - the distributed in-flight count (src/core/inflight.c)
 * under concurrency: worker threads admit (NOWAIT, some bypass) and complete
 * I/O on a 3-level chain a/b/c and a group d, handing I/Os to each other (an
 * I/O admitted on one thread's slot is often completed on another's) and
 * running bursts of admit+complete pairs (time in the fast path), while
 * main sets and lifts limits on the levels (the fold from distributed to
 * exact, and back) and a checker thread runs the invariant check (whose exact
 * reads fold too) and reads stats, all the time.
 *
 * Checked at checkpoints, with the workers parked outside the library:
 *  - each level's exact count equals what the pooled I/Os hold (nothing lost
 *    or counted twice by any fold);
 *  - a distributed level is unlimited; an exact one has all locals at 0;
 *  - a limit holds: a NOWAIT admission succeeds exactly when every level on
 *    its path is unlimited or below its limit; and at a level held at limit
 *    d for a whole interval of work, the I/O that honours limits (all but
 *    bypass) never ends above max(d, where it started);
 *  - the invariant checker, live (no violation ever) and at every checkpoint;
 *  - at the end: every count 0, every level distributed, the controller idle.
 * Knobs: SWITCH_ROUNDS (default 600, 300 under TSan, 200 with IOLAT_TEST_SHORT=1),
 * STRESS_SEED.
 * Threads: main (the switcher and checkpoints; cmocka asserts only after
 * joining), NR_WORKERS workers, one checker.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/ctl.h"
#include "helpers/t_stress.h"
#include "iolatency.h"

#define NR_WORKERS 3
#define NR_IO      48         /* I/O records shared by the workers */
#define T0         1000000000ull /* the fixed clock: windows never close */
#define NR_LVL     4          /* a, b, c, d */
#define MAX_ERR    20

static uint64_t fixed_clock(void *ctx)
{
	(void)ctx;
	return T0;
}

static const struct iolat_clock clk = { .now_ns = fixed_clock };

static struct {
	struct iolat_ctl *ctl;
	struct iolat_group *lvl[NR_LVL]; /* a, b, c, d */
	pthread_mutex_t lock;            /* the records' lists below */
	struct iolat_io io[NR_IO];
	int leaf[NR_IO];                 /* 2 (c) or 3 (d) while pooled */
	bool bypass[NR_IO];              /* admitted as bypass (past limits) */
	int free_[NR_IO], nfree;
	int pooled[NR_IO], npooled;
	_Atomic int park, parked, stop;
	_Atomic unsigned errors;
	_Atomic uint64_t admitted, refused, completed, checks;
} S;

static void error(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&S.errors, 1) >= MAX_ERR)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Is level @l on the path of leaf @leaf (2: c, b, a; 3: d)? */
static bool on_path(int leaf, int l)
{
	return leaf == 3 ? l == 3 : l <= 2;
}

/* ---- workers ---- */

static int take(int *list, int *n, uint64_t *rnd)
{
	int i, r;

	if (!*n)
		return -1;
	i = (int)t_stress_below(rnd, (uint32_t)*n);
	r = list[i];
	list[i] = list[--*n];
	return r;
}

static void admit_one(uint64_t *rnd)
{
	int r, leaf = 2 + (int)t_stress_below(rnd, 2), ret;
	unsigned flags = t_stress_below(rnd, 16) ? IOLAT_IO_NOWAIT : IOLAT_IO_META;

	pthread_mutex_lock(&S.lock);
	r = take(S.free_, &S.nfree, rnd);
	pthread_mutex_unlock(&S.lock);
	if (r < 0)
		return;
	ret = iolat_throttle_async_at(S.lvl[leaf], flags, &S.io[r], NULL, T0);
	if (ret != 0 && ret != -EAGAIN)
		error("admission: %d", ret);
	pthread_mutex_lock(&S.lock);
	if (ret == 0) {
		S.leaf[r] = leaf;
		S.bypass[r] = flags == IOLAT_IO_META;
		S.pooled[S.npooled++] = r;
	} else {
		S.free_[S.nfree++] = r;
	}
	pthread_mutex_unlock(&S.lock);
	atomic_fetch_add(ret ? &S.refused : &S.admitted, 1);
}

static void complete_one(uint64_t *rnd)
{
	int r;

	pthread_mutex_lock(&S.lock);
	r = take(S.pooled, &S.npooled, rnd);
	pthread_mutex_unlock(&S.lock);
	if (r < 0)
		return;
	iolat_done_at(&S.io[r], T0 + 1); /* a latency: the inline path */
	pthread_mutex_lock(&S.lock);
	S.free_[S.nfree++] = r;
	pthread_mutex_unlock(&S.lock);
	atomic_fetch_add(&S.completed, 1);
}

/* Pairs admitted and completed at once on this thread: most of the time in
 * the fast path, where the folds must meet it. Nothing held afterwards. */
static void burst(uint64_t *rnd)
{
	struct iolat_group *g = S.lvl[2 + t_stress_below(rnd, 2)];
	struct iolat_io io;

	for (int i = 0; i < 16; i++) {
		if (iolat_throttle_async_at(g, IOLAT_IO_NOWAIT, &io, NULL, T0) == 0)
			iolat_done_at(&io, T0 + 1);
	}
}

static void *worker_main(void *arg)
{
	uint64_t rnd = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;

	while (!atomic_load(&S.stop)) {
		if (atomic_load(&S.park)) {
			atomic_fetch_add(&S.parked, 1);
			while (atomic_load(&S.park))
				sched_yield();
			atomic_fetch_sub(&S.parked, 1);
			continue;
		}
		if (t_stress_below(&rnd, 2))
			admit_one(&rnd);
		else
			complete_one(&rnd);
		burst(&rnd);
	}
	return NULL;
}

/* ---- the live checker ---- */

static void *checker_main(void *arg)
{
	char why[256];

	(void)arg;
	while (!atomic_load(&S.stop)) {
		struct iolat_group_stat st;

		if (iolat_ctl_check_invariants(S.ctl, why, sizeof(why)))
			error("live check: %s", why);
		for (int l = 0; l < NR_LVL; l++)
			iolat_group_stat(S.lvl[l], &st);
		atomic_fetch_add(&S.checks, 1);
		sched_yield();
	}
	return NULL;
}

/* ---- main: limits and checkpoints ---- */

static void park(bool on)
{
	atomic_store(&S.park, on);
	while (on && atomic_load(&S.parked) != NR_WORKERS)
		sched_yield();
}

static void lift(struct iolat_group *g)
{
	iolat_depth_set(g, IOLAT_DEPTH_MAX);
	iolat_wake(g, true);
	iolat_inflight_relax(g);
}

/* What the pooled I/Os hold at each level, all / all but bypass. Workers parked. */
static void tally(uint32_t held[NR_LVL], uint32_t limited[NR_LVL])
{
	for (int l = 0; l < NR_LVL; l++)
		held[l] = limited[l] = 0;
	for (int i = 0; i < S.npooled; i++) {
		int r = S.pooled[i];

		for (int l = 0; l < NR_LVL; l++) {
			held[l] += on_path(S.leaf[r], l);
			limited[l] += on_path(S.leaf[r], l) && !S.bypass[r];
		}
	}
}

/* A NOWAIT probe at @leaf: admitted exactly when the path has room. */
static void probe(int leaf, const uint32_t held[NR_LVL])
{
	bool room = true;
	struct iolat_io io;
	int ret;

	for (int l = 0; l < NR_LVL; l++) {
		uint32_t d = atomic_load(&S.lvl[l]->max_depth);

		if (on_path(leaf, l) && d != IOLAT_DEPTH_MAX && held[l] >= d)
			room = false;
	}
	ret = iolat_throttle_async_at(S.lvl[leaf], IOLAT_IO_NOWAIT, &io, NULL, T0);
	if ((ret == 0) != room)
		error("probe at level %d: %d, expected %s", leaf, ret, room ? "room" : "full");
	if (ret == 0)
		iolat_done_at(&io, T0 + 1);
}

/* Workers parked: the checks of the header. Fills @limited. */
static void checkpoint(uint32_t limited[NR_LVL])
{
	uint32_t held[NR_LVL];

	park(true);
	tally(held, limited);
	for (int l = 0; l < NR_LVL; l++) {
		struct iolat_group *g = S.lvl[l];
		uint32_t n = iolat_inflight_exact(g), mode = atomic_load(&g->mode);

		if (n != held[l])
			error("level %d: exact count %u, the pool holds %u", l, n, held[l]);
		if (mode == IOLAT_MODE_DIST && atomic_load(&g->max_depth) != IOLAT_DEPTH_MAX)
			error("level %d: distributed but limited", l);
		if (mode != IOLAT_MODE_DIST) {
			for (uint32_t i = 0; i < g->last_slot; i++)
				if (atomic_load(&grp_slots(g)[i].local))
					error("level %d: exact, slot %u has a local", l, i);
		}
	}
	probe(2, held);
	probe(3, held);
	if (t_check_invariants(S.ctl))
		error("checkpoint: invariants");
	park(false);
}

/* Set and lift limits on the levels other than @held_l, while workers run. */
static void toggle_others(int held_l, uint64_t *rnd)
{
	for (int k = 0; k < 3; k++) {
		int l = (int)t_stress_below(rnd, NR_LVL);

		if (l == held_l)
			continue;
		iolat_depth_set(S.lvl[l], 1 + t_stress_below(rnd, 4));
		for (int y = 0; y < 4; y++)
			sched_yield();
		lift(S.lvl[l]);
	}
}

/* One round: a limit set on level L under load, held across an interval. */
static void round_(uint64_t *rnd)
{
	int l = (int)t_stress_below(rnd, NR_LVL);
	uint32_t d = 1 + t_stress_below(rnd, 4), a[NR_LVL], b[NR_LVL];

	iolat_depth_set(S.lvl[l], d); /* the fold, racing the workers */
	checkpoint(a);
	toggle_others(l, rnd);
	checkpoint(b);
	/* Admissions after the first checkpoint saw the limit: each left the
	 * count at most d, so the I/O that honours limits is at most d, or no
	 * higher than at the start if it was above. */
	if (b[l] > (a[l] > d ? a[l] : d))
		error("level %d held at %u: %u in flight, %u at the start", l, d, b[l], a[l]);
	lift(S.lvl[l]);
	for (int y = 0; y < 8; y++)
		sched_yield();
}

static void setup(void)
{
	struct iolat_ctl_config cfg = { .clock = &clk, .nr_requests = 8, .max_groups = 16,
					.nr_stat_slots = 64 };
	struct iolat_group **g = S.lvl;

	pthread_mutex_init(&S.lock, NULL);
	assert_int_equal(iolat_ctl_create(&cfg, &S.ctl), 0);
	assert_int_equal(iolat_group_create(S.ctl, NULL, "a", &g[0]), 0);
	assert_int_equal(iolat_group_create(S.ctl, g[0], "b", &g[1]), 0);
	assert_int_equal(iolat_group_create(S.ctl, g[1], "c", &g[2]), 0);
	assert_int_equal(iolat_group_create(S.ctl, NULL, "d", &g[3]), 0);
	assert_int_equal(iolat_group_set_target(g[2], 10000000), 0);
	assert_int_equal(iolat_group_set_target(g[3], 10000000), 0);
	for (int i = 0; i < NR_IO; i++)
		S.free_[S.nfree++] = i;
}

static void finish(void)
{
	uint64_t rnd = 1;

	while (S.npooled)
		iolat_done_at(&S.io[take(S.pooled, &S.npooled, &rnd)], T0 + 1);
	for (int l = 0; l < NR_LVL; l++) {
		lift(S.lvl[l]);
		assert_int_equal(iolat_inflight_exact(S.lvl[l]), 0);
		assert_int_equal(atomic_load(&S.lvl[l]->mode), IOLAT_MODE_DIST);
	}
	assert_int_equal(t_check_idle(S.ctl), 0);
}

static void test_switch_under_load(void **state)
{
	pthread_t w[NR_WORKERS], chk;
	uint64_t rnd = t_stress_env_u64("STRESS_SEED", 0x5eed) | 1;
	uint64_t rounds = t_stress_env_u64("SWITCH_ROUNDS",
					   t_stress_env_flag("IOLAT_TEST_SHORT") ? 200 :
					   t_stress_under_tsan() ? 300 : 600);

	setup();
	for (int i = 0; i < NR_WORKERS; i++)
		assert_int_equal(pthread_create(&w[i], NULL, worker_main,
						(void *)(uintptr_t)(i + 1)), 0);
	assert_int_equal(pthread_create(&chk, NULL, checker_main, NULL), 0);
	for (uint64_t r = 0; r < rounds && atomic_load(&S.errors) < MAX_ERR; r++)
		round_(&rnd);
	/* Under TSan on a loaded 2-core machine the workers can be starved while
	 * the rounds run (CI-like run: 249 I/Os in 300 rounds): more rounds, for
	 * up to 20 s, until they did more I/O than there were rounds. */
	for (time_t until = time(NULL) + 20; atomic_load(&S.completed) <= rounds &&
	     atomic_load(&S.errors) < MAX_ERR && time(NULL) < until;)
		round_(&rnd);
	atomic_store(&S.stop, 1);
	park(false);
	for (int i = 0; i < NR_WORKERS; i++)
		pthread_join(w[i], NULL);
	pthread_join(chk, NULL);
	printf("inflight_switch: %llu rounds, %llu admitted, %llu refused, %llu completed, "
	       "%llu live checks, %u errors\n", (unsigned long long)rounds,
	       (unsigned long long)atomic_load(&S.admitted),
	       (unsigned long long)atomic_load(&S.refused),
	       (unsigned long long)atomic_load(&S.completed),
	       (unsigned long long)atomic_load(&S.checks), atomic_load(&S.errors));
	assert_int_equal(atomic_load(&S.errors), 0);
	/* The run did what it is for: limits refused some I/O, folds had work. */
	assert_true(atomic_load(&S.refused) > 0);
	assert_true(atomic_load(&S.completed) > rounds);
	finish();
	iolat_ctl_destroy(S.ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_under_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
