/* SPDX-License-Identifier: MIT */
/*
 * test_scen_workcons.c - scenario 2, work conservation
 * (examples/sim-work-conserving.ini): while the protected group is idle, or
 * meets its target with room to spare, the controller takes nothing from the
 * writer: it gets >= 98 % of its solo bandwidth and no scale event happens.
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

static uint64_t scale_events(const struct iolat_sim_result *r)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < r->nr_groups; i++) {
		const struct iolat_sim_sample *s = t_last(r, &r->groups[i]);

		if (s)
			n += s->scale_downs + s->scale_ups;
	}
	return n;
}

static void test_work_conserving(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-work-conserving.ini");
	struct iolat_sim_result *solo, *idle, *light;
	double solo_mibs, idle_mibs, light_mibs;
	unsigned n;

	assert_non_null(jf);
	/* Solo: the writer alone, no controller. */
	n = t_drop_job(jf, "web");
	solo = t_run(jf, T_NO_CONTROL, NULL, 0, -1);
	/* Idle: the protected group exists, with its target, but does no I/O. */
	idle = t_run(jf, T_CONTROL, NULL, 0, -1);
	jf->nr_jobs = n;
	/* Far under target: 100 IOPS of reads that meet a 50 ms target. */
	light = t_run(jf, T_CONTROL, NULL, 0, -1);
	assert_non_null(solo);
	assert_non_null(idle);
	assert_non_null(light);
	t_print("solo writer, no control", solo);
	t_print("protected group idle, io.latency", idle);
	t_print("protected group far under target, io.latency", light);

	solo_mibs = t_row(solo, "system/fbpkg").mib_s;
	idle_mibs = t_row(idle, "system/fbpkg").mib_s;
	light_mibs = t_row(light, "system/fbpkg").mib_s;
	printf("writer MiB/s: solo %.1f, beside an idle group %.1f (%.1f%%), beside a light "
	       "reader %.1f (%.1f%%)\n", solo_mibs, idle_mibs, 100 * idle_mibs / solo_mibs,
	       light_mibs, 100 * light_mibs / solo_mibs);
	assert_true(solo_mibs > 1000);
	assert_true(idle_mibs >= 0.98 * solo_mibs);
	assert_true(light_mibs >= 0.98 * solo_mibs);
	assert_int_equal(scale_events(idle), 0);
	assert_int_equal(scale_events(light), 0);
	assert_int_equal(t_min_depth(light, t_grp(light, "system")), IOLAT_DEPTH_MAX);
	/* The light reader did meet its target throughout. */
	assert_true(t_grp(light, "main")->nr_ios > 500);
	assert_true(t_win_ok(t_grp(light, "main"), 0, false) == 1.0);
	iolat_sim_result_free(solo);
	iolat_sim_result_free(idle);
	iolat_sim_result_free(light);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_conserving),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
