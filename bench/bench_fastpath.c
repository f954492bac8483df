/* SPDX-License-Identifier: MIT */
/*
 * bench_fastpath.c - the cost of the controller's per-I/O fast path: ns per
 * admission + completion pair, uncontended (the I/O never waits), for
 *   disabled  groups but no target anywhere (the disabled path),
 *   group1    one top-level group with a target,
 *   tree3     a 3-level chain a/b/c, target at the leaf, I/O at the leaf,
 *   mutex     a plain pthread-mutex counter limiter doing the same admission
 *             (lock, inflight < limit, increment, unlock; lock, decrement,
 *             unlock), for comparison,
 * with a free virtual clock (iolat_throttle_async_at + iolat_done_at, the
 * caller passing the times) and with the default real clock
 * (iolat_throttle_async + iolat_done: one CLOCK_MONOTONIC read each), on 1
 * thread and on 2 threads using the same group or different groups (tree3
 * also: sibling leaves under one a/b). Each case: a warm-up run, then
 * --runs timed runs (default 7); reports the median with min-max, one
 * machine-readable line per case, a table, and the project's goals.
 *
 *   bench_fastpath [--quick] [--case NAME[,NAME]] [--clock virt|real|all]
 *                  [--threads 1|2|all] [--runs N] [--iterations N]
 *                  [--time cpu|wall] [--no-pin]
 *
 * Time is each worker's thread CPU time by default (CLOCK_THREAD_CPUTIME_ID:
 * time spent descheduled on a shared machine is left out; cache-line
 * transfers between running threads are not); --time wall reports wall-clock
 * time, right on an idle machine. Both appear in every line.
 *
 * --iterations N alone gives one run of N pairs on one thread, virtual clock,
 * no warm-up: the mode for valgrind --tool=callgrind (see
 * bench/fastpath_instructions.sh).
 *
 * Threads: main (set-up, report) blocks on barriers while 1 or 2 workers,
 * pinned to distinct CPUs when there are enough, run the timed loops.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iolatency.h"

#define TARGET_NS   10000000ull /* 10 ms: never missed (virtual latency 1 us) */
#define VIRT_LAT_NS 1000ull
#define MAX_THREADS 2
#define MAX_RUNS    101
#define MAX_CASES   32

enum kind { K_DISABLED, K_GROUP1, K_TREE3, K_MUTEX };
enum clk { C_VIRT, C_REAL, C_NONE };
enum share { SH_ONE, SH_SAME, SH_DIFF, SH_SIB };

static const char *const kind_name[] = { "disabled", "group1", "tree3", "mutex" };
static const char *const clk_name[] = { "virt", "real", "none" };
static const char *const share_name[] = { "one", "same", "diff", "sib" };

struct bcase {
	enum kind kind;
	enum clk clk;
	int threads;
	enum share share;
	/* results (ns per pair per thread, in the --time clock; wall: wall clock) */
	bool ran;
	double med, min, max, wall;
	double oncpu;     /* CPU time / wall time of the workers: how much they overlapped */
};

/* The mutex limiter: the obvious way to bound in-flight I/O. */
struct mlim {
	pthread_mutex_t m;
	uint32_t inflight, limit;
} __attribute__((aligned(128)));

static struct {
	uint64_t iters;
	int runs, warmup;
	bool pin, wall;   /* --time wall: report wall-clock time */
	unsigned kinds;   /* bit per enum kind */
	unsigned clocks;  /* bit per enum clk (C_NONE always on for mutex) */
	unsigned threads; /* bit 1: 1 thread, bit 2: 2 threads */
	int cpus[MAX_THREADS], ncpus;
} opt;

/* ---- clocks ---- */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The controller's clock in virtual cases: only read at set-up. */
static uint64_t virt_base_ns = 1000000000ull;

static uint64_t virt_clock(void *ctx)
{
	(void)ctx;
	return virt_base_ns;
}

static const struct iolat_clock virt = { .now_ns = virt_clock };

/* IOLAT_BENCH_ADAPTIVE=1: controllers in the adaptive mode, and the virtual
 * loop asks the pace gate before each admission. */
static bool adaptive_mode(void)
{
	const char *v = getenv("IOLAT_BENCH_ADAPTIVE");

	return v && *v == '1';
}

/* ---- the timed loops (noinline: separate functions in a profile) ---- */

__attribute__((noinline)) static void loop_virt(struct iolat_group *g, uint64_t n, uint64_t *t)
{
	struct iolat_io io;
	uint64_t now = *t;

	for (uint64_t i = 0; i < n; i++) {
		if (iolat_throttle_async_at(g, 0, &io, NULL, now) != 0)
			abort(); /* never waits: no depth is ever clamped here */
		now += VIRT_LAT_NS;
		iolat_done_at(&io, now);
	}
	*t = now;
}

/* The adaptive mode's per-I/O path: the pace gate, then the pair (the
 * group is never throttled here: the gate's unpaced cost). */
__attribute__((noinline)) static void loop_virt_gate(struct iolat_group *g, uint64_t n, uint64_t *t)
{
	struct iolat_io io;
	uint64_t now = *t;

	for (uint64_t i = 0; i < n; i++) {
		if (iolat_group_pace_due(g, 4096, now) != 0)
			abort();
		if (iolat_throttle_async_at(g, 0, &io, NULL, now) != 0)
			abort();
		now += VIRT_LAT_NS;
		iolat_done_at(&io, now);
	}
	*t = now;
}

__attribute__((noinline)) static void loop_real(struct iolat_group *g, uint64_t n)
{
	struct iolat_io io;

	for (uint64_t i = 0; i < n; i++) {
		if (iolat_throttle_async(g, 0, &io, NULL) != 0)
			abort();
		iolat_done(&io);
	}
}

__attribute__((noinline)) static bool mlim_get(struct mlim *l)
{
	bool ok;

	pthread_mutex_lock(&l->m);
	ok = l->inflight < l->limit;
	if (ok)
		l->inflight++;
	pthread_mutex_unlock(&l->m);
	return ok;
}

__attribute__((noinline)) static void mlim_put(struct mlim *l)
{
	pthread_mutex_lock(&l->m);
	l->inflight--;
	pthread_mutex_unlock(&l->m);
}

__attribute__((noinline)) static void loop_mutex(struct mlim *l, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (!mlim_get(l))
			abort();
		mlim_put(l);
	}
}

/* ---- one case: set-up, workers, runs ---- */

struct worker {
	pthread_t th;
	int idx;
	struct bcase *c;
	struct iolat_group *g;
	struct mlim *lim;
	uint64_t vt;      /* this thread's virtual time, kept across runs */
	uint64_t iters;   /* this run */
	uint64_t ns;      /* this run's elapsed time */
	uint64_t cpu_ns;  /* this run's CPU time (excludes time descheduled) */
	bool quit;
};

static pthread_barrier_t bar_start, bar_end;

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	if (opt.pin && opt.ncpus >= w->c->threads) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(opt.cpus[w->idx], &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (;;) {
		uint64_t t0, c0;

		pthread_barrier_wait(&bar_start);
		if (w->quit)
			break;
		c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		t0 = mono_ns();
		if (w->c->kind == K_MUTEX)
			loop_mutex(w->lim, w->iters);
		else if (w->c->clk == C_VIRT)
			(adaptive_mode() ? loop_virt_gate : loop_virt)(w->g, w->iters, &w->vt);
		else
			loop_real(w->g, w->iters);
		w->ns = mono_ns() - t0;
		w->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		pthread_barrier_wait(&bar_end);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_fastpath: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void check(int ret, const char *what)
{
	if (ret)
		die(what, ret);
}

/* Groups for each thread: g[0], g[1]. */
static struct iolat_ctl *setup_ctl(struct bcase *c, struct iolat_group *g[MAX_THREADS])
{
	/* 64 stat slots: every case starts new workers, which take the ids of
	 * the exited ones (core/thread_id.c); 64 leaves room should an exit be
	 * reported late, so that no worker lands on the shared slot. */
	struct iolat_ctl_config cfg = { .clock = c->clk == C_VIRT ? &virt : NULL,
					.flags = adaptive_mode() ? IOLAT_CTL_ADAPTIVE : 0,
					.nr_stat_slots = 64 };
	struct iolat_group *a, *b, *x, *y;
	struct iolat_ctl *ctl;
	uint64_t target = c->kind == K_DISABLED ? 0 : TARGET_NS;

	check(iolat_ctl_create(&cfg, &ctl), "iolat_ctl_create");
	if (c->kind == K_TREE3) {
		check(iolat_group_create(ctl, NULL, "a", &a), "group a");
		check(iolat_group_create(ctl, a, "b", &b), "group a/b");
		check(iolat_group_create(ctl, b, "c", &g[0]), "group a/b/c");
		if (c->share == SH_SIB) {
			check(iolat_group_create(ctl, b, "c2", &g[1]), "group a/b/c2");
		} else {
			check(iolat_group_create(ctl, NULL, "d", &x), "group d");
			check(iolat_group_create(ctl, x, "e", &y), "group d/e");
			check(iolat_group_create(ctl, y, "f", &g[1]), "group d/e/f");
		}
	} else {
		check(iolat_group_create(ctl, NULL, "g0", &g[0]), "group g0");
		check(iolat_group_create(ctl, NULL, "g1", &g[1]), "group g1");
	}
	if (target) {
		check(iolat_group_set_target(g[0], target), "set_target");
		check(iolat_group_set_target(g[1], target), "set_target");
	}
	if (c->kind == K_DISABLED && iolat_ctl_enabled(ctl))
		die("disabled case is enabled", EINVAL);
	if (c->share == SH_SAME || c->threads == 1)
		g[1] = g[0];
	return ctl;
}

/* The case's figures from its runs (@v per-pair time as measured, @vw
 * wall), sorted here; its line of output. */
static void record_case(struct bcase *c, double *v, double *vw, double oncpu)
{
	qsort(v, (size_t)opt.runs, sizeof(v[0]), cmp_double);
	qsort(vw, (size_t)opt.runs, sizeof(vw[0]), cmp_double);
	c->wall = opt.runs % 2 ? vw[opt.runs / 2] : (vw[opt.runs / 2 - 1] + vw[opt.runs / 2]) / 2;
	c->min = v[0];
	c->max = v[opt.runs - 1];
	c->med = opt.runs % 2 ? v[opt.runs / 2] : (v[opt.runs / 2 - 1] + v[opt.runs / 2]) / 2;
	c->oncpu = oncpu;
	c->ran = true;
	printf("case=%s clock=%s threads=%d groups=%s ns_per_pair=%.2f min=%.2f max=%.2f "
	       "time=%s wall_ns_per_pair=%.2f oncpu=%.2f runs=%d iterations=%llu mpairs_per_s=%.1f\n",
	       kind_name[c->kind], clk_name[c->clk], c->threads, share_name[c->share], c->med,
	       c->min, c->max, opt.wall ? "wall" : "cpu", c->wall, c->oncpu, opt.runs,
	       (unsigned long long)opt.iters, 1000.0 * c->threads / c->med);
	fflush(stdout);
}

static void run_case(struct bcase *c)
{
	struct worker w[MAX_THREADS];
	struct mlim lim[MAX_THREADS];
	struct iolat_group *g[MAX_THREADS] = { NULL, NULL };
	struct iolat_ctl *ctl = NULL;
	double v[MAX_RUNS], vw[MAX_RUNS], oncpu = 0;
	int nt = c->threads;

	memset(w, 0, sizeof(w));
	if (c->kind == K_MUTEX) {
		for (int i = 0; i < MAX_THREADS; i++) {
			pthread_mutex_init(&lim[i].m, NULL);
			lim[i].inflight = 0;
			lim[i].limit = 64;
		}
	} else {
		ctl = setup_ctl(c, g);
	}
	check(pthread_barrier_init(&bar_start, NULL, (unsigned)nt + 1), "barrier");
	check(pthread_barrier_init(&bar_end, NULL, (unsigned)nt + 1), "barrier");
	for (int i = 0; i < nt; i++) {
		w[i].idx = i;
		w[i].c = c;
		w[i].g = g[i];
		w[i].lim = c->share == SH_SAME ? &lim[0] : &lim[i];
		w[i].vt = virt_base_ns;
		check(pthread_create(&w[i].th, NULL, worker_main, &w[i]), "pthread_create");
	}
	for (int r = -opt.warmup; r < opt.runs; r++) {
		double sum = 0, sumw = 0;

		for (int i = 0; i < nt; i++)
			w[i].iters = r < 0 ? (opt.iters / 4 ? opt.iters / 4 : 1) : opt.iters;
		pthread_barrier_wait(&bar_start);
		pthread_barrier_wait(&bar_end);
		if (r < 0)
			continue;
		for (int i = 0; i < nt; i++) {
			sum += (double)(opt.wall ? w[i].ns : w[i].cpu_ns) / (double)w[i].iters;
			sumw += (double)w[i].ns / (double)w[i].iters;
			oncpu += w[i].ns ? (double)w[i].cpu_ns / (double)w[i].ns : 0;
		}
		v[r] = sum / nt; /* ns per pair, per thread */
		vw[r] = sumw / nt;
	}
	for (int i = 0; i < nt; i++)
		w[i].quit = true;
	pthread_barrier_wait(&bar_start);
	for (int i = 0; i < nt; i++)
		pthread_join(w[i].th, NULL);
	pthread_barrier_destroy(&bar_start);
	pthread_barrier_destroy(&bar_end);

	if (ctl) {
		for (int i = 0; i < nt; i++) {
			struct iolat_group_stat st;

			iolat_group_stat(g[i], &st);
			if (st.inflight)
				die("slots leaked", EINVAL);
		}
		iolat_ctl_destroy(ctl);
	} else {
		for (int i = 0; i < MAX_THREADS; i++)
			pthread_mutex_destroy(&lim[i].m);
	}
	record_case(c, v, vw, oncpu / nt / opt.runs);
}

/* ---- the list of cases, the table, the goals ---- */

static struct bcase cases[MAX_CASES];
static int ncases;

static void add(enum kind k, enum clk ck, int threads, enum share sh)
{
	struct bcase *c = &cases[ncases++];

	c->kind = k;
	c->clk = ck;
	c->threads = threads;
	c->share = sh;
}

static void build_cases(void)
{
	for (int k = K_DISABLED; k <= K_TREE3; k++) {
		for (int ck = C_VIRT; ck <= C_REAL; ck++) {
			add(k, ck, 1, SH_ONE);
			add(k, ck, 2, SH_SAME);
			add(k, ck, 2, SH_DIFF);
			if (k == K_TREE3)
				add(k, ck, 2, SH_SIB);
		}
	}
	add(K_MUTEX, C_NONE, 1, SH_ONE);
	add(K_MUTEX, C_NONE, 2, SH_SAME);
	add(K_MUTEX, C_NONE, 2, SH_DIFF);
}

static bool selected(const struct bcase *c)
{
	if (!(opt.kinds & (1u << c->kind)) || !(opt.threads & (1u << c->threads)))
		return false;
	return c->kind == K_MUTEX || (opt.clocks & (1u << c->clk));
}

static const struct bcase *find(enum kind k, enum clk ck, int threads, enum share sh)
{
	for (int i = 0; i < ncases; i++) {
		const struct bcase *c = &cases[i];

		if (c->ran && c->kind == k && c->clk == ck && c->threads == threads &&
		    c->share == sh)
			return c;
	}
	return NULL;
}

static void print_table(void)
{
	printf("\n%-9s %-5s %-7s %-5s %10s %17s %10s %12s %9s %6s\n", "case", "clock", "threads",
	       "groups", "ns/pair", "(min-max)", "Mpairs/s", "per-thread", "wall ns", "on-cpu");
	for (int i = 0; i < ncases; i++) {
		const struct bcase *c = &cases[i], *one;
		char rng[32], rel[16] = "";

		if (!c->ran)
			continue;
		one = find(c->kind, c->clk, 1, SH_ONE);
		if (one && c->threads > 1)
			snprintf(rel, sizeof(rel), "%.0f%%", 100.0 * one->med / c->med);
		snprintf(rng, sizeof(rng), "(%.2f-%.2f)", c->min, c->max);
		printf("%-9s %-5s %-7d %-5s %10.2f %17s %10.1f %12s %9.2f %5.0f%%\n",
		       kind_name[c->kind], clk_name[c->clk], c->threads, share_name[c->share],
		       c->med, rng, 1000.0 * c->threads / c->med, rel, c->wall, 100 * c->oncpu);
	}
	printf("(ns/pair: median of %d runs, per thread, in %s time%s; per-thread: its "
	       "throughput against the same case on 1 thread)\n", opt.runs,
	       opt.wall ? "wall-clock" : "thread CPU",
	       opt.wall ? "" : ", which leaves out time the thread was descheduled on a busy "
			       "machine; --time wall for an idle one");
	printf("(on-cpu: the workers' CPU time over wall time; well below 100%% on 2 threads, "
	       "they seldom ran at once and contention is understated)\n");
}

static void goal(const char *what, bool have, bool ok, const char *measured)
{
	if (!have)
		printf("  %-56s  (not measured)\n", what);
	else
		printf("  %-56s  %-24s %s\n", what, measured, ok ? "MET" : "MISSED");
}

static void print_goals(void)
{
	const struct bcase *g1 = find(K_GROUP1, C_VIRT, 1, SH_ONE);
	const struct bcase *dis = find(K_DISABLED, C_VIRT, 1, SH_ONE);
	const struct bcase *g2 = find(K_GROUP1, C_VIRT, 2, SH_DIFF);
	const struct bcase *t1 = find(K_TREE3, C_VIRT, 1, SH_ONE);
	const struct bcase *t2 = find(K_TREE3, C_VIRT, 2, SH_DIFF);
	const struct bcase *m1 = find(K_MUTEX, C_NONE, 1, SH_ONE);
	const struct bcase *m2 = find(K_MUTEX, C_NONE, 2, SH_SAME);
	const struct bcase *c2 = find(K_GROUP1, C_VIRT, 2, SH_SAME);
	const struct bcase *ts = find(K_TREE3, C_VIRT, 2, SH_SAME);
	char buf[64] = "";

	printf("\ngoals (virtual clock: the controller alone):\n");
	if (g1)
		snprintf(buf, sizeof(buf), "%.2f ns", g1->med);
	goal("1 group, 1 thread: <= 25 ns per pair", g1, g1 && g1->med <= 25, buf);
	if (dis)
		snprintf(buf, sizeof(buf), "%.2f ns", dis->med);
	goal("disabled path: <= 5 ns per pair", dis, dis && dis->med <= 5, buf);
	if (g1 && g2)
		snprintf(buf, sizeof(buf), "%.0f%% (%.2f ns)", 100 * g1->med / g2->med, g2->med);
	goal("2 threads, different groups: >= 80% of 1 thread each", g1 && g2,
	     g1 && g2 && g1->med / g2->med >= 0.8, buf);
	if (t1 && t2)
		snprintf(buf, sizeof(buf), "%.0f%% (%.2f ns)", 100 * t1->med / t2->med, t2->med);
	goal("  the same for the 3-level tree", t1 && t2, t1 && t2 && t1->med / t2->med >= 0.8,
	     buf);
	if (g1 && c2)
		snprintf(buf, sizeof(buf), "%.0f%% (%.2f ns)", 100 * g1->med / c2->med, c2->med);
	goal("2 threads, the same unthrottled group: >= 80% each", g1 && c2,
	     g1 && c2 && g1->med / c2->med >= 0.8, buf);
	if (t1 && ts)
		snprintf(buf, sizeof(buf), "%.0f%% (%.2f ns)", 100 * t1->med / ts->med, ts->med);
	goal("  the same for one leaf of the 3-level tree", t1 && ts,
	     t1 && ts && t1->med / ts->med >= 0.8,
	     buf);
	if (m1 && m2)
		snprintf(buf, sizeof(buf), "%.2f vs %.2f ns", m2->med, m1->med);
	goal("mutex limiter slower on 2 threads (one limiter)", m1 && m2,
	     m1 && m2 && m2->med > m1->med, buf);
	if (m2 && m2->oncpu < 0.9)
		printf("  (the 2 mutex threads were on a CPU %.0f%% of the time: contention "
		       "understated; use an idle machine)\n", 100 * m2->oncpu);
	if (m2 && c2)
		printf("  (2 threads, one group: controller %.2f ns, mutex limiter %.2f ns per "
		       "pair)\n", c2->med, m2->med);
	printf("instructions per pair: bench/fastpath_instructions.sh (callgrind)\n");
}

/* ---- options ---- */

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: bench_fastpath [--quick] [--case disabled|group1|tree3|mutex[,...]]\n"
		"                      [--clock virt|real|all] [--threads 1|2|all] [--runs N]\n"
		"                      [--iterations N] [--time cpu|wall] [--no-pin]\n"
		"--iterations N alone: one run, one thread, virtual clock, no warm-up\n"
		"(for valgrind --tool=callgrind).\n");
	exit(code);
}

static unsigned parse_kinds(const char *s)
{
	unsigned m = 0;
	char buf[128], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		for (k = 0; k <= K_MUTEX && strcmp(tok, kind_name[k]); k++)
			;
		if (k > K_MUTEX) {
			fprintf(stderr, "bench_fastpath: unknown case '%s'\n", tok);
			usage(2);
		}
		m |= 1u << k;
	}
	return m;
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || !v)
		usage(2);
	return v;
}

/* --quick: fewer pairs and runs, unless given. */
static void quick_defaults(bool iters_given, bool runs_given)
{
	if (!iters_given)
		opt.iters = 200000;
	if (!runs_given)
		opt.runs = 5;
}

/* The callgrind mode (--iterations alone): exactly N pairs of one case on
 * one thread, virtual clock, no warm-up, unless given. */
static void callgrind_defaults(bool runs_given, bool clock_given, bool threads_given)
{
	if (!runs_given)
		opt.runs = 1;
	opt.warmup = 0;
	if (!clock_given)
		opt.clocks = 1u << C_VIRT;
	if (!threads_given)
		opt.threads = 1u << 1;
}

/* The command line into opt: the cases, clocks and threads, runs and
 * iterations; --quick, and the callgrind mode (--iterations alone). */
static void parse_args(int argc, char **argv)
{
	bool quick = false, iters_given = false, runs_given = false, clock_given = false;
	bool threads_given = false;

	opt.iters = 2000000;
	opt.runs = 7;
	opt.warmup = 1;
	opt.pin = true;
	opt.kinds = 0xf;
	opt.clocks = (1u << C_VIRT) | (1u << C_REAL);
	opt.threads = (1u << 1) | (1u << 2);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--quick")) {
			quick = true;
		} else if (!strcmp(a, "--no-pin")) {
			opt.pin = false;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(0);
		} else if (i + 1 >= argc) {
			usage(2);
		} else if (!strcmp(a, "--time")) {
			const char *v = argv[++i];

			if (!strcmp(v, "wall"))
				opt.wall = true;
			else if (strcmp(v, "cpu"))
				usage(2);
		} else if (!strcmp(a, "--case")) {
			opt.kinds = parse_kinds(argv[++i]);
		} else if (!strcmp(a, "--clock")) {
			const char *v = argv[++i];

			clock_given = true;
			if (!strcmp(v, "virt"))
				opt.clocks = 1u << C_VIRT;
			else if (!strcmp(v, "real"))
				opt.clocks = 1u << C_REAL;
			else if (strcmp(v, "all"))
				usage(2);
		} else if (!strcmp(a, "--threads")) {
			const char *v = argv[++i];

			threads_given = true;
			if (!strcmp(v, "1"))
				opt.threads = 1u << 1;
			else if (!strcmp(v, "2"))
				opt.threads = 1u << 2;
			else if (strcmp(v, "all"))
				usage(2);
		} else if (!strcmp(a, "--runs")) {
			opt.runs = (int)parse_u64(argv[++i]);
			runs_given = true;
			if (opt.runs > MAX_RUNS)
				usage(2);
		} else if (!strcmp(a, "--iterations")) {
			opt.iters = parse_u64(argv[++i]);
			iters_given = true;
		} else {
			usage(2);
		}
	}
	if (quick)
		quick_defaults(iters_given, runs_given);
	else if (iters_given)
		callgrind_defaults(runs_given, clock_given, threads_given);
}

int main(int argc, char **argv)
{
	cpu_set_t set;

	parse_args(argc, argv);
	if (!sched_getaffinity(0, sizeof(set), &set))
		for (int cpu = 0; cpu < CPU_SETSIZE && opt.ncpus < MAX_THREADS; cpu++)
			if (CPU_ISSET(cpu, &set))
				opt.cpus[opt.ncpus++] = cpu;

	build_cases();
	for (int i = 0; i < ncases; i++)
		if (selected(&cases[i]))
			run_case(&cases[i]);
	if (opt.runs > 1 || opt.warmup) {
		print_table();
		print_goals();
	}
	return 0;
}
