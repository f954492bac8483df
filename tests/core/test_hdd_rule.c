/* SPDX-License-Identifier: MIT */
/*
 * test_hdd_rule.c - the rotational (HDD) window rule and its carried-over
 * mean (docs/controller.md R10, R12, C9, "Where we differ": the carried HDD
 * mean):
 *  - a window is ok when its mean latency <= target;
 *  - windows closed within 500 ms of a scale event are carried in cur_stat;
 *    the next decision needs both the window and cur_stat ok. We compute the
 *    carried mean (sample-weighted); under IOLAT_CTL_COMPAT_B1 (and
 *    IOLAT_CTL_KERNEL_COMPAT) it is 0 as in the kernel, so a window that is
 *    ok on its own scales up even after carried bad windows;
 *  - the avg_lat EMA (docs/controller.md C9) from 0 with 4 ms windows:
 *    5860, 11711, 17554 (factor 2045).
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

#define TARGET (5 * T_MS) /* window 100 ms */

struct mean_case {
	unsigned n1;
	uint64_t lat1;
	unsigned n2;
	uint64_t lat2;
	bool ok;
};

static const struct mean_case mean_cases[] = {
	{ 10, TARGET, 0, 0, true },            /* mean == target: ok */
	{ 10, TARGET + 1, 0, 0, false },
	{ 9, 1 * T_MS, 1, 41 * T_MS, true },   /* mean 5 ms exactly */
	{ 9, 1 * T_MS, 1, 41 * T_MS + 10, false }, /* mean 5 ms + 1 ns */
	{ 1, 50 * T_MS, 0, 0, false },
	{ 19, 1 * T_MS, 1, 81 * T_MS, true },  /* one outlier: (19 + 81) / 20 = 5 ms */
};

static void test_mean_rule(void **state)
{
	for (size_t i = 0; i < sizeof(mean_cases) / sizeof(mean_cases[0]); i++) {
		const struct mean_case *c = &mean_cases[i];
		struct iolat_ctl *ctl = t_ctl_new(64, 1, 0);
		struct iolat_group *root = iolat_ctl_root(ctl);
		struct iolat_group *fast = t_grp(ctl, NULL, "fast", TARGET);
		uint64_t sum = c->n1 * c->lat1 + c->n2 * c->lat2;
		bool ok = t_window(fast, c->n1, c->lat1, c->n2, c->lat2, 0);

		assert_int_equal(t_stat(fast).last_window_mean_ns, sum / (c->n1 + c->n2));
		if (ok != c->ok)
			print_error("case %zu: mean %llu: want %s\n", i,
				    (unsigned long long)(sum / (c->n1 + c->n2)), c->ok ? "ok" : "bad");
		assert_int_equal(ok, c->ok);
		assert_int_equal(t_cookie_of(root), c->ok ? T_D : T_D - 16);
		iolat_ctl_destroy(ctl);
	}
}

struct carry_case {
	unsigned flags;
	unsigned gated_n;    /* a window closed 100 ms after the scale event: carried */
	uint64_t gated_lat;
	unsigned ok_n;       /* then a window ok on its own, 500 ms after the event */
	uint64_t ok_lat;
	uint32_t cookie;     /* parent's cookie after it (D - 16 before) */
};

static const struct carry_case carry_cases[] = {
	/* carried mean (200 + 10) / 20 = 10.5 ms > 5 ms: down (16 more) */
	{ 0, 10, 20 * T_MS, 10, 1 * T_MS, T_D - 32 },
	{ IOLAT_CTL_COMPAT_TIMER, 10, 20 * T_MS, 10, 1 * T_MS, T_D - 32 },
	/* B1: the carried mean is 0, so the window alone decides: up (+4) */
	{ IOLAT_CTL_COMPAT_B1, 10, 20 * T_MS, 10, 1 * T_MS, T_D - 12 },
	{ IOLAT_CTL_KERNEL_COMPAT, 10, 20 * T_MS, 10, 1 * T_MS, T_D - 12 },
	/* Weighted by samples: (40 + 10) / 12 = 4.17 ms: up (the mean of
	 * means, 10.5 ms, would say down) */
	{ 0, 2, 20 * T_MS, 10, 1 * T_MS, T_D - 12 },
	/* (90 + 2) / 12 = 7.67 ms: down (the mean of means, 5 ms, would say up) */
	{ 0, 10, 9 * T_MS, 2, 1 * T_MS, T_D - 32 },
	{ IOLAT_CTL_COMPAT_B1, 10, 9 * T_MS, 2, 1 * T_MS, T_D - 12 },
	/* Exactly at the target, (90 + 10) / 20 = 5 ms: ok; 1 ns over: not. */
	{ 0, 10, 9 * T_MS, 10, 1 * T_MS, T_D - 12 },
	{ 0, 10, 9 * T_MS + 2, 10, 1 * T_MS, T_D - 32 },
};

static void test_carried_mean(void **state)
{
	for (size_t i = 0; i < sizeof(carry_cases) / sizeof(carry_cases[0]); i++) {
		const struct carry_case *c = &carry_cases[i];
		struct iolat_ctl *ctl = t_ctl_new(64, 1, c->flags);
		struct iolat_group *root = iolat_ctl_root(ctl);
		struct iolat_group *fast = t_grp(ctl, NULL, "fast", TARGET);
		bool b1 = c->flags & IOLAT_CTL_COMPAT_B1;
		struct iolat_group_stat st;
		uint64_t last;

		t_miss(fast);
		last = t_last_event(root);
		assert_int_equal(t_cookie_of(root), T_D - 16);
		assert_int_equal(t_stat(fast).cur_stat_samples, 0);
		/* Closed 100 ms after the event: no decision, carried. */
		(void)t_window(fast, c->gated_n, c->gated_lat, 0, 0, 0);
		assert_int_equal(t_last_event(root), last);
		assert_int_equal(t_cookie_of(root), T_D - 16);
		st = t_stat(fast);
		assert_int_equal(st.cur_stat_samples, c->gated_n);
		assert_int_equal(st.cur_stat_mean_ns, b1 ? 0 : c->gated_lat);
		/* Ok on its own, 500 ms after the event: decided with cur_stat. */
		assert_true(t_window(fast, c->ok_n, c->ok_lat, 0, 0, last + IOLAT_MIN_ADJUST_NS));
		if (t_cookie_of(root) != c->cookie)
			print_error("case %zu: cookie D - %u, want D - %u\n", i,
				    T_D - t_cookie_of(root), T_D - c->cookie);
		assert_int_equal(t_cookie_of(root), c->cookie);
		assert_int_equal(t_last_event(root), last + IOLAT_MIN_ADJUST_NS);
		assert_int_equal(t_stat(fast).cur_stat_samples, 0);
		assert_int_equal(t_stat(root).child_nr_samples, c->gated_n + c->ok_n);
		iolat_ctl_destroy(ctl);
	}
}

/* C9: from 0, window means of 4 ms with factor 2045 (windows < 250 ms). */
static void test_ema_example(void **state)
{
	static const uint64_t want[] = { 5860, 11711, 17554 };
	struct iolat_ctl *ctl = t_ctl_new(64, 1, 0);
	struct iolat_group *g = t_grp(ctl, NULL, "g", TARGET);

	for (size_t i = 0; i < 3; i++) {
		assert_true(t_window(g, 4, 4 * T_MS, 0, 0, 0));
		assert_int_equal(t_stat(g).avg_lat_ns, want[i]);
	}
	/* Falling: no rounding up. (17554 * 2045 + 10000 * 3) / 2048 */
	assert_true(t_window(g, 4, 10 * T_US, 0, 0, 0));
	assert_int_equal(t_stat(g).avg_lat_ns, 17542);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_rule),
		cmocka_unit_test(test_carried_mean),
		cmocka_unit_test(test_ema_example),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
