/* SPDX-License-Identifier: MIT */
/*
 * test_bypass.c - swap, metadata and "issue as root" I/O (docs/controller.md
 * R3, R8, R11):
 *  - they never wait, even past the depth limit (and still hold a slot);
 *  - while their level is throttled (depth not unlimited) they are not
 *    recorded in the window stats; a latency under the target charges
 *    target - latency as delay (nothing for >= target, nothing for 0);
 *  - while it is not throttled they are recorded like any I/O;
 *  - congested is true while use_delay > 0 (for descendants too) and clears
 *    when scale-ups bring use_delay back to 0.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

#define SLOW_TARGET (10 * T_MS)

struct fam {
	struct iolat_ctl *ctl;
	struct iolat_group *root, *fast, *slow, *kid;
};

/*
 * qd 2: fast (1 ms) misses; slow (10 ms) sums 10 samples (spared by the 5%
 * rule meanwhile); fast misses again: slow goes to depth 1.
 */
static struct fam throttled_slow(void)
{
	struct fam f;

	f.ctl = t_ctl_new(2, 0, 0);
	f.root = iolat_ctl_root(f.ctl);
	f.fast = t_grp(f.ctl, NULL, "fast", 1 * T_MS);
	f.slow = t_grp(f.ctl, NULL, "slow", SLOW_TARGET);
	f.kid = t_grp(f.ctl, f.slow, "kid", 0);
	t_miss(f.fast);
	assert_true(t_window(f.slow, 10, 100 * T_US, 0, 0, 0));
	assert_int_equal(t_depth(f.slow), T_MAX);
	t_miss(f.fast);
	t_poke(f.slow);
	assert_int_equal(t_cookie_of(f.root), T_D - 2);
	assert_int_equal(t_depth(f.slow), 1);
	assert_int_equal(t_use_delay(f.slow), 0);
	return f;
}

struct bp_case {
	unsigned flags;
	uint64_t lat;
	uint64_t charged;
};

static const struct bp_case bp_cases[] = {
	{ IOLAT_IO_SWAP, 2 * T_MS, 8 * T_MS },
	{ IOLAT_IO_META, 2 * T_MS, 8 * T_MS },
	{ IOLAT_IO_ROOT, 2 * T_MS, 8 * T_MS },
	{ IOLAT_IO_SWAP | IOLAT_IO_META, 1 * T_US, SLOW_TARGET - 1 * T_US },
	{ IOLAT_IO_SWAP, SLOW_TARGET - 1, 1 },
	{ IOLAT_IO_SWAP, SLOW_TARGET, 0 },      /* not under the target: nothing */
	{ IOLAT_IO_META, 3 * SLOW_TARGET, 0 },
	{ IOLAT_IO_SWAP, 0, 0 },                /* latency 0 is never recorded */
};

static void test_bypass_throttled(void **state)
{
	for (size_t i = 0; i < sizeof(bp_cases) / sizeof(bp_cases[0]); i++) {
		const struct bp_case *c = &bp_cases[i];
		struct fam f = throttled_slow();
		struct iolat_io held, bp[3];
		struct iolat_group_stat st0, st;
		uint64_t delay0;

		(void)t_close(f.slow); /* start a fresh window */
		/* Depth 1, one I/O in flight: a normal I/O would wait. */
		assert_int_equal(t_submit(f.slow, 0, &held, NULL), 0);
		assert_int_equal(t_submit(f.slow, IOLAT_IO_NOWAIT, &bp[0], NULL), -EAGAIN);
		st0 = t_stat(f.slow);
		delay0 = st0.delay_ns;
		for (int k = 0; k < 3; k++)
			assert_int_equal(t_submit(f.slow, c->flags, &bp[k], NULL), 0);
		st = t_stat(f.slow);
		assert_int_equal(st.inflight, 4);
		assert_int_equal(st.waiters, 0);
		assert_int_equal(st.nr_bypass, st0.nr_bypass + 3);
		t_advance(c->lat);
		for (int k = 0; k < 3; k++)
			t_done(&bp[k]);
		st = t_stat(f.slow);
		assert_int_equal(st.total, st0.total);
		assert_int_equal(st.missed, st0.missed);
		assert_int_equal(st.delay_ns - delay0, 3 * c->charged);
		assert_int_equal(st.inflight, 1);
		t_advance(1 * T_US);
		t_done(&held);
		assert_int_equal(t_stat(f.slow).total, st0.total + 1);
		assert_int_equal(t_check_idle(f.ctl), 0);
		iolat_ctl_destroy(f.ctl);
	}
}

static void test_bypass_unthrottled_recorded(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(2, 0, 0);
	struct iolat_group *g = t_grp(ctl, NULL, "g", SLOW_TARGET);
	struct iolat_group_stat st;

	t_fill(g, 1, 2 * T_MS, IOLAT_IO_SWAP);
	t_fill(g, 1, 3 * SLOW_TARGET, IOLAT_IO_META);
	t_fill(g, 1, 2 * T_MS, IOLAT_IO_ROOT);
	st = t_stat(g);
	assert_int_equal(st.total, 3);
	assert_int_equal(st.missed, 1);
	assert_int_equal(st.delay_ns, 0);
	assert_int_equal(st.nr_bypass, 3);
	iolat_ctl_destroy(ctl);
}

static void test_congested(void **state)
{
	struct fam f = throttled_slow();

	assert_false(iolat_group_congested(f.slow));
	assert_false(t_stat(f.slow).congested);
	/* One more move: depth 1 already, so use_delay 1. */
	t_miss(f.fast);
	t_poke(f.slow);
	assert_int_equal(t_use_delay(f.slow), 1);
	assert_true(iolat_group_congested(f.slow));
	assert_true(iolat_group_congested(f.kid));   /* an ancestor is */
	assert_true(t_stat(f.kid).congested);
	assert_false(iolat_group_congested(f.fast));
	assert_false(iolat_group_congested(f.root));
	t_miss(f.fast);
	t_poke(f.slow);
	assert_int_equal(t_use_delay(f.slow), 2);
	/* Scale-ups pay it back one unit each; congested clears at 0. */
	t_pass(f.fast);
	t_poke(f.slow);
	assert_int_equal(t_use_delay(f.slow), 1);
	assert_true(iolat_group_congested(f.slow));
	t_pass(f.fast);
	t_poke(f.slow);
	assert_int_equal(t_use_delay(f.slow), 0);
	assert_false(iolat_group_congested(f.slow));
	assert_false(iolat_group_congested(f.kid));
	assert_int_equal(t_depth(f.slow), 1);
	t_pass(f.fast);
	t_poke(f.slow);
	assert_int_equal(t_depth(f.slow), 2);
	iolat_ctl_destroy(f.ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bypass_throttled),
		cmocka_unit_test(test_bypass_unthrottled_recorded),
		cmocka_unit_test(test_congested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
