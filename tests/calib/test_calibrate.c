/* SPDX-License-Identifier: MIT */
/*
 * test_calibrate.c - `iolat calibrate`'s measurement (src/calib): the knee
 * found by bisection on plants written here (a sharp knee; a reader whose
 * p90 stays solo while it is starved; a disk without a knee; a stop in the
 * middle), then on the simulator's vdisk model at two configured knees (the
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
	return 0;
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
	assert_true(r.knee_bps <= p.knee_bps);
	assert_true(r.knee_bps + p.max_bps / 64 >= p.knee_bps);
	assert_int_equal(r.nr_steps, 6);
	assert_int_equal(r.nr_curve, 4);
	assert_int_equal(p.calls, 2 + 6 + 4);
	assert_int_equal(r.threshold_ns, 150 * US);   /* 3 x 50 us < 50 us + 100 us */
	assert_false(r.unpaced.within);
	/* The curve: under the knee within, 1.25 x over it not. */
	assert_true(r.curve[0].within);
	assert_false(r.curve[3].within);
}

static void test_starved_reader_is_not_within(void **state)
{
	/* Past the knee the p90 looks solo but the reader does a tenth of its reads. */
	struct plant p = { .knee_bps = 800 * MB, .max_bps = 2000 * MB, .starve_only = true };
	struct iolat_calib_result r;

	(void)state;
	assert_int_equal(calibrate_plant(&p, 0, &r), 0);
	assert_false(r.no_knee);
	assert_true(r.knee_bps <= p.knee_bps && r.knee_bps + p.max_bps / 64 >= p.knee_bps);
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
	assert_true(r.knee_bps <= p.knee_bps && r.knee_bps + p.max_bps / 64 >= p.knee_bps);
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
	assert_true(r->elapsed_s > 23 && r->elapsed_s < 25);   /* 12 runs of 2 s */
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
		cmocka_unit_test(test_sim_vdisk_knees),
		cmocka_unit_test(test_sim_bad_key),
		cmocka_unit_test(test_throttle_needs_a_disk),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
