/* SPDX-License-Identifier: MIT */
/*
 * test_effect.c - the effect check: I/O over 1.5x what the limit allows
 * for 3 seconds in a row is "not holding" (the kind and figures kept), a
 * single bad second is not, 2 good seconds make it hold again; and the
 * use_delay acted on: it follows the core's steps up only while the limit
 * holds and is above the floor, comes down at once with the core's, and a
 * climb it did not follow is never paid back.
 * Context: single-threaded cmocka program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/round/effect.h"

#define PERIOD 100000000ull

/* One second: 10 periods writing @mib MiB each under a write limit of @lim bytes/s. */
static int second(struct effect *e, uint64_t mib, uint64_t lim)
{
	struct rate_sample s = { .bytes = { 0, mib << 20 }, .ios = { 0, mib } };
	struct cg_limits l = { { 0, lim, 0, 0 } };

	for (int p = 0; p < 10; p++)
		iolatd_effect_period(e, &s, &l, PERIOD);
	return iolatd_effect_second(e, 1 << 20, 10);
}

static void test_not_holding_after_three_seconds(void **state)
{
	struct effect e;

	memset(&e, 0, sizeof(e));
	assert_int_equal(second(&e, 100, 10 << 20), 0);  /* 1000 MiB/s under 10 MiB/s */
	assert_int_equal(second(&e, 1, 10 << 20), 0);    /* within: the count starts again */
	assert_int_equal(second(&e, 100, 10 << 20), 0);
	assert_int_equal(second(&e, 100, 10 << 20), 0);
	assert_false(e.ineffective);
	assert_int_equal(second(&e, 100, 10 << 20), 1);
	assert_true(e.ineffective);
	assert_int_equal(e.over_kind, CG_WBPS);
	assert_true(e.over_rate > 999.0 * (1 << 20) && e.allowed_rate < 10.1 * (1 << 20));
	assert_int_equal(second(&e, 1, 10 << 20), 0);
	assert_int_equal(second(&e, 1, 10 << 20), -1);
	assert_false(e.ineffective);
	/* Just over the limit, within 1.5x: holds. */
	for (int i = 0; i < 5; i++)
		assert_int_equal(second(&e, 14, 100 << 20), 0);
}

/* A limit just lowered: the period after is allowed the one before (it acts later). */
static void test_lowered_limit_gets_a_period(void **state)
{
	struct rate_sample s = { .bytes = { 0, 10ull << 20 }, .ios = { 0, 10 } };
	struct cg_limits hi = { { 0, 100 << 20, 0, 0 } }, lo = { { 0, 50 << 20, 0, 0 } };
	struct effect e;

	memset(&e, 0, sizeof(e));
	for (int sec = 0; sec < 5; sec++) {
		/* 100 MiB/s done each second; the limit alternates 100 and 50 MiB/s every period. */
		for (int p = 0; p < 10; p++)
			iolatd_effect_period(&e, &s, p % 2 ? &lo : &hi, PERIOD);
		assert_int_equal(iolatd_effect_second(&e, 1 << 20, 10), 0);
	}
}

/* Requests above an IOPS limit are not a leak (one bio, several requests): bytes decide. */
static void test_iops_not_judged(void **state)
{
	struct rate_sample s = { .bytes = { 0, 1 << 20 }, .ios = { 0, 400 } };
	struct cg_limits l = { { 0, 100 << 20, 0, 100 } };
	struct effect e;

	memset(&e, 0, sizeof(e));
	for (int sec = 0; sec < 5; sec++) {
		for (int p = 0; p < 10; p++)
			iolatd_effect_period(&e, &s, &l, PERIOD);
		assert_int_equal(iolatd_effect_second(&e, 1 << 20, 10), 0);
	}
	assert_false(e.ineffective);
}

static void test_delay_follows_only_what_helps(void **state)
{
	struct effect e;

	memset(&e, 0, sizeof(e));
	assert_int_equal(iolatd_effect_delay(&e, 1, false), 1);
	assert_int_equal(iolatd_effect_delay(&e, 3, false), 3);
	assert_int_equal(iolatd_effect_delay(&e, 9, true), 3);   /* at the floor: not followed */
	e.ineffective = true;
	assert_int_equal(iolatd_effect_delay(&e, 40, false), 3); /* not holding: not followed */
	e.ineffective = false;
	assert_int_equal(iolatd_effect_delay(&e, 39, false), 2); /* down at once with the core */
	assert_int_equal(iolatd_effect_delay(&e, 38, false), 1);
	assert_int_equal(iolatd_effect_delay(&e, 0, false), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_holding_after_three_seconds),
		cmocka_unit_test(test_delay_follows_only_what_helps),
		cmocka_unit_test(test_iops_not_judged),
		cmocka_unit_test(test_lowered_limit_gets_a_period),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
