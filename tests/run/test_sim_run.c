/* SPDX-License-Identifier: MIT */
/*
 * test_sim_run.c - the sim backend (src/run/run_sim.c) on small job files:
 * every submitted I/O completes; workload features reach the device as
 * asked (size limit, start delay and runtime, on/off bursts, Poisson
 * rate_iops, the rate= cap, numjobs, jobs without a group); subtree
 * accounting; byte-identical reports for the same seed and different ones
 * for another seed; bad job files give one line naming file, line and key.
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

static struct iolat_sim_result *run_text(const char *text, struct iolat_jobfile **jfp)
{
	struct iolat_jobfile *jf = t_parse(text);
	struct iolat_sim_result *r = NULL;
	char err[512];

	assert_non_null(jf);
	if (iolat_sim_run(jf, NULL, &r, err, sizeof(err)))
		fail_msg("iolat_sim_run: %s", err);
	assert_int_equal(r->nr_submitted, r->nr_completed);
	*jfp = jf;
	return r;
}

static void test_size_limit_and_root_group(void **state)
{
	struct iolat_jobfile *jf;
	struct iolat_sim_result *r = run_text(
		"[global]\ndevice=ssd\n[g]\nrw=randread\nbs=4k\nsize=4m\niodepth=8\n", &jf);
	const struct iolat_sim_group *root = t_grp(r, "(root)");

	assert_non_null(root);
	assert_int_equal(root->nr_ios, 1024);        /* 4 MiB / 4 KiB */
	assert_int_equal(r->nr_completed, 1024);
	assert_true(r->duration_ns < 100 * T_MS);  /* ended when the size was done */
	assert_false(r->control && false);
	iolat_sim_result_free(r);
	iolat_jobfile_free(jf);
}

static void test_startdelay_runtime_burst(void **state)
{
	struct iolat_jobfile *jf;
	struct iolat_sim_result *r = run_text(
		"[global]\ndevice=ssd\nruntime=4s\n[group:a]\ntarget=1ms\n"
		"[late]\ngroup=a\nrw=randread\nstartdelay=2s\nruntime=1s\n"
		"[group:b]\n[bursty]\ngroup=b\nrw=randread\nburst_on=500ms\nburst_off=500ms\n", &jf);
	const struct iolat_sim_group *a = t_grp(r, "a"), *b = t_grp(r, "b");
	unsigned on = 0, off = 0;

	assert_true(a->first_io_ns >= 2 * T_S);
	assert_true(a->last_io_ns <= 3 * T_S + T_MS);
	assert_int_equal(r->duration_ns, 4 * T_S);
	/* 100 ms samples: on phases have I/O; off phases at most the one I/O (QD 1)
	 * that was in flight when the phase began. */
	for (size_t i = 0; i < r->nr_samples; i++) {
		uint64_t t = b->samples[i].t_ns - 1;  /* the interval ending here */

		if ((t / (500 * T_MS)) % 2 == 0)
			on += b->samples[i].nr > 0;
		else
			off += b->samples[i].nr > 1;
	}
	assert_true(on >= 18);
	assert_int_equal(off, 0);
	iolat_sim_result_free(r);
	iolat_jobfile_free(jf);
}

static void test_rates_and_numjobs(void **state)
{
	struct iolat_jobfile *jf;
	struct iolat_sim_result *r = run_text(
		"[global]\ndevice=ssd\nruntime=5s\n"
		"[group:p]\n[poisson]\ngroup=p\nrw=randread\nrate_iops=2000\niodepth=8\n"
		"[group:c]\n[capped]\ngroup=c\nrw=write\nbs=1m\niodepth=16\nrate=100m\n"
		"[group:n]\n[two]\ngroup=n\nrw=randread\nnumjobs=2\nsize=1m\n", &jf);
	double iops = t_grp(r, "p")->nr_ios / 5.0;
	double mibs = t_grp(r, "c")->bytes / 1048576.0 / 5.0;

	printf("poisson %.0f IOPS (asked 2000), capped %.1f MiB/s (asked 100)\n", iops, mibs);
	assert_true(iops > 1900 && iops < 2100);
	assert_true(mibs > 97 && mibs < 102);
	assert_int_equal(t_grp(r, "n")->nr_ios, 2 * 256);   /* two clones of 1 MiB in 4 KiB */
	iolat_sim_result_free(r);
	iolat_jobfile_free(jf);
}

static void test_subtree_accounting(void **state)
{
	struct iolat_jobfile *jf;
	struct iolat_sim_result *r = run_text(
		"[global]\ndevice=ssd\nruntime=1s\n[group:x/y]\ntarget=1ms\n[group:x/z]\n"
		"[j1]\ngroup=x/y\nrw=randread\n[j2]\ngroup=x/z\nrw=randwrite\n[j3]\nrw=randread\n", &jf);
	const struct iolat_sim_group *x = t_grp(r, "x"), *y = t_grp(r, "x/y"), *z = t_grp(r, "x/z");
	const struct iolat_sim_group *root = t_grp(r, "(root)");

	assert_true(y->nr_ios > 0 && z->nr_ios > 0 && root->nr_ios > 0);
	assert_int_equal(x->nr_ios, y->nr_ios + z->nr_ios);
	assert_int_equal(x->bytes, y->bytes + z->bytes);
	assert_int_equal(y->win_ns, 100 * T_MS);
	assert_int_equal(x->win_ns, 0);
	assert_true(y->nr_windows >= 9);
	assert_int_equal(t_row(r, "x").ios_read + t_row(r, "x").ios_write, x->nr_ios);
	iolat_sim_result_free(r);
	iolat_jobfile_free(jf);
}

static char *json_of(struct iolat_jobfile *jf, const struct iolat_sim_opts *o, size_t *len)
{
	struct iolat_sim_result *r = NULL;
	char *buf = NULL, err[256];
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(iolat_sim_run(jf, o, &r, err, sizeof(err)), 0);
	assert_int_equal(iolat_report_write_json(r->report, f), 0);
	assert_int_equal(iolat_report_write_table(r->report, f), 0);
	fclose(f);
	iolat_sim_result_free(r);
	return buf;
}

static void test_deterministic(void **state)
{
	struct iolat_jobfile *jf = t_parse(
		"[global]\ndevice=bad-ssd\nruntime=3s\n[group:m]\ntarget=20ms\n[group:w]\n"
		"[r]\ngroup=m\nrw=randread\niodepth=2\nrate_iops=300\n"
		"[w]\ngroup=w\nrw=randwrite\nbs=256k\niodepth=8\n");
	struct iolat_sim_opts o = { .control = -1, .kernel_compat = -1 };
	size_t la, lb, lc;
	char *a, *b, *c;

	assert_non_null(jf);
	a = json_of(jf, &o, &la);
	b = json_of(jf, &o, &lb);
	o.seed = 2;
	o.seed_set = true;
	c = json_of(jf, &o, &lc);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_true(la != lc || memcmp(a, c, la));
	assert_non_null(strstr(a, "\"schema_version\""));
	free(a);
	free(b);
	free(c);
	iolat_jobfile_free(jf);
}

static void expect_error(const char *text, const char *want)
{
	struct iolat_jobfile *jf = t_parse(text);
	struct iolat_sim_result *r = NULL;
	char err[512];

	assert_non_null(jf);
	assert_int_equal(iolat_sim_run(jf, NULL, &r, err, sizeof(err)), -EINVAL);
	assert_null(r);
	printf("error: %s\n", err);
	assert_non_null(strstr(err, want));
	assert_null(strchr(err, '\n'));
	iolat_jobfile_free(jf);
}

static void test_errors(void **state)
{
	expect_error("[global]\ndevice=ssd\nssd_unitz=4\n[j]\nruntime=1s\n",
		     "test.ini:3: key 'ssd_unitz': unknown parameter of device=ssd");
	expect_error("[global]\ndevice=ssd\nhdd_rpm=5400\n[j]\nruntime=1s\n",
		     "test.ini:3: key 'hdd_rpm': a parameter of another device model");
	expect_error("[global]\ndevice=hdd\nhdd_rpm=fast\n[j]\nruntime=1s\n",
		     "test.ini:3: key 'hdd_rpm': expected a number");
	expect_error("[global]\ndevice=hdd\nhdd_rpm=100\n[j]\nruntime=1s\n",
		     "test.ini:3: key 'hdd_rpm': 100 is out of range");
	expect_error("[global]\ndevice=hdd\nhdd_seek_avg_ms=40\n[j]\nruntime=1s\n",
		     "test.ini:3: key 'hdd_seek_avg_ms': needs");
	expect_error("[global]\ndevice=ssd\n\n[j]\nrw=randread\n",
		     "test.ini:4: job 'j': the simulator needs runtime= or size=");
	expect_error("[global]\ndevice=ssd\n[j]\nruntime=1s\noffset=2000g\n",
		     "test.ini:3: job 'j': its region");
}

static void test_no_control(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-protect-ssd.ini");
	struct iolat_sim_result *r;

	assert_non_null(jf);
	jf->global.control = false;    /* control=0 in the file */
	r = t_run(jf, T_CONTROL, NULL, 0, -1);   /* the option overrides: control on */
	assert_true(r->control);
	iolat_sim_result_free(r);
	{
		struct iolat_sim_result *r2 = NULL;
		char err[256];

		assert_int_equal(iolat_sim_run(jf, NULL, &r2, err, sizeof(err)), 0);
		assert_false(r2->control);
		assert_false(t_row(r2, "main").bound);
		assert_int_equal(t_min_depth(r2, t_grp(r2, "system")), IOLAT_DEPTH_MAX);
		iolat_sim_result_free(r2);
	}
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_limit_and_root_group),
		cmocka_unit_test(test_startdelay_runtime_burst),
		cmocka_unit_test(test_rates_and_numjobs),
		cmocka_unit_test(test_subtree_accounting),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_no_control),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
