/* SPDX-License-Identifier: MIT */
/*
 * test_conformance.c - one body of engine behaviour run against every engine
 * configuration (uring and psync, O_DIRECT and buffered, uring with SQPOLL;
 * null; faulty:<x> with no faults configured), as liburing's FOR_ALL_TEST_CONFIGS: verified
 * writes and reads at random offsets on a real file, short reads past EOF,
 * O_DIRECT alignment errors, bad requests, every I/O completed exactly once
 * (counted by tag), BUSY at the depth, and wake-ups of a blocking reap.
 * A configuration the system cannot run (no io_uring, no O_DIRECT on this
 * filesystem) is skipped with the reason; no usable directory: exit 77.
 * Context: single-threaded except the waker thread of t_wake.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/registry.h"
#include "engine/layout.h"
#include "engine/verify.h"
#include "engine/t_engine.h"

#define T_FILE_SIZE   (2u << 20)
#define T_BLOCKS      (T_FILE_SIZE / IOLAT_ENG_VERIFY_BLOCK)
#define T_BUF_SIZE    (64u << 10)
#define T_MAX_DEPTH   16u
#define T_MAX_OPS     4096u
#define T_REAP_NS     (10ull * 1000000000ull)   /* no completion for 10 s: fail */

struct t_cfg {
	const char *label;
	const char *engine;
	unsigned oflags;      /* IOLAT_ENG_O_BUFFERED or 0 (O_DIRECT) */
	unsigned depth;
	unsigned eflags;      /* IOLAT_ENG_CFG_* */
};

static const struct t_cfg cfgs[] = {
	{ .label = "uring/direct", .engine = "uring", .oflags = 0, .depth = 16 },
	{ .label = "uring/buffered", .engine = "uring", .oflags = IOLAT_ENG_O_BUFFERED, .depth = 16 },
	{ .label = "uring/sqpoll", .engine = "uring", .oflags = 0, .depth = 8, .eflags = IOLAT_ENG_CFG_SQPOLL },
	{ .label = "psync/direct", .engine = "psync", .oflags = 0, .depth = 16 },
	{ .label = "psync/buffered", .engine = "psync", .oflags = IOLAT_ENG_O_BUFFERED, .depth = 8 },
	{ .label = "psync/direct/depth1", .engine = "psync", .oflags = 0, .depth = 1 },
	{ .label = "null", .engine = "null", .oflags = 0, .depth = 16 },
	{ .label = "null/depth1", .engine = "null", .oflags = 0, .depth = 1 },
	{ .label = "faulty:uring/direct", .engine = "faulty:uring", .oflags = 0, .depth = 16 },
	{ .label = "faulty:psync/buffered", .engine = "faulty:psync", .oflags = IOLAT_ENG_O_BUFFERED, .depth = 8 },
	{ .label = "faulty:null", .engine = "faulty:null", .oflags = 0, .depth = 4 },
};

static char g_dir[PATH_MAX];

struct t_slot {
	struct iolat_eng_req req;
	bool busy;
};

struct t_state {
	const struct t_cfg *cfg;
	const char *skip_reason;
	char reason[512];
	struct iolat_eng *e;
	unsigned fidx;
	bool fake;                      /* the engine moves no data */
	bool direct;
	char path[PATH_MAX];
	struct iovec iov[T_MAX_DEPTH];  /* registered: one buffer per slot */
	struct t_slot slots[T_MAX_DEPTH];
	uint64_t gens[T_BLOCKS];        /* expected generation of each block */
	uint16_t readers[T_BLOCKS];     /* reads in flight over the block */
	bool writer[T_BLOCKS];          /* a write in flight over the block */
	uint8_t done[T_MAX_OPS];        /* completions seen, by tag */
	uint64_t issued;                /* next tag */
	unsigned inflight;
	uint64_t rng;
	unsigned nr_read, nr_write;
};

/* ---- fixtures ---- */

static int t_setup(void **state)
{
	const struct t_cfg *cfg = *state;
	struct t_state *st = calloc(1, sizeof(*st));
	struct iolat_eng_config ecfg;
	char msg[IOLAT_ENG_ERRMSG_MAX];
	static unsigned seq;
	int ret;

	if (!st)
		return -1;
	st->cfg = cfg;
	st->rng = 0x1234 + seq;
	st->direct = !(cfg->oflags & IOLAT_ENG_O_BUFFERED);
	for (unsigned i = 0; i < T_MAX_DEPTH; i++) {
		st->iov[i].iov_base = iolat_eng_buf_alloc(T_BUF_SIZE);
		st->iov[i].iov_len = T_BUF_SIZE;
		if (!st->iov[i].iov_base)
			return -1;
	}
	*state = st;

	ecfg = (struct iolat_eng_config){
		.name = cfg->engine, .depth = cfg->depth, .bufs = st->iov, .nr_bufs = T_MAX_DEPTH,
		.flags = cfg->eflags,
	};
	ret = iolat_eng_create(&ecfg, &st->e, msg, sizeof(msg));
	if (ret == -ENOENT) {
		snprintf(st->reason, sizeof(st->reason), "%s: engine not in this build (%s)",
			 cfg->label, msg);
		st->skip_reason = st->reason;
		return 0;
	}
	if (ret < 0 && strstr(cfg->engine, "uring")) {
		snprintf(st->reason, sizeof(st->reason), "%s: io_uring unavailable: %s",
			 cfg->label, msg);
		st->skip_reason = st->reason;
		return 0;
	}
	if (ret < 0) {
		print_error("%s: create: %s\n", cfg->label, msg);
		return -1;
	}
	st->fake = iolat_eng_flags(st->e) & IOLAT_ENG_F_FAKEIO;

	if ((size_t)snprintf(st->path, sizeof(st->path), "%s/conf-%u", g_dir, seq++) >=
	    sizeof(st->path))
		return -1;
	ret = iolat_eng_layout_file(st->path, T_FILE_SIZE, IOLAT_ENG_LAYOUT_VERIFY, NULL, NULL);
	if (ret < 0) {
		print_error("%s: layout %s: %s\n", cfg->label, st->path, strerror(-ret));
		return -1;
	}
	ret = iolat_eng_open(st->e, st->path, cfg->oflags | IOLAT_ENG_O_WRITE, &st->fidx);
	if (ret == -EINVAL && st->direct) {
		snprintf(st->reason, sizeof(st->reason), "%s: %s", cfg->label,
			 iolat_eng_errmsg(st->e));
		st->skip_reason = st->reason;
		return 0;
	}
	if (ret < 0) {
		print_error("%s: open: %s\n", cfg->label, iolat_eng_errmsg(st->e));
		return -1;
	}
	return 0;
}

static int t_teardown(void **state)
{
	struct t_state *st = *state;

	iolat_eng_destroy(st->e);
	for (unsigned i = 0; i < T_MAX_DEPTH; i++)
		iolat_eng_buf_free(st->iov[i].iov_base);
	if (st->path[0])
		unlink(st->path);
	free(st);
	return 0;
}

#define T_SKIP_IF_NEEDED(st)                                            \
	do {                                                            \
		if ((st)->skip_reason) {                                \
			print_message("skip: %s\n", (st)->skip_reason); \
			skip();                                         \
		}                                                       \
	} while (0)

/* ---- the driver: keep the engine full, check every completion ---- */

enum t_mix { T_WRITES, T_READS, T_MIXED };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Choose a request over blocks nobody writes (and, for a write, nobody reads). */
static bool t_pick(struct t_state *st, struct iolat_eng_req *req, enum t_mix mix)
{
	static const uint32_t lens[] = { 4096, 8192, 16384, 65536 };
	bool write = mix == T_WRITES || (mix == T_MIXED && (t_rand(&st->rng) & 1));

	for (int tries = 0; tries < 32; tries++) {
		uint32_t len = lens[t_below(&st->rng, 4)];
		uint64_t off = t_below(&st->rng, (T_FILE_SIZE - len) / 4096 + 1) * 4096;
		uint64_t b0 = off / IOLAT_ENG_VERIFY_BLOCK, nb = len / IOLAT_ENG_VERIFY_BLOCK;
		bool ok = true;

		for (uint64_t b = b0; b < b0 + nb && ok; b++)
			ok = !st->writer[b] && (!write || !st->readers[b]);
		if (!ok)
			continue;
		for (uint64_t b = b0; b < b0 + nb; b++) {
			if (write)
				st->writer[b] = true;
			else
				st->readers[b]++;
		}
		req->dir = write ? IOLAT_ENG_WRITE : IOLAT_ENG_READ;
		req->offset = off;
		req->len = len;
		return true;
	}
	return false;
}

static void t_complete(struct t_state *st, struct iolat_eng_req *req)
{
	uint64_t b0 = req->offset / IOLAT_ENG_VERIFY_BLOCK, nb = req->len / IOLAT_ENG_VERIFY_BLOCK;
	struct t_slot *slot = req->user;
	struct iolat_eng_verify_err err;
	char msg[256];

	assert_true(req->tag < T_MAX_OPS);
	assert_int_equal(st->done[req->tag], 0);   /* exactly once */
	st->done[req->tag]++;
	assert_ptr_equal(&slot->req, req);
	if (req->result != (int64_t)req->len)
		fail_msg("%s: tag %llu %s off %llu len %u: result %lld", st->cfg->label,
			 (unsigned long long)req->tag, req->dir ? "write" : "read",
			 (unsigned long long)req->offset, req->len, (long long)req->result);
	assert_true(req->done_ns > 0);
	for (uint64_t b = b0; b < b0 + nb; b++) {
		if (req->dir == IOLAT_ENG_WRITE) {
			st->writer[b] = false;
			st->gens[b] = req->tag;
		} else {
			st->readers[b]--;
		}
	}
	if (req->dir == IOLAT_ENG_READ && !st->fake) {
		for (uint64_t i = 0; i < nb; i++) {
			const char *p = (const char *)req->buf + i * IOLAT_ENG_VERIFY_BLOCK;
			uint64_t off = req->offset + i * IOLAT_ENG_VERIFY_BLOCK;

			if (iolat_eng_verify_check(p, IOLAT_ENG_VERIFY_BLOCK, off, st->gens[b0 + i],
						   NULL, &err)) {
				iolat_eng_verify_format(&err, msg, sizeof(msg));
				fail_msg("%s: tag %llu: %s", st->cfg->label,
					 (unsigned long long)req->tag, msg);
			}
		}
	}
	slot->busy = false;
	if (req->dir == IOLAT_ENG_WRITE)
		st->nr_write++;
	else
		st->nr_read++;
}

static void t_drive(struct t_state *st, unsigned nops, enum t_mix mix)
{
	struct iolat_eng_req *out[T_MAX_DEPTH];
	unsigned depth = st->cfg->depth, target = (unsigned)st->issued + nops;
	unsigned accepted_since_reap;

	assert_true(target <= T_MAX_OPS);
	while (st->issued < target || st->inflight) {
		accepted_since_reap = 0;
		while (st->issued < target) {
			struct t_slot *slot = NULL;
			int ret;

			for (unsigned i = 0; i < depth && !slot; i++)
				if (!st->slots[i].busy)
					slot = &st->slots[i];
			if (!slot)
				break;
			struct iolat_eng_req *req = &slot->req;

			*req = (struct iolat_eng_req){ .file = st->fidx, .user = slot };
			if (!t_pick(st, req, mix))
				break;
			req->tag = st->issued;
			req->buf_index = (int)(slot - st->slots);
			if (req->tag & 1)
				req->buf_index = -1;   /* half the requests: plain buffers */
			req->buf = st->iov[slot - st->slots].iov_base;
			if (req->dir == IOLAT_ENG_WRITE)
				assert_int_equal(iolat_eng_verify_fill(req->buf, req->len, req->offset,
								       req->tag), 0);
			slot->busy = true;
			ret = iolat_eng_queue(st->e, req);
			if (ret < 0)
				fail_msg("%s: queue: %s", st->cfg->label, iolat_eng_errmsg(st->e));
			st->issued++;
			if (ret == IOLAT_Q_COMPLETED) {
				t_complete(st, req);
				continue;
			}
			/* The depth is free, so nobody may say BUSY. */
			assert_int_equal(ret, IOLAT_Q_QUEUED);
			st->inflight++;
			accepted_since_reap++;
		}
		assert_true(st->inflight <= depth);
		assert_int_equal(iolat_eng_inflight(st->e), st->inflight);
		if (!st->inflight)
			continue;
		int n = iolat_eng_reap(st->e, out, T_MAX_DEPTH, 1, T_REAP_NS);

		if (n <= 0)
			fail_msg("%s: reap returned %d with %u in flight", st->cfg->label, n,
				 st->inflight);
		for (int i = 0; i < n; i++)
			t_complete(st, out[i]);
		st->inflight -= (unsigned)n;
	}
	for (unsigned t = 0; t < st->issued; t++)
		assert_int_equal(st->done[t], 1);
	assert_int_equal(iolat_eng_inflight(st->e), 0);
}

/* ---- the tests ---- */

static void t_write_read_verify(void **state)
{
	struct t_state *st = *state;

	T_SKIP_IF_NEEDED(st);
	t_drive(st, 300, T_READS);    /* the laid-out generation 0 */
	t_drive(st, 300, T_WRITES);
	t_drive(st, 300, T_READS);
	t_drive(st, 600, T_MIXED);
	assert_true(st->nr_write >= 300);
	assert_true(st->nr_read >= 600);
}

/* One request, queued and reaped; the result. */
static int64_t t_one(struct t_state *st, struct iolat_eng_req *req)
{
	struct iolat_eng_req *out[2];
	int ret = iolat_eng_queue(st->e, req);
	int n;

	if (ret < 0)
		return ret;
	if (ret == IOLAT_Q_COMPLETED)
		return req->result;
	assert_int_equal(ret, IOLAT_Q_QUEUED);
	n = iolat_eng_reap(st->e, out, 2, 1, T_REAP_NS);
	assert_int_equal(n, 1);
	assert_ptr_equal(out[0], req);
	return req->result;
}

static void t_short_file(void **state)
{
	struct t_state *st = *state;
	const uint64_t size = 3 * 4096 + 1000;
	char path[PATH_MAX + 16];
	unsigned idx;
	int fd;

	T_SKIP_IF_NEEDED(st);
	if (st->fake) {
		print_message("skip: %s moves no data\n", st->cfg->label);
		skip();
	}
	assert_true((size_t)snprintf(path, sizeof(path), "%s.short", st->path) < sizeof(path));
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	assert_true(fd >= 0);
	memset(st->iov[0].iov_base, 0xab, T_BUF_SIZE);
	assert_int_equal(pwrite(fd, st->iov[0].iov_base, size, 0), (ssize_t)size);
	fsync(fd);
	close(fd);
	assert_int_equal(iolat_eng_open(st->e, path, st->cfg->oflags, &idx), 0);

	struct iolat_eng_req req = {
		.file = idx, .dir = IOLAT_ENG_READ, .offset = 0, .len = 4096,
		.buf = st->iov[0].iov_base, .buf_index = 0,
	};
	assert_int_equal(t_one(st, &req), 4096);
	req.offset = 8192;   /* 8 KiB asked, 4096 + 1000 there */
	req.len = 8192;
	assert_int_equal(t_one(st, &req), 4096 + 1000);
	assert_int_equal(((unsigned char *)req.buf)[4096 + 999], 0xab);
	req.offset = 16384;  /* past EOF */
	req.len = 4096;
	assert_int_equal(t_one(st, &req), 0);
	assert_int_equal(iolat_eng_inflight(st->e), 0);
	unlink(path);
}

static void t_align_errors(void **state)
{
	struct t_state *st = *state;
	char *buf = st->iov[1].iov_base;
	struct iolat_eng_req req = {
		.file = st->fidx, .dir = IOLAT_ENG_READ, .offset = 4096, .len = 4096,
		.buf = buf, .buf_index = -1,
	};

	T_SKIP_IF_NEEDED(st);
	if (iolat_eng_flags(st->e) & IOLAT_ENG_F_DISKLESS) {
		print_message("skip: %s opens no file\n", st->cfg->label);
		skip();
	}
	if (!st->direct) {
		/* Buffered: any offset and length work. */
		req.offset = 4096 + 100;
		req.len = 1000;
		assert_int_equal(t_one(st, &req), 1000);
		/* File offset 4608 is buf[412]: that whole block was read. */
		assert_int_equal(iolat_eng_verify_check(buf + 412, 512, 4608, 0, NULL, NULL), 0);
		return;
	}
	req.offset = 4096 + 100;
	assert_int_equal(iolat_eng_queue(st->e, &req), -EINVAL);
	assert_non_null(strstr(iolat_eng_errmsg(st->e), "offset 4196"));
	req.offset = 4096;
	req.len = 1000;
	assert_int_equal(iolat_eng_queue(st->e, &req), -EINVAL);
	assert_non_null(strstr(iolat_eng_errmsg(st->e), "length 1000"));
	req.len = 4096;
	req.buf = buf + 8;
	assert_int_equal(iolat_eng_queue(st->e, &req), -EINVAL);
	assert_non_null(strstr(iolat_eng_errmsg(st->e), "buffer"));
	assert_int_equal(iolat_eng_inflight(st->e), 0);
	/* Nothing was queued: the same request, fixed, goes through once. */
	req.buf = buf;
	assert_int_equal(t_one(st, &req), 4096);
	assert_int_equal(iolat_eng_verify_check(buf, 4096, 4096, 0, NULL, NULL), 0);
	assert_int_equal(iolat_eng_inflight(st->e), 0);
}

static void t_bad_requests(void **state)
{
	struct t_state *st = *state;
	struct iolat_eng_req req = {
		.file = st->fidx, .dir = IOLAT_ENG_READ, .offset = 0, .len = 4096,
		.buf = st->iov[2].iov_base, .buf_index = -1,
	};
	struct iolat_eng_req *out[2];
	int ret;

	T_SKIP_IF_NEEDED(st);
	req.file = 99;
	assert_int_equal(iolat_eng_queue(st->e, &req), -EINVAL);
	req.file = st->fidx;
	req.buf_index = 7;    /* a registered buffer, but not this one */
	assert_int_equal(iolat_eng_queue(st->e, &req), -EINVAL);
	assert_non_null(strstr(iolat_eng_errmsg(st->e), "registered buffer 7"));
	req.buf_index = 2;
	req.len = 0;
	assert_int_equal(iolat_eng_queue(st->e, &req), -EINVAL);
	req.len = 4096;
	ret = iolat_eng_queue(st->e, &req);
	assert_true(ret == IOLAT_Q_QUEUED || ret == IOLAT_Q_COMPLETED);
	if (ret == IOLAT_Q_QUEUED) {
		/* Queued twice before it completed: refused, and not lost. */
		assert_int_equal(iolat_eng_queue(st->e, &req), -EINVAL);
		assert_non_null(strstr(iolat_eng_errmsg(st->e), "queued again"));
		assert_int_equal(iolat_eng_reap(st->e, out, 2, 1, T_REAP_NS), 1);
		assert_ptr_equal(out[0], &req);
	}
	assert_int_equal(req.result, 4096);
	assert_int_equal(iolat_eng_inflight(st->e), 0);
	/* Nothing more comes back. */
	assert_int_equal(iolat_eng_reap(st->e, out, 2, 0, 0), 0);
}

static void t_busy_at_depth(void **state)
{
	struct t_state *st = *state;
	struct iolat_eng_req reqs[T_MAX_DEPTH + 1], *out[T_MAX_DEPTH];
	unsigned depth = st->cfg->depth, queued = 0, got = 0;

	T_SKIP_IF_NEEDED(st);
	for (unsigned i = 0; i <= depth; i++) {
		reqs[i] = (struct iolat_eng_req){
			.file = st->fidx, .dir = IOLAT_ENG_READ, .offset = 4096ull * i,
			.len = 4096, .buf = st->iov[i % T_MAX_DEPTH].iov_base, .buf_index = -1,
			.tag = i,
		};
	}
	for (unsigned i = 0; i < depth; i++) {
		int ret = iolat_eng_queue(st->e, &reqs[i]);

		if (ret == IOLAT_Q_COMPLETED) {
			print_message("%s completes at once: no BUSY to see\n", st->cfg->label);
			return;
		}
		assert_int_equal(ret, IOLAT_Q_QUEUED);
		queued++;
	}
	assert_int_equal(iolat_eng_queue(st->e, &reqs[depth]), IOLAT_Q_BUSY);
	assert_int_equal(reqs[depth].state_, 0);
	assert_int_equal(iolat_eng_commit(st->e), 0);
	while (got < queued) {
		int n = iolat_eng_reap(st->e, out, T_MAX_DEPTH, queued - got, T_REAP_NS);

		assert_true(n > 0);
		for (int i = 0; i < n; i++) {
			assert_int_equal(out[i]->result, 4096);
			assert_int_equal(out[i]->state_, 0);
		}
		got += (unsigned)n;
	}
	assert_int_equal(got, queued);
	assert_int_equal(iolat_eng_inflight(st->e), 0);
}

struct t_waker {
	struct iolat_eng *e;
	unsigned delay_ms;
};

static void *t_waker_fn(void *arg)
{
	struct t_waker *w = arg;

	usleep(w->delay_ms * 1000);
	iolat_eng_wake(w->e);
	return NULL;
}

static void t_wake(void **state)
{
	struct t_state *st = *state;
	struct iolat_eng_req *out[2];
	struct t_waker w = { .e = st->e, .delay_ms = 30 };
	pthread_t th;
	uint64_t t0;
	int n;

	T_SKIP_IF_NEEDED(st);
	/* Nothing in flight, no timeout: only a wake ends the wait. */
	assert_int_equal(pthread_create(&th, NULL, t_waker_fn, &w), 0);
	t0 = now_ns();
	n = iolat_eng_reap(st->e, out, 2, 1, IOLAT_ENG_WAIT_FOREVER);
	assert_int_equal(n, 0);
	pthread_join(th, NULL);
	assert_true(now_ns() - t0 < 5000000000ull);
	/* A timeout alone ends it too. */
	t0 = now_ns();
	n = iolat_eng_reap(st->e, out, 2, 1, 30000000ull);
	assert_int_equal(n, 0);
	assert_true(now_ns() - t0 >= 25000000ull);
	/* A wake before the reap is not lost: the next blocking reap returns. */
	iolat_eng_wake(st->e);
	t0 = now_ns();
	n = iolat_eng_reap(st->e, out, 2, 1, 5000000000ull);
	assert_int_equal(n, 0);
	assert_true(now_ns() - t0 < 4000000000ull);
}

#define T_FOR_CFG(i)                                                                   \
	{ "t_write_read_verify", t_write_read_verify, t_setup, t_teardown, (void *)&cfgs[i] }, \
	{ "t_short_file", t_short_file, t_setup, t_teardown, (void *)&cfgs[i] },       \
	{ "t_align_errors", t_align_errors, t_setup, t_teardown, (void *)&cfgs[i] },   \
	{ "t_bad_requests", t_bad_requests, t_setup, t_teardown, (void *)&cfgs[i] },   \
	{ "t_busy_at_depth", t_busy_at_depth, t_setup, t_teardown, (void *)&cfgs[i] }, \
	{ "t_wake", t_wake, t_setup, t_teardown, (void *)&cfgs[i] }

static int run_cfg(unsigned i)
{
	const struct CMUnitTest tests[] = { T_FOR_CFG(i) };

	return cmocka_run_group_tests_name(cfgs[i].label, tests, NULL, NULL);
}

int main(void)
{
	int ret, failed = 0;

	ret = t_tmpdir(g_dir, sizeof(g_dir), "eng");
	if (ret < 0) {
		printf("skip: cannot create a test directory: %s\n", strerror(-ret));
		return T_EXIT_SKIP;
	}
	for (unsigned i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
		failed += run_cfg(i);
	t_rmdir(g_dir);
	return failed ? 1 : 0;
}
