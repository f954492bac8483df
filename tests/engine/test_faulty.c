/* SPDX-License-Identifier: MIT */
/*
 * test_faulty.c - the fault-injecting wrapper: what it says it injected
 * (iolat_eng_faulty_stats) matches what the caller observed (-EIO, -ENOSPC,
 * short results, held completions, a stall), countdowns and transient faults
 * hit exactly the I/Os they should, the same seed picks the same I/Os, and
 * bad options are refused with a message. Mostly on faulty:null (no disk,
 * deterministic), once on faulty:psync over a real file.
 * Context: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/registry.h"
#include "engine/eng_faulty.h"
#include "engine/layout.h"
#include "engine/t_engine.h"

#define T_DEPTH    8u
#define T_BS       4096u
#define T_MAX_OPS  2000u
#define T_REAP_NS  (10ull * 1000000000ull)
#define MSEC       1000000ull

static char g_dir[PATH_MAX];

/* What the caller saw. */
struct t_obs {
	unsigned ok, eio, enospc, shortio, slow;   /* slow: latency >= slow_ns */
	uint64_t slow_ns;
	uint64_t max_gap_ns;                      /* longest time without a completion */
	uint64_t last_done_ns;
	uint8_t done[T_MAX_OPS];
	int64_t result[T_MAX_OPS];
};

struct t_req {
	struct iolat_eng_req req;
	uint64_t queued_ns;
	bool busy;
};

static void t_observe(struct t_obs *o, struct t_req *r)
{
	struct iolat_eng_req *req = &r->req;

	assert_true(req->tag < T_MAX_OPS);
	assert_int_equal(o->done[req->tag], 0);
	o->done[req->tag] = 1;
	o->result[req->tag] = req->result;
	assert_int_equal(req->len, T_BS);   /* a short injection restores the length */
	if (req->result == -EIO)
		o->eio++;
	else if (req->result == -ENOSPC)
		o->enospc++;
	else if (req->result >= 0 && req->result < (int64_t)req->len)
		o->shortio++;
	else if (req->result == (int64_t)req->len)
		o->ok++;
	else
		fail_msg("unexpected result %lld", (long long)req->result);
	if (o->slow_ns && req->done_ns - r->queued_ns >= o->slow_ns)
		o->slow++;
	if (o->last_done_ns && req->done_ns > o->last_done_ns &&
	    req->done_ns - o->last_done_ns > o->max_gap_ns)
		o->max_gap_ns = req->done_ns - o->last_done_ns;
	if (req->done_ns > o->last_done_ns)
		o->last_done_ns = req->done_ns;
	r->busy = false;
}

/*
 * Run @nops I/Os (writes when @write) through engine @name with @opts at
 * @depth, on @path when not NULL. Observations in @o, injections in @st.
 */
static void t_run(const char *name, const char *opts, unsigned depth, const char *path,
		  unsigned nops, bool write, struct t_obs *o, struct iolat_eng_fault_stats *st)
{
	struct iolat_eng_config cfg = { .name = name, .options = opts, .depth = depth };
	struct t_req reqs[T_DEPTH];
	struct iolat_eng_req *out[T_DEPTH];
	char msg[IOLAT_ENG_ERRMSG_MAX];
	struct iolat_eng *e;
	unsigned issued = 0, inflight = 0, fidx = 0;
	uint64_t rng = 99;
	void *bufs;

	assert_true(depth <= T_DEPTH && nops <= T_MAX_OPS);
	if (iolat_eng_create(&cfg, &e, msg, sizeof(msg)) < 0)
		fail_msg("%s (%s): %s", name, opts, msg);
	if (path)
		assert_int_equal(iolat_eng_open(e, path, IOLAT_ENG_O_WRITE, &fidx), 0);
	else
		assert_int_equal(iolat_eng_open(e, "unused", IOLAT_ENG_O_WRITE, &fidx), 0);
	bufs = iolat_eng_buf_alloc((size_t)T_DEPTH * T_BS);
	assert_non_null(bufs);
	memset(bufs, 0x5a, (size_t)T_DEPTH * T_BS);
	memset(reqs, 0, sizeof(reqs));
	while (issued < nops || inflight) {
		for (unsigned i = 0; i < depth && issued < nops; i++) {
			struct t_req *r = &reqs[i];
			int ret;

			if (r->busy)
				continue;
			r->req = (struct iolat_eng_req){
				.file = fidx, .dir = write ? IOLAT_ENG_WRITE : IOLAT_ENG_READ,
				.offset = t_below(&rng, 256) * T_BS, .len = T_BS,
				.buf = (char *)bufs + (size_t)i * T_BS, .buf_index = -1,
				.tag = issued, .user = r,
			};
			r->queued_ns = iolat_eng_now(e);
			r->busy = true;
			ret = iolat_eng_queue(e, &r->req);
			assert_true(ret >= 0);
			assert_int_not_equal(ret, IOLAT_Q_BUSY);
			issued++;
			if (ret == IOLAT_Q_COMPLETED)
				t_observe(o, r);
			else
				inflight++;
		}
		if (!inflight)
			continue;
		int n = iolat_eng_reap(e, out, T_DEPTH, 1, T_REAP_NS);

		assert_true(n > 0);
		for (int i = 0; i < n; i++)
			t_observe(o, out[i]->user);
		inflight -= (unsigned)n;
	}
	assert_int_equal(iolat_eng_inflight(e), 0);
	assert_int_equal(iolat_eng_faulty_stats(e, st), 0);
	for (unsigned t = 0; t < nops; t++)
		assert_int_equal(o->done[t], 1);
	iolat_eng_destroy(e);
	iolat_eng_buf_free(bufs);
}

static void t_eio_rate(void **state)
{
	struct t_obs o = { 0 };
	struct iolat_eng_fault_stats st;

	t_run("faulty:null", "kind=eio,rate=0.3,seed=42", T_DEPTH, NULL, 1000, false, &o, &st);
	assert_int_equal(st.seen, 1000);
	assert_int_equal(st.eligible, 1000);
	assert_int_equal(o.eio, st.eio);
	assert_int_equal(o.ok, 1000 - st.eio);
	/* 30% of 1000, give or take a lot */
	assert_in_range(st.eio, 200, 400);
}

static void t_enospc_writes_only(void **state)
{
	struct t_obs o = { 0 }, o2 = { 0 };
	struct iolat_eng_fault_stats st, st2;

	t_run("faulty:null", "kind=enospc", T_DEPTH, NULL, 200, false, &o, &st);
	assert_int_equal(st.eligible, 0);
	assert_int_equal(st.enospc, 0);
	assert_int_equal(o.ok, 200);
	t_run("faulty:null", "kind=enospc,rate=0.5,seed=3", T_DEPTH, NULL, 200, true, &o2, &st2);
	assert_int_equal(st2.eligible, 200);
	assert_int_equal(o2.enospc, st2.enospc);
	assert_true(st2.enospc > 0);
}

static void t_short(void **state)
{
	struct t_obs o = { 0 };
	struct iolat_eng_fault_stats st;

	t_run("faulty:null", "kind=short,rate=0.25,seed=7", T_DEPTH, NULL, 800, false, &o, &st);
	assert_int_equal(o.shortio, st.short_io);
	assert_true(st.short_io > 0);
	for (unsigned t = 0; t < 800; t++)
		assert_true(o.result[t] == T_BS || o.result[t] == T_BS / 2);
}

static void t_countdown_transient(void **state)
{
	struct t_obs o = { 0 };
	struct iolat_eng_fault_stats st;

	/* Depth 1: I/Os are queued in tag order, so the 11th is tag 10. */
	t_run("faulty:null", "kind=eio,after=10,persist=0", 1, NULL, 100, false, &o, &st);
	assert_int_equal(st.eio, 1);
	assert_int_equal(o.eio, 1);
	assert_int_equal(o.result[10], -EIO);
	assert_int_equal(o.result[9], T_BS);
	assert_int_equal(o.result[11], T_BS);
}

static void t_countdown_persistent_count(void **state)
{
	struct t_obs o = { 0 };
	struct iolat_eng_fault_stats st;

	t_run("faulty:null", "kind=eio,after=5,count=3", 1, NULL, 50, false, &o, &st);
	assert_int_equal(st.eio, 3);
	for (unsigned t = 0; t < 50; t++)
		assert_int_equal(o.result[t], (t >= 5 && t < 8) ? -EIO : (int64_t)T_BS);
	/* Persistent without a count: every eligible I/O after the countdown. */
	memset(&o, 0, sizeof(o));
	t_run("faulty:null", "kind=eio,after=20", 1, NULL, 50, false, &o, &st);
	assert_int_equal(st.eio, 30);
	assert_int_equal(o.eio, 30);
	assert_int_equal(o.result[19], T_BS);
	assert_int_equal(o.result[20], -EIO);
}

static void t_same_seed_same_faults(void **state)
{
	struct t_obs a = { 0 }, b = { 0 }, c = { 0 };
	struct iolat_eng_fault_stats sa, sb, sc;

	t_run("faulty:null", "kind=eio+short,rate=0.2,seed=11", 1, NULL, 500, false, &a, &sa);
	t_run("faulty:null", "kind=eio+short,rate=0.2,seed=11", 1, NULL, 500, false, &b, &sb);
	t_run("faulty:null", "kind=eio+short,rate=0.2,seed=12", 1, NULL, 500, false, &c, &sc);
	assert_memory_equal(a.result, b.result, sizeof(a.result));
	assert_int_equal(sa.eio, sb.eio);
	assert_int_equal(sa.short_io, sb.short_io);
	assert_memory_not_equal(a.result, c.result, sizeof(a.result));
	assert_int_equal(a.eio + a.shortio, sa.eio + sa.short_io);
	assert_true(sa.eio > 0 && sa.short_io > 0);
}

static void t_spike(void **state)
{
	struct t_obs o = { .slow_ns = 40 * MSEC };
	struct iolat_eng_fault_stats st;

	t_run("faulty:null", "kind=spike,ms=50,rate=0.1,seed=5", T_DEPTH, NULL, 200, false, &o,
	      &st);
	assert_true(st.spikes > 0);
	assert_int_equal(st.held, st.spikes);
	/* Each spiked I/O is seen at least 50 ms late; null's others at once. */
	assert_int_equal(o.slow, st.spikes);
	assert_int_equal(o.ok, 200);
}

static void t_stall(void **state)
{
	struct t_obs o = { 0 };
	struct iolat_eng_fault_stats st;
	struct timespec t0, t1;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	t_run("faulty:null", "kind=stall,ms=150,after=30,count=1", T_DEPTH, NULL, 100, false, &o,
	      &st);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t1.tv_nsec -
	     (uint64_t)t0.tv_nsec;
	assert_int_equal(st.stalls, 1);
	assert_true(st.held > 0);
	assert_true(o.max_gap_ns >= 140 * MSEC);
	assert_true(ns >= 140 * MSEC);
	assert_int_equal(o.ok, 100);
}

static void t_on_real_file(void **state)
{
	char path[PATH_MAX + 16];
	struct t_obs o = { 0 }, w = { 0 };
	struct iolat_eng_fault_stats st, sw;

	assert_true((size_t)snprintf(path, sizeof(path), "%s/faulty", g_dir) < sizeof(path));
	assert_int_equal(iolat_eng_layout_file(path, 256 * T_BS, IOLAT_ENG_LAYOUT_FILL, NULL, NULL), 0);
	t_run("faulty:psync", "kind=eio+short+spike,rate=0.2,ms=20,seed=9", T_DEPTH, path, 600,
	      false, &o, &st);
	assert_int_equal(o.eio, st.eio);
	assert_int_equal(o.shortio, st.short_io);
	assert_int_equal(o.ok, 600 - st.eio - st.short_io);
	assert_true(st.eio > 0 && st.short_io > 0 && st.spikes > 0);
	t_run("faulty:psync", "kind=enospc,dir=write,rate=0.1,seed=1", T_DEPTH, path, 300, true,
	      &w, &sw);
	assert_int_equal(w.enospc, sw.enospc);
	assert_int_equal(w.ok, 300 - sw.enospc);
	unlink(path);
}

static void t_passthrough(void **state)
{
	struct t_obs o = { 0 };
	struct iolat_eng_fault_stats st;

	t_run("faulty:null", NULL, T_DEPTH, NULL, 300, false, &o, &st);
	assert_int_equal(st.seen, 300);
	assert_int_equal(st.eligible, 0);
	assert_int_equal(st.eio + st.enospc + st.short_io + st.spikes + st.stalls, 0);
	assert_int_equal(o.ok, 300);
}

static void t_bad_options(void **state)
{
	static const struct { const char *name, *opts; int err; const char *says; } cases[] = {
		{ "faulty:null", "kind=bogus", -EINVAL, "bad value" },
		{ "faulty:null", "rate=2", -EINVAL, "bad value" },
		{ "faulty:null", "rate=", -EINVAL, "bad value" },
		{ "faulty:null", "frobnicate=1", -EINVAL, "unknown option" },
		{ "faulty:null", "kind", -EINVAL, "needs a value" },
		{ "faulty:null", "persist=2", -EINVAL, "bad value" },
		{ "faulty:null", "after=-1", -EINVAL, "bad value" },
		{ "faulty:null", "dir=up", -EINVAL, "bad value" },
		{ "faulty:nope", NULL, -ENOENT, "unknown I/O engine 'nope'" },
		{ "faulty:", NULL, -EINVAL, "name the engine" },
		{ "faulty", NULL, -ENOENT, "wrapper" },
		{ "psync:null", NULL, -ENOENT, "unknown" },
		{ "nope", NULL, -ENOENT, "unknown I/O engine 'nope'" },
	};
	struct iolat_eng_fault_stats st;
	char msg[IOLAT_ENG_ERRMSG_MAX];
	struct iolat_eng *e;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct iolat_eng_config cfg = { .name = cases[i].name, .options = cases[i].opts };
		int ret = iolat_eng_create(&cfg, &e, msg, sizeof(msg));

		if (ret != cases[i].err || !strstr(msg, cases[i].says))
			fail_msg("%s (%s): got %d '%s', want %d '%s'", cases[i].name,
				 cases[i].opts ? cases[i].opts : "", ret, msg, cases[i].err,
				 cases[i].says);
		assert_null(e);
	}
	/* Stats of an engine that is not faulty. */
	struct iolat_eng_config cfg = { .name = "null" };

	assert_int_equal(iolat_eng_create(&cfg, &e, msg, sizeof(msg)), 0);
	assert_int_equal(iolat_eng_faulty_stats(e, &st), -EINVAL);
	iolat_eng_destroy(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_passthrough),
		cmocka_unit_test(t_eio_rate),
		cmocka_unit_test(t_enospc_writes_only),
		cmocka_unit_test(t_short),
		cmocka_unit_test(t_countdown_transient),
		cmocka_unit_test(t_countdown_persistent_count),
		cmocka_unit_test(t_same_seed_same_faults),
		cmocka_unit_test(t_spike),
		cmocka_unit_test(t_stall),
		cmocka_unit_test(t_on_real_file),
		cmocka_unit_test(t_bad_options),
	};
	int ret = t_tmpdir(g_dir, sizeof(g_dir), "faulty");

	if (ret < 0) {
		printf("skip: cannot create a test directory: %s\n", strerror(-ret));
		return T_EXIT_SKIP;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	t_rmdir(g_dir);
	return ret ? 1 : 0;
}
