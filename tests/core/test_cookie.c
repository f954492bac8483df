/* SPDX-License-Identifier: MIT */
/*
 * test_cookie.c - the parent's scale cookie (docs/controller.md R7, R6,
 * "Worked figures"):
 *  - qd 64, pure step function: down 16, 32, 48, 64, 80, then 81..128 one at
 *    a time (53 events that move it), floor at default - 128; up 127..64 one
 *    at a time, then by 4 to the default (80 events); never above default;
 *  - step sizes and event counts for qd 1, 32, 64, 128, 256 (table);
 *  - depth steps for those qd (halve; grow by qd/16; clamp at qd);
 *  - the same 53 + 80 events driven through real windows at qd 64, and a live
 *    nr_requests change taking effect at the next step.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"
#include "core/scale.h"

static void test_qd64_sequence(void **state)
{
	uint32_t c = T_D;

	/* Down: distance below the default after each event. */
	for (unsigned k = 1; k <= 53; k++) {
		uint32_t want = k <= 5 ? 16 * k : 80 + (k - 5);

		c = iolat_cookie_step(c, 64, false);
		assert_int_equal(T_D - c, want);
	}
	assert_int_equal(c, 999872u);
	for (unsigned k = 0; k < 10; k++) {
		c = iolat_cookie_step(c, 64, false);
		assert_int_equal(c, 999872u); /* the floor holds */
	}
	/* Up: 64 events of +1 (128 -> 64 below), then 16 of +4. */
	for (unsigned k = 1; k <= 80; k++) {
		uint32_t want = k <= 64 ? 128 - k : 64 - 4 * (k - 64);

		c = iolat_cookie_step(c, 64, true);
		assert_int_equal(T_D - c, want);
	}
	assert_int_equal(c, T_D);
	assert_int_equal(iolat_cookie_step(T_D, 64, true), T_D);
	/* An up step that would pass the default lands on it. */
	assert_int_equal(iolat_cookie_step(T_D - 3, 64, true), T_D);
	assert_int_equal(iolat_cookie_step(T_D - 4, 64, true), T_D);
	assert_int_equal(iolat_cookie_step(T_D - 5, 64, true), T_D - 1);
}

struct qd_case {
	uint32_t qd, down_step, up_step, n_down, n_up;
};

/*
 * From docs/controller.md R7: 4 down steps of qd/4 reach qd below the default, one more passes
 * it, then one at a time to 2 qd: n_down = 5 + qd - qd/4 (qd 1: 1, then 1 -> 2).
 * Up: 2qd -> qd one at a time (qd events), then qd/16 at a time (16 events).
 */
static const struct qd_case qd_cases[] = {
	{ 1, 1, 1, 2, 2 },
	{ 32, 8, 2, 29, 48 },
	{ 64, 16, 4, 53, 80 },
	{ 128, 32, 8, 101, 144 },
	{ 256, 64, 16, 197, 272 },
};

static void test_qd_table(void **state)
{
	for (size_t i = 0; i < sizeof(qd_cases) / sizeof(qd_cases[0]); i++) {
		const struct qd_case *t = &qd_cases[i];
		uint32_t c = T_D, prev, n = 0;

		assert_int_equal(T_D - iolat_cookie_step(T_D, t->qd, false), t->down_step);
		for (;;) {
			prev = c;
			c = iolat_cookie_step(c, t->qd, false);
			if (c == prev)
				break;
			n++;
			assert_true(n <= t->n_down);
		}
		assert_int_equal(n, t->n_down);
		assert_int_equal(T_D - c, 2 * t->qd);
		/* At distance qd, one up step is qd/16 (one above that, 1). */
		assert_int_equal(iolat_cookie_step(T_D - t->qd, t->qd, true) - (T_D - t->qd),
				 t->up_step);
		assert_int_equal(iolat_cookie_step(T_D - t->qd - 1, t->qd, true), T_D - t->qd);
		n = 0;
		while (c != T_D) {
			c = iolat_cookie_step(c, t->qd, true);
			n++;
			assert_true(n <= t->n_up);
		}
		assert_int_equal(n, t->n_up);
	}
}

static void test_depth_steps(void **state)
{
	for (size_t i = 0; i < sizeof(qd_cases) / sizeof(qd_cases[0]); i++) {
		const struct qd_case *t = &qd_cases[i];
		uint32_t qd = t->qd, d;

		/* The first halving from unlimited gives qd/2 (at least 1). */
		assert_int_equal(iolat_depth_step(T_MAX, qd, false), qd / 2 ? qd / 2 : 1);
		assert_int_equal(iolat_depth_step(1, qd, false), 1);
		/* Up from 1 by qd/16 (at least 1), clamped at qd. */
		d = iolat_depth_step(1, qd, true);
		assert_int_equal(d, qd == 1 ? 1 : 1 + t->up_step);
		assert_int_equal(iolat_depth_step(qd - 1, qd, true), qd);
		/* At qd (or unlimited) an up step changes nothing. */
		assert_int_equal(iolat_depth_step(qd, qd, true), qd);
		assert_int_equal(iolat_depth_step(T_MAX, qd, true), T_MAX);
	}
	/* A depth above a (now smaller) qd counts as qd. */
	assert_int_equal(iolat_depth_step(100, 64, false), 32);
}

/* The same arithmetic through real windows: 53 misses, 80 passes. */
static void test_qd64_through_windows(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 2 * T_MS);

	for (unsigned k = 1; k <= 53; k++) {
		t_miss(fast);
		assert_int_equal(T_D - t_cookie_of(root), k <= 5 ? 16 * k : 80 + (k - 5));
	}
	t_miss(fast);
	t_miss(fast);
	assert_int_equal(t_cookie_of(root), T_D - 128);
	for (unsigned k = 1; k <= 80; k++) {
		t_pass(fast);
		assert_int_equal(T_D - t_cookie_of(root), k <= 64 ? 128 - k : 64 - 4 * (k - 64));
	}
	assert_int_equal(t_cookie_of(root), T_D);
	iolat_ctl_destroy(ctl);
}

/* qd is read at every step (docs/controller.md, Words: qd). */
static void test_live_qd_change(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *root = iolat_ctl_root(ctl);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 2 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 0);

	t_miss(fast);
	t_poke(slow);
	assert_int_equal(t_cookie_of(root), T_D - 16);
	assert_int_equal(t_depth(slow), 32);
	assert_int_equal(iolat_ctl_set_nr_requests(ctl, 0), -EINVAL);
	assert_int_equal(iolat_ctl_set_nr_requests(ctl, 128), 0);
	assert_int_equal(iolat_ctl_nr_requests(ctl), 128);
	t_miss(fast);
	assert_int_equal(t_cookie_of(root), T_D - 16 - 32);
	t_poke(slow);
	assert_int_equal(t_depth(slow), 16);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qd64_sequence),
		cmocka_unit_test(test_qd_table),
		cmocka_unit_test(test_depth_steps),
		cmocka_unit_test(test_qd64_through_windows),
		cmocka_unit_test(test_live_qd_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
