/* SPDX-License-Identifier: MIT */
/*
 * test_dev_badssd.c - the "bad-ssd" model alone (no controller): ~115 us
 * unloaded reads, a small write cache, ~100 MB/s sustained writes once it is
 * full, read latencies of tens of ms behind writes, and stalls of 100 ms-1 s
 * under write load.
 * Context: single-threaded cmocka program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/flash.h"
#include "t_devload.h"

#define MS 1000000ull
#define S 1000000000ull

static void test_unloaded_read(void **state)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream s;

	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "bad-ssd", 1, NULL, 0);
	assert_non_null(d);
	assert_int_equal(d->model->rotational, 0);
	t_stream_init(&s, d, 1, true, false, 4096, 1, 0, 200 * MS);
	iolat_sim_evq_run_until(&q, 300 * MS);
	print_message("bad-ssd 4k QD1 read: mean=%.1f us p90=%.1f us\n", t_mean(&s) / 1e3,
		      t_pct(&s, 90) / 1e3);
	assert_true(t_mean(&s) > 90000 && t_mean(&s) < 150000);
	free(s.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
}

static void test_sustained_write_and_stalls(void **state)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream w, r;
	struct iolat_sim_flash_stat fs;
	uint64_t before;
	double mbps;

	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "bad-ssd", 1, NULL, 0);
	t_stream_init(&w, d, 1, false, true, 1 << 20, 4, 0, 20 * S);
	t_stream_init(&r, d, 2, true, false, 4096, 1, 1 * S, 20 * S);
	iolat_sim_evq_run_until(&q, 5 * S);
	before = w.bytes;
	iolat_sim_evq_run_until(&q, 20 * S);
	mbps = (double)(w.bytes - before) / 15e6;
	assert_int_equal(iolat_sim_flash_stat(d, &fs), 0);
	print_message("bad-ssd 1M QD4 writer: %.0f MB/s steady, stalls %llu (%.0f ms in all); "
		      "4k reader p50=%.1f ms p90=%.1f ms max=%.0f ms\n", mbps,
		      (unsigned long long)fs.nr_pauses, fs.pause_ns / 1e6,
		      t_pct(&r, 50) / 1e6, t_pct(&r, 90) / 1e6, t_pct(&r, 100) / 1e6);
	assert_true(mbps > 60 && mbps < 110);    /* 100 MB/s less the stalls */
	assert_true(fs.nr_pauses >= 3);
	assert_true(fs.pause_ns / fs.nr_pauses >= 100 * MS);
	assert_true(fs.pause_ns / fs.nr_pauses <= 1000 * MS);
	assert_true(t_pct(&r, 50) > 10 * MS);     /* tens of ms behind writes */
	assert_true(t_pct(&r, 100) >= 100 * MS);  /* a stall */
	free(w.lat);
	free(r.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unloaded_read),
		cmocka_unit_test(test_sustained_write_and_stalls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
