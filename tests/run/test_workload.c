/* SPDX-License-Identifier: MIT */
/*
 * Tests of the workload generator (src/job/workload.c), driven with virtual
 * time: determinism per (seed, job, clone), sequential wrap and random
 * alignment, the read/write mix, Poisson arrivals (mean and spread within
 * tolerance), linear ones, rate= with poisson as an arrival rate, the open
 * loop's late arrivals and backlog, the rate= token bucket, burst on/off gating, start delay,
 * runtime and size limits, think time, and init errors.
 * Context: single-threaded test program.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "iolatency.h"
#include "job/jobfile.h"
#include "run/workload.h"

#define MS 1000000ull
#define SEC 1000000000ull

static struct iolat_jobfile *t_jobs(const char *text)
{
	struct iolat_jobfile *jf = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];
	if (iolat_jobfile_parse_buf(text, strlen(text), "w.fio", &jf, err, sizeof(err)))
		fail_msg("parse: %s", err);
	return jf;
}

static void t_init(struct iolat_workload *wl, const struct iolat_jobfile *jf, unsigned job,
		   unsigned clone, uint64_t start)
{
	struct iolat_wl_params p = {
		.seed = jf->global.seed, .job_index = job, .clone = clone, .size = 1ull << 30,
		.start_ns = start,
	};
	assert_int_equal(iolat_workload_init(wl, &jf->jobs[job], &p), 0);
}

/* Issue greedily (infinite depth) until done or @until; returns the count. */
static unsigned t_drain(struct iolat_workload *wl, uint64_t until, struct iolat_wl_io *ios,
			uint64_t *times, unsigned max)
{
	unsigned n = 0;
	uint64_t now = 0;
	while (n < max) {
		uint64_t t = iolat_workload_next_time(wl, now);
		if (t == UINT64_MAX || t >= until)
			break;
		now = t;
		struct iolat_wl_io io;
		assert_int_equal(iolat_workload_next(wl, now, &io), 0);
		if (ios)
			ios[n] = io;
		if (times)
			times[n] = now;
		n++;
	}
	return n;
}

static void test_rng(void **state)
{
	(void)state;
	struct iolat_rng a, b;
	iolat_rng_seed(&a, 42, 0);
	iolat_rng_seed(&b, 42, 0);
	for (int i = 0; i < 1000; i++)
		assert_true(iolat_rng_u64(&a) == iolat_rng_u64(&b));
	iolat_rng_seed(&b, 43, 0);
	assert_true(iolat_rng_u64(&a) != iolat_rng_u64(&b));
	unsigned hist[10] = { 0 };
	for (int i = 0; i < 100000; i++) {
		uint64_t x = iolat_rng_below(&a, 10);
		assert_true(x < 10);
		hist[x]++;
		double u = iolat_rng_unit_pos(&a);
		assert_true(u > 0.0 && u <= 1.0);
		u = iolat_rng_unit(&a);
		assert_true(u >= 0.0 && u < 1.0);
	}
	for (int i = 0; i < 10; i++)
		assert_true(hist[i] > 9500 && hist[i] < 10500);
	assert_int_equal(iolat_rng_below(&a, 0), 0);
	assert_true(iolat_workload_seed(1, 0, 0) != iolat_workload_seed(1, 0, 1));
	assert_true(iolat_workload_seed(1, 0, 0) != iolat_workload_seed(1, 1, 0));
	assert_true(iolat_workload_seed(1, 0, 0) != iolat_workload_seed(2, 0, 0));
}

static void test_determinism(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[global]\nseed=7\n[a]\nrw=randrw\nrate_iops=5000\nsize=64m\n"
					  "time_based\nruntime=10s\n");
	static struct iolat_wl_io x[5000], y[5000];
	static uint64_t tx[5000], ty[5000];
	struct iolat_workload w1, w2;

	t_init(&w1, jf, 0, 0, 0);
	t_init(&w2, jf, 0, 0, 0);
	assert_int_equal(t_drain(&w1, UINT64_MAX, x, tx, 5000), 5000);
	assert_int_equal(t_drain(&w2, UINT64_MAX, y, ty, 5000), 5000);
	assert_memory_equal(x, y, sizeof(x));
	assert_memory_equal(tx, ty, sizeof(tx));

	/* another clone: another sequence */
	t_init(&w2, jf, 0, 1, 0);
	t_drain(&w2, UINT64_MAX, y, ty, 5000);
	unsigned same = 0;
	for (int i = 0; i < 5000; i++)
		same += x[i].offset == y[i].offset;
	assert_true(same < 50);
	iolat_jobfile_free(jf);
}

static void test_sequential_wrap(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nrw=write\nbs=4k\noffset=1m\nsize=10k\ntime_based\nruntime=1s\n"
					  "[b]\nrw=read\nbs=4k\nsize=16k\n");
	static struct iolat_wl_io io[10];
	struct iolat_workload wl;

	t_init(&wl, jf, 0, 0, 0);
	assert_int_equal(wl.nr_blocks, 2);   /* 10k / 4k: the partial block is left out */
	assert_int_equal(t_drain(&wl, UINT64_MAX, io, NULL, 5), 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(io[i].offset, (1u << 20) + (uint64_t)(i % 2) * 4096);
		assert_true(io[i].write);
		assert_int_equal(io[i].len, 4096);
		assert_int_equal(io[i].seq, i);
	}
	/* not time based: stops after size bytes */
	t_init(&wl, jf, 1, 0, 0);
	assert_int_equal(t_drain(&wl, UINT64_MAX, io, NULL, 10), 4);
	assert_false(io[0].write);
	assert_int_equal(io[3].offset, 12288);
	assert_true(iolat_workload_done(&wl, 0));
	struct iolat_wl_io extra;
	assert_int_equal(iolat_workload_next(&wl, 0, &extra), -ENODATA);
	iolat_jobfile_free(jf);
}

static void test_random_and_mix(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nrw=randrw\nrwmixread=70\nbs=8k\noffset=4k\nsize=800k\n"
					  "time_based\nruntime=1h\nioflags=meta\n");
	struct iolat_workload wl;
	unsigned reads = 0, seen[100] = { 0 };

	t_init(&wl, jf, 0, 0, 0);
	for (int i = 0; i < 100000; i++) {
		struct iolat_wl_io io;
		assert_int_equal(iolat_workload_next(&wl, 5, &io), 0);
		assert_true(io.offset >= 4096 && io.offset + io.len <= 4096 + 800 * 1024);
		assert_int_equal((io.offset - 4096) % 8192, 0);
		assert_int_equal(io.flags, IOLAT_IO_META);
		assert_int_equal(io.due_ns, 5);
		seen[(io.offset - 4096) / 8192]++;
		reads += !io.write;
	}
	for (int b = 0; b < 100; b++)
		assert_true(seen[b] > 800 && seen[b] < 1200);
	assert_true(reads > 69000 && reads < 71000);
	iolat_jobfile_free(jf);
}

static void test_poisson(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nrw=randread\nrate_iops=1000\nsize=1g\ntime_based\nruntime=1000s\n");
	struct iolat_workload wl;
	const unsigned n = 200000;
	uint64_t *t = malloc(n * sizeof(*t));
	assert_non_null(t);

	t_init(&wl, jf, 0, 0, 0);
	assert_int_equal(t_drain(&wl, UINT64_MAX, NULL, t, n), n);
	double sum = 0, sum2 = 0;
	uint64_t prev = 0;
	for (unsigned i = 0; i < n; i++) {
		double g = (double)(t[i] - prev);
		assert_true(t[i] >= prev);
		sum += g;
		sum2 += g * g;
		prev = t[i];
	}
	double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
	/* exponential with mean 1 ms: mean and standard deviation both 1 ms (3 sigma ~ 0.7 %) */
	assert_true(fabs(mean - 1e6) < 0.015e6);
	assert_true(fabs(sd - 1e6) < 0.03e6);

	/* a late runner gets the arrival time as due_ns */
	t_init(&wl, jf, 0, 0, 0);
	uint64_t first = iolat_workload_next_time(&wl, 0);
	struct iolat_wl_io io;
	assert_int_equal(iolat_workload_next(&wl, first + 50 * MS, &io), 0);
	assert_int_equal(io.due_ns, first);
	free(t);
	iolat_jobfile_free(jf);
}

/* rate_process=linear: arrivals exactly every 1 / rate, the remainder carried
 * (3000/s: never a drift of a nanosecond from i / 3000 s). */
static void test_linear(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nrw=randread\nrate_iops=3000\nrate_process=linear\n"
					  "size=1g\ntime_based\nruntime=10s\n");
	struct iolat_workload wl;
	const unsigned max = 40000;
	uint64_t *t = malloc(max * sizeof(*t));
	assert_non_null(t);

	t_init(&wl, jf, 0, 0, 0);
	unsigned n = t_drain(&wl, UINT64_MAX, NULL, t, max);
	assert_int_equal(n, 30000);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(t[i], (uint64_t)i * SEC / 3000);
	free(t);
	iolat_jobfile_free(jf);
}

/* rate= with rate_process=poisson: open loop at rate / bs, exponential gaps
 * from the job's seed (mean 4k / 4 MiB/s = 976.5625 us). */
static void test_poisson_from_rate(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[global]\nseed=3\n[a]\nrw=randread\nbs=4k\nrate=4m\n"
					  "rate_process=poisson\nsize=1g\ntime_based\nruntime=1000s\n");
	struct iolat_workload wl;
	const unsigned n = 100000;
	uint64_t *t = malloc(n * sizeof(*t));
	assert_non_null(t);

	t_init(&wl, jf, 0, 0, 0);
	assert_true(wl.open_loop && wl.poisson && !wl.rate_cap);
	assert_int_equal(t_drain(&wl, UINT64_MAX, NULL, t, n), n);
	double mean = (double)t[n - 1] / n;
	assert_true(fabs(mean - 976562.5) < 0.015 * 976562.5);
	free(t);
	iolat_jobfile_free(jf);
}

/*
 * An arrival waits for nothing; when the runner takes it late (its queue was
 * full until 5.5 ms) it keeps its due time, is counted late with the backlog
 * it was part of, and the arrivals after the hold are on time again. At the
 * end the arrivals never taken are counted. A closed-loop job has no tally.
 */
static void test_hold_late_backlog(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nrw=randread\nrate_iops=1000\nrate_process=linear\n"
					  "size=1g\ntime_based\nruntime=1s\n[b]\nrw=randread\nsize=1g\n");
	struct iolat_workload wl;
	struct iolat_wl_openloop o;
	struct iolat_wl_io io;

	t_init(&wl, jf, 0, 0, 0);
	assert_int_equal(iolat_workload_next(&wl, 0, &io), 0);
	assert_false(io.late);
	assert_int_equal(io.due_ns, 0);
	iolat_workload_hold(&wl, 5500000);      /* a full queue until 5.5 ms */
	for (unsigned i = 1; i <= 5; i++) {
		assert_int_equal(iolat_workload_next(&wl, 5500000, &io), 0);
		assert_int_equal(io.due_ns, i * MS);
		assert_true(io.late);
	}
	assert_int_equal(iolat_workload_next(&wl, 5500000, &io), -EAGAIN);
	assert_int_equal(iolat_workload_next(&wl, 6 * MS, &io), 0);
	assert_false(io.late);
	assert_true(iolat_workload_openloop(&wl, 10 * MS, &o));
	assert_int_equal(o.arrived, 11);        /* 0, 1, ... 10 ms */
	assert_int_equal(o.started, 7);
	assert_int_equal(o.late, 5);
	assert_int_equal(o.max_backlog, 5);
	assert_true(fabs(o.asked_iops - 1000) < 1e-9);
	/* at the end (1 s), 1000 arrived: those not taken are the backlog */
	assert_true(iolat_workload_openloop(&wl, 5 * SEC, &o));
	assert_int_equal(o.arrived, 1000);
	assert_int_equal(o.max_backlog, 993);

	t_init(&wl, jf, 1, 0, 0);
	iolat_workload_hold(&wl, 5 * SEC);
	assert_int_equal(iolat_workload_next(&wl, 0, &io), 0);
	assert_false(io.late);
	assert_false(iolat_workload_openloop(&wl, SEC, &o));
	iolat_jobfile_free(jf);
}

/* rate_iops=R,W: reads and writes each on their own schedule, exactly;
 * rwmixread has no say. */
static void test_split_rates(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nrw=randrw\nrwmixread=90\nrate_iops=300,100\n"
					  "rate_process=linear\nsize=1g\ntime_based\nruntime=10s\n");
	static struct iolat_wl_io io[5000];
	static uint64_t t[5000];
	struct iolat_workload wl;
	struct iolat_wl_openloop o;
	unsigned r = 0, w = 0;

	t_init(&wl, jf, 0, 0, 0);
	unsigned n = t_drain(&wl, UINT64_MAX, io, t, 5000);
	assert_int_equal(n, 4000);
	for (unsigned i = 0; i < n; i++) {
		if (io[i].write)
			assert_int_equal(t[i], (uint64_t)w++ * SEC / 100);
		else
			assert_int_equal(t[i], (uint64_t)r++ * SEC / 300);
		assert_int_equal(io[i].due_ns, t[i]);
	}
	assert_int_equal(r, 3000);
	assert_int_equal(w, 1000);
	assert_true(iolat_workload_openloop(&wl, 10 * SEC, &o));
	assert_true(fabs(o.asked_iops - 400) < 1e-9);
	assert_int_equal(o.arrived, 4000);
	assert_int_equal(o.started, 4000);
	iolat_jobfile_free(jf);
}

static void test_rate_cap(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nrw=write\nbs=64k\nrate=10m\nsize=1g\ntime_based\nruntime=10s\n");
	struct iolat_workload wl;
	const unsigned max = 100000;
	uint64_t *t = malloc(max * sizeof(*t));
	assert_non_null(t);

	t_init(&wl, jf, 0, 0, 0);
	unsigned n = t_drain(&wl, UINT64_MAX, NULL, t, max);
	/* 10 MiB/s for 10 s = 1600 I/Os of 64k, plus the tau burst (one I/O) */
	assert_true(n >= 1600 && n <= 1602);
	/* Paced, not bunched: one I/O every 64k / 10 MiB/s = 6.25 ms, however
	 * deep the queue; at most two back to back (tau is one I/O's cost). */
	for (unsigned i = 2; i < n; i++)
		assert_true(t[i] - t[i - 2] >= 6250 * 1000ull);
	/* any 1 s window holds at most rate * (1 s + tau) bytes */
	for (unsigned i = 0, j = 0; i < n; i++) {
		while (t[i] - t[j] >= SEC)
			j++;
		assert_true((uint64_t)(i - j + 1) * 65536 <= (10ull << 20) * 101 / 100 + 65536);
	}
	assert_true(iolat_workload_next_time(&wl, 10 * SEC) == UINT64_MAX);
	free(t);
	iolat_jobfile_free(jf);
}

/* A wake-up late by less than one cost is made up: the long-run rate holds. */
static void test_rate_late_wakeups(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nrw=write\nbs=64k\nrate=10m\nsize=1g\ntime_based\nruntime=10s\n");
	struct iolat_workload wl;
	struct iolat_wl_io io;
	uint64_t now = 0;
	unsigned n = 0;

	t_init(&wl, jf, 0, 0, 0);
	for (;;) {
		uint64_t t = iolat_workload_next_time(&wl, now);

		if (t == UINT64_MAX)
			break;
		now = t + 3000 * 1000ull; /* every wake-up 3 ms late (cost 6.25 ms) */
		if (iolat_workload_next(&wl, now, &io) == 0)
			n++;
	}
	assert_true(n >= 1590);      /* the rate, not 6.25 / 9.25 of it */
	iolat_jobfile_free(jf);
}

static void test_burst_and_delay(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs(
		"[closed]\nrw=randread\nburst_on=100ms\nburst_off=400ms\nstartdelay=1s\nruntime=3s\n"
		"time_based\nsize=1g\nrate=4m\n"
		"[open]\nrw=randread\nburst_on=100ms\nburst_off=400ms\nruntime=5s\ntime_based\n"
		"size=1g\nrate_iops=2000\n");
	struct iolat_workload wl;
	const unsigned max = 100000;
	uint64_t *t = malloc(max * sizeof(*t));
	assert_non_null(t);

	t_init(&wl, jf, 0, 0, 10 * SEC);
	assert_int_equal(iolat_workload_next_time(&wl, 0), 11 * SEC);
	struct iolat_wl_io io;
	assert_int_equal(iolat_workload_next(&wl, 10 * SEC, &io), -EAGAIN);
	unsigned n = t_drain(&wl, UINT64_MAX, NULL, t, max);
	assert_true(n > 100);
	for (unsigned i = 0; i < n; i++) {
		assert_true(t[i] >= 11 * SEC && t[i] < 14 * SEC);
		assert_true((t[i] - 11 * SEC) % (500 * MS) < 100 * MS);
	}
	assert_int_equal(iolat_workload_end_ns(&wl), 14 * SEC);

	t_init(&wl, jf, 1, 0, 0);
	n = t_drain(&wl, UINT64_MAX, NULL, t, max);
	/* 2000/s over 1 s of "on" time (10 phases of 100 ms) */
	assert_true(n > 1850 && n < 2150);
	for (unsigned i = 0; i < n; i++)
		assert_true(t[i] % (500 * MS) < 100 * MS);
	free(t);
	iolat_jobfile_free(jf);
}

static void test_thinktime(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nthinktime=2ms\nsize=1m\n");
	struct iolat_workload wl;
	struct iolat_wl_io io;

	t_init(&wl, jf, 0, 0, 0);
	assert_int_equal(iolat_workload_next(&wl, 0, &io), 0);
	assert_int_equal(iolat_workload_next_time(&wl, 0), 0);     /* depth is the runner's */
	iolat_workload_completed(&wl, 1 * MS);
	assert_int_equal(iolat_workload_next_time(&wl, 1 * MS), 3 * MS);
	assert_int_equal(iolat_workload_next(&wl, 2 * MS, &io), -EAGAIN);
	assert_int_equal(iolat_workload_next(&wl, 3 * MS, &io), 0);
	iolat_jobfile_free(jf);
}

static void test_init_errors(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jobs("[a]\nbs=8k\noffset=1m\n");
	struct iolat_workload wl;
	/* p.size is the region after the offset (the file's size minus offset=). */
	struct iolat_wl_params p = { .size = 4096 };

	assert_int_equal(iolat_workload_init(&wl, &jf->jobs[0], &p), -EINVAL);   /* 4k left < bs */
	p.size = 0;
	assert_int_equal(iolat_workload_init(&wl, &jf->jobs[0], &p), -EINVAL);
	p.size = 1u << 20;
	assert_int_equal(iolat_workload_init(&wl, &jf->jobs[0], &p), 0);
	assert_int_equal(wl.nr_blocks, 128);                                    /* file size - offset */
	assert_int_equal(iolat_workload_init(&wl, NULL, &p), -EINVAL);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_sequential_wrap),
		cmocka_unit_test(test_random_and_mix),
		cmocka_unit_test(test_poisson),
		cmocka_unit_test(test_linear),
		cmocka_unit_test(test_poisson_from_rate),
		cmocka_unit_test(test_hold_late_backlog),
		cmocka_unit_test(test_split_rates),
		cmocka_unit_test(test_rate_cap),
		cmocka_unit_test(test_rate_late_wakeups),
		cmocka_unit_test(test_burst_and_delay),
		cmocka_unit_test(test_thinktime),
		cmocka_unit_test(test_init_errors),
	};
	return cmocka_run_group_tests_name("workload", tests, NULL, NULL);
}
