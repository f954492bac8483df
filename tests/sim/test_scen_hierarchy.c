/* SPDX-License-Identifier: MIT */
/*
 * test_scen_hierarchy.c - scenario 3, the kernel documentation's tree
 * (examples/sim-hierarchy.ini): root -> {a -> {fast (1 ms), slow (none)},
 * unrelated}. A miss in "fast" throttles its sibling "slow" only: "a" (no
 * target, no sibling asking) and "unrelated" (another subtree) keep their
 * unlimited depth for the whole run.
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

static void test_hierarchy(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-hierarchy.ini");
	struct iolat_sim_result *ctl, *none;
	const struct iolat_sim_group *fast, *slow, *a, *unrel;
	const struct iolat_sim_sample *last;

	assert_non_null(jf);
	ctl = t_run(jf, T_CONTROL, NULL, 0, -1);
	none = t_run(jf, T_NO_CONTROL, NULL, 0, -1);
	assert_non_null(ctl);
	assert_non_null(none);
	t_print("no control", none);
	t_print("io.latency", ctl);
	fast = t_grp(ctl, "a/fast");
	slow = t_grp(ctl, "a/slow");
	a = t_grp(ctl, "a");
	unrel = t_grp(ctl, "unrelated");
	assert_non_null(fast);
	assert_non_null(slow);
	assert_non_null(a);
	assert_non_null(unrel);

	/* fast missed (the controller saw it) and its sibling was throttled. */
	last = t_last(ctl, fast);
	assert_true(last->windows_missed > 0);
	assert_true(t_min_depth(ctl, slow) < IOLAT_DEPTH_MAX);
	assert_true(t_last(ctl, slow)->scale_downs > 0);
	/* Nobody else was touched. */
	assert_int_equal(t_min_depth(ctl, a), IOLAT_DEPTH_MAX);
	assert_int_equal(t_min_depth(ctl, unrel), IOLAT_DEPTH_MAX);
	assert_int_equal(t_last(ctl, unrel)->scale_downs, 0);
	assert_int_equal(t_last(ctl, a)->scale_downs, 0);
	/* unrelated kept doing its I/O throughout. */
	for (size_t i = 0; i < ctl->nr_samples; i++)
		assert_true(unrel->samples[i].nr > 0);
	/* And fast is better off than without control. */
	printf("fast: windows within 1 ms after 2 s: %.1f%% with control, %.1f%% without; "
	       "slow min depth %u; unrelated depth max throughout\n",
	       100 * t_win_ok(fast, 2 * T_S, false),
	       100 * t_win_ok(t_grp(none, "a/fast"), 2 * T_S, false),
	       (unsigned)t_min_depth(ctl, slow));
	assert_true(t_win_ok(fast, 2 * T_S, false) > t_win_ok(t_grp(none, "a/fast"), 2 * T_S, false) + 0.3);
	iolat_sim_result_free(ctl);
	iolat_sim_result_free(none);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hierarchy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
