/* SPDX-License-Identifier: MIT */
/*
 * test_dev_vdisk.c - the "vdisk" model alone (no controller), request by
 * request on the virtual clock, jitter off: a read waits the configured
 * share of the write in service's remaining pipe time (vdisk_read_wait_pct),
 * and behind queued writes only beyond the host's vdisk_host_writes; the
 * defaults keep the old model (a read beside a write does not wait, one
 * write in the host at a time).
 * Context: single-threaded cmocka program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "t_devload.h"

#define US 1000ull
#define WRITE_NS 1048576ull   /* 1 MiB through a 1000 MB/s pipe */
#define READ_NS 41365ull      /* 40 us + 4 KiB at 3000 MB/s (rounded as the model) */

static uint64_t done_at[8];

static void on_done(struct iolat_sim_req *r, uint64_t now)
{
	done_at[(uintptr_t)r->owner] = now;
}

struct plan {
	uint64_t at;
	bool write;
};

static struct iolat_sim_req reqs[8];
static struct iolat_sim_dev *dev;

static void submit_ev(void *arg, uint64_t data, uint64_t now)
{
	struct iolat_sim_req *r = &reqs[data];

	(void)arg;
	(void)now;
	iolat_sim_dev_submit(dev, r);
}

/*
 * Run @n requests of @p (1 MiB writes, 4 KiB reads) on a vdisk of 1000 MB/s,
 * jitter 0, with @wait_pct and @host; the completion times go to done_at[].
 */
static void run_plan(const struct plan *p, unsigned n, const char *wait_pct, const char *host)
{
	struct iolat_sim_evq q;
	struct iolat_sim_kv kv[] = {
		{ "vdisk_mbps", "1000" }, { "vdisk_jitter_pct", "0" },
		{ "vdisk_read_wait_pct", wait_pct }, { "vdisk_host_writes", host },
	};

	iolat_sim_evq_init(&q, 0);
	dev = t_dev(&q, "vdisk", 1, kv, 4);
	assert_non_null(dev);
	memset(done_at, 0, sizeof(done_at));
	for (unsigned i = 0; i < n; i++) {
		reqs[i] = (struct iolat_sim_req){ .off = (uint64_t)i << 20,
						  .len = p[i].write ? 1u << 20 : 4096,
						  .write = p[i].write, .owner = (void *)(uintptr_t)i,
						  .complete = on_done };
		iolat_sim_evq_at(&q, p[i].at, submit_ev, NULL, i);
	}
	iolat_sim_evq_run_until(&q, 100000 * US);
	iolat_sim_dev_destroy(dev);
	iolat_sim_evq_destroy(&q);
}

/* A read 200 us into a 1 MiB write: 0 % (the default) waits nothing, 50 % half the
 * write's rest, 100 % all of it. */
static void test_read_behind_write_in_service(void **state)
{
	const struct plan p[] = { { 0, true }, { 200 * US, false } };
	const uint64_t rest = WRITE_NS - 200 * US;

	(void)state;
	run_plan(p, 2, "0", "1");
	assert_int_equal(done_at[1], 200 * US + READ_NS);
	run_plan(p, 2, "50", "1");
	assert_int_equal(done_at[1], 200 * US + READ_NS + rest / 2);
	run_plan(p, 2, "100", "1");
	assert_int_equal(done_at[1], 200 * US + READ_NS + rest);
	/* After the write left the pipe, nothing to wait for. */
	{
		const struct plan after[] = { { 0, true }, { WRITE_NS + 1, false } };

		run_plan(after, 2, "100", "1");
		assert_int_equal(done_at[1], WRITE_NS + 1 + READ_NS);
	}
}

/* Three writes then a read, all at 0: with one write in the host the read waits
 * until the third write starts (two pipe times); with two, one; with three or
 * more it starts at once. The writes leave the pipe one after the other
 * whatever the host holds. */
static void test_host_writes(void **state)
{
	const struct plan p[] = { { 0, true }, { 0, true }, { 0, true }, { 0, false } };
	uint64_t write_done = 30 * US;  /* vdisk_write_us: a write completes this after the pipe */

	(void)state;
	run_plan(p, 4, "0", "1");
	assert_int_equal(done_at[3], 2 * WRITE_NS + READ_NS);
	assert_int_equal(done_at[2], 3 * WRITE_NS + write_done);
	run_plan(p, 4, "0", "2");
	assert_int_equal(done_at[3], WRITE_NS + READ_NS);
	assert_int_equal(done_at[2], 3 * WRITE_NS + write_done);
	run_plan(p, 4, "0", "3");
	assert_int_equal(done_at[3], READ_NS);
	assert_int_equal(done_at[2], 3 * WRITE_NS + write_done);
	/* ... and behind them with read_wait_pct=100: the rest of the first only. */
	run_plan(p, 4, "100", "8");
	assert_int_equal(done_at[3], READ_NS + WRITE_NS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_behind_write_in_service),
		cmocka_unit_test(test_host_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
