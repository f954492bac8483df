/* SPDX-License-Identifier: MIT */
/*
 * test_scen_adaptive.c - the adaptive mode on the simulator, against article
 * mode on the same job files and seed:
 *  - protect (examples/sim-protect-ssd.ini, 10 s): article's saw-tooth keeps
 *    ~81 % of the 100 ms windows (after 2 s) within target; adaptive keeps
 *    >= 95 % with the writer at >= 85 % of its article bandwidth, and its depth
 *    never goes back down to 16 after the first descent;
 *  - release (examples/sim-release.ini): the reader stops at 4.5 s; adaptive
 *    unclamps (depth and rung) within 2 s, as article does.
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "t_scen.h"

static struct iolat_sim_result *run_in(struct iolat_jobfile *jf, int mode)
{
	struct iolat_sim_result *r;

	jf->global.mode = mode;
	r = t_run(jf, T_CONTROL, NULL, 0, -1);
	jf->global.mode = IOLAT_MODE_UNSET;
	assert_non_null(r);
	assert_int_equal(r->mode, mode);
	assert_int_equal(r->nr_submitted, r->nr_completed);
	return r;
}

static void test_protect(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-protect-ssd.ini");
	struct iolat_sim_result *art, *ad;
	double ok_art, ok_ad, w_art, w_ad;
	uint32_t late_min = IOLAT_DEPTH_MAX;
	const struct iolat_sim_group *sys;

	(void)state;
	assert_non_null(jf);
	art = run_in(jf, IOLAT_MODE_ARTICLE);
	ad = run_in(jf, IOLAT_MODE_ADAPTIVE);
	ok_art = t_win_ok(t_grp(art, "main"), 2 * T_S, false);
	ok_ad = t_win_ok(t_grp(ad, "main"), 2 * T_S, false);
	w_art = t_row(art, "system/fbpkg").mib_s;
	w_ad = t_row(ad, "system/fbpkg").mib_s;
	sys = t_grp(ad, "system");
	for (size_t i = 0; i < ad->nr_samples; i++)
		if (sys->samples[i].t_ns >= 4 * T_S && sys->samples[i].depth < late_min)
			late_min = sys->samples[i].depth;
	printf("protect: windows within: article %.1f%%, adaptive %.1f%%; writer %.0f / %.0f MiB/s;"
	       " adaptive's smallest writer depth after 4 s: %u\n",
	       100 * ok_art, 100 * ok_ad, w_art, w_ad, late_min);
	assert_true(ok_art < 0.9);     /* the saw-tooth this mode exists for */
	assert_true(ok_ad >= 0.95);
	assert_true(w_ad >= 0.85 * w_art);
	assert_true(late_min >= 28 && late_min != IOLAT_DEPTH_MAX);
	iolat_sim_result_free(art);
	iolat_sim_result_free(ad);
	iolat_jobfile_free(jf);
}

static void test_release(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-release.ini");
	struct iolat_sim_result *r;
	const struct iolat_sim_group *m, *w;
	uint64_t stop, free_at = 0;
	bool clamped = false;

	(void)state;
	assert_non_null(jf);
	r = run_in(jf, IOLAT_MODE_ADAPTIVE);
	m = t_grp(r, "main");
	w = t_grp(r, "system");
	stop = m->last_io_ns;
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_sim_sample *s = &w->samples[i];

		if (s->t_ns <= stop) {
			clamped = s->depth != IOLAT_DEPTH_MAX;
			continue;
		}
		if (s->depth == IOLAT_DEPTH_MAX && !free_at)
			free_at = s->t_ns;
		if (s->depth != IOLAT_DEPTH_MAX)
			free_at = 0;
	}
	printf("release (adaptive): reader stops at %.3f s, writer unlimited %.2f s later\n",
	       stop / 1e9, (free_at - stop) / 1e9);
	assert_true(clamped);
	assert_true(free_at > 0);
	assert_true(free_at - stop <= 2 * T_S);
	iolat_sim_result_free(r);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protect),
		cmocka_unit_test(test_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
