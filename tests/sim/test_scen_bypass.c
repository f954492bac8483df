/* SPDX-License-Identifier: MIT */
/*
 * test_scen_bypass.c - scenario 8, bypass I/O and induced delay
 * (examples/sim-bypass.ini): "system" is throttled past depth 1 while its
 * META I/O keeps flowing. Checks that META I/O never waited for a slot (and
 * ran past the group's max depth), that the group was charged delay, that
 * its submitters served it in virtual time, and that it was reported
 * congested (use_delay > 0) while main was not.
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

static void test_bypass_and_delay(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-bypass.ini");
	struct iolat_sim_result *r;
	const struct iolat_sim_group *s, *m;
	unsigned congested = 0, over_depth = 0;
	uint64_t max_delay = 0;

	assert_non_null(jf);
	r = t_run(jf, T_CONTROL, NULL, 0, -1);
	assert_non_null(r);
	t_print("io.latency", r);
	s = t_grp(r, "system");
	m = t_grp(r, "main");
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_sim_sample *x = &s->samples[i];

		if (x->congested) {
			congested++;
			assert_true(x->use_delay > 0);
		}
		if (x->depth != IOLAT_DEPTH_MAX && x->inflight > x->depth)
			over_depth++;
		if (x->delay_ns > max_delay)
			max_delay = x->delay_ns;
		assert_false(m->samples[i].congested);
	}
	printf("system: %llu META I/Os, %llu waited for a slot; min depth %u; in flight above its "
	       "depth in %u samples; congested in %u of %zu samples; delay charged up to %.1f s; "
	       "delay served %.2f s (controller %.2f s); main windows ok %.1f%%\n",
	       (unsigned long long)s->nr_bypass, (unsigned long long)s->nr_bypass_waited,
	       (unsigned)t_min_depth(r, s), over_depth, congested, r->nr_samples, max_delay / 1e9,
	       s->slept_ns / 1e9, t_last(r, s)->slept_ns / 1e9, 100 * t_win_ok(m, 2 * T_S, false));
	/* META I/O is never blocked, even past the group's depth. */
	assert_true(s->nr_bypass > 1000);
	assert_int_equal(s->nr_bypass_waited, 0);
	assert_int_equal(t_min_depth(r, s), 1);
	assert_true(over_depth > 0);
	/* The free ride is charged as delay, served, and signalled as congestion. */
	assert_true(max_delay > 0);
	assert_true(s->slept_ns > 0);
	assert_int_equal(t_last(r, s)->slept_ns, s->slept_ns);
	assert_true(congested > 0);
	assert_int_equal(t_row(r, "system").nr_bypass, s->nr_bypass);
	iolat_sim_result_free(r);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bypass_and_delay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
