/* SPDX-License-Identifier: MIT */
/*
 * test_window.c - window length = clamp(16 x target, 100 ms, 1 s), 100 ms
 * without a target (docs/controller.md R1, R9, C9): as reported (win_ns), as
 * enforced (a completion at start + win - 1 does not close the window, one
 * at start + win does; windows close only on completions), recomputed when
 * the target is rewritten; and the HDD EMA factor chosen by the window
 * length (index min(4, win / 250 ms) into 2045, 2039, 2031, 2023, 2014).
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"
#include "core/scale.h"

struct win_case {
	uint64_t target, win;
	uint64_t avg_after_4ms; /* EMA from 0 after one window of mean 4 ms */
	uint64_t avg_after_empty; /* then after one empty window (mean 0) */
};

/* avg = (0 * f + 4e6 * (2048 - f) + 2047) / 2048, then avg * f / 2048. */
static const struct win_case cases[] = {
	{ 1 * T_MS, 100 * T_MS, 5860, 5851 },
	{ 5 * T_MS, 100 * T_MS, 5860, 5851 },
	{ 6250 * T_US, 100 * T_MS, 5860, 5851 },
	{ 6250 * T_US + 1, 100 * T_MS + 16, 5860, 5851 },
	{ 10 * T_MS, 160 * T_MS, 5860, 5851 },
	{ 15 * T_MS, 240 * T_MS, 5860, 5851 },
	{ 20 * T_MS, 320 * T_MS, 17579, 17501 },
	{ 40 * T_MS, 640 * T_MS, 33204, 32928 },
	{ 50 * T_MS, 800 * T_MS, 48829, 48232 },
	{ 62500 * T_US, 1000 * T_MS, 66407, 65304 },
	{ 75 * T_MS, 1000 * T_MS, 66407, 65304 },
};

static void test_window_ns_pure(void **state)
{
	assert_int_equal(iolat_window_ns(0), 100 * T_MS);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(iolat_window_ns(cases[i].target), cases[i].win);
	/* 16 x target must not wrap. */
	assert_int_equal(iolat_window_ns(10 * T_S), 1000 * T_MS);
	assert_int_equal(iolat_window_ns(UINT64_MAX / 8), 1000 * T_MS);
	assert_int_equal(iolat_window_ns(UINT64_MAX), 1000 * T_MS);
}

static void test_window_closes_on_time(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct win_case *c = &cases[i];
		struct iolat_ctl *ctl = t_ctl_new(64, 1, 0);
		uint64_t t0 = t_now;
		struct iolat_group *g = t_grp(ctl, NULL, "g", c->target);
		struct iolat_group_stat st = t_stat(g);

		assert_int_equal(st.win_ns, c->win);
		assert_int_equal(st.target_ns, c->target);
		t_fill(g, 1, 4 * T_MS, 0);
		t_set_now(t0 + c->win - 1);
		assert_false(t_close(g));
		assert_int_equal(t_stat(g).avg_lat_ns, 0);
		t_set_now(t0 + c->win);
		assert_true(t_close(g));
		assert_int_equal(t_stat(g).avg_lat_ns, c->avg_after_4ms);
		assert_int_equal(t_stat(g).last_window_mean_ns, 4 * T_MS);
		/* The next window starts at the close. */
		t_set_now(t0 + 2 * c->win - 1);
		assert_false(t_close(g));
		t_set_now(t0 + 2 * c->win);
		assert_true(t_close(g));
		assert_int_equal(t_stat(g).avg_lat_ns, c->avg_after_empty);
		/* Idle time makes a window longer: nothing closes without a completion. */
		t_set_now(t0 + 10 * c->win);
		assert_int_equal(t_windows(g), 2);
		assert_true(t_close(g));
		assert_int_equal(t_windows(g), 3);
		iolat_ctl_destroy(ctl);
	}
}

static void test_window_follows_target(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *g = t_grp(ctl, NULL, "g", 0);
	uint64_t t0;

	assert_int_equal(t_stat(g).win_ns, 100 * T_MS);
	assert_int_equal(iolat_group_set_target(g, 1 * T_MS), 0);
	assert_int_equal(t_stat(g).win_ns, 100 * T_MS);
	assert_int_equal(iolat_group_set_target(g, 20 * T_MS), 0);
	assert_int_equal(t_stat(g).win_ns, 320 * T_MS);
	/* Enforced at the new length. */
	t0 = t_now;
	t_set_now(t0 + 320 * T_MS - 1);
	assert_false(t_close(g));
	t_set_now(t0 + 320 * T_MS);
	assert_true(t_close(g));
	assert_int_equal(iolat_group_set_target(g, 75 * T_MS), 0);
	assert_int_equal(t_stat(g).win_ns, 1000 * T_MS);
	assert_int_equal(iolat_group_set_target(g, 0), 0);
	assert_int_equal(t_stat(g).win_ns, 100 * T_MS);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_ns_pure),
		cmocka_unit_test(test_window_closes_on_time),
		cmocka_unit_test(test_window_follows_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
