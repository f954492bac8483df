/* SPDX-License-Identifier: MIT */
/*
 * test_event.c - the simulator's event queue and virtual clock: events run in
 * (time, scheduling order), the clock follows them and never goes back, and
 * the struct iolat_clock view reads the same clock.
 * Context: single-threaded cmocka program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/event.h"
#include "util/rng.h"

struct log {
	uint64_t t[4096], data[4096];
	size_t n;
	struct iolat_sim_evq *q;
};

static void rec(void *arg, uint64_t data, uint64_t now)
{
	struct log *l = arg;

	assert_int_equal(now, iolat_sim_evq_now(l->q));
	l->t[l->n] = now;
	l->data[l->n++] = data;
}

static void test_order_and_ties(void **state)
{
	static struct log l;
	struct iolat_sim_evq q;

	iolat_sim_evq_init(&q, 1000);
	l.n = 0;
	l.q = &q;
	assert_int_equal(iolat_sim_evq_at(&q, 3000, rec, &l, 1), 0);
	assert_int_equal(iolat_sim_evq_at(&q, 2000, rec, &l, 2), 0);
	assert_int_equal(iolat_sim_evq_at(&q, 3000, rec, &l, 3), 0);
	assert_int_equal(iolat_sim_evq_at(&q, 2000, rec, &l, 4), 0);
	assert_int_equal(iolat_sim_evq_at(&q, 10, rec, &l, 5), 0); /* past: runs "now" */
	assert_int_equal(iolat_sim_evq_next_t(&q), 1000);
	while (iolat_sim_evq_step(&q))
		;
	assert_int_equal(l.n, 5);
	assert_int_equal(l.data[0], 5);
	assert_int_equal(l.t[0], 1000);
	assert_int_equal(l.data[1], 2);
	assert_int_equal(l.data[2], 4);
	assert_int_equal(l.data[3], 1);
	assert_int_equal(l.data[4], 3);
	assert_int_equal(iolat_sim_evq_now(&q), 3000);
	assert_int_equal(iolat_sim_evq_next_t(&q), UINT64_MAX);
	iolat_sim_evq_destroy(&q);
}

static void test_run_until_and_clock(void **state)
{
	static struct log l;
	struct iolat_sim_evq q;
	struct iolat_clock clk;

	iolat_sim_evq_init(&q, 0);
	l.n = 0;
	l.q = &q;
	iolat_sim_evq_clock(&q, &clk);
	iolat_sim_evq_after(&q, 500, rec, &l, 1);
	iolat_sim_evq_after(&q, 1500, rec, &l, 2);
	assert_int_equal(iolat_sim_evq_run_until(&q, 1000), 1);
	assert_int_equal(clk.now_ns(clk.ctx), 1000);
	assert_int_equal(iolat_sim_evq_run_until(&q, 1500), 1);
	assert_int_equal(clk.now_ns(clk.ctx), 1500);
	/* The clock never goes back. */
	assert_int_equal(iolat_sim_evq_run_until(&q, 100), 0);
	assert_int_equal(clk.now_ns(clk.ctx), 1500);
	/* "After" an enormous delay saturates instead of wrapping. */
	iolat_sim_evq_after(&q, UINT64_MAX, rec, &l, 3);
	assert_int_equal(iolat_sim_evq_next_t(&q), UINT64_MAX);
	iolat_sim_evq_destroy(&q);
}

/* Many random events, some scheduled from inside events: order holds. */
static struct log big;
static struct iolat_rng brng;

static void chain(void *arg, uint64_t data, uint64_t now)
{
	rec(arg, data, now);
	if (data % 3 == 0 && big.n < 3000)
		iolat_sim_evq_after(big.q, iolat_rng_below(&brng, 50), chain, arg,
				    big.n + 100000 * 3);
}

static void test_heap_stress(void **state)
{
	struct iolat_sim_evq q;

	iolat_sim_evq_init(&q, 0);
	big.n = 0;
	big.q = &q;
	iolat_rng_seed(&brng, 7, 1);
	for (uint64_t i = 0; i < 1000; i++)
		iolat_sim_evq_at(&q, iolat_rng_below(&brng, 100), chain, &big, i);
	while (iolat_sim_evq_step(&q))
		;
	assert_true(big.n > 1000);
	for (size_t i = 1; i < big.n; i++)
		assert_true(big.t[i - 1] <= big.t[i]);
	/* Same-time initial events (data < 1000) ran in scheduling order. */
	for (size_t i = 1; i < big.n; i++)
		if (big.t[i - 1] == big.t[i] && big.data[i - 1] < 1000 && big.data[i] < 1000)
			assert_true(big.data[i - 1] < big.data[i]);
	iolat_sim_evq_destroy(&q);
}

static void test_rng(void **state)
{
	struct iolat_rng a, b, c;
	double sum = 0;

	iolat_rng_seed(&a, 42, 1);
	iolat_rng_seed(&b, 42, 1);
	iolat_rng_seed(&c, 42, 2);
	for (int i = 0; i < 100; i++) {
		uint64_t x = iolat_rng_u64(&a);

		assert_int_equal(x, iolat_rng_u64(&b));
		assert_int_not_equal(x, iolat_rng_u64(&c));
	}
	for (int i = 0; i < 100000; i++) {
		assert_true(iolat_rng_below(&a, 10) < 10);
		sum += iolat_rng_exp(&a, 5.0);
	}
	assert_true(sum / 100000 > 4.9 && sum / 100000 < 5.1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_ties),
		cmocka_unit_test(test_run_until_and_clock),
		cmocka_unit_test(test_heap_stress),
		cmocka_unit_test(test_rng),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
