/* SPDX-License-Identifier: MIT */
/*
 * test_scen_release.c - scenario 5, release (examples/sim-release.ini): the
 * protected reader stops at 4.5 s. With our default timer its throttled
 * sibling is back at unlimited depth within 2 s; under KERNEL_COMPAT (the
 * kernel's timer) the asking group is forgotten 5 s after the last scale
 * event and the cookie then climbs one step per tick. Both release times are
 * measured and printed.
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

struct release {
	uint64_t stop_ns;      /* main's last completion */
	uint64_t free_ns;      /* first sample from which the writer stays unlimited */
	uint32_t depth_at_stop;
	unsigned steps;        /* distinct depth values on the way back */
	uint64_t min_step_gap_ns; /* shortest time between two of those steps */
};

static struct release measure(const struct iolat_sim_result *r)
{
	const struct iolat_sim_group *m = t_grp(r, "main"), *w = t_grp(r, "system");
	struct release x = { .stop_ns = m->last_io_ns, .min_step_gap_ns = UINT64_MAX };
	uint64_t last_change = 0;
	uint32_t prev = 0;

	assert_non_null(m);
	assert_non_null(w);
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_sim_sample *s = &w->samples[i];

		if (s->t_ns <= x.stop_ns) {
			x.depth_at_stop = s->depth;
			prev = s->depth;
			continue;
		}
		if (s->depth != prev) {
			if (last_change && s->t_ns - last_change < x.min_step_gap_ns)
				x.min_step_gap_ns = s->t_ns - last_change;
			last_change = s->t_ns;
			x.steps++;
			prev = s->depth;
		}
		if (s->depth == IOLAT_DEPTH_MAX && !x.free_ns)
			x.free_ns = s->t_ns;
		if (s->depth != IOLAT_DEPTH_MAX)
			x.free_ns = 0;   /* clamped again: not released yet */
	}
	return x;
}

static void test_release(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-release.ini");
	struct iolat_sim_result *def, *kc;
	struct release a, b;

	assert_non_null(jf);
	def = t_run(jf, T_CONTROL, NULL, 0, 0);
	kc = t_run(jf, T_CONTROL, NULL, 0, 1);
	assert_non_null(def);
	assert_non_null(kc);
	assert_false(def->kernel_compat);
	assert_true(kc->kernel_compat);
	t_print("default timer", def);
	t_print("kernel compat timer", kc);
	a = measure(def);
	b = measure(kc);
	printf("protected reader stops at %.3f s; writer depth then %u (default) / %u (compat)\n",
	       a.stop_ns / 1e9, a.depth_at_stop, b.depth_at_stop);
	printf("release: default %.2f s after the stop; kernel compat %.2f s, in %u steps "
	       "at least %.2f s apart\n", (a.free_ns - a.stop_ns) / 1e9,
	       (b.free_ns - b.stop_ns) / 1e9, b.steps, b.min_step_gap_ns / 1e9);

	/* The reader had the writer clamped when it stopped. */
	assert_true(a.stop_ns > 4 * T_S && a.stop_ns < 5 * T_S);
	assert_true(a.depth_at_stop < IOLAT_DEPTH_MAX);
	assert_true(b.depth_at_stop < IOLAT_DEPTH_MAX);
	/* Default: back at unlimited within 2 s, and for good. */
	assert_true(a.free_ns > 0);
	assert_true(a.free_ns - a.stop_ns <= 2 * T_S);
	/* Kernel: 5 s to forget the asking group, then one step a tick. */
	assert_true(b.free_ns > 0);
	assert_true(b.free_ns - b.stop_ns >= 5 * T_S);
	assert_true(b.steps >= 2);
	assert_true(b.min_step_gap_ns >= 900 * T_MS);
	iolat_sim_result_free(def);
	iolat_sim_result_free(kc);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
