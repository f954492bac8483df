/* SPDX-License-Identifier: MIT */
/*
 * test_delay.c - induced delay (docs/controller.md R11):
 *  - an example: throttled group, target 10 ms, 100 bypass I/Os of 2 ms
 *    charge 800 ms; iolat_group_delay_due() gives min(800, 250) = 250 ms
 *    per call and asking (or sleeping) does not pay it off; decay happens
 *    more than 1 s after delay_start: the first boundary takes
 *    min(last_delay = 0, ...) = 0, the next one everything: gone after ~2 s;
 *  - a drop in use_delay between boundaries forgives at least half;
 *  - only groups with use_delay != 0 (the group or an ancestor) owe delay;
 *    the cap is configurable (delay_cap_ns);
 *  - iolat_maybe_throttle() really sleeps, at most 250 ms (the one real-time
 *    check of the core tests).
 * Context: single-threaded cmocka program; virtual clock except the last test.
 */
#include <time.h>

#include "helpers/t_ctl.h"
#include "core/ctl.h"

#define TARGET (10 * T_MS)

struct fam {
	struct iolat_ctl *ctl;
	struct iolat_group *root, *fast, *slow, *kid;
};

/*
 * qd 2: fast (1 ms) misses; slow (10 ms) sums 10 samples; then fast misses
 * @extra more times: slow at depth 1 after the first, then use_delay 1, 2.
 */
static struct fam setup(uint64_t cap, unsigned extra)
{
	struct iolat_ctl_config cfg = { .nr_requests = 2, .max_groups = 8, .delay_cap_ns = cap };
	struct fam f;

	f.ctl = t_ctl_new_cfg(cfg);
	f.root = iolat_ctl_root(f.ctl);
	f.fast = t_grp(f.ctl, NULL, "fast", 1 * T_MS);
	f.slow = t_grp(f.ctl, NULL, "slow", TARGET);
	f.kid = t_grp(f.ctl, f.slow, "kid", 0);
	t_miss(f.fast);
	assert_true(t_window(f.slow, 10, 100 * T_US, 0, 0, 0));
	for (unsigned k = 0; k < extra; k++) {
		t_miss(f.fast);
		t_poke(f.slow);
	}
	assert_int_equal(t_depth(f.slow), extra ? 1 : T_MAX);
	assert_int_equal(t_use_delay(f.slow), extra > 1 ? (int)extra - 1 : 0);
	return f;
}

static void test_example_64(void **state)
{
	struct fam f = setup(0, 2);
	uint64_t ta;

	/* Owing nothing, asking still starts the decay period. */
	ta = t_now;
	assert_int_equal(iolat_group_delay_due(f.slow), 0);
	t_fill(f.slow, 100, 2 * T_MS, IOLAT_IO_SWAP);
	assert_int_equal(t_stat(f.slow).delay_ns, 800 * T_MS);
	for (int i = 0; i < 3; i++)
		assert_int_equal(iolat_group_delay_due(f.slow), 250 * T_MS);
	assert_int_equal(iolat_group_delay_due(f.kid), 250 * T_MS); /* an ancestor's */
	assert_int_equal(iolat_group_delay_due(f.fast), 0);
	assert_int_equal(iolat_group_delay_due(f.root), 0);
	iolat_group_note_slept(f.slow, 250 * T_MS);
	assert_int_equal(t_stat(f.slow).slept_ns, 250 * T_MS);
	assert_int_equal(t_stat(f.slow).delay_ns, 800 * T_MS);

	/* Exactly 1 s is not "more than 1 s". */
	t_set_now(ta + T_S);
	assert_int_equal(iolat_group_delay_due(f.slow), 250 * T_MS);
	/* First boundary: subtracts min(last_delay = 0, ...) = 0. */
	t_set_now(ta + T_S + 1);
	assert_int_equal(iolat_group_delay_due(f.slow), 250 * T_MS);
	assert_int_equal(t_stat(f.slow).delay_ns, 800 * T_MS);
	t_set_now(ta + 2 * T_S + 1);
	assert_int_equal(iolat_group_delay_due(f.slow), 250 * T_MS);
	assert_int_equal(t_stat(f.slow).delay_ns, 800 * T_MS);
	/* Second boundary: min(800 ms, elapsed) = everything. */
	t_set_now(ta + 2 * T_S + 2);
	assert_int_equal(iolat_group_delay_due(f.slow), 0);
	assert_int_equal(t_stat(f.slow).delay_ns, 0);
	iolat_ctl_destroy(f.ctl);
}

/* The 2018 cap (1 s) as a configuration: the whole 800 ms is due. */
static void test_cap_config(void **state)
{
	struct fam f = setup(T_S, 2);

	t_fill(f.slow, 100, 2 * T_MS, IOLAT_IO_META);
	assert_int_equal(iolat_group_delay_due(f.slow), 800 * T_MS);
	iolat_ctl_destroy(f.ctl);
}

/* Charged while depth > 0 reaches no one until use_delay becomes nonzero. */
static void test_only_with_use_delay(void **state)
{
	struct fam f = setup(0, 1);

	t_fill(f.slow, 3, 2 * T_MS, IOLAT_IO_SWAP);
	assert_int_equal(t_stat(f.slow).delay_ns, 24 * T_MS);
	assert_int_equal(iolat_group_delay_due(f.slow), 0);
	t_miss(f.fast);
	t_poke(f.slow);
	assert_int_equal(t_use_delay(f.slow), 1);
	assert_int_equal(iolat_group_delay_due(f.slow), 24 * T_MS);
	iolat_ctl_destroy(f.ctl);
}

/*
 * 3.2 s charged; first boundary at +1.1 s snapshots last_delay = 3.2 s;
 * second at +2.2 s subtracts min(3.2 s, 1.1 s) = 1.1 s, or max(1.1 s,
 * 3.2 s / 2) = 1.6 s when use_delay dropped (2 -> 1) in between.
 */
static void test_forgive_half(void **state)
{
	static const struct { bool drop; uint64_t left; } cases[] = {
		{ false, 2100 * T_MS },
		{ true, 1600 * T_MS },
	};

	for (size_t i = 0; i < 2; i++) {
		struct fam f = setup(0, 3);
		uint64_t ta = t_now + 2 * T_MS;

		t_fill(f.slow, 400, 2 * T_MS, IOLAT_IO_SWAP);
		assert_int_equal(t_stat(f.slow).delay_ns, 3200 * T_MS);
		t_set_now(ta + 1100 * T_MS);
		assert_int_equal(iolat_group_delay_due(f.slow), 250 * T_MS);
		assert_int_equal(t_stat(f.slow).delay_ns, 3200 * T_MS);
		/* fast recovers once; slow acts on it only if it submits. */
		t_pass(f.fast);
		if (cases[i].drop)
			t_poke(f.slow);
		assert_int_equal(t_use_delay(f.slow), cases[i].drop ? 1 : 2);
		t_set_now(ta + 2200 * T_MS);
		assert_int_equal(iolat_group_delay_due(f.slow), 250 * T_MS);
		assert_int_equal(t_stat(f.slow).delay_ns, cases[i].left);
		iolat_ctl_destroy(f.ctl);
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * T_S + (uint64_t)ts.tv_nsec;
}

/* Real time: one call sleeps the due delay, capped at 250 ms. */
static void test_maybe_throttle_real(void **state)
{
	static const struct { uint64_t delay, want; } cases[] = {
		{ 800 * T_MS, 250 * T_MS },
		{ 30 * T_MS, 30 * T_MS },
	};
	struct iolat_ctl_config cfg = { .max_groups = 8 };
	struct iolat_ctl *ctl = NULL;
	struct iolat_group *g = NULL;
	uint64_t slept = 0;

	assert_int_equal(iolat_ctl_create(&cfg, &ctl), 0);
	assert_int_equal(iolat_group_create(ctl, NULL, "g", &g), 0);
	/* No use_delay: returns at once, whatever is charged. */
	iolat_delay_add(g, iolat_ctl_now(ctl), 800 * T_MS);
	assert_int_equal(iolat_maybe_throttle(g), 0);
	iolat_delay_use(g); /* what a scale-down at depth 1 does */
	for (size_t i = 0; i < 2; i++) {
		uint64_t t0, ns, dt;

		atomic_store(&g->delay_nsec, cases[i].delay);
		t0 = mono_ns();
		ns = iolat_maybe_throttle(g);
		dt = mono_ns() - t0;
		assert_int_equal(ns, cases[i].want);
		if (dt < cases[i].want || dt > cases[i].want + 200 * T_MS)
			print_error("slept %llu ns for %llu\n", (unsigned long long)dt,
				    (unsigned long long)cases[i].want);
		assert_true(dt >= cases[i].want);
		assert_true(dt < cases[i].want + 200 * T_MS);
		slept += ns;
		assert_int_equal(t_stat(g).slept_ns, slept);
	}
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_64),
		cmocka_unit_test(test_cap_config),
		cmocka_unit_test(test_only_with_use_delay),
		cmocka_unit_test(test_forgive_half),
		cmocka_unit_test(test_maybe_throttle_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
