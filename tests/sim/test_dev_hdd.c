/* SPDX-License-Identifier: MIT */
/*
 * test_dev_hdd.c - the "hdd" model alone (no controller): random 4 KiB reads
 * average ~12.7 ms (8.5 ms seek + 4.17 ms rotation), sequential transfer runs
 * at the media rate, the elevator shortens seeks at depth, the deadline
 * bounds how long a read can be passed over, and runs are deterministic.
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "t_devload.h"

#define MS 1000000ull
#define S 1000000000ull

static void test_random_read_mean(void **state)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream s;
	double mean;

	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "hdd", 1, NULL, 0);
	assert_non_null(d);
	assert_int_equal(d->model->rotational, 1);
	t_stream_init(&s, d, 1, true, false, 4096, 1, 0, 20 * S);
	iolat_sim_evq_run_until(&q, 21 * S);
	mean = t_mean(&s);
	print_message("hdd 4k QD1 random read: n=%zu mean=%.2f ms p50=%.2f p90=%.2f max=%.2f ms\n",
		      s.nlat, mean / 1e6, t_pct(&s, 50) / 1e6, t_pct(&s, 90) / 1e6,
		      t_pct(&s, 100) / 1e6);
	assert_true(mean > 11.5e6 && mean < 14e6);
	assert_true(t_pct(&s, 100) < 25 * MS);   /* full stroke + one turn + transfer */
	free(s.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
}

static void test_sequential_rate(void **state)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream s;
	double mbps;

	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "hdd", 1, NULL, 0);
	t_stream_init(&s, d, 1, false, false, 1 << 20, 1, 0, 5 * S);
	iolat_sim_evq_run_until(&q, 6 * S);
	mbps = (double)s.bytes / 5e6;
	print_message("hdd 1M QD1 sequential read: %.1f MB/s, mean %.2f ms\n", mbps,
		      t_mean(&s) / 1e6);
	assert_true(mbps > 170 && mbps < 185);
	free(s.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
}

static double iops_at(uint32_t qd)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream s;
	double iops;

	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "hdd", 1, NULL, 0);
	t_stream_init(&s, d, 1, true, false, 4096, qd, 0, 10 * S);
	iolat_sim_evq_run_until(&q, 10 * S);
	iops = (double)s.nlat / 10;
	free(s.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
	return iops;
}

static void test_elevator(void **state)
{
	double i1 = iops_at(1), i32 = iops_at(32);

	print_message("hdd 4k random read IOPS: QD1 %.0f, QD32 %.0f\n", i1, i32);
	assert_true(i1 > 70 && i1 < 90);
	assert_true(i32 > 1.5 * i1);
}

static void test_deadline(void **state)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream w, r;
	struct iolat_sim_kv kv[] = { { "hdd_read_expire_ms", "100" } };

	/* A sequential writer always has a request just above the head: C-LOOK alone
	 * would pass a read below it over for ever; the read deadline bounds that. */
	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "hdd", 1, kv, 1);
	assert_non_null(d);
	t_stream_init(&w, d, 1, false, true, 1 << 20, 32, 0, 10 * S);
	w.region_off = d->capacity / 2;
	w.region_len = d->capacity / 4;
	t_stream_init(&r, d, 2, true, false, 4096, 1, 1 * S, 10 * S);
	iolat_sim_evq_run_until(&q, 11 * S);
	print_message("hdd read beside a QD32 writer: n=%zu mean=%.1f ms max=%.1f ms; writer %.0f MB/s\n",
		      r.nlat, t_mean(&r) / 1e6, t_pct(&r, 100) / 1e6, (double)w.bytes / 10e6);
	assert_true(r.nlat > 20);
	assert_true(t_pct(&r, 100) < 100 * MS + 60 * MS);
	assert_true(t_mean(&r) > 30e6);          /* far worse than unloaded */
	free(w.lat);
	free(r.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
}

static uint64_t digest(uint64_t seed)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream s;
	uint64_t h = 1469598103934665603ull;

	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "hdd", seed, NULL, 0);
	t_stream_init(&s, d, seed, true, false, 4096, 8, 0, 2 * S);
	iolat_sim_evq_run_until(&q, 3 * S);
	for (size_t i = 0; i < s.nlat; i++)
		h = (h ^ s.lat[i]) * 1099511628211ull;
	free(s.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
	return h;
}

static void test_deterministic_and_params(void **state)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d = NULL;
	struct iolat_sim_kv bad_seek[] = { { "hdd_seek_avg_ms", "20" } }; /* above full stroke */
	struct iolat_sim_dev_config cfg = { .model = &iolat_sim_model_hdd, .seed = 1,
					    .params = bad_seek, .nr_params = 1 };
	struct iolat_sim_dev_err why;
	size_t bad = 0;

	assert_int_equal(digest(5), digest(5));
	assert_int_not_equal(digest(5), digest(6));
	iolat_sim_evq_init(&q, 0);
	assert_int_equal(iolat_sim_dev_create(&cfg, &q, &d, &bad, &why), -EDOM);
	assert_int_equal(bad, SIZE_MAX);           /* no single value is wrong */
	assert_string_equal(why.key, "hdd_seek_avg_ms");
	assert_non_null(why.msg);
	iolat_sim_evq_destroy(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_read_mean),
		cmocka_unit_test(test_sequential_rate),
		cmocka_unit_test(test_elevator),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_deterministic_and_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
