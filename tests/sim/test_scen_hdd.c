/* SPDX-License-Identifier: MIT */
/*
 * test_scen_hdd.c - scenario 6, the mean rule on a spinning disk
 * (examples/sim-hdd.ini): a random reader beside a sequential writer with 32
 * requests queued. Without control the elevator starves the reader to its
 * 500 ms deadline; with io.latency (rotational: window mean against target)
 * the writer is clamped and the reader's mean latency drops several-fold.
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

static void test_hdd_mean_rule(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-hdd.ini");
	struct iolat_sim_result *ctl, *none, *solo;
	struct iolat_report_row rc, rn, rs;
	double ok_c, ok_n;
	unsigned n;

	assert_non_null(jf);
	n = t_drop_job(jf, "writer");
	solo = t_run(jf, T_NO_CONTROL, NULL, 0, -1);
	jf->nr_jobs = n;
	ctl = t_run(jf, T_CONTROL, NULL, 0, -1);
	none = t_run(jf, T_NO_CONTROL, NULL, 0, -1);
	assert_non_null(solo);
	assert_non_null(ctl);
	assert_non_null(none);
	assert_int_equal(ctl->rotational, 1);
	t_print("no control", none);
	t_print("io.latency (mean rule)", ctl);
	rs = t_row(solo, "main");
	rc = t_row(ctl, "main");
	rn = t_row(none, "main");
	ok_c = t_win_ok(t_grp(ctl, "main"), 2 * T_S, true);
	ok_n = t_win_ok(t_grp(none, "main"), 2 * T_S, true);
	printf("reader mean: unloaded %.1f ms, no control %.1f ms, io.latency %.1f ms (target %.0f ms); "
	       "windows with mean within target: %.1f%% vs %.1f%%; writer %.1f vs %.1f MiB/s, min depth %u\n",
	       rs.lat_mean_ns / 1e6, rn.lat_mean_ns / 1e6, rc.lat_mean_ns / 1e6,
	       t_grp(ctl, "main")->target_ns / 1e6, 100 * ok_c, 100 * ok_n,
	       t_row(ctl, "system/fbpkg").mib_s, t_row(none, "system/fbpkg").mib_s,
	       (unsigned)t_min_depth(ctl, t_grp(ctl, "system")));
	/* The model's unloaded random read: ~12.7 ms. */
	assert_true(rs.lat_mean_ns > 11 * T_MS && rs.lat_mean_ns < 14 * T_MS);
	/* Without control the reader starves. */
	assert_true(rn.lat_mean_ns > 10 * t_grp(none, "main")->target_ns);
	assert_true(ok_n <= 0.05);
	/* With control the writer is clamped and the reader is far better off. */
	assert_true(t_min_depth(ctl, t_grp(ctl, "system")) < IOLAT_DEPTH_MAX);
	assert_true(rc.lat_mean_ns * 4 < rn.lat_mean_ns);
	assert_true(rc.ios_read > 4 * rn.ios_read);
	assert_true(ok_c >= 0.35);
	iolat_sim_result_free(solo);
	iolat_sim_result_free(ctl);
	iolat_sim_result_free(none);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdd_mean_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
