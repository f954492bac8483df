/* SPDX-License-Identifier: MIT */
/*
 * test_scen_badssd.c - scenario 7, the bad SSD (examples/sim-bad-ssd.ini):
 * the drive stalls for 100 ms-1 s under write load; during stalls the reader
 * misses and the writer is clamped down to depth 1; after each stall the
 * writer's depth climbs back: no stretch at depth 1 lasts long, and the run
 * does not end with the writer stuck at depth 1. Two seeds. In the adaptive
 * mode the stalls close the reader's windows as missed (stall.c).
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

static void check_seed(struct iolat_jobfile *jf, uint64_t seed)
{
	struct iolat_sim_opts o = { .control = 1, .kernel_compat = -1, .seed = seed, .seed_set = true };
	struct iolat_sim_result *r = NULL;
	const struct iolat_sim_group *m, *w;
	uint64_t at1_since = 0, longest_at1 = 0, stall_t = 0;
	unsigned stalls = 0, recovered = 0, times_at1 = 0;
	char err[256], title[64];

	assert_int_equal(iolat_sim_run(jf, &o, &r, err, sizeof(err)), 0);
	snprintf(title, sizeof(title), "io.latency, seed %llu", (unsigned long long)seed);
	t_print(title, r);
	m = t_grp(r, "main");
	w = t_grp(r, "system");
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_sim_sample *s = &w->samples[i];

		if (s->depth == 1) {
			if (!at1_since) {
				at1_since = s->t_ns;
				times_at1++;
			}
		} else if (at1_since) {
			if (s->t_ns - at1_since > longest_at1)
				longest_at1 = s->t_ns - at1_since;
			at1_since = 0;
		}
		/* A stall: a reader I/O waited >= 100 ms in this interval. */
		if (m->samples[i].max_ns >= 100 * T_MS && (!stall_t || s->t_ns - stall_t > 2 * T_S)) {
			stall_t = s->t_ns;
			stalls++;
			/* Did the writer's depth get back above 1 within 6 s after it? */
			for (size_t k = i; k < r->nr_samples && w->samples[k].t_ns <= stall_t + 6 * T_S; k++)
				if (w->samples[k].depth > 1 && w->samples[k].depth != IOLAT_DEPTH_MAX &&
				    k > i && w->samples[k - 1].depth < w->samples[k].depth) {
					recovered++;
					break;
				}
		}
	}
	if (at1_since && r->duration_ns - at1_since > longest_at1)
		longest_at1 = r->duration_ns - at1_since;
	printf("seed %llu: %u stalls, writer depth climbed back after %u of them; at depth 1 %u times, "
	       "longest %.2f s; final depth %u\n", (unsigned long long)seed, stalls, recovered,
	       times_at1, longest_at1 / 1e9, t_last(r, w)->depth);
	assert_true(stalls >= 2);
	assert_true(times_at1 >= 1);            /* stalls push the writer to the floor */
	assert_true(longest_at1 <= 3 * T_S);    /* ...but it never stays there */
	assert_true(t_last(r, w)->depth > 1);
	/* Stalls near the very end have no time to recover in. */
	assert_true(recovered + 1 >= stalls);
	iolat_sim_result_free(r);
}

static void test_bad_ssd_recovers(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-bad-ssd.ini");

	assert_non_null(jf);
	check_seed(jf, 1);
	check_seed(jf, 7);
	iolat_jobfile_free(jf);
}

/*
 * The drive's stalls hold the reader's reads for 0.1-1 s: in the adaptive
 * mode its windows overdue close as missed while they wait (the stalled
 * reads counted late), rather than the reader being taken for idle and the
 * writer let go.
 */
static void test_bad_ssd_stall_is_not_idle(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-bad-ssd.ini");
	struct iolat_sim_opts o = { .control = 1, .kernel_compat = -1, .seed = 1, .seed_set = true,
				    .mode = IOLAT_CTL_MODE_ADAPTIVE };
	struct iolat_sim_result *r = NULL;
	char err[256];
	uint64_t stalled;

	(void)state;
	assert_non_null(jf);
	assert_int_equal(iolat_sim_run(jf, &o, &r, err, sizeof(err)), 0);
	stalled = t_last(r, t_grp(r, "main"))->stalled_windows;
	printf("adaptive, seed 1: %llu of the reader's windows closed by a stall\n",
	       (unsigned long long)stalled);
	assert_true(stalled >= 1);
	assert_int_equal(t_last(r, t_grp(r, "system"))->stalled_windows, 0); /* no target */
	iolat_sim_result_free(r);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_ssd_recovers),
		cmocka_unit_test(test_bad_ssd_stall_is_not_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
