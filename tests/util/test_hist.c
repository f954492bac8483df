/* SPDX-License-Identifier: MIT */
/*
 * Tests of the log-linear histogram (src/util/hist.c): bucket geometry is
 * contiguous and covers every value; percentiles are within the documented
 * bound 1/2^(IOLAT_HIST_BITS+1) of the exact nearest-rank value of a sorted
 * array, for several distributions; merge, reset, min/max/mean, empty.
 * Context: single-threaded test program.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/hist.h"

static uint64_t t_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int t_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_geometry(void **state)
{
	(void)state;
	assert_int_equal(iolat_hist_bucket_lo(0), 0);
	for (unsigned i = 0; i < IOLAT_HIST_NR; i++) {
		uint64_t lo = iolat_hist_bucket_lo(i), hi = iolat_hist_bucket_hi(i);
		assert_true(lo <= hi);
		assert_int_equal(iolat_hist_index(lo), i);
		if (i + 1 < IOLAT_HIST_NR) {
			assert_int_equal(iolat_hist_index(hi), i);
			assert_int_equal(iolat_hist_bucket_lo(i + 1), hi + 1);
			/* width bound: (hi - lo + 1) * 2^BITS <= lo, or exact */
			if (lo >= IOLAT_HIST_SUB)
				assert_true((hi - lo + 1) * IOLAT_HIST_SUB <= lo);
			else
				assert_int_equal(lo, hi);
		}
	}
	assert_int_equal(iolat_hist_index(UINT64_MAX), IOLAT_HIST_NR - 1);
	assert_int_equal(iolat_hist_index(1ull << IOLAT_HIST_MAX_LOG2), IOLAT_HIST_NR - 1);
	assert_int_equal(iolat_hist_bucket_hi(IOLAT_HIST_NR - 1), (1ull << IOLAT_HIST_MAX_LOG2) - 1);
}

static void test_empty_and_reset(void **state)
{
	(void)state;
	static struct iolat_hist h;
	iolat_hist_reset(&h);
	assert_int_equal(iolat_hist_percentile(&h, 50), 0);
	assert_int_equal(iolat_hist_min(&h), 0);
	assert_int_equal(iolat_hist_max(&h), 0);
	assert_int_equal(iolat_hist_mean(&h), 0);
	iolat_hist_add(&h, 5);
	iolat_hist_add(&h, 15);
	assert_int_equal(h.nr, 2);
	assert_int_equal(iolat_hist_min(&h), 5);
	assert_int_equal(iolat_hist_max(&h), 15);
	assert_int_equal(iolat_hist_mean(&h), 10);
	assert_int_equal(iolat_hist_percentile(&h, 50), 5);
	assert_int_equal(iolat_hist_percentile(&h, 50.1), 15);
	assert_int_equal(iolat_hist_percentile(&h, 0), 5);
	assert_int_equal(iolat_hist_percentile(&h, 100), 15);
	iolat_hist_reset(&h);
	assert_int_equal(h.nr, 0);
	assert_int_equal(iolat_hist_max(&h), 0);
	/* saturating sum */
	iolat_hist_add(&h, UINT64_MAX);
	iolat_hist_add(&h, UINT64_MAX);
	assert_true(h.sum_ns == UINT64_MAX);
	assert_true(iolat_hist_percentile(&h, 99) == UINT64_MAX);
}

enum dist { UNIFORM_SMALL, UNIFORM_US, EXPONENTIAL, LOG_UNIFORM, BIMODAL };

static uint64_t t_sample(enum dist d, uint64_t *rs)
{
	double u = ((double)(t_rand(rs) >> 11) + 1.0) / 9007199254740992.0;
	switch (d) {
	case UNIFORM_SMALL: return t_rand(rs) % 200;
	case UNIFORM_US:    return 50000 + t_rand(rs) % 950000;
	case EXPONENTIAL:   return (uint64_t)(-log(u) * 2000000.0);
	case LOG_UNIFORM:   return (uint64_t)exp(u * log(1e12));
	case BIMODAL:       return (t_rand(rs) & 1) ? 100000 + t_rand(rs) % 1000 : 80000000 + t_rand(rs) % 5000000;
	}
	return 0;
}

static void test_percentile_accuracy(void **state)
{
	(void)state;
	static const double pcts[] = { 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100 };
	static struct iolat_hist h;
	const size_t n = 100000;
	uint64_t *v = malloc(n * sizeof(*v));
	uint64_t rs = 88172645463325252ull;
	assert_non_null(v);

	for (int d = UNIFORM_SMALL; d <= BIMODAL; d++) {
		for (size_t cnt = 1; cnt <= n; cnt *= 10) {
			iolat_hist_reset(&h);
			uint64_t sum = 0;
			for (size_t i = 0; i < cnt; i++) {
				v[i] = t_sample((enum dist)d, &rs);
				sum += v[i];
				iolat_hist_add(&h, v[i]);
			}
			qsort(v, cnt, sizeof(*v), t_cmp);
			assert_int_equal(iolat_hist_min(&h), v[0]);
			assert_int_equal(iolat_hist_max(&h), v[cnt - 1]);
			assert_int_equal(iolat_hist_mean(&h), sum / cnt);
			for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
				size_t rank = (size_t)ceil(pcts[k] / 100.0 * (double)cnt);
				if (rank < 1)
					rank = 1;
				uint64_t exact = v[rank - 1], est = iolat_hist_percentile(&h, pcts[k]);
				uint64_t err = est > exact ? est - exact : exact - est;
				/* the bound of hist.c: err <= exact / 2^(BITS+1); exact below 64 ns */
				if (err * (2u * IOLAT_HIST_SUB) > exact)
					fail_msg("dist %d n %zu p%.2f: est %llu exact %llu", d, cnt, pcts[k],
						 (unsigned long long)est, (unsigned long long)exact);
			}
		}
	}
	free(v);
}

static void test_merge(void **state)
{
	(void)state;
	static struct iolat_hist a, b, all;
	uint64_t rs = 7;
	iolat_hist_reset(&a);
	iolat_hist_reset(&b);
	iolat_hist_reset(&all);
	iolat_hist_merge(&a, &b);                 /* empty into empty */
	assert_int_equal(a.nr, 0);
	assert_true(a.min_ns == UINT64_MAX);
	for (int i = 0; i < 5000; i++) {
		uint64_t x = t_sample(EXPONENTIAL, &rs);
		iolat_hist_add((i % 3) ? &a : &b, x);
		iolat_hist_add(&all, x);
	}
	iolat_hist_merge(&a, &b);
	assert_memory_equal(&a, &all, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_empty_and_reset),
		cmocka_unit_test(test_percentile_accuracy),
		cmocka_unit_test(test_merge),
	};
	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
