/* SPDX-License-Identifier: MIT */
/*
 * test_placement.c - dividing a v1 budget among the cgroups that carry it:
 * new carriers share it equally; one using little of its part keeps what it
 * uses plus a half, the rest goes to those using theirs; a lone carrier
 * under its part still gets the whole budget; parts never go below the
 * floor; a carrier gets no limit in a direction it was not seen doing.
 * Context: single-threaded cmocka program; pure arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/round/placement.h"

static struct carrier writer(double wbps, uint64_t last)
{
	struct carrier c;

	memset(&c, 0, sizeof(c));
	c.rate[CG_WBPS] = wbps;
	c.last.v[CG_WBPS] = last;
	c.seen[1] = true;
	return c;
}

static void test_new_carriers_share_equally(void **state)
{
	struct cg_limits b = { { 0, 1000000, 0, 0 } }, sum;
	struct carrier c[2] = { writer(900000, 0), writer(100000, 0) };

	iolatd_place_split(&b, c, 2, 10, 1, &sum);
	assert_int_equal(c[0].part.v[CG_WBPS], 500000);
	assert_int_equal(c[1].part.v[CG_WBPS], 500000);
	assert_int_equal(sum.v[CG_WBPS], 1000000);
	assert_int_equal(c[0].part.v[CG_RBPS], 0); /* never seen reading */
}

static void test_unused_share_moves(void **state)
{
	struct cg_limits b = { { 0, 1000000, 0, 0 } };
	struct carrier c[2] = { writer(500000, 500000), writer(100000, 500000) };

	iolatd_place_split(&b, c, 2, 10, 1, NULL);
	/* b uses 100k of 500k: it keeps 150k; a, using all of its part, gets the rest. */
	assert_int_equal(c[1].part.v[CG_WBPS], 150000);
	assert_int_equal(c[0].part.v[CG_WBPS], 850000);
	/* b wants more again: once it uses its 150k it is saturated, and both share. */
	c[1] = writer(150000, 150000);
	c[0] = writer(850000, 850000);
	iolatd_place_split(&b, c, 2, 10, 1, NULL);
	assert_int_equal(c[0].part.v[CG_WBPS], 500000);
	assert_int_equal(c[1].part.v[CG_WBPS], 500000);
}

static void test_lone_and_floor(void **state)
{
	struct cg_limits b = { { 0, 1000000, 0, 40 } };
	struct carrier c[4] = { writer(10, 500000), writer(0, 0), writer(0, 0), writer(0, 0) };

	iolatd_place_split(&b, c, 1, 10, 1, NULL);
	assert_int_equal(c[0].part.v[CG_WBPS], 1000000); /* alone: the whole budget */
	iolatd_place_split(&b, c, 4, 300000, 25, NULL);
	for (int j = 0; j < 4; j++) {
		assert_true(c[j].part.v[CG_WBPS] >= 300000);
		assert_true(c[j].part.v[CG_WIOPS] >= 25);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_carriers_share_equally),
		cmocka_unit_test(test_unused_share_moves),
		cmocka_unit_test(test_lone_and_floor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
