/* SPDX-License-Identifier: MIT */
/*
 * test_dev_ssd.c - the "ssd" model alone (no controller): unloaded 4 KiB
 * reads take 80-100 us, writes are absorbed at ~20 us until the buffer fills
 * and then go at the program rate, deep write queues delay reads, GC pauses
 * happen under sustained writes, runs are deterministic, and the parameter
 * table rejects bad keys and values.
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
	uint64_t p50, p90;

	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "ssd", 1, NULL, 0);
	assert_non_null(d);
	assert_int_equal(d->model->rotational, 0);
	t_stream_init(&s, d, 1, true, false, 4096, 1, 0, 200 * MS);
	iolat_sim_evq_run_until(&q, 300 * MS);
	p50 = t_pct(&s, 50);
	p90 = t_pct(&s, 90);
	print_message("ssd 4k QD1 read: n=%zu mean=%.1f us p50=%.1f p90=%.1f us\n", s.nlat,
		      t_mean(&s) / 1e3, p50 / 1e3, p90 / 1e3);
	assert_true(t_mean(&s) >= 80000 && t_mean(&s) <= 100000);
	assert_true(p90 <= 100000);
	free(s.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
}

static void test_write_buffer_fills(void **state)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream w, s4k;
	struct iolat_sim_flash_stat fs;
	uint64_t before, mbps_early, mbps_late;

	/* 4 KiB writes at QD1 into an empty buffer: ~20 us. */
	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "ssd", 1, NULL, 0);
	t_stream_init(&s4k, d, 2, true, true, 4096, 1, 0, 50 * MS);
	iolat_sim_evq_run_until(&q, 60 * MS);
	print_message("ssd 4k QD1 write: mean=%.1f us\n", t_mean(&s4k) / 1e3);
	assert_true(t_mean(&s4k) >= 15000 && t_mean(&s4k) <= 30000);
	free(s4k.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);

	/* 1 MiB sequential writes at QD32: fast while the buffer takes them, then the program rate. */
	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "ssd", 1, NULL, 0);
	t_stream_init(&w, d, 3, false, true, 1 << 20, 32, 0, 3 * S);
	iolat_sim_evq_run_until(&q, 50 * MS);
	mbps_early = w.bytes / 50000;            /* bytes per 50 ms -> MB/s */
	iolat_sim_evq_run_until(&q, 2 * S);
	before = w.bytes;
	iolat_sim_evq_run_until(&q, 3 * S);
	mbps_late = (w.bytes - before) / 1000000;
	assert_int_equal(iolat_sim_flash_stat(d, &fs), 0);
	print_message("ssd 1M QD32 write: first 50 ms %llu MB/s, steady %llu MB/s, "
		      "absorbed %llu MiB, through %llu MiB, drained %llu MiB, pauses %llu\n",
		      (unsigned long long)mbps_early, (unsigned long long)mbps_late,
		      (unsigned long long)(fs.bytes_absorbed >> 20),
		      (unsigned long long)(fs.bytes_through >> 20),
		      (unsigned long long)(fs.bytes_drained >> 20),
		      (unsigned long long)fs.nr_pauses);
	assert_true(mbps_early > 2800);                     /* the host link: 3.2 GB/s */
	assert_true(mbps_late > 1800 && mbps_late < 2200);  /* program rate: 2 GB/s */
	assert_true(fs.bytes_through > 0);
	assert_true(fs.nr_pauses >= 2);                     /* GC under sustained writes */
	free(w.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
}

static void test_reads_behind_writes(void **state)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream w, r;

	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "ssd", 1, NULL, 0);
	t_stream_init(&w, d, 4, false, true, 1 << 20, 32, 0, 3 * S);
	t_stream_init(&r, d, 5, true, false, 4096, 4, 1 * S, 3 * S);
	iolat_sim_evq_run_until(&q, 4 * S);
	print_message("ssd 4k QD4 read beside 1M QD32 writer: p50=%.2f ms p90=%.2f ms max=%.2f ms\n",
		      t_pct(&r, 50) / 1e6, t_pct(&r, 90) / 1e6, t_pct(&r, 100) / 1e6);
	assert_true(t_pct(&r, 50) > 4 * 100000);      /* several times the unloaded latency */
	assert_true(t_pct(&r, 90) > 10 * 100000);
	free(w.lat);
	free(r.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);

	/* One 1 MiB write at a time leaves units free: reads stay near unloaded. */
	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "ssd", 1, NULL, 0);
	t_stream_init(&w, d, 4, false, true, 1 << 20, 1, 0, 3 * S);
	t_stream_init(&r, d, 5, true, false, 4096, 4, 1 * S, 3 * S);
	iolat_sim_evq_run_until(&q, 4 * S);
	print_message("ssd 4k QD4 read beside 1M QD1 writer: p50=%.1f us p90=%.1f us, writer %llu MB/s\n",
		      t_pct(&r, 50) / 1e3, t_pct(&r, 90) / 1e3,
		      (unsigned long long)(w.bytes / 3000000));
	assert_true(t_pct(&r, 90) < 150000);
	free(w.lat);
	free(r.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
}

static uint64_t run_digest(uint64_t seed, size_t *n)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d;
	static struct t_stream w, r;
	uint64_t h = 1469598103934665603ull;

	iolat_sim_evq_init(&q, 0);
	d = t_dev(&q, "ssd", seed, NULL, 0);
	t_stream_init(&w, d, seed, true, true, 64 << 10, 8, 0, 1 * S);
	t_stream_init(&r, d, seed + 1, true, false, 4096, 2, 0, 1 * S);
	iolat_sim_evq_run_until(&q, 2 * S);
	for (size_t i = 0; i < r.nlat; i++)
		h = (h ^ r.lat[i]) * 1099511628211ull;
	for (size_t i = 0; i < w.nlat; i++)
		h = (h ^ w.lat[i]) * 1099511628211ull;
	*n = r.nlat + w.nlat;
	free(w.lat);
	free(r.lat);
	iolat_sim_dev_destroy(d);
	iolat_sim_evq_destroy(&q);
	return h;
}

static void test_deterministic(void **state)
{
	size_t n1, n2, n3;
	uint64_t a = run_digest(11, &n1), b = run_digest(11, &n2), c = run_digest(12, &n3);

	assert_int_equal(a, b);
	assert_int_equal(n1, n2);
	assert_int_not_equal(a, c);
}

static void test_params(void **state)
{
	struct iolat_sim_evq q;
	struct iolat_sim_dev *d = NULL;
	struct iolat_sim_kv ok[] = { { "ssd_units", "8" }, { "ssd_read_us", " 50 " } };
	struct iolat_sim_kv unknown[] = { { "ssd_units", "8" }, { "ssd_unitz", "8" } };
	struct iolat_sim_kv junk[] = { { "ssd_units", "8x" } };
	struct iolat_sim_kv range[] = { { "ssd_units", "0" } };
	struct iolat_sim_kv hddkey[] = { { "hdd_rpm", "5400" } };
	struct iolat_sim_dev_config cfg = { .model = &iolat_sim_model_ssd, .seed = 1 };
	size_t bad = 99;
	double v;
	char buf[4096];

	iolat_sim_evq_init(&q, 0);
	cfg.params = ok;
	cfg.nr_params = 2;
	assert_int_equal(iolat_sim_dev_create(&cfg, &q, &d, &bad, NULL), 0);
	assert_int_equal(iolat_sim_dev_param(d, "ssd_units", &v), 0);
	assert_true(v == 8);
	assert_int_equal(iolat_sim_dev_param(d, "ssd_read_us", &v), 0);
	assert_true(v == 50);
	assert_int_equal(iolat_sim_dev_param(d, "ssd_unit_prog_mbps", &v), 0);
	assert_true(v == 62.5);
	assert_int_equal(d->nr_requests, 64);
	iolat_sim_dev_destroy(d);

	cfg.params = unknown;
	cfg.nr_params = 2;
	assert_int_equal(iolat_sim_dev_create(&cfg, &q, &d, &bad, NULL), -ENOENT);
	assert_int_equal(bad, 1);
	assert_null(d);
	cfg.params = junk;
	cfg.nr_params = 1;
	assert_int_equal(iolat_sim_dev_create(&cfg, &q, &d, &bad, NULL), -EINVAL);
	cfg.params = range;
	assert_int_equal(iolat_sim_dev_create(&cfg, &q, &d, &bad, NULL), -ERANGE);
	cfg.params = hddkey;
	assert_int_equal(iolat_sim_dev_create(&cfg, &q, &d, &bad, NULL), -ENOENT);

	assert_ptr_equal(iolat_sim_model_find("bad-ssd"), &iolat_sim_model_badssd);
	assert_ptr_equal(iolat_sim_model_by_prefix("badssd_units"), &iolat_sim_model_badssd);
	assert_ptr_equal(iolat_sim_model_by_prefix("hdd_rpm"), &iolat_sim_model_hdd);
	assert_null(iolat_sim_model_find("floppy"));
	assert_true(iolat_sim_param_format(iolat_sim_model_ssd.params, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "ssd_read_us=70"));
	iolat_sim_evq_destroy(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unloaded_read),
		cmocka_unit_test(test_write_buffer_fills),
		cmocka_unit_test(test_reads_behind_writes),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
