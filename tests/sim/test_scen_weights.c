/* SPDX-License-Identifier: MIT */
/*
 * test_scen_weights.c - weights in the simulator (docs/weights.md):
 *  - examples/sim-weights.ini: two writers weighted 100:300 share the device
 *    1:3 within 5 % every second after the first 2 s, and together get at
 *    least 0.9 x what they get with no control;
 *  - examples/sim-weights-stacked.ini: a writer alone gets >= 0.95 x what
 *    it gets with no control; a second one that starts is given its share
 *    (1:2) within a second, kept within 5 % while both are busy, and the
 *    first gets the device back within a second of its stop; an idle group
 *    of weight 800 takes nothing; the reader with a target keeps it.
 *  - the same job file twice gives the same figures (deterministic).
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "helpers/t_scen.h"

/* Relative error of @got against @want. */
static double rel(double got, double want)
{
	return fabs(got - want) / want;
}

static void test_two_writers_100_300(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-weights.ini");
	struct iolat_sim_result *w, *nc, *again;
	double lo, hi, nlo, nhi;

	assert_non_null(jf);
	w = t_run(jf, T_CONTROL, NULL, 0, -1);
	nc = t_run(jf, T_NO_CONTROL, NULL, 0, -1);
	again = t_run(jf, T_CONTROL, NULL, 0, -1);
	assert_non_null(w);
	assert_non_null(nc);
	assert_non_null(again);
	t_print("weights 100:300", w);
	t_print("no control", nc);
	for (uint64_t s = 2; s < 10; s++) {
		lo = t_mibs(w, t_grp(w, "low"), s * T_S, (s + 1) * T_S);
		hi = t_mibs(w, t_grp(w, "high"), s * T_S, (s + 1) * T_S);
		printf("second %llu: low %.1f high %.1f MiB/s, low's share %.3f\n",
		       (unsigned long long)s, lo, hi, lo / (lo + hi));
		assert_true(rel(lo / (lo + hi), 0.25) <= 0.05);
		assert_true(rel(hi / (lo + hi), 0.75) <= 0.05);
	}
	lo = t_mibs(w, t_grp(w, "low"), 2 * T_S, 10 * T_S);
	hi = t_mibs(w, t_grp(w, "high"), 2 * T_S, 10 * T_S);
	nlo = t_mibs(nc, t_grp(nc, "low"), 2 * T_S, 10 * T_S);
	nhi = t_mibs(nc, t_grp(nc, "high"), 2 * T_S, 10 * T_S);
	printf("together %.1f MiB/s, %.3f x no control's %.1f\n", lo + hi, (lo + hi) / (nlo + nhi),
	       nlo + nhi);
	assert_true(lo + hi >= 0.9 * (nlo + nhi));
	/* Deterministic: the same figures again. */
	assert_int_equal(t_grp(w, "low")->bytes, t_grp(again, "low")->bytes);
	assert_int_equal(t_grp(w, "high")->bytes, t_grp(again, "high")->bytes);
	iolat_sim_result_free(w);
	iolat_sim_result_free(nc);
	iolat_sim_result_free(again);
	iolat_jobfile_free(jf);
}

static void test_stacked(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-weights-stacked.ini");
	struct iolat_sim_result *w, *nc;
	const struct iolat_sim_group *batch, *backup, *nbatch, *nbackup;
	double a, b, na, nb;

	assert_non_null(jf);
	w = t_run(jf, T_CONTROL, NULL, 0, -1);
	nc = t_run(jf, T_NO_CONTROL, NULL, 0, -1);
	assert_non_null(w);
	assert_non_null(nc);
	t_print("stacked, weights", w);
	t_print("stacked, no control", nc);
	batch = t_grp(w, "batch");
	backup = t_grp(w, "backup");
	nbatch = t_grp(nc, "batch");
	nbackup = t_grp(nc, "backup");
	/* Alone (2-4 s): batch as without control. */
	a = t_mibs(w, batch, 2 * T_S, 4 * T_S);
	na = t_mibs(nc, nbatch, 2 * T_S, 4 * T_S);
	printf("batch alone: %.1f MiB/s, %.3f x no control\n", a, a / na);
	assert_true(a >= 0.95 * na);
	/* Backup starts at 4 s: 1:2 from 5 s on (a period), until it stops at 10 s. */
	a = t_mibs(w, batch, 5 * T_S, 10 * T_S);
	b = t_mibs(w, backup, 5 * T_S, 10 * T_S);
	na = t_mibs(nc, nbatch, 5 * T_S, 10 * T_S);
	nb = t_mibs(nc, nbackup, 5 * T_S, 10 * T_S);
	printf("both: batch %.1f backup %.1f MiB/s (backup's share %.3f), together %.3f x no "
	       "control\n", a, b, b / (a + b), (a + b) / (na + nb));
	assert_true(rel(b / (a + b), 2.0 / 3) <= 0.05);
	assert_true(rel(a / (a + b), 1.0 / 3) <= 0.05);
	assert_true(a + b >= 0.9 * (na + nb));
	/* Backup stopped at 10 s: batch has the device again from 11 s. */
	a = t_mibs(w, batch, 11 * T_S, 14 * T_S);
	na = t_mibs(nc, nbatch, 11 * T_S, 14 * T_S);
	printf("batch alone again: %.1f MiB/s, %.3f x no control\n", a, a / na);
	assert_true(a >= 0.95 * na);
	/* The idle group did nothing and took nothing (above); the reader kept
	 * its target. */
	assert_int_equal(t_grp(w, "spare")->nr_ios, 0);
	assert_true(t_win_ok(t_grp(w, "web"), 0, false) >= 0.95);
	iolat_sim_result_free(w);
	iolat_sim_result_free(nc);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_writers_100_300),
		cmocka_unit_test(test_stacked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
