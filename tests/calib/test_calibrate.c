/* SPDX-License-Identifier: MIT */
/*
 * test_calibrate.c - `iolat calibrate`'s measurement (src/calib): the knee
 * found by bisection on plants written here (a sharp knee; a reader whose
 * p90 stays solo while it is starved; a disk without a knee; a stop in the
 * middle; a gentle slope whose noisy points mislead the bisection), the
 * knee fitted through every point (calib_fit.c), then on the simulator's vdisk model at two configured knees (the
 * whole path through the runner, virtual time), the rules (threshold,
 * rounding, the suggested target, the profile) and where it writes (a
 * directory, a new path, an existing file, a character device).
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "calib/calib_fit.h"
#include "calib/calib_place.h"
#include "calib/calibrate.h"
#include "run/run.h"

#define US 1000ull
#define MB 1000000ull

/* A disk in code: the reader keeps its latency until the writer passes the knee. */
struct plant {
	uint64_t knee_bps, max_bps;
	bool starve_only;        /* past the knee the p90 stays solo, the reads collapse */
	bool never_hurts;        /* no knee at all */
	bool slope;              /* reads/s fall in a line: solo at 0, half solo at the knee */
	unsigned noisy_call[2];  /* these measurements (1: the first) read ... */
	double noise[2];         /* ... this many times their reads/s */
	unsigned calls, stop_at;
	atomic_bool stop;
};

static int plant_measure(void *ctx, uint64_t rate, bool writer, struct iolat_calib_point *pt)
{
	struct plant *p = ctx;
	uint64_t asked = rate == IOLAT_CALIB_UNPACED ? p->max_bps : rate;
	bool hurt = writer && asked > p->knee_bps && !p->never_hurts;

	if (++p->calls == p->stop_at)
		atomic_store(&p->stop, true);
	pt->writer_mb_s = writer ? (double)(asked < p->max_bps ? asked : p->max_bps) / 1e6 : 0;
	pt->p50_ns = 40 * US;
	pt->p90_ns = hurt && !p->starve_only ? 5000 * US : 50 * US;
	pt->p99_ns = hurt ? 20000 * US : 80 * US;
	pt->reads_s = hurt ? 2000 : 20000;
	if (p->slope) {
		pt->p90_ns = 50 * US;
		pt->reads_s = writer ? 20000 - 10000 * ((double)asked / (double)p->knee_bps) : 20000;
	}
	for (unsigned i = 0; i < 2; i++)
		if (p->calls == p->noisy_call[i])
			pt->reads_s *= p->noise[i];
	return 0;
}

/* |a - b| <= tol */
static bool near(uint64_t a, uint64_t b, uint64_t tol)
{
	return a <= b + tol && b <= a + tol;
}

static int calibrate_plant(struct plant *p, uint64_t target, struct iolat_calib_result *r)
{
	struct iolat_calib_plan plan = { .measure = plant_measure, .ctx = p, .stop = &p->stop,
					 .target_ns = target };
	char err[256];

	return iolat_calibrate(&plan, r, err, sizeof(err));
}

static void test_bisection_finds_the_knee(void **state)
{
	struct plant p = { .knee_bps = 1234 * MB, .max_bps = 2600 * MB };
	struct iolat_calib_result r;

	(void)state;
	assert_int_equal(calibrate_plant(&p, 0, &r), 0);
	assert_false(r.no_knee);
	assert_false(r.interrupted);
	/* Six halvings of [0, 2600]: within 2600/64 under the knee, never over it. */
	assert_true(r.knee_bisect_bps <= p.knee_bps);
	assert_true(r.knee_bisect_bps + p.max_bps / 64 >= p.knee_bps);
	/* The fit keeps a sharp knee between the last point within and the first not. */
	assert_true(r.knee_lo_mb_s * 1e6 <= (double)p.knee_bps && r.knee_hi_mb_s * 1e6 > (double)p.knee_bps);
	assert_true(r.knee_hi_mb_s - r.knee_lo_mb_s <= 2600.0 / 64 + 0.01);
	assert_true(near(r.knee_bps, p.knee_bps, p.max_bps / 64));
	assert_int_equal(r.nr_steps, 6);
	assert_int_equal(r.nr_curve, 6);
	assert_int_equal(p.calls, 2 + 6 + 6 + 1);   /* solo, unpaced, bisection, curve, solo */
	assert_int_equal(r.threshold_ns, 150 * US);   /* 3 x 50 us < 50 us + 100 us */
	assert_false(r.unpaced.within);
	/* The curve: under the knee within, 1.25 x over it not. */
	assert_true(r.curve[0].within);
	assert_false(r.curve[5].within);
}

/*
 * A gentle slope (reads/s half the solo's at 1 000 MB/s) with two noisy
 * measurements: the 3rd bisection step (975 MB/s) reads 10 % low and is
 * judged not within, so the bisection ends at 934 MB/s (6.6 % low); the
 * curve's 1.1 x point (1 028 MB/s) reads 10 % high and is judged within.
 * The verdicts then allow 934-1 168 MB/s, and the line through the ten
 * points at 0.7-1.4 x the bisection's knee crosses the bar at 1 000.
 */
static void test_knee_from_every_point(void **state)
{
	struct plant p = { .knee_bps = 1000 * MB, .max_bps = 2600 * MB, .slope = true,
			   .noisy_call = { 5, 13 }, .noise = { 0.9, 1.1 } };
	struct iolat_calib_result r;

	(void)state;
	assert_int_equal(calibrate_plant(&p, 0, &r), 0);
	assert_false(r.steps[2].within);
	assert_true(r.curve[4].within);
	assert_true(r.knee_bisect_mb_s < 940 && r.knee_bisect_mb_s > 930);
	assert_true(r.knee_lo_mb_s < 935 && r.knee_hi_mb_s > 1160);
	assert_int_equal(r.fit_points, 10);
	assert_true(r.knee_mb_s > 990 && r.knee_mb_s < 1010);
	assert_true(near(r.knee_bps, p.knee_bps, 10 * MB));   /* pace = delivered here */
}

/* The second solo moves the bar: every point is judged again against the mean of both. */
static void test_solo_measured_twice(void **state)
{
	/* The last call (the second solo) reads 0.8 x: the mean solo is 18 000/s, the bar 9 000. */
	struct plant p = { .knee_bps = 1000 * MB, .max_bps = 2600 * MB, .slope = true,
			   .noisy_call = { 15 }, .noise = { 0.8 } };
	struct iolat_calib_result r;

	(void)state;
	assert_int_equal(calibrate_plant(&p, 0, &r), 0);
	assert_true(r.solo_after.reads_s > 15999 && r.solo_after.reads_s < 16001);
	assert_true(r.solo_ref.reads_s > 17999 && r.solo_ref.reads_s < 18001);
	/* reads = 20 000 - 10 x MB/s meets 9 000 at 1 100 MB/s. The bisection, judged against
	 * 10 000 during the run, ended at 975; its 1 056 MB/s step and the curve's 1.1 x point
	 * (1 072) were not within then and are now. */
	assert_true(r.knee_bisect_mb_s > 974 && r.knee_bisect_mb_s < 976);
	assert_true(r.steps[4].within && r.curve[4].within);
	assert_true(r.knee_mb_s > 1090 && r.knee_mb_s < 1110);
}

/*
 * A disk that moved during the run (measured on vda, 2026-12-07: solos of 18 867 and 15 787
 * reads/s; the bisection's points read up to 13 822/s at 1 258 MB/s, the curve's 30 s later
 * 7 887/s at 1 256): the verdicts contradict each other, the line decides.
 */
static void test_fit_disk_that_moved(void **state)
{
	static const double moved[][3] = {   /* delivered MB/s, p90 us, reads/s */
		{ 1257.9, 52.5, 13822 }, { 1885.4, 56.6, 5050 }, { 1561.9, 63.2, 7832 },
		{ 1411.3, 80.4, 6051 }, { 1335.9, 78.3, 9294 }, { 1283.4, 86.5, 4835 },
		{ 630.3, 83.5, 11004 }, { 1003.5, 81.4, 8451 }, { 1127.3, 82.4, 8137 },
		{ 1256.1, 73.2, 7887 }, { 1375.6, 74.2, 7762 }, { 1559.0, 86.5, 6374 },
	};
	struct iolat_calib_result *m = calloc(1, sizeof(*m));

	(void)state;
	assert_non_null(m);
	m->solo_ref = (struct iolat_calib_point){ .reads_s = 17327, .p90_ns = 64 * US };
	m->threshold_ns = 192800;
	m->unpaced.writer_mb_s = 2536;
	for (unsigned i = 0; i < 12; i++) {
		struct iolat_calib_point *q = i < 6 ? &m->steps[m->nr_steps++] : &m->curve[m->nr_curve++];

		*q = (struct iolat_calib_point){ .rate_bps = (uint64_t)(moved[i][0] * 1.01e6),
			.writer_mb_s = moved[i][0], .p90_ns = (uint64_t)(moved[i][1] * 1000),
			.reads_s = moved[i][2] };
	}
	m->knee_mb_s = 1257.9;
	m->knee_bps = 1268 * MB;
	iolat_calib_fit_knee(m);
	assert_int_equal(m->contradicting, 2);   /* 1 258 and 1 336 within over 1 004 not */
	assert_true(m->knee_lo_mb_s == 630.3 && m->knee_hi_mb_s == 1003.5);
	assert_int_equal(m->fit_points, 10);
	assert_true(m->knee_mb_s > 1148 && m->knee_mb_s < 1150);   /* outside the range */
	free(m);
}

/* The fit alone, on points written here. */
static void test_fit_rules(void **state)
{
	struct iolat_calib_result r = { .threshold_ns = 150 * US };
	const double xs[] = { 800, 900, 1000, 1100, 1200 };

	(void)state;
	r.solo_ref = (struct iolat_calib_point){ .reads_s = 20000, .p90_ns = 50 * US };
	r.unpaced.writer_mb_s = 2000;
	/* The margin: the lower of reads over half solo and threshold over p90, at most 2. */
	struct iolat_calib_point pt = { .reads_s = 15000, .p90_ns = 100 * US };
	assert_true(iolat_calib_margin(&pt, &r.solo_ref, r.threshold_ns) > 1.49 &&
		    iolat_calib_margin(&pt, &r.solo_ref, r.threshold_ns) < 1.51);
	pt.p90_ns = 300 * US;
	assert_true(iolat_calib_margin(&pt, &r.solo_ref, r.threshold_ns) > 0.49 &&
		    iolat_calib_margin(&pt, &r.solo_ref, r.threshold_ns) < 0.51);
	pt.p90_ns = 1 * US;
	pt.reads_s = 1e6;
	assert_true(iolat_calib_margin(&pt, &r.solo_ref, r.threshold_ns) == 2.0);

	/* A step of the margin from 1.2 to 0.8 between 1 000 and 1 100 MB/s. */
	for (unsigned i = 0; i < 5; i++)
		r.steps[i] = (struct iolat_calib_point){ .rate_bps = (uint64_t)(xs[i] * 1e6),
			.writer_mb_s = xs[i], .reads_s = i < 3 ? 12000 : 8000, .p90_ns = 50 * US };
	r.nr_steps = 5;
	r.knee_mb_s = 1000;
	r.knee_bps = 1000 * MB;
	iolat_calib_fit_knee(&r);
	/* The range is the step; the line (mean 1.04 at 1 000, slope -0.0012 per MB/s) crosses
	 * 1 at 1 033, inside it. */
	assert_true(r.knee_lo_mb_s == 1000 && r.knee_hi_mb_s == 1100);
	assert_int_equal(r.fit_points, 5);
	assert_true(r.knee_mb_s > 1033 && r.knee_mb_s < 1034);
	assert_true(r.knee_bisect_mb_s == 1000);

	/* Rising margins (the points say nothing of a knee): no line, the bisection's knee. */
	for (unsigned i = 0; i < 5; i++)
		r.steps[i].reads_s = 10000 + 500 * i;
	r.knee_mb_s = 1000;
	r.knee_bps = 1000 * MB;
	iolat_calib_fit_knee(&r);
	assert_int_equal(r.fit_points, 0);
	assert_true(r.knee_lo_mb_s == 1200 && r.knee_hi_mb_s == 2000);   /* all within */
	assert_true(r.knee_mb_s == 1200);   /* the bisection's 1 000, brought into the range */

	/* Only two points in the band: no line. */
	r.steps[0].writer_mb_s = 100;
	r.steps[1].writer_mb_s = 200;
	r.steps[2].writer_mb_s = 300;
	for (unsigned i = 0; i < 5; i++)
		r.steps[i].reads_s = i < 4 ? 12000 : 8000;
	r.knee_mb_s = 1100;
	r.knee_bps = 1100 * MB;
	iolat_calib_fit_knee(&r);
	assert_int_equal(r.fit_points, 0);
	assert_true(r.knee_mb_s == 1100 && r.knee_bps == 1100 * MB);
}

static void test_starved_reader_is_not_within(void **state)
{
	/* Past the knee the p90 looks solo but the reader does a tenth of its reads. */
	struct plant p = { .knee_bps = 800 * MB, .max_bps = 2000 * MB, .starve_only = true };
	struct iolat_calib_result r;

	(void)state;
	assert_int_equal(calibrate_plant(&p, 0, &r), 0);
	assert_false(r.no_knee);
	assert_true(near(r.knee_bps, p.knee_bps, p.max_bps / 64));
	assert_int_equal(r.unpaced.p90_ns, r.solo.p90_ns);   /* the percentile hid it */
}

static void test_disk_without_a_knee(void **state)
{
	struct plant p = { .knee_bps = 0, .max_bps = 900 * MB, .never_hurts = true };
	struct iolat_calib_result r;

	(void)state;
	assert_int_equal(calibrate_plant(&p, 0, &r), 0);
	assert_true(r.no_knee);
	assert_int_equal(r.nr_steps, 0);
	assert_int_equal(p.calls, 2);
	assert_true(r.knee_mb_s > 899 && r.knee_mb_s < 901);
}

static void test_target_given(void **state)
{
	struct plant p = { .knee_bps = 500 * MB, .max_bps = 1000 * MB };
	struct iolat_calib_result r;

	(void)state;
	assert_int_equal(calibrate_plant(&p, 1000 * US, &r), 0);
	assert_int_equal(r.threshold_ns, 1000 * US);
	assert_true(r.target_given);
	assert_int_equal(r.target_ns, 1000 * US);
	/* 5 ms past the knee is over 1 ms too: the same knee. */
	assert_true(near(r.knee_bps, p.knee_bps, p.max_bps / 64));
}

static void test_stop_keeps_what_ran(void **state)
{
	struct plant p = { .knee_bps = 500 * MB, .max_bps = 1000 * MB, .stop_at = 4 };
	struct iolat_calib_result r;

	(void)state;
	assert_int_equal(calibrate_plant(&p, 0, &r), 0);
	/* The 4th measurement asked the stop: it is kept, nothing after it runs. */
	assert_int_equal(p.calls, 4);
	assert_int_equal(r.nr_steps, 2);
	assert_int_equal(r.nr_curve, 0);
}

/* The whole path: the runner on the simulator's vdisk, whose knee is its write pipe. */
static void sim_knee(const char *mbps_key, double mbps, struct iolat_calib_result *r)
{
	const char *keys[] = { mbps_key, "vdisk_read_us=60" };
	struct iolat_calib_plan plan = {
		.backend = &iolat_backend_sim, .sim_device = IOLAT_DEVICE_VDISK,
		.sim_keys = keys, .nr_sim_keys = 2, .read_size = 256 << 20, .write_size = 1 << 30,
		.step_ns = 2000000000ull,
	};
	struct iolat_calib_profile prof;
	char err[512] = "";

	if (iolat_calibrate(&plan, r, err, sizeof(err)))
		fail_msg("calibrate: %s", err);
	assert_true(r->virtual_time);
	assert_string_equal(r->device, "vdisk");
	assert_true(r->knee_mb_s <= mbps * 1.001 && r->knee_mb_s >= mbps * 0.95);
	assert_true(r->elapsed_s > 29 && r->elapsed_s < 31);   /* 15 runs of 2 s */
	iolat_calib_profile(r, &prof);
	assert_true(prof.mbps >= mbps * 0.95 && prof.mbps <= mbps * 1.001);
	assert_true(prof.read_us > 60 * 0.9 && prof.read_us < 60 * 1.1);
}

static void test_sim_vdisk_knees(void **state)
{
	struct iolat_calib_result *r = malloc(sizeof(*r));

	(void)state;
	assert_non_null(r);
	sim_knee("vdisk_mbps=1500", 1500, r);
	sim_knee("vdisk_mbps=600", 600, r);
	free(r);
}

static void test_sim_bad_key(void **state)
{
	const char *keys[] = { "vdisk_nope=1" };
	struct iolat_calib_plan plan = {
		.backend = &iolat_backend_sim, .sim_device = IOLAT_DEVICE_VDISK,
		.sim_keys = keys, .nr_sim_keys = 1, .read_size = 1 << 20, .write_size = 1 << 20,
	};
	struct iolat_calib_result *r = malloc(sizeof(*r));
	char err[512] = "";

	(void)state;
	assert_non_null(r);
	assert_int_equal(iolat_calibrate(&plan, r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "vdisk_nope"));
	free(r);
}

/* The kernel's throttle paces a real disk's writer only, in a v1 or v2 hierarchy. */
static void test_throttle_needs_a_disk(void **state)
{
	struct iolat_calib_plan plan = {
		.backend = &iolat_backend_sim, .sim_device = IOLAT_DEVICE_VDISK,
		.read_size = 1 << 20, .write_size = 1 << 20,
		.throttle_cgroup = "calib", .throttle_version = 1,
	};
	struct iolat_calib_result *r = malloc(sizeof(*r));
	char err[512] = "";

	(void)state;
	assert_non_null(r);
	assert_int_equal(iolat_calibrate(&plan, r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "the kernel's throttle paces a real disk's writer"));
	plan.read_path = "/nonexistent/r";
	plan.write_path = "/nonexistent/w";
	plan.throttle_version = 3;
	assert_int_equal(iolat_calibrate(&plan, r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "in a cgroup v1 or v2 hierarchy"));
	free(r);
}

static void test_rules(void **state)
{
	struct iolat_calib_point solo = { .p90_ns = 45 * US, .reads_s = 20000 };
	struct iolat_calib_point pt = { .p90_ns = 130 * US, .reads_s = 10000 };
	struct iolat_calib_result r = { .solo = solo, .nr_curve = 2 };

	(void)state;
	assert_int_equal(iolat_calib_threshold(&solo, 0), 145 * US);
	solo.p90_ns = 80 * US;
	assert_int_equal(iolat_calib_threshold(&solo, 0), 240 * US);
	assert_int_equal(iolat_calib_threshold(&solo, 7 * US), 7 * US);
	solo.p90_ns = 45 * US;
	assert_true(iolat_calib_within(&pt, &solo, 145 * US));
	pt.reads_s = 9999;
	assert_false(iolat_calib_within(&pt, &solo, 145 * US));
	pt.reads_s = 10000;
	pt.p90_ns = 146 * US;
	assert_false(iolat_calib_within(&pt, &solo, 145 * US));

	assert_int_equal(iolat_calib_nice_ceil(1), 1 * US);
	assert_int_equal(iolat_calib_nice_ceil(100 * US), 100 * US);
	assert_int_equal(iolat_calib_nice_ceil(101 * US), 200 * US);
	assert_int_equal(iolat_calib_nice_ceil(201 * US), 500 * US);
	assert_int_equal(iolat_calib_nice_ceil(501 * US), 1000 * US);
	assert_int_equal(iolat_calib_nice_ceil(1001 * US), 2000 * US);

	/* 2 x 45 us = 90 us; the curve point within at 80 us: 120 us; not within: ignored. */
	r.curve[0] = (struct iolat_calib_point){ .p90_ns = 80 * US, .within = true };
	r.curve[1] = (struct iolat_calib_point){ .p90_ns = 900 * US, .within = false };
	assert_int_equal(iolat_calib_suggest_target(&r), 200 * US);
	r.nr_curve = 0;
	assert_int_equal(iolat_calib_suggest_target(&r), 100 * US);
}

static void test_place(void **state)
{
	char dir[] = "/tmp/iolat-calib-XXXXXX", path[256], err[4400];
	struct iolat_calib_place pl;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(iolat_calib_place(&pl, dir, 42, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/iolat-calibrate-42.read", dir);
	assert_string_equal(pl.read_path, path);
	assert_true(pl.scratch && !pl.device);
	snprintf(path, sizeof(path), "%s/new", dir);
	assert_int_equal(iolat_calib_place(&pl, path, 42, err, sizeof(err)), 0);
	assert_non_null(strstr(pl.write_path, "/new.write"));
	/* An existing file, or one of the two scratch names taken: refused. */
	snprintf(path, sizeof(path), "%s/new.write", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(iolat_calib_place(&pl, path, 42, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "exists"));
	snprintf(path, sizeof(path), "%s/new", dir);
	assert_int_equal(iolat_calib_place(&pl, path, 42, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "new.write: exists"));
	snprintf(path, sizeof(path), "%s/no/such/dir/x", dir);
	assert_int_equal(iolat_calib_place(&pl, path, 42, err, sizeof(err)), -EINVAL);
	assert_int_equal(iolat_calib_place(&pl, "/dev/null", 42, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "expected a block device"));
	snprintf(path, sizeof(path), "%s/new.write", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bisection_finds_the_knee),
		cmocka_unit_test(test_starved_reader_is_not_within),
		cmocka_unit_test(test_disk_without_a_knee),
		cmocka_unit_test(test_target_given),
		cmocka_unit_test(test_stop_keeps_what_ran),
		cmocka_unit_test(test_knee_from_every_point),
		cmocka_unit_test(test_solo_measured_twice),
		cmocka_unit_test(test_fit_rules),
		cmocka_unit_test(test_fit_disk_that_moved),
		cmocka_unit_test(test_sim_vdisk_knees),
		cmocka_unit_test(test_sim_bad_key),
		cmocka_unit_test(test_throttle_needs_a_disk),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
