/* SPDX-License-Identifier: MIT */
/*
 * test_scen_selfinflicted.c - scenario 4, the protected group is its own
 * worst enemy (examples/sim-self-inflicted.ini): "main" overloads the device
 * alone and misses its target; its peer "logger" (a looser target) does
 * <= 5 % of the I/O and, by the kernel's 5 % rule, is never throttled.
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

static void test_self_inflicted(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-self-inflicted.ini");
	struct iolat_sim_result *r;
	const struct iolat_sim_group *m, *l;
	double share;

	assert_non_null(jf);
	r = t_run(jf, T_CONTROL, NULL, 0, -1);
	assert_non_null(r);
	t_print("io.latency", r);
	m = t_grp(r, "main");
	l = t_grp(r, "logger");
	share = (double)l->nr_ios / (double)(l->nr_ios + m->nr_ios);
	printf("logger's share of the I/O: %.3f%%; main's windows within target: %.1f%%; "
	       "main windows missed (controller): %llu\n", 100 * share,
	       100 * t_win_ok(m, 2 * T_S, false),
	       (unsigned long long)t_last(r, m)->windows_missed);
	/* main misses, and the controller sees it... */
	assert_true(t_win_ok(m, 2 * T_S, false) <= 0.1);
	assert_true(t_last(r, m)->windows_missed > 10);
	/* ...but the peer doing <= 5 % of the I/O is left alone. */
	assert_true(l->nr_ios > 100);
	assert_true(share <= 0.05);
	assert_int_equal(t_min_depth(r, l), IOLAT_DEPTH_MAX);
	assert_int_equal(t_last(r, l)->scale_downs, 0);
	assert_int_equal(t_last(r, l)->throttled_ns, 0);
	iolat_sim_result_free(r);

	/* Contrast: the same peer doing well over 5 % of the I/O is throttled. */
	{
		struct iolat_job *lj = t_job(jf, "log-writer");
		uint64_t rate = lj->rate_iops;
		uint32_t depth = lj->iodepth;

		lj->rate_iops = 0;
		lj->iodepth = 16;
		r = t_run(jf, T_CONTROL, NULL, 0, -1);
		lj->rate_iops = rate;
		lj->iodepth = depth;
		assert_non_null(r);
		t_print("contrast: logger closed loop at QD 16", r);
		l = t_grp(r, "logger");
		m = t_grp(r, "main");
		share = (double)l->nr_ios / (double)(l->nr_ios + m->nr_ios);
		printf("contrast: logger's share %.1f%%, its min depth %u\n", 100 * share,
		       (unsigned)t_min_depth(r, l));
		assert_true(share > 0.05);
		assert_true(t_min_depth(r, l) < IOLAT_DEPTH_MAX);
		iolat_sim_result_free(r);
	}
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_inflicted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
