/* SPDX-License-Identifier: MIT */
/*
 * bench_scale.c - BENCHMARKS.md section 5: how the controller scales with the
 * number of groups (1, 100, 1000, 10000 by default) in a 3-level tree.
 *
 * For each size N it builds a tree breadth-first with the smallest fan-out f
 * such that f + f^2 + f^3 >= N (N = 1: a single top-level group) and measures:
 *   fast_hot_ns     one iolat_throttle_async()+iolat_done() pair, always on
 *                   the same deepest leaf (every deepest leaf has a 1 s
 *                   target that is never missed: latencies are recorded);
 *                   real clock
 *   fast_spread_ns  the same pair, each I/O on the next deepest leaf in turn
 *                   (touches every leaf's record: the cache-cold case)
 *   arena_bytes     iolat_core_ctl_size() for max_groups = N;
 *   bytes_per_group arena_bytes / N (default 16 stat slots per group)
 *   tick_idle_ns    one iolat_ctl_tick() with nothing throttled
 *   tick_thr_ns     one iolat_ctl_tick() with every parent (the root and each
 *                   group that has children) throttled by its first child,
 *                   whose windows missed; the askers keep doing I/O between
 *                   ticks so the tick keeps checking them instead of
 *                   releasing them (our default timer, not the kernel's)
 * Each figure is measured --runs times (default 5); the program prints the
 * median, min and max as machine-readable lines:
 *   scale groups=N metric=NAME median=X min=X max=X runs=R unit=U
 * plus "scale-info" lines (tree shape, struct sizes). --quick: fewer pairs.
 *
 * Context: a single-threaded program; links libiolatency.a and reads the
 * core's arena layout (src/core/ctl.h) only to size the arena.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iolatency.h"
#include "core/ctl.h"

#define MAX_SIZES 16
#define MAX_RUNS 99

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A clock the benchmark steps by hand (for the throttled-tick set-up). */
struct man_clock {
	uint64_t now;
};

static uint64_t man_now(void *ctx)
{
	return ((struct man_clock *)ctx)->now;
}

struct tree {
	struct iolat_ctl *ctl;
	struct iolat_group **g;     /* g[0..n-1], breadth-first */
	uint32_t *level;            /* 1..3 */
	uint32_t *parent;           /* index in g, or UINT32_MAX for top level */
	uint32_t n, fanout, depth;
	uint32_t n_leaves;          /* groups at the deepest level */
	uint32_t *leaves;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_scale: %s: %s\n", what, strerror(-err));
	exit(1);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p) {
		fprintf(stderr, "bench_scale: out of memory\n");
		exit(1);
	}
	return p;
}

static uint32_t pick_fanout(uint32_t n)
{
	uint32_t f = 1;

	while ((uint64_t)f + (uint64_t)f * f + (uint64_t)f * f * f < n)
		f++;
	return f;
}

/* Build N groups breadth-first: f top-level groups, f under each, then leaves. */
static void tree_build(struct tree *t, uint32_t n, const struct iolat_clock *clock)
{
	struct iolat_ctl_config cfg = { .nr_requests = 64, .rotational = 0,
					.clock = clock, .max_groups = n };
	uint32_t next = 0, lvl_start = 0, lvl_end = 0;
	char name[32];
	int ret;

	memset(t, 0, sizeof(*t));
	t->n = n;
	t->fanout = n == 1 ? 1 : pick_fanout(n);
	t->g = xcalloc(n, sizeof(*t->g));
	t->level = xcalloc(n, sizeof(*t->level));
	t->parent = xcalloc(n, sizeof(*t->parent));
	t->leaves = xcalloc(n, sizeof(*t->leaves));
	ret = iolat_ctl_create(&cfg, &t->ctl);
	if (ret)
		die("iolat_ctl_create", ret);

	/* Level 1. */
	for (uint32_t i = 0; i < t->fanout && next < n; i++, next++) {
		snprintf(name, sizeof(name), "l1-%u", i);
		ret = iolat_group_create(t->ctl, NULL, name, &t->g[next]);
		if (ret)
			die("iolat_group_create", ret);
		t->level[next] = 1;
		t->parent[next] = UINT32_MAX;
	}
	lvl_end = next;
	/* Levels 2 and 3: fan-out f under each group of the level above. */
	for (uint32_t lvl = 2; lvl <= 3 && next < n; lvl++) {
		uint32_t start = next;

		for (uint32_t p = lvl_start; p < lvl_end && next < n; p++) {
			uint32_t k = t->fanout;

			if (lvl == 3) {
				/* Level 3 takes the rest, spread evenly over level 2. */
				uint32_t left = n - next, parents = lvl_end - p;

				k = (left + parents - 1) / parents;
			}
			for (uint32_t c = 0; c < k && next < n; c++, next++) {
				snprintf(name, sizeof(name), "l%u-%u", lvl, c);
				ret = iolat_group_create(t->ctl, t->g[p], name, &t->g[next]);
				if (ret)
					die("iolat_group_create", ret);
				t->level[next] = lvl;
				t->parent[next] = p;
			}
		}
		lvl_start = start;
		lvl_end = next;
	}
	t->depth = t->level[n - 1];
	for (uint32_t i = 0; i < n; i++)
		if (t->level[i] == t->depth)
			t->leaves[t->n_leaves++] = i;
}

static void tree_free(struct tree *t)
{
	iolat_ctl_destroy(t->ctl);
	free(t->g);
	free(t->level);
	free(t->parent);
	free(t->leaves);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(uint32_t n, const char *metric, double *v, unsigned runs, const char *unit)
{
	double med;

	qsort(v, runs, sizeof(*v), cmp_double);
	med = runs % 2 ? v[runs / 2] : (v[runs / 2 - 1] + v[runs / 2]) / 2;
	printf("scale groups=%u metric=%s median=%.2f min=%.2f max=%.2f runs=%u unit=%s\n",
	       n, metric, med, v[0], v[runs - 1], runs, unit);
	fflush(stdout);
}

static void io_pair(struct iolat_group *g)
{
	struct iolat_io io;
	int ret = iolat_throttle_async(g, 0, &io, NULL);

	if (ret) {
		/* Never throttled here: a queued I/O would be a bug in the set-up. */
		fprintf(stderr, "bench_scale: unexpected admission result %d\n", ret);
		exit(1);
	}
	iolat_done(&io);
}

/* ns per pair over @pairs pairs, on one leaf or spread over all of them. */
static double fast_path(const struct tree *t, uint64_t pairs, bool spread)
{
	uint32_t li = 0;
	uint64_t t0, t1;

	t0 = mono_ns();
	if (!spread) {
		struct iolat_group *g = t->g[t->leaves[0]];

		for (uint64_t i = 0; i < pairs; i++)
			io_pair(g);
	} else {
		for (uint64_t i = 0; i < pairs; i++) {
			io_pair(t->g[t->leaves[li]]);
			if (++li == t->n_leaves)
				li = 0;
		}
	}
	t1 = mono_ns();
	return (double)(t1 - t0) / (double)pairs;
}

static double tick_idle(struct iolat_ctl *ctl, uint64_t ticks)
{
	uint64_t t0 = mono_ns();

	for (uint64_t i = 0; i < ticks; i++)
		iolat_ctl_tick(ctl);
	return (double)(mono_ns() - t0) / (double)ticks;
}

struct thr_setup {
	struct man_clock clk;
	struct iolat_clock clock;
	struct tree t;
	uint32_t *askers;           /* index in t.g of each parent's first child */
	uint32_t n_askers;
	uint32_t n_throttled;       /* parents whose cookie went below default */
};

/*
 * Every parent (the root and each group with children) gets its first child
 * as asking group: target 1 ms, two I/Os of 10 ms, the second closing the
 * 100 ms window as missed, which lowers the parent's cookie.
 */
static void thr_build(struct thr_setup *s, uint32_t n)
{
	struct iolat_io *ios;
	bool *has_asker;

	memset(s, 0, sizeof(*s));
	s->clk.now = 1000;
	s->clock.now_ns = man_now;
	s->clock.ctx = &s->clk;
	tree_build(&s->t, n, &s->clock);
	s->askers = xcalloc(n + 1, sizeof(*s->askers));
	has_asker = xcalloc(n + 1, sizeof(*has_asker));  /* [n]: the root */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = s->t.parent[i] == UINT32_MAX ? n : s->t.parent[i];

		if (!has_asker[p]) {
			has_asker[p] = true;
			s->askers[s->n_askers++] = i;
		}
	}
	free(has_asker);
	for (uint32_t a = 0; a < s->n_askers; a++) {
		int ret = iolat_group_set_target(s->t.g[s->askers[a]], 1000000);

		if (ret)
			die("iolat_group_set_target", ret);
	}
	ios = xcalloc(s->n_askers, sizeof(*ios));
	for (int round = 0; round < 2; round++) {
		/* Round 0 inside the first window, round 1 past its end. */
		s->clk.now = round == 0 ? 1000000 : 200000000;
		for (uint32_t a = 0; a < s->n_askers; a++)
			if (iolat_throttle_async(s->t.g[s->askers[a]], 0, &ios[a], NULL))
				die("set-up admission", -EAGAIN);
		s->clk.now += 10000000;   /* 10 ms: ten times the target */
		for (uint32_t a = 0; a < s->n_askers; a++)
			iolat_done(&ios[a]);
	}
	free(ios);
	for (uint32_t a = 0; a < s->n_askers; a++) {
		struct iolat_group *p = iolat_group_parent(s->t.g[s->askers[a]]);
		struct iolat_group_stat st;

		iolat_group_stat(p, &st);
		if (st.child_cookie < IOLAT_DEFAULT_COOKIE)
			s->n_throttled++;
	}
}

/* The askers' between-tick I/O: one pair each, 1 ns of latency (0 is not recorded). */
static void askers_io(struct thr_setup *s)
{
	for (uint32_t a = 0; a < s->n_askers; a++) {
		struct iolat_io io;

		if (iolat_throttle_async(s->t.g[s->askers[a]], 0, &io, NULL))
			die("asker admission", -EAGAIN);
		s->clk.now += 1;
		iolat_done(&io);
	}
	s->clk.now += 1;  /* later than the last scale event; no window ends */
}

/*
 * ns per tick with every parent throttled. The askers do one I/O between
 * ticks (so the tick sees them active and keeps the throttling); that I/O is
 * timed alone and subtracted. The two are timed in alternating chunks, so
 * that a change in the machine's load hits both alike.
 */
#define TICK_CHUNKS 20

static double tick_throttled(struct thr_setup *s, uint64_t ticks)
{
	uint64_t per = ticks / TICK_CHUNKS + 1, io_only = 0, both = 0, t0;

	for (int c = 0; c < TICK_CHUNKS; c++) {
		t0 = mono_ns();
		for (uint64_t i = 0; i < per; i++)
			askers_io(s);
		io_only += mono_ns() - t0;
		t0 = mono_ns();
		for (uint64_t i = 0; i < per; i++) {
			askers_io(s);
			iolat_ctl_tick(s->t.ctl);
		}
		both += mono_ns() - t0;
	}
	return ((double)both - (double)io_only) / (double)(per * TICK_CHUNKS);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench_scale [--quick] [--runs R] [--groups N[,N...]]\n"
		"  section 5 of BENCHMARKS.md: fast path, memory and tick cost against\n"
		"  the number of groups (default 1,100,1000,10000; 3-level tree)\n");
}

/* The command line: the group counts, runs and --quick. 0, or 2 after the usage. */
static int parse_args(int argc, char **argv, uint32_t *sizes, unsigned *nsizes, unsigned *runs,
		      bool *quick)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			*quick = true;
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			*runs = (unsigned)strtoul(argv[++i], NULL, 10);
			if (*runs < 1 || *runs > MAX_RUNS) {
				usage();
				return 2;
			}
		} else if (!strcmp(argv[i], "--groups") && i + 1 < argc) {
			char *s = argv[++i], *end;

			*nsizes = 0;
			while (*s && *nsizes < MAX_SIZES) {
				unsigned long v = strtoul(s, &end, 10);

				if (end == s || v < 1 || v > 1000000) {
					usage();
					return 2;
				}
				sizes[(*nsizes)++] = (uint32_t)v;
				s = *end == ',' ? end + 1 : end;
			}
		} else {
			usage();
			return 2;
		}
	}
	return 0;
}

/* @n groups in a quiet tree: the fast path (hot, spread), bytes per group,
 * an idle tick; @ticks ticks. */
static void measure_tree(uint32_t n, unsigned runs, uint64_t pairs, uint64_t ticks)
{
	struct iolat_ctl_config cfg = { .max_groups = n };
	double v[MAX_RUNS], arena;
	struct tree t;

	tree_build(&t, n, NULL);
	/* Every deepest leaf records its latencies, as a protected group does. */
	for (uint32_t l = 0; l < t.n_leaves; l++)
		if (iolat_group_set_target(t.g[t.leaves[l]], 1000000000ull))
			die("iolat_group_set_target", -EINVAL);
	arena = (double)iolat_core_ctl_size(&cfg);
	printf("scale-info groups=%u fanout=%u depth=%u leaves=%u arena_bytes=%.0f\n",
	       n, t.fanout, t.depth, t.n_leaves, arena);

	fast_path(&t, pairs / 10, false);  /* warm-up */
	for (unsigned r = 0; r < runs; r++)
		v[r] = fast_path(&t, pairs, false);
	report(n, "fast_hot_ns", v, runs, "ns");
	for (unsigned r = 0; r < runs; r++)
		v[r] = fast_path(&t, pairs, true);
	report(n, "fast_spread_ns", v, runs, "ns");
	for (unsigned r = 0; r < runs; r++)
		v[r] = arena / n;
	report(n, "bytes_per_group", v, runs, "B");
	for (unsigned r = 0; r < runs; r++)
		v[r] = tick_idle(t.ctl, ticks);
	report(n, "tick_idle_ns", v, runs, "ns");
	tree_free(&t);
}

/* @n groups with every asker's parent throttled: the tick's cost. 0, or 1
 * when the set-up did not throttle them all. */
static int measure_throttled(uint32_t n, unsigned runs, uint64_t ticks)
{
	struct thr_setup s;
	double v[MAX_RUNS];

	thr_build(&s, n);
	printf("scale-info groups=%u askers=%u throttled_parents=%u\n",
	       n, s.n_askers, s.n_throttled);
	if (s.n_throttled != s.n_askers) {
		fprintf(stderr, "bench_scale: only %u of %u parents throttled\n",
			s.n_throttled, s.n_askers);
		return 1;
	}
	for (unsigned r = 0; r < runs; r++)
		v[r] = tick_throttled(&s, ticks / 2 + 1);
	report(n, "tick_thr_ns", v, runs, "ns");
	/* Still throttled at the end? (the askers kept the state alive) */
	s.n_throttled = 0;
	for (uint32_t a = 0; a < s.n_askers; a++) {
		struct iolat_group_stat st;

		iolat_group_stat(iolat_group_parent(s.t.g[s.askers[a]]), &st);
		if (st.child_cookie < IOLAT_DEFAULT_COOKIE)
			s.n_throttled++;
	}
	printf("scale-info groups=%u throttled_parents_after=%u\n", n, s.n_throttled);
	tree_free(&s.t);
	free(s.askers);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t sizes[MAX_SIZES] = { 1, 100, 1000, 10000 };
	unsigned nsizes = 4, runs = 5;
	bool quick = false;

	if (parse_args(argc, argv, sizes, &nsizes, &runs, &quick))
		return 2;
	printf("scale-info struct_group_bytes=%zu slot_bytes=%zu slots_per_group=16 "
	       "struct_ctl_bytes=%zu\n",
	       sizeof(struct iolat_group), sizeof(struct iolat_slot), sizeof(struct iolat_ctl));

	for (unsigned si = 0; si < nsizes; si++) {
		uint32_t n = sizes[si];
		uint64_t pairs = quick ? 200000 : 2000000;
		uint64_t ticks = 4000000 / n;

		if (quick)
			ticks /= 10;
		if (ticks < 20)
			ticks = 20;
		if (ticks > 200000)
			ticks = 200000;
		measure_tree(n, runs, pairs, ticks);
		if (measure_throttled(n, runs, ticks))
			return 1;
	}
	return 0;
}
