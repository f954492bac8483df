/* SPDX-License-Identifier: MIT */
/*
 * test_stress.c - concurrency stress of the controller (src/core) and its
 * blocking layer (src/sync) on the real clock: 8 groups in a 3-level tree,
 * 10^6 I/Os (2*10^5 under TSan; with IOLAT_TEST_SHORT=1 10^5, 5*10^4 under
 * TSan; STRESS_IOS=n overrides) issued by 4 submitters as a mix of blocking iolat_throttle(),
 * async iolat_throttle_async() (granted callbacks hand the I/O to completer
 * threads), IOLAT_IO_NOWAIT, META/SWAP bypass and iolat_throttle_cancel();
 * completed by 2 other threads; while a ticker calls iolat_ctl_tick() every
 * millisecond and reads stats, and a setter sets and clears tiny targets at
 * random, so that groups are throttled and I/Os wait.
 *
 * Checked: every admitted I/O is completed exactly once and every queued one
 * granted exactly once or cancelled (a per-record state machine, tag sums,
 * per-group counts against nr_done/nr_bypass); at checkpoints (all threads
 * parked) each level's inflight and nwait equal what the live I/Os hold; the
 * invariant checker (t_stress.c) live and at the end; inflight 0 and no
 * waiter at every level at the end; no I/O waits 10 s (a watchdog prints the
 * state and exits 1 instead of hanging); throttling happened.
 *
 * A second case churns groups: a/eN (and a/eN/c) created, used, destroyed,
 * 3000 times and at least 1.5 s, beside blocking I/O on stable siblings and
 * a tick every 0.5 ms that checks the invariants (STRESS_CHURN=0 skips it).
 * Knobs: STRESS_IOS, STRESS_SEED, STRESS_LIMIT_S (240), STRESS_CHURN_ROUNDS,
 * STRESS_CHURN_MS, IOLAT_TEST_SHORT=1.
 *
 * Threads: main (set-up, checkpoints, final checks), 4 submitters, 2
 * completers, the ticker, the target setter, the watchdog; for the churn
 * case main (the churner), 3 workers and a ticker. cmocka asserts run on main
 * only; other threads record errors in S.errors / C.errors.
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
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iolatency.h"
#include "helpers/t_stress.h"

#define NR_SUB   4
#define NR_COMP  2
#define NR_GRP   8
#define POOL     128          /* records per submitter, used round-robin */
#define MAX_OUT  16           /* outstanding I/Os per submitter */
#define QD       4            /* nr_requests: depths 2, 1, then delay */
#define WAIT_LIMIT_NS  (10ull * 1000000000ull)
#define MAX_ERR_PRINT  20

#define BYPASS (IOLAT_IO_META | IOLAT_IO_SWAP)

enum rec_state { R_FREE, R_SUBMIT, R_QUEUED, R_BLOCK, R_ADMITTED, R_DONE };
static const char *const state_name[] = { "free", "submit", "queued", "blocked", "admitted",
					  "done" };

/* One I/O record; reused round-robin by its submitter. */
struct rec {
	struct iolat_io io;
	struct iolat_waiter w;
	_Atomic uint32_t state;    /* enum rec_state */
	_Atomic uint32_t ngranted; /* granted() calls in this incarnation */
	_Atomic uint64_t t0;       /* start of the current state (watchdog) */
	_Atomic uint64_t tag;      /* submitter << 48 | sequence */
	_Atomic uint32_t gi;       /* test group index */
	_Atomic uint32_t flags;
	struct rec *qnext;         /* completion queue; under S.qlock */
};

struct sub {
	pthread_t th;
	uint32_t id;
	uint64_t rng, seq;
	uint32_t next, busy;
	struct rec pool[POOL];
	_Atomic(struct rec *) in_block; /* record of a running iolat_throttle() */
	_Atomic uint64_t block_gen;      /* iolat_throttle() calls returned */
	_Atomic int parked, finished;
};

/* The tree: a, b; a/a1, a/a2, b/b1, b/b2; a/a1/x, a/a1/y. */
static const struct {
	const char *name;
	int parent; /* test index, -1: top level */
	bool leaf;
} tree[NR_GRP] = {
	{ "a", -1, false }, { "b", -1, false },
	{ "a1", 0, false }, { "a2", 0, true }, { "b1", 1, true }, { "b2", 1, true },
	{ "x", 2, true }, { "y", 2, true },
};
static const uint64_t targets[] = { 0, 0, 1000, 5000, 50000, 500000, 5000000 };

static struct {
	struct iolat_ctl *ctl;
	struct iolat_group *g[NR_GRP];
	struct sub subs[NR_SUB];
	pthread_t comp[NR_COMP], ticker, setter, watchdog;
	_Atomic int comp_parked[NR_COMP], ticker_parked, setter_parked;
	uint64_t target_ios, t_start, extra_deadline, hard_deadline;

	/* Completion queue. */
	pthread_mutex_t qlock;
	pthread_cond_t qcv;
	struct rec *qhead, *qtail;

	/* Pause for checkpoints; stop flags. */
	pthread_mutex_t plock;
	pthread_cond_t pcv;
	_Atomic int pause_req;
	_Atomic uint64_t pause_since;
	_Atomic int stop_all, wd_stop, seen_throttle;

	/* Counters. */
	_Atomic uint64_t issued, admitted, queued, granted, eagain, cancel_ok, cancel_already;
	_Atomic uint64_t completed, nr_bypass, blocking_waited, unissued, done_at;
	_Atomic uint64_t tag_admit_sum, tag_done_sum, ticks, checks, checkpoints, slept_ns;
	_Atomic uint64_t tr_admitted[NR_GRP], tr_completed[NR_GRP], tr_bypass[NR_GRP];

	_Atomic int errors;
	pthread_mutex_t elock;
	char first_err[512];
} S;

static void fail_async(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Record an error from any thread; main asserts there were none. */
static void fail_async(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = atomic_fetch_add(&S.errors, 1);
	pthread_mutex_lock(&S.elock);
	if (n == 0)
		snprintf(S.first_err, sizeof(S.first_err), "%s", buf);
	pthread_mutex_unlock(&S.elock);
	if (n < MAX_ERR_PRINT)
		fprintf(stderr, "stress error: %s\n", buf);
}

static void print_counters(FILE *f)
{
	fprintf(f, "  issued=%llu admitted=%llu completed=%llu queued=%llu granted=%llu "
		   "blocking_waited=%llu eagain=%llu cancel_ok=%llu cancel_already=%llu "
		   "bypass=%llu unissued=%llu ticks=%llu live_checks=%llu checkpoints=%llu "
		   "slept_ms=%.1f\n",
		(unsigned long long)S.issued, (unsigned long long)S.admitted,
		(unsigned long long)S.completed, (unsigned long long)S.queued,
		(unsigned long long)S.granted, (unsigned long long)S.blocking_waited,
		(unsigned long long)S.eagain, (unsigned long long)S.cancel_ok,
		(unsigned long long)S.cancel_already, (unsigned long long)S.nr_bypass,
		(unsigned long long)S.unissued, (unsigned long long)S.ticks,
		(unsigned long long)S.checks, (unsigned long long)S.checkpoints,
		(double)S.slept_ns / 1e6);
}

/* The watchdog's verdict: say why, show the state, exit instead of hanging. */
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("stress FAIL (watchdog): ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	print_counters(stderr);
	t_dump_groups(S.ctl, stderr);
	fflush(NULL);
	_exit(1);
}

static void park(_Atomic int *flag)
{
	pthread_mutex_lock(&S.plock);
	atomic_store(flag, 1);
	pthread_cond_broadcast(&S.pcv);
	while (atomic_load(&S.pause_req))
		pthread_cond_wait(&S.pcv, &S.plock);
	atomic_store(flag, 0);
	pthread_mutex_unlock(&S.plock);
}

/* Sleep @ns in steps of at most 1 ms, parking when a checkpoint asks. */
static void nap(uint64_t ns, _Atomic int *parked)
{
	while (ns && !atomic_load(&S.stop_all)) {
		uint64_t step = ns < 1000000 ? ns : 1000000;
		struct timespec ts = { 0, (long)step };

		if (atomic_load(&S.pause_req))
			park(parked);
		nanosleep(&ts, NULL);
		ns -= step;
	}
}

/* ---- completion ---- */

static void push_done_queue(struct rec *r)
{
	pthread_mutex_lock(&S.qlock);
	r->qnext = NULL;
	if (S.qtail)
		S.qtail->qnext = r;
	else
		S.qhead = r;
	S.qtail = r;
	pthread_cond_signal(&S.qcv);
	pthread_mutex_unlock(&S.qlock);
}

/* An I/O now holds its slots (or was admitted untracked): count it. */
static void note_admitted(struct rec *r)
{
	uint32_t gi = atomic_load_explicit(&r->gi, memory_order_relaxed);

	atomic_fetch_add(&S.admitted, 1);
	atomic_fetch_add(&S.tag_admit_sum, atomic_load(&r->tag));
	if (t_inv_io_tracked(&r->io)) {
		atomic_fetch_add(&S.tr_admitted[gi], 1);
		if (atomic_load(&r->flags) & BYPASS) {
			atomic_fetch_add(&S.tr_bypass[gi], 1);
			atomic_fetch_add(&S.nr_bypass, 1);
		}
	}
	atomic_store(&r->t0, t_stress_now_ns());
}

static void rec_granted(struct iolat_waiter *w)
{
	struct rec *r = (struct rec *)((char *)w - offsetof(struct rec, w));
	uint32_t st = atomic_load(&r->state);

	if (atomic_fetch_add(&r->ngranted, 1) != 0)
		fail_async("tag %llx granted twice", (unsigned long long)atomic_load(&r->tag));
	do {
		/* SUBMIT: granted before iolat_throttle_async() returned; legal. */
		if (st != R_SUBMIT && st != R_QUEUED) {
			fail_async("tag %llx granted in state %s", (unsigned long long)
				   atomic_load(&r->tag), state_name[st]);
			return;
		}
	} while (!atomic_compare_exchange_weak(&r->state, &st, R_ADMITTED));
	atomic_fetch_add(&S.granted, 1);
	if (!t_inv_io_tracked(&r->io) || t_inv_io_wait_level(&r->io) != UINT32_MAX)
		fail_async("tag %llx granted but not holding its slots",
			   (unsigned long long)atomic_load(&r->tag));
	note_admitted(r);
	push_done_queue(r);
}

static void complete_one(struct rec *r, uint64_t *rng)
{
	uint32_t gi = atomic_load_explicit(&r->gi, memory_order_relaxed);
	uint64_t tag = atomic_load(&r->tag);
	bool tracked = t_inv_io_tracked(&r->io);
	uint32_t how = t_stress_below(rng, 100);

	if (atomic_load(&r->state) != R_ADMITTED)
		fail_async("tag %llx completed in state %s", (unsigned long long)tag,
			   state_name[atomic_load(&r->state)]);
	if (how < 80) {
		iolat_done(&r->io);
	} else if (how < 95) {
		iolat_done_at(&r->io, iolat_ctl_now(S.ctl));
		atomic_fetch_add(&S.done_at, 1);
	} else {
		iolat_done_unissued(&r->io);
		atomic_fetch_add(&S.unissued, 1);
	}
	if (t_inv_io_tracked(&r->io))
		fail_async("tag %llx still tracked after done", (unsigned long long)tag);
	if (tracked)
		atomic_fetch_add(&S.tr_completed[gi], 1);
	atomic_fetch_add(&S.completed, 1);
	atomic_fetch_add(&S.tag_done_sum, tag);
	atomic_store_explicit(&r->state, R_DONE, memory_order_release); /* owner may reuse it */
}

static void *completer_main(void *arg)
{
	int id = (int)(intptr_t)arg;
	uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 101);

	for (;;) {
		struct rec *batch;
		int n = 0;

		pthread_mutex_lock(&S.qlock);
		while (!S.qhead && !atomic_load(&S.pause_req) && !atomic_load(&S.stop_all))
			pthread_cond_wait(&S.qcv, &S.qlock);
		if (atomic_load(&S.pause_req)) {
			pthread_mutex_unlock(&S.qlock);
			park(&S.comp_parked[id]);
			continue;
		}
		if (!S.qhead) {
			pthread_mutex_unlock(&S.qlock);
			break; /* stop_all and nothing left */
		}
		/* Take up to 8: a batch, as an engine reaping completions. */
		batch = S.qhead;
		for (struct rec *r = S.qhead; r && n < 8; r = r->qnext, n++)
			S.qhead = r->qnext;
		if (!S.qhead)
			S.qtail = NULL;
		pthread_mutex_unlock(&S.qlock);
		while (n--) {
			struct rec *next = batch->qnext;

			complete_one(batch, &rng);
			batch = next;
		}
	}
	return NULL;
}

/* ---- submission ---- */

static struct rec *rec_alloc(struct sub *s)
{
	if (s->busy >= MAX_OUT) {
		/* Reclaim finished records first. */
		for (uint32_t i = 0; i < POOL; i++) {
			struct rec *r = &s->pool[i];

			if (atomic_load_explicit(&r->state, memory_order_acquire) == R_DONE) {
				atomic_store(&r->state, R_FREE);
				s->busy--;
			}
		}
		if (s->busy >= MAX_OUT)
			return NULL;
	}
	for (uint32_t i = 0; i < POOL; i++) {
		struct rec *r = &s->pool[(s->next + i) % POOL];
		uint32_t st = atomic_load_explicit(&r->state, memory_order_acquire);

		if (st == R_DONE) {
			atomic_store(&r->state, R_FREE);
			s->busy--;
			st = R_FREE;
		}
		if (st == R_FREE) {
			s->next = (s->next + i + 1) % POOL;
			s->busy++;
			return r;
		}
	}
	return NULL;
}

static void rec_release(struct sub *s, struct rec *r)
{
	atomic_store(&r->state, R_FREE);
	s->busy--;
}

/* Withdraw one waiting async I/O of @s, if it still waits. */
static void try_cancel(struct sub *s, uint32_t start)
{
	for (uint32_t i = 0; i < POOL; i++) {
		struct rec *r = &s->pool[(start + i) % POOL];
		uint32_t st = R_QUEUED;
		int ret;

		if (atomic_load(&r->state) != R_QUEUED)
			continue;
		ret = iolat_throttle_cancel(&r->io);
		if (ret == -EALREADY) {
			atomic_fetch_add(&S.cancel_already, 1);
			return;
		}
		if (ret != 0) {
			fail_async("cancel returned %d", ret);
			return;
		}
		atomic_fetch_add(&S.cancel_ok, 1);
		if (!atomic_compare_exchange_strong(&r->state, &st, R_FREE) ||
		    atomic_load(&r->ngranted) != 0)
			fail_async("tag %llx granted although cancel returned 0 (state %s)",
				   (unsigned long long)atomic_load(&r->tag), state_name[st]);
		else
			s->busy--;
		if (t_inv_io_tracked(&r->io))
			fail_async("tag %llx still tracked after cancel",
				   (unsigned long long)atomic_load(&r->tag));
		return;
	}
}

static uint32_t pick_group(struct sub *s)
{
	static const uint32_t leaves[] = { 3, 4, 5, 6, 7 }, inner[] = { 0, 1, 2 };

	if (t_stress_below(&s->rng, 100) < 85)
		return leaves[t_stress_below(&s->rng, 5)];
	return inner[t_stress_below(&s->rng, 3)];
}

/* How to issue the next I/O, from a draw of @mode in 0..99: blocking or
 * not, NOWAIT, META or SWAP (the mix of the stress). */
static bool pick_mode(uint32_t mode, unsigned *flags)
{
	*flags = 0;
	if (mode < 22)
		return true;
	if (mode < 60)
		return false;
	if (mode < 68)
		return *flags = IOLAT_IO_NOWAIT, false;
	if (mode < 72)
		return *flags = IOLAT_IO_NOWAIT, true;
	if (mode < 80)
		return *flags = IOLAT_IO_META, false;
	if (mode < 84)
		return *flags = IOLAT_IO_META, true;
	if (mode < 86)
		return *flags = IOLAT_IO_SWAP, false;
	return false;
}

/* iolat_throttle(): admitted (or refused, with NOWAIT) before it returns. */
static void issue_blocking(struct sub *s, struct rec *r, uint32_t gi, unsigned flags)
{
	int ret;

	atomic_store(&r->state, R_BLOCK);
	atomic_store(&s->in_block, r);
	ret = iolat_throttle(S.g[gi], flags, &r->io);
	atomic_store(&s->in_block, NULL);
	atomic_fetch_add(&s->block_gen, 1);
	if (ret == 0) {
		if (t_inv_io_waited(&r->io))
			atomic_fetch_add(&S.blocking_waited, 1);
		atomic_store(&r->state, R_ADMITTED);
		note_admitted(r);
		push_done_queue(r);
	} else {
		if (ret != -EAGAIN || !(flags & IOLAT_IO_NOWAIT) || t_inv_io_tracked(&r->io))
			fail_async("iolat_throttle returned %d (flags %#x)", ret, flags);
		atomic_fetch_add(&S.eagain, 1);
		rec_release(s, r);
	}
}

/* iolat_throttle_async(): admitted at once, queued (granted() later, maybe
 * already), or refused. */
static void issue_async(struct sub *s, struct rec *r, uint32_t gi, unsigned flags)
{
	uint32_t st = R_SUBMIT;
	int ret;

	atomic_store(&r->state, R_SUBMIT);
	ret = iolat_throttle_async(S.g[gi], flags, &r->io, &r->w);
	if (ret == 0) {
		if (!atomic_compare_exchange_strong(&r->state, &st, R_ADMITTED)) {
			fail_async("tag %llx: granted() called although admitted at once",
				   (unsigned long long)atomic_load(&r->tag));
			return;
		}
		note_admitted(r);
		push_done_queue(r);
	} else if (ret == IOLAT_QUEUED) {
		if (flags & (BYPASS | IOLAT_IO_NOWAIT))
			fail_async("flags %#x queued", flags);
		atomic_fetch_add(&S.queued, 1);
		/* Fails when granted() already ran: then it is ADMITTED or DONE. */
		atomic_compare_exchange_strong(&r->state, &st, R_QUEUED);
	} else {
		if (ret != -EAGAIN || !(flags & IOLAT_IO_NOWAIT) || t_inv_io_tracked(&r->io))
			fail_async("iolat_throttle_async returned %d (flags %#x)", ret, flags);
		atomic_fetch_add(&S.eagain, 1);
		if (!atomic_compare_exchange_strong(&r->state, &st, R_FREE))
			fail_async("refused I/O was granted");
		else
			s->busy--;
	}
}

/* Issue one I/O; false when no record is free (caller retries). */
static bool issue_one(struct sub *s)
{
	uint32_t mode = t_stress_below(&s->rng, 100), gi = pick_group(s);
	unsigned flags;
	bool blocking = pick_mode(mode, &flags);
	struct rec *r = rec_alloc(s);

	if (!r)
		return false;
	atomic_store(&r->tag, (uint64_t)s->id << 48 | ++s->seq);
	atomic_store(&r->gi, gi);
	atomic_store(&r->flags, flags);
	atomic_store(&r->ngranted, 0);
	atomic_store(&r->t0, t_stress_now_ns());
	r->w.granted = rec_granted;
	if (blocking)
		issue_blocking(s, r, gi, flags);
	else
		issue_async(s, r, gi, flags);
	return true;
}

static bool time_to_stop(void)
{
	if (atomic_load(&S.issued) < S.target_ios)
		return false;
	return atomic_load(&S.seen_throttle) || t_stress_now_ns() > S.extra_deadline;
}

static void *submitter_main(void *arg)
{
	struct sub *s = arg;
	uint64_t n = 0;

	while (!time_to_stop()) {
		if (atomic_load(&S.pause_req))
			park(&s->parked);
		if (t_stress_below(&s->rng, 100) < 10)
			try_cancel(s, t_stress_below(&s->rng, POOL));
		if (++n % 128 == 0) {
			struct iolat_group *g = S.g[pick_group(s)];

			atomic_fetch_add(&S.slept_ns, iolat_maybe_throttle(g));
			(void)iolat_group_congested(g);
		}
		if (issue_one(s))
			atomic_fetch_add(&S.issued, 1);
		else
			sched_yield();
	}
	/* Drain: cancel some waiters, wait for the rest to be granted and completed. */
	for (;;) {
		if (atomic_load(&S.pause_req))
			park(&s->parked);
		if (t_stress_below(&s->rng, 2))
			try_cancel(s, t_stress_below(&s->rng, POOL));
		for (uint32_t i = 0; i < POOL; i++) {
			struct rec *r = &s->pool[i];

			if (atomic_load_explicit(&r->state, memory_order_acquire) == R_DONE)
				rec_release(s, r);
		}
		if (!s->busy)
			break;
		sched_yield();
	}
	atomic_store(&s->finished, 1);
	return NULL;
}

/* ---- ticker, target setter, watchdog ---- */

static void *ticker_main(void *arg)
{
	uint64_t it = 0;

	(void)arg;
	while (!atomic_load(&S.stop_all)) {
		if (atomic_load(&S.pause_req))
			park(&S.ticker_parked);
		iolat_ctl_tick(S.ctl);
		atomic_fetch_add(&S.ticks, 1);
		if (++it % 8 == 0) {
			int bad = t_check_invariants_ex(S.ctl, T_INV_FIXED_QD);

			atomic_fetch_add(&S.checks, 1);
			if (bad)
				fail_async("%d live invariant violations", bad);
		}
		if (it % 4 == 0) {
			uint64_t downs = 0, thr = 0;

			for (int i = 0; i < NR_GRP; i++) {
				struct iolat_group_stat st;
				char line[256];

				if (iolat_group_stat(S.g[i], &st) ||
				    iolat_group_format_stat(S.g[i], line, sizeof(line)) <= 0)
					fail_async("stat of group %d failed", i);
				downs += st.scale_downs;
				thr += st.throttled_ns;
				(void)iolat_group_delay_due(S.g[i]);
			}
			if (downs && thr && (S.queued || S.blocking_waited))
				atomic_store(&S.seen_throttle, 1);
		}
		nap(1000000, &S.ticker_parked);
	}
	return NULL;
}

static void *setter_main(void *arg)
{
	uint64_t rng = 0x2545F4914F6CDD1Dull ^ (uint64_t)(uintptr_t)arg;

	while (!atomic_load(&S.stop_all)) {
		uint32_t gi = t_stress_below(&rng, NR_GRP);
		uint64_t t = targets[t_stress_below(&rng, sizeof(targets) / sizeof(targets[0]))];

		if (atomic_load(&S.pause_req))
			park(&S.setter_parked);
		if (iolat_group_set_target(S.g[gi], t))
			fail_async("set_target failed");
		nap(20000000 + t_stress_below(&rng, 280000000), &S.setter_parked);
	}
	return NULL;
}

static void *watchdog_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&S.wd_stop)) {
		struct timespec ts = { 0, 50000000 };
		uint64_t now, ps;

		nanosleep(&ts, NULL);
		now = t_stress_now_ns();
		if (now > S.hard_deadline)
			die("the test overran its %llu s limit",
			    (unsigned long long)((S.hard_deadline - S.t_start) / 1000000000ull));
		ps = atomic_load(&S.pause_since);
		if (ps && now - ps > WAIT_LIMIT_NS)
			die("a checkpoint could not park the threads within 10 s");
		for (int i = 0; i < NR_SUB; i++) {
			for (int j = 0; j < POOL; j++) {
				struct rec *r = &S.subs[i].pool[j];
				uint32_t st = atomic_load(&r->state);
				uint64_t t0 = atomic_load(&r->t0);

				if (st == R_FREE || st == R_DONE || now < t0 ||
				    now - t0 <= WAIT_LIMIT_NS)
					continue;
				if (atomic_load(&r->state) != st || atomic_load(&r->t0) != t0)
					continue; /* moved on meanwhile */
				die("I/O tag %llx of group %s (flags %#x) %s for %.1f s (waits at "
				    "level %d)", (unsigned long long)atomic_load(&r->tag),
				    tree[atomic_load(&r->gi)].name, atomic_load(&r->flags),
				    st == R_ADMITTED ? "not completed" : state_name[st],
				    (double)(now - t0) / 1e9, (int)t_inv_io_wait_level(&r->io));
			}
		}
	}
	return NULL;
}

/* ---- checkpoints ---- */

struct snap {
	int parked[NR_SUB];
	struct rec *blk[NR_SUB];
	uint64_t gen[NR_SUB];
	uint32_t level[NR_SUB];
};

/* Everybody parked, or blocked in iolat_throttle() with its I/O queued. */
static bool all_still(struct snap *sn)
{
	memset(sn, 0, sizeof(*sn));
	for (int i = 0; i < NR_COMP; i++)
		if (!atomic_load(&S.comp_parked[i]))
			return false;
	if (!atomic_load(&S.ticker_parked) || !atomic_load(&S.setter_parked))
		return false;
	for (int i = 0; i < NR_SUB; i++) {
		struct sub *s = &S.subs[i];

		sn->parked[i] = atomic_load(&s->parked) || atomic_load(&s->finished);
		sn->gen[i] = atomic_load(&s->block_gen);
		sn->blk[i] = atomic_load(&s->in_block);
		sn->level[i] = sn->blk[i] ? t_inv_io_wait_level(&sn->blk[i]->io) : UINT32_MAX;
		if (!sn->parked[i] && (!sn->blk[i] || sn->level[i] == UINT32_MAX))
			return false;
	}
	return true;
}

/* Park every thread, then compare each level's counters with the live I/Os. */
static void checkpoint(void)
{
	uint32_t n = t_inv_nr_groups(S.ctl);
	uint32_t *infl = calloc(n, sizeof(*infl)), *nw = calloc(n, sizeof(*nw));
	struct snap a, b;

	assert_non_null(infl);
	assert_non_null(nw);
	atomic_store(&S.pause_since, t_stress_now_ns());
	atomic_store(&S.pause_req, 1);
	pthread_mutex_lock(&S.qlock);
	pthread_cond_broadcast(&S.qcv);
	pthread_mutex_unlock(&S.qlock);
	for (;;) {
		struct timespec ts = { 0, 200000 };

		if (all_still(&a)) {
			nanosleep(&ts, NULL);
			if (all_still(&b) && !memcmp(&a, &b, sizeof(a)))
				break;
		}
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < NR_SUB; i++) {
		for (int j = 0; j < POOL; j++) {
			struct rec *r = &S.subs[i].pool[j];
			uint32_t st = atomic_load(&r->state), wl = t_inv_io_wait_level(&r->io);
			bool waits = st == R_QUEUED || st == R_BLOCK;

			if (st == R_SUBMIT || waits != (wl != UINT32_MAX))
				fail_async("checkpoint: tag %llx in state %s, wait level %d",
					   (unsigned long long)atomic_load(&r->tag), state_name[st],
					   (int)wl);
			if (!t_inv_io_account(&r->io, infl, nw))
				fail_async("checkpoint: tag %llx waits off its path",
					   (unsigned long long)atomic_load(&r->tag));
		}
	}
	if (t_check_holdings(S.ctl, infl, nw))
		fail_async("checkpoint: counters differ from the slots the live I/Os hold");
	if (t_check_invariants_ex(S.ctl, T_INV_FIXED_QD))
		fail_async("checkpoint: invariant violations");
	atomic_fetch_add(&S.checkpoints, 1);
	free(infl);
	free(nw);
	pthread_mutex_lock(&S.plock);
	atomic_store(&S.pause_req, 0);
	atomic_store(&S.pause_since, 0);
	pthread_cond_broadcast(&S.pcv);
	pthread_mutex_unlock(&S.plock);
}

/* ---- the test ---- */

static uint64_t stress_ios(void)
{
	uint64_t def = 1000000;

	if (t_stress_under_tsan())
		def = 200000;
	if (t_stress_env_flag("IOLAT_TEST_SHORT"))
		def = t_stress_under_tsan() ? 50000 : 100000;
	return t_stress_env_u64("STRESS_IOS", def);
}

static void setup_tree(void)
{
	struct iolat_ctl_config cfg = {
		.nr_requests = QD,
		.max_groups = 16,
		.delay_cap_ns = 200000, /* keep iolat_maybe_throttle() sleeps short */
	};

	assert_int_equal(iolat_ctl_create(&cfg, &S.ctl), 0);
	for (int i = 0; i < NR_GRP; i++) {
		struct iolat_group *p = tree[i].parent < 0 ? NULL : S.g[tree[i].parent];

		assert_int_equal(iolat_group_create(S.ctl, p, tree[i].name, &S.g[i]), 0);
	}
	/* Start throttled-ish: tiny targets on x and b1, the rest random later. */
	assert_int_equal(iolat_group_set_target(S.g[6], 1000), 0);
	assert_int_equal(iolat_group_set_target(S.g[4], 2000), 0);
}

/* The shared state, its locks and limits; the group tree. */
static void stress_init(uint64_t seed)
{
	memset(&S, 0, sizeof(S));
	pthread_mutex_init(&S.qlock, NULL);
	pthread_cond_init(&S.qcv, NULL);
	pthread_mutex_init(&S.plock, NULL);
	pthread_cond_init(&S.pcv, NULL);
	pthread_mutex_init(&S.elock, NULL);
	S.target_ios = stress_ios();
	S.t_start = t_stress_now_ns();
	S.extra_deadline = S.t_start + 30ull * 1000000000ull;
	S.hard_deadline = S.t_start + t_stress_env_u64("STRESS_LIMIT_S", 240) * 1000000000ull;
	printf("stress: %llu I/Os, %d submitters, %d completers, seed %llu%s\n",
	       (unsigned long long)S.target_ios, NR_SUB, NR_COMP, (unsigned long long)seed,
	       t_stress_under_tsan() ? " (TSan)" : t_stress_under_asan() ? " (ASan)" : "");
	setup_tree();
}

/* Watchdog, completers, ticker, target setter, then the submitters. */
static void start_threads(uint64_t seed)
{
	assert_int_equal(pthread_create(&S.watchdog, NULL, watchdog_main, NULL), 0);
	for (int i = 0; i < NR_COMP; i++)
		assert_int_equal(pthread_create(&S.comp[i], NULL, completer_main,
						(void *)(intptr_t)i), 0);
	assert_int_equal(pthread_create(&S.ticker, NULL, ticker_main, NULL), 0);
	assert_int_equal(pthread_create(&S.setter, NULL, setter_main, (void *)(uintptr_t)seed), 0);
	for (int i = 0; i < NR_SUB; i++) {
		struct sub *s = &S.subs[i];

		s->id = (uint32_t)i;
		s->rng = (seed + 1) * 0x9e3779b97f4a7c15ull + (uint64_t)i * 0xbf58476d1ce4e5b9ull;
		if (!s->rng)
			s->rng = 1;
		assert_int_equal(pthread_create(&s->th, NULL, submitter_main, s), 0);
	}
}

/* Checkpoints every ~150 ms until the submitters are done; then every
 * thread but the watchdog stopped and joined. */
static void run_to_the_end(void)
{
	for (;;) {
		struct timespec ts = { 0, 150000000 };
		int fin = 0;

		nanosleep(&ts, NULL);
		for (int i = 0; i < NR_SUB; i++)
			fin += atomic_load(&S.subs[i].finished);
		if (fin == NR_SUB)
			break;
		checkpoint();
	}
	for (int i = 0; i < NR_SUB; i++)
		pthread_join(S.subs[i].th, NULL);
	atomic_store(&S.stop_all, 1);
	pthread_mutex_lock(&S.qlock);
	pthread_cond_broadcast(&S.qcv);
	pthread_mutex_unlock(&S.qlock);
	for (int i = 0; i < NR_COMP; i++)
		pthread_join(S.comp[i], NULL);
	pthread_join(S.ticker, NULL);
	pthread_join(S.setter, NULL);
}

/* Every I/O accounted for once: the test's counts, every record free. */
static void check_accounting(void)
{
	if (S.errors)
		print_message("first error: %s\n", S.first_err);
	assert_int_equal(S.errors, 0);
	assert_true(S.issued >= S.target_ios);
	assert_int_equal(S.admitted, S.completed);
	assert_true(S.tag_admit_sum == S.tag_done_sum);
	assert_int_equal(S.issued, S.admitted + S.eagain + S.cancel_ok);
	assert_int_equal(S.granted + S.cancel_ok, S.queued);
	assert_null(S.qhead);
	for (int i = 0; i < NR_SUB; i++) {
		for (int j = 0; j < POOL; j++) {
			struct rec *r = &S.subs[i].pool[j];

			assert_true(atomic_load(&r->state) == R_FREE);
			assert_true(atomic_load(&r->ngranted) <= 1);
		}
	}
}

/* Each group's counters match the test's and nothing is left in flight;
 * throttling really happened (depths went down and I/Os waited). */
static void check_groups(void)
{
	uint64_t downs = 0, ups = 0, throttled = 0, nr_done = 0;

	for (int i = 0; i < NR_GRP; i++) {
		struct iolat_group_stat st;

		assert_int_equal(iolat_group_stat(S.g[i], &st), 0);
		if (st.nr_done != S.tr_completed[i] || st.nr_bypass != S.tr_bypass[i])
			print_message("group %s: nr_done %llu (test counted %llu), nr_bypass %llu "
				      "(%llu)\n", tree[i].name, (unsigned long long)st.nr_done,
				      (unsigned long long)S.tr_completed[i],
				      (unsigned long long)st.nr_bypass,
				      (unsigned long long)S.tr_bypass[i]);
		assert_int_equal(st.nr_done, S.tr_completed[i]);
		assert_int_equal(S.tr_admitted[i], S.tr_completed[i]);
		assert_int_equal(st.nr_bypass, S.tr_bypass[i]);
		assert_int_equal(st.inflight, 0);
		assert_int_equal(st.waiters, 0);
		downs += st.scale_downs;
		ups += st.scale_ups;
		throttled += st.throttled_ns;
		nr_done += st.nr_done;
	}
	assert_int_equal(t_check_invariants_ex(S.ctl, T_INV_IDLE | T_INV_FIXED_QD), 0);
	printf("stress: scale_downs=%llu scale_ups=%llu throttled=%.1f ms tracked_done=%llu\n",
	       (unsigned long long)downs, (unsigned long long)ups, (double)throttled / 1e6,
	       (unsigned long long)nr_done);
	assert_true(downs > 0);
	assert_true(throttled > 0);
	assert_true(S.queued + S.blocking_waited > 0);
	assert_true(S.cancel_ok > 0 || S.queued < 100);
}

/*
 * Pressure gone: clear every target and tick. Every parent must be back
 * at the default cookie, and a group that saw the default cookie must
 * be unlimited (nothing else would ever unclamp it).
 */
static void check_release(void)
{
	int bad_depth = 0;

	for (int i = 0; i < NR_GRP; i++)
		assert_int_equal(iolat_group_set_target(S.g[i], 0), 0);
	for (int k = 0; k < 3; k++)
		iolat_ctl_tick(S.ctl);
	assert_false(iolat_ctl_enabled(S.ctl));
	for (int i = 0; i < NR_GRP; i++) {
		struct iolat_group_stat st;

		assert_int_equal(iolat_group_stat(S.g[i], &st), 0);
		assert_int_equal(st.child_cookie, IOLAT_DEFAULT_COOKIE);
		if (st.cookie == IOLAT_DEFAULT_COOKIE && st.depth != IOLAT_DEPTH_MAX) {
			print_message("group %s: cookie at default but depth %u (stuck clamp)\n",
				      tree[i].name, st.depth);
			bad_depth++;
		}
	}
	assert_int_equal(bad_depth, 0);
	assert_int_equal(t_check_idle(S.ctl), 0);
}

static void test_stress_mixed(void **state)
{
	uint64_t seed = t_stress_env_u64("STRESS_SEED", (uint64_t)time(NULL) ^ (uint64_t)getpid());
	uint64_t t_end;

	(void)state;
	stress_init(seed);
	start_threads(seed);
	run_to_the_end();
	t_end = t_stress_now_ns();

	/* Final accounting. */
	printf("stress: %.2f s, %.0f I/Os per second\n", (double)(t_end - S.t_start) / 1e9,
	       (double)S.issued / ((double)(t_end - S.t_start) / 1e9));
	print_counters(stdout);
	t_dump_groups(S.ctl, stdout);
	check_accounting();
	check_groups();
	check_release();

	atomic_store(&S.wd_stop, 1);
	pthread_join(S.watchdog, NULL);
	iolat_ctl_destroy(S.ctl);
}

/* ---- group churn: create, use, destroy groups while their siblings do I/O ---- */

static struct {
	struct iolat_ctl *ctl;
	struct iolat_group *a, *as, *b;
	uint64_t rounds;
	_Atomic int stop, errors;
	_Atomic uint64_t ios, destroyed;
} C;

static void churn_err(const char *what, int v)
{
	if (atomic_fetch_add(&C.errors, 1) < MAX_ERR_PRINT)
		fprintf(stderr, "churn error: %s (%d)\n", what, v);
}

/* Blocking I/O on the stable groups a/s and b, completed at once. */
static void *churn_worker(void *arg)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)((uintptr_t)arg + 7);

	while (!atomic_load(&C.stop)) {
		struct iolat_group *g = t_stress_below(&rng, 2) ? C.as : C.b;
		struct iolat_io io;
		int ret = iolat_throttle(g, t_stress_below(&rng, 10) ? 0 : IOLAT_IO_META, &io);

		if (ret)
			churn_err("stable throttle", ret);
		iolat_done(&io);
		atomic_fetch_add(&C.ios, 1);
	}
	return NULL;
}

static void *churn_ticker(void *arg)
{
	(void)arg;
	while (!atomic_load(&C.stop)) {
		struct timespec ts = { 0, 500000 };
		int bad;

		iolat_ctl_tick(C.ctl);
		bad = t_check_invariants_ex(C.ctl, T_INV_FIXED_QD);
		if (bad)
			churn_err("live invariants", bad);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* A churn waiter: granted() (on any thread) sets the flag the churner polls. */
struct churn_waiter {
	struct iolat_waiter w;
	_Atomic int granted;
};

static void churn_granted(struct iolat_waiter *w)
{
	struct churn_waiter *cw = (struct churn_waiter *)((char *)w -
							  offsetof(struct churn_waiter, w));

	if (atomic_exchange(&cw->granted, 1))
		churn_err("granted twice", 0);
}

static void churn_wait(struct churn_waiter *cw)
{
	while (!atomic_load(&cw->granted))
		sched_yield(); /* granted by a stable worker's completion or a tick */
}

/*
 * One round: a/eN (sometimes with a child a/eN/c) is created, given a target
 * or not, used by this thread with up to 4 I/Os in flight (async, completed
 * here), its stats read, then destroyed (child first), which must succeed
 * once its I/O is complete.
 */
static void churn_round(uint64_t *rng, uint64_t k)
{
	static const uint64_t tg[] = { 0, 1000, 100000 };
	struct iolat_group *e, *c = NULL, *use;
	struct iolat_io io[4];
	struct churn_waiter cw[4];
	struct iolat_group_stat st;
	char name[16], line[200];
	int ret;

	snprintf(name, sizeof(name), "e%llu", (unsigned long long)(k % 3));
	ret = iolat_group_create(C.ctl, C.a, name, &e);
	if (ret) {
		churn_err("create", ret);
		return;
	}
	if (t_stress_below(rng, 2) && (ret = iolat_group_create(C.ctl, e, "c", &c)))
		churn_err("create child", ret);
	use = c ? c : e;
	if ((ret = iolat_group_set_target(e, tg[t_stress_below(rng, 3)])))
		churn_err("set_target", ret);
	for (int n = 0; n < 68; n++) {
		int i = n % 4;

		if (n >= 4) {
			churn_wait(&cw[i]);
			iolat_done(&io[i]);
		}
		if (n >= 64)
			continue;
		cw[i].w.granted = churn_granted;
		atomic_store(&cw[i].granted, 0);
		ret = iolat_throttle_async(use, 0, &io[i], &cw[i].w);
		if (ret == 0)
			atomic_store(&cw[i].granted, 1);
		else if (ret != IOLAT_QUEUED)
			churn_err("async", ret);
	}
	iolat_group_stat(use, &st);
	iolat_group_format_stat(e, line, sizeof(line));
	if (st.inflight || st.waiters)
		churn_err("busy after its I/O completed", (int)st.inflight);
	if (c && (ret = iolat_group_destroy(c)))
		churn_err("destroy child", ret);
	if ((ret = iolat_group_destroy(e)))
		churn_err("destroy", ret);
	atomic_fetch_add(&C.destroyed, 1);
}

static void test_stress_churn(void **state)
{
	struct iolat_ctl_config cfg = { .nr_requests = QD, .max_groups = 12 };
	pthread_t wk[3], tk;
	uint64_t rng = 12345, t0 = t_stress_now_ns(), min_ns;
	struct iolat_group_stat st;

	(void)state;
	if (getenv("STRESS_CHURN") && !strcmp(getenv("STRESS_CHURN"), "0"))
		skip();
	memset(&C, 0, sizeof(C));
	C.rounds = t_stress_under_tsan() || t_stress_env_flag("IOLAT_TEST_SHORT") ? 300 : 3000;
	C.rounds = t_stress_env_u64("STRESS_CHURN_ROUNDS", C.rounds);
	min_ns = t_stress_env_u64("STRESS_CHURN_MS",
				  t_stress_env_flag("IOLAT_TEST_SHORT") ? 500 : 1500) * 1000000ull;
	assert_int_equal(iolat_ctl_create(&cfg, &C.ctl), 0);
	assert_int_equal(iolat_group_create(C.ctl, NULL, "a", &C.a), 0);
	assert_int_equal(iolat_group_create(C.ctl, C.a, "s", &C.as), 0);
	assert_int_equal(iolat_group_create(C.ctl, NULL, "b", &C.b), 0);
	/* 1 ns: every I/O misses (they complete at once), windows miss, siblings throttle. */
	assert_int_equal(iolat_group_set_target(C.as, 1), 0);  /* throttles a's other children */
	assert_int_equal(iolat_group_set_target(C.b, 1), 0);   /* and a itself */
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&wk[i], NULL, churn_worker, (void *)(uintptr_t)i), 0);
	assert_int_equal(pthread_create(&tk, NULL, churn_ticker, NULL), 0);
	/* At least C.rounds, and long enough for windows to close and throttle. */
	for (uint64_t k = 0; k < C.rounds || t_stress_now_ns() - t0 < min_ns; k++) {
		churn_round(&rng, k);
		if (t_stress_now_ns() - t0 > 120ull * 1000000000ull)
			break; /* a slow machine: enough */
	}
	atomic_store(&C.stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(wk[i], NULL);
	pthread_join(tk, NULL);
	printf("churn: %llu groups created and destroyed beside %llu I/Os in %.2f s\n",
	       (unsigned long long)C.destroyed, (unsigned long long)C.ios,
	       (double)(t_stress_now_ns() - t0) / 1e9);
	assert_int_equal(C.errors, 0);
	assert_true(C.destroyed >= C.rounds);
	/* b's misses throttled a, a/s's misses throttled the churned groups. */
	assert_int_equal(iolat_group_stat(C.a, &st), 0);
	printf("churn: a: scale_downs=%llu throttled=%.1f ms\n",
	       (unsigned long long)st.scale_downs, (double)st.throttled_ns / 1e6);
	assert_true(st.scale_downs > 0);
	assert_int_equal(t_check_invariants_ex(C.ctl, T_INV_IDLE | T_INV_FIXED_QD), 0);
	iolat_ctl_destroy(C.ctl);
}

/* ---- the checker itself, on a hand-made state (virtual clock, one thread) ---- */

static _Atomic uint64_t vclock_ns;

static uint64_t vclock(void *ctx)
{
	(void)ctx;
	return atomic_load(&vclock_ns);
}

static int granted_calls;

static void count_granted(struct iolat_waiter *w)
{
	(void)w;
	granted_calls++;
}

static void test_checker_selftest(void **state)
{
	const struct iolat_clock clk = { .now_ns = vclock };
	struct iolat_ctl_config cfg = { .nr_requests = 4, .max_groups = 8, .clock = &clk };
	struct iolat_group *p, *fast, *slow;
	struct iolat_io fio, io[4];
	struct iolat_waiter w[4];
	struct iolat_group_stat st;
	struct iolat_ctl *ctl;
	uint32_t infl[9], nw[9];

	(void)state;
	atomic_store(&vclock_ns, 1000000000ull);
	assert_int_equal(iolat_ctl_create(&cfg, &ctl), 0);
	assert_int_equal(t_inv_nr_groups(ctl), 9);
	assert_int_equal(iolat_group_create(ctl, NULL, "p", &p), 0);
	assert_int_equal(iolat_group_create(ctl, p, "fast", &fast), 0);
	assert_int_equal(iolat_group_create(ctl, p, "slow", &slow), 0);
	assert_int_equal(iolat_group_set_target(fast, 1000000), 0);
	assert_int_equal(t_check_idle(ctl), 0);

	/* fast misses its 1 ms target for a whole window: slow is halved to qd/2 = 2. */
	for (int i = 0; i < 20; i++) {
		assert_int_equal(iolat_throttle_async(fast, 0, &fio, NULL), 0);
		atomic_fetch_add(&vclock_ns, 10000000);
		iolat_done(&fio);
	}
	assert_int_equal(iolat_throttle_async(slow, 0, &io[0], &w[0]), 0);
	assert_int_equal(iolat_group_stat(slow, &st), 0);
	assert_int_equal(st.depth, 2);
	for (int i = 0; i < 4; i++)
		w[i].granted = count_granted;
	assert_int_equal(iolat_throttle_async(slow, 0, &io[1], &w[1]), 0);
	assert_int_equal(iolat_throttle_async(slow, 0, &io[2], &w[2]), IOLAT_QUEUED);
	assert_int_equal(iolat_throttle_async(slow, IOLAT_IO_META, &io[3], &w[3]), 0);
	assert_int_equal(t_inv_io_wait_level(&io[2]), t_inv_group_idx(slow));

	/* slow holds 3 (one bypass, past its depth of 2), 1 waits; p holds the same 3. */
	memset(infl, 0, sizeof(infl));
	memset(nw, 0, sizeof(nw));
	for (int i = 0; i < 4; i++)
		assert_true(t_inv_io_account(&io[i], infl, nw));
	assert_int_equal(infl[t_inv_group_idx(slow)], 3);
	assert_int_equal(infl[t_inv_group_idx(p)], 3);
	assert_int_equal(nw[t_inv_group_idx(slow)], 1);
	assert_int_equal(t_check_holdings(ctl, infl, nw), 0);
	assert_int_equal(t_check_invariants_ex(ctl, T_INV_FIXED_QD), 0);
	assert_true(t_check_invariants_ex(ctl, T_INV_IDLE | T_INV_QUIET) > 0);

	/* The checker sees a leaked slot, a wrapped counter, a wrong enable count. */
	infl[t_inv_group_idx(p)]++;
	print_message("(the holdings mismatch printed next is expected)\n");
	assert_int_equal(t_check_holdings(ctl, infl, nw), 1);
	infl[t_inv_group_idx(p)]--;
	/* The bypass I/O holds a slot too: io[2] gets one only when both are done. */
	iolat_done(&io[0]);
	assert_int_equal(granted_calls, 0);
	iolat_done(&io[3]);
	assert_int_equal(granted_calls, 1);
	assert_int_equal(t_inv_io_wait_level(&io[2]), UINT32_MAX);
	memset(infl, 0, sizeof(infl));
	memset(nw, 0, sizeof(nw));
	for (int i = 0; i < 4; i++)
		assert_true(t_inv_io_account(&io[i], infl, nw));
	assert_int_equal(t_check_holdings(ctl, infl, nw), 0);

	/* Queue one more, cancel it: slots below released, no grant. */
	assert_int_equal(iolat_throttle_async(slow, 0, &io[0], &w[0]), IOLAT_QUEUED);
	assert_int_equal(iolat_throttle_cancel(&io[0]), 0);
	assert_int_equal(iolat_throttle_cancel(&io[1]), -EALREADY);
	assert_int_equal(granted_calls, 1);
	iolat_done(&io[1]);
	iolat_done(&io[2]);
	assert_int_equal(t_check_idle(ctl), 0);
	assert_int_equal(iolat_group_stat(p, &st), 0);
	assert_int_equal(st.inflight, 0);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_selftest),
		cmocka_unit_test(test_stress_mixed),
		cmocka_unit_test(test_stress_churn),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
