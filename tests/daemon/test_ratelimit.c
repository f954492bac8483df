/* SPDX-License-Identifier: MIT */
/*
 * test_ratelimit.c - allowed depth to rate limits by Little's law: one slot
 * carries bytes / summed latency; depth D gives D slots; below depth 1 each
 * use_delay step halves the rate, down to the floor; unlimited depth gives
 * no limit; a direction never seen gets none, nor one seen only in stray
 * requests for 5 s (a group held at the floor still counts as seen); periods with too few samples
 * leave the estimate alone, later ones move it by a quarter; the adaptive
 * mode's rate is split by the recent mix of directions, none for a
 * direction not seen, never below the floor.
 * Context: single-threaded cmocka program; pure arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iolatency.h"
#include "daemon/round/ratelimit.h"

/* A writer: 200 x 1 MiB writes whose latencies sum to 0.5 s (mean in-flight 4 over 125 ms). */
static struct rate_est writer_est(void)
{
	struct rate_est e = { 0 };
	struct rate_sample s = { 0 };

	s.bytes[RATE_WRITE] = 200ull << 20;
	s.ios[RATE_WRITE] = 200;
	s.lat_ns[RATE_WRITE] = 500000000ull;
	iolatd_rate_est_update(&e, &s);
	return e;
}

static void test_littles_law(void **state)
{
	struct rate_est e = writer_est();
	struct cg_limits l;

	/* One slot: 200 MiB / 0.5 s = 400 MiB/s and 400 IOPS. */
	assert_true(e.valid[RATE_WRITE]);
	assert_false(e.valid[RATE_READ]);
	assert_true(iolatd_rate_limits(&e, 1, 0, 1, 1, &l));
	assert_int_equal(l.v[CG_WBPS], 400ull << 20);
	assert_int_equal(l.v[CG_WIOPS], 400);
	assert_int_equal(l.v[CG_RBPS], 0);
	assert_int_equal(l.v[CG_RIOPS], 0);
	assert_true(iolatd_rate_limits(&e, 8, 0, 1, 1, &l));
	assert_int_equal(l.v[CG_WBPS], 8 * (400ull << 20));
	assert_int_equal(l.v[CG_WIOPS], 3200);
}

static void test_below_depth_one_keeps_falling(void **state)
{
	struct rate_est e = writer_est();
	struct cg_limits l;
	uint64_t prev = UINT64_MAX;

	for (int u = 1; u <= 6; u++) {
		assert_true(iolatd_rate_limits(&e, 1, u, 1, 1, &l));
		assert_int_equal(l.v[CG_WBPS], (400ull << 20) >> u);
		assert_true(l.v[CG_WBPS] < prev);
		prev = l.v[CG_WBPS];
	}
	/* The floor. */
	assert_true(iolatd_rate_limits(&e, 1, 30, 1 << 20, 10, &l));
	assert_int_equal(l.v[CG_WBPS], 1 << 20);
	assert_int_equal(l.v[CG_WIOPS], 10);
}

static void test_unlimited_and_unknown(void **state)
{
	struct rate_est e = writer_est(), none = { 0 };
	struct cg_limits l;

	assert_false(iolatd_rate_limits(&e, IOLAT_DEPTH_MAX, 0, 1, 1, &l));
	for (int k = 0; k < CG_NR_LIMITS; k++)
		assert_int_equal(l.v[k], 0);
	assert_false(iolatd_rate_limits(&none, 2, 0, 1, 1, &l));
}

static void test_estimate_smoothing(void **state)
{
	struct rate_est e = writer_est();
	struct rate_sample few = { 0 }, next = { 0 };

	few.bytes[RATE_WRITE] = 1ull << 30;
	few.ios[RATE_WRITE] = RATE_MIN_IOS - 1;
	few.lat_ns[RATE_WRITE] = 1000000000ull;
	iolatd_rate_est_update(&e, &few);
	assert_true(e.bps_slot[RATE_WRITE] == (double)(400ull << 20));
	/* A period at 800 MiB/s per slot moves the estimate a quarter of the way. */
	next.bytes[RATE_WRITE] = 400ull << 20;
	next.ios[RATE_WRITE] = 400;
	next.lat_ns[RATE_WRITE] = 500000000ull;
	iolatd_rate_est_update(&e, &next);
	assert_true(e.bps_slot[RATE_WRITE] == (double)(500ull << 20));
	assert_true(e.iops_slot[RATE_WRITE] == 500.0);
}

/* A writer with a few stray reads: after 5 s with no read worth the name, no read limit. */
static void test_only_directions_seen(void **state)
{
	struct rate_est e = { 0 };
	struct rate_sample mixed = { .bytes = { 8 << 12, 100ull << 20 }, .ios = { 8, 100 },
				     .lat_ns = { 4000000, 400000000 } };
	struct rate_sample writes = { .bytes = { 4096, 100ull << 20 }, .ios = { 1, 100 },
				      .lat_ns = { 100000, 400000000 } };
	struct rate_sample floor = { .bytes = { 0, 1 << 20 }, .ios = { 0, 1 }, .lat_ns = { 0, 4000000 } };
	struct cg_limits l;

	iolatd_rate_est_update(&e, &mixed);   /* 8 reads made a read estimate */
	assert_true(iolatd_rate_limits(&e, 4, 0, 1, 1, &l));
	assert_true(l.v[CG_RBPS] > 0 && l.v[CG_WBPS] > 0);
	for (int p = 0; p < RATE_SEEN_PERIODS; p++)
		iolatd_rate_est_update(&e, &writes); /* one stray 4 KiB read among 100 MiB of writes */
	assert_true(iolatd_rate_limits(&e, 4, 0, 1, 1, &l));
	assert_int_equal(l.v[CG_RBPS], 0);
	assert_int_equal(l.v[CG_RIOPS], 0);
	assert_true(l.v[CG_WBPS] > 0);
	/* Held at the floor, one write a period: still seen writing, still limited. */
	for (int p = 0; p < 2 * RATE_SEEN_PERIODS; p++)
		iolatd_rate_est_update(&e, &floor);
	assert_true(iolatd_rate_limits(&e, 1, 20, 1 << 20, 10, &l));
	assert_int_equal(l.v[CG_WBPS], 1 << 20);
}

/* A period of @wbytes written in @wios requests and @rbytes read in @rios, seen 100 times. */
static struct rate_est mix_est(uint64_t wbytes, uint64_t wios, uint64_t rbytes, uint64_t rios)
{
	struct rate_est e = { 0 };
	struct rate_sample s = { 0 };

	s.bytes[RATE_WRITE] = wbytes;
	s.ios[RATE_WRITE] = wios;
	s.lat_ns[RATE_WRITE] = wios * 1000000ull;
	s.bytes[RATE_READ] = rbytes;
	s.ios[RATE_READ] = rios;
	s.lat_ns[RATE_READ] = rios * 1000000ull;
	for (int i = 0; i < 100; i++)
		iolatd_rate_est_update(&e, &s);
	return e;
}

static void test_split_by_mix(void **state)
{
	/* 90 MiB of writes in 90 requests, 10 MiB of reads in 10, per period. */
	struct rate_est e = mix_est(90ull << 20, 90, 10ull << 20, 10);
	struct cg_limits l;

	(void)state;
	assert_true(iolatd_rate_split(&e, 1000ull << 20, 1000, 1 << 20, 10, &l));
	assert_true(l.v[CG_WBPS] > (895ull << 20) && l.v[CG_WBPS] < (905ull << 20));
	assert_true(l.v[CG_RBPS] > (95ull << 20) && l.v[CG_RBPS] < (105ull << 20));
	/* 1 MiB requests: the bytes bind, no IOPS limit (the throttle counts bios). */
	assert_int_equal(l.v[CG_WIOPS], 0);
	assert_int_equal(l.v[CG_RIOPS], 0);
	/* The floor holds for a small share. */
	assert_true(iolatd_rate_split(&e, 2ull << 20, 20, 1 << 20, 10, &l));
	assert_int_equal(l.v[CG_RBPS], 1 << 20);
	/* A writer only: no read limit, all of the rate on writes. */
	e = writer_est();
	assert_true(iolatd_rate_split(&e, 500ull << 20, 500, 1 << 20, 10, &l));
	assert_int_equal(l.v[CG_WBPS], 500ull << 20);
	assert_int_equal(l.v[CG_RBPS], 0);
	assert_int_equal(l.v[CG_RIOPS], 0);
	/* No rate: no limit. */
	assert_false(iolatd_rate_split(&e, 0, 0, 1 << 20, 10, &l));
}

/* Small requests get the IOPS limit too, split by the mix of requests. */
static void test_split_small_requests(void **state)
{
	/* 9000 writes and 1000 reads of 4 KiB per period. */
	struct rate_est e = mix_est(9000ull * 4096, 9000, 1000ull * 4096, 1000);
	struct cg_limits l;

	(void)state;
	assert_true(iolatd_rate_split(&e, 40ull << 20, 10000, 1 << 20, 10, &l));
	assert_int_equal(l.v[CG_WIOPS], 9000);
	assert_int_equal(l.v[CG_RIOPS], 1000);
	assert_true(l.v[CG_WBPS] > (35ull << 20) && l.v[CG_WBPS] < (37ull << 20));
	/* Just under the size that drops it (64 KiB): kept; at it: dropped. */
	e = mix_est(100ull * (RATE_IOPS_MAX_REQ_BYTES - 4096), 100, 0, 0);
	assert_true(iolatd_rate_split(&e, 100ull << 20, 1000, 1 << 20, 10, &l));
	assert_int_equal(l.v[CG_WIOPS], 1000);
	e = mix_est(100ull * RATE_IOPS_MAX_REQ_BYTES, 100, 0, 0);
	assert_true(iolatd_rate_split(&e, 100ull << 20, 1000, 1 << 20, 10, &l));
	assert_int_equal(l.v[CG_WIOPS], 0);
	/* A rate in I/Os only: kept whatever the size, nothing else would bind. */
	assert_true(iolatd_rate_split(&e, 0, 1000, 1 << 20, 10, &l));
	assert_int_equal(l.v[CG_WIOPS], 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_directions_seen),
		cmocka_unit_test(test_littles_law),
		cmocka_unit_test(test_below_depth_one_keeps_falling),
		cmocka_unit_test(test_unlimited_and_unknown),
		cmocka_unit_test(test_estimate_smoothing),
		cmocka_unit_test(test_split_by_mix),
		cmocka_unit_test(test_split_small_requests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
