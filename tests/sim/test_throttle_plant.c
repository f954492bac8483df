/* SPDX-License-Identifier: MIT */
/*
 * test_throttle_plant.c - the simulator's kernel-throttle plant
 * (src/run/be_sim_throttle.c) on the virtual clock, sampled every 10 ms:
 *  - slices: a capped writer sends only in the first sample of each 100 ms
 *    slice, in clumps of the slice's budget, and gets exactly its cap over
 *    seconds (what a busy group leaves of a budget carries); the same cap
 *    with throttle_slice=0 sends at most one write a sample;
 *  - a budget unused for a whole slice is lost: a writer that starts late
 *    gets one slice's budget at once, not the slices it missed;
 *  - actuation: with actuate_period=100ms and actuate_delay=300ms the
 *    limit in force is always the controller's rate of 300-400 ms before,
 *    and differs from its rate of the moment; with the delay 0 it is the
 *    rate of at most one period before;
 *  - off by default (no key: no limit in force, nothing written); weights
 *    with the plant refused in one line.
 * Context: single-threaded cmocka program, run from the repository root.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

#define MIB 1048576ull
#define SAMPLE_NS (10 * T_MS)
#define SLICE_NS (100 * T_MS)

static const char capped_writer[] =
	"[global]\ndevice=vdisk\nruntime=3s\nthrottle_slice=%s\n"
	"[group:w]\nthrottle_bps=40000000\n"
	"[writer]\ngroup=w\nrw=write\nbs=1m\niodepth=32\nstartdelay=%s\n";

static struct iolat_jobfile *cur_jf;   /* the job file of the result in hand */

/* Free a result of run_text() and its job file. */
static void done(struct iolat_sim_result *r)
{
	iolat_sim_result_free(r);
	iolat_jobfile_free(cur_jf);
	cur_jf = NULL;
}

static struct iolat_sim_result *run_text(const char *text, int control)
{
	struct iolat_jobfile *jf = cur_jf = t_parse(text);
	struct iolat_sim_opts o = { .control = control, .kernel_compat = -1,
				    .mode = control ? IOLAT_CTL_MODE_ADAPTIVE : 0,
				    .sample_ns = SAMPLE_NS };
	struct iolat_sim_result *res = NULL;
	char err[512];

	assert_non_null(jf);
	if (iolat_sim_run(jf, &o, &res, err, sizeof(err)))
		fail_msg("iolat_sim_run: %s", err);
	return res;   /* it refers to the job file: done() frees both */
}

/* Bytes the plant let through for @g in samples ending in (from, to]. */
static uint64_t sent(const struct iolat_sim_result *r, const struct iolat_sim_group *g,
		     uint64_t from, uint64_t to)
{
	uint64_t b = 0;

	for (size_t i = 0; i < r->nr_samples; i++)
		if (g->samples[i].t_ns > from && g->samples[i].t_ns <= to)
			b += g->samples[i].thr_sent;
	return b;
}

static void test_slices_clump_and_exact_rate(void **state)
{
	char text[512];
	struct iolat_sim_result *r;
	const struct iolat_sim_group *g;
	uint64_t most = 0, off_phase = 0, got;

	(void)state;
	snprintf(text, sizeof(text), capped_writer, "100ms", "0");
	r = run_text(text, 0);
	g = t_grp(r, "w");
	for (size_t i = 0; i < r->nr_samples; i++) {
		uint64_t phase = g->samples[i].t_ns % SLICE_NS, b = g->samples[i].thr_sent;

		assert_int_equal(g->samples[i].thr_bps, 40000000);
		if (phase != 0 && phase != SAMPLE_NS)   /* not the slice's first sample */
			off_phase += b;
		if (b > most)
			most = b;
	}
	/* 4 MB a slice: clumps of 3 or 4 MiB at the slice's start, nothing between. */
	assert_int_equal(off_phase, 0);
	assert_true(most >= 3 * MIB);
	assert_true(most <= 4 * MIB);
	/* Exactly the cap over 2 s (20 slices, mid-slice to mid-slice), to an I/O. */
	got = sent(r, g, 550 * T_MS, 2550 * T_MS);
	print_message("slices: %llu bytes in 2 s at 40 MB/s, clumps up to %llu MiB\n",
		      (unsigned long long)got, (unsigned long long)(most / MIB));
	assert_true(got + MIB >= 80000000 && got <= 80000000 + MIB);
	done(r);

	/* Smoothly: one write a sample at most (one every 26 ms), the same rate. */
	snprintf(text, sizeof(text), capped_writer, "0", "0");
	r = run_text(text, 0);
	g = t_grp(r, "w");
	most = 0;
	for (size_t i = 0; i < r->nr_samples; i++)
		if (g->samples[i].thr_sent > most)
			most = g->samples[i].thr_sent;
	assert_true(most <= MIB);
	got = sent(r, g, 550 * T_MS, 2550 * T_MS);
	assert_true(got + MIB >= 80000000 && got <= 80000000 + MIB);
	done(r);
}

static void test_unused_budget_is_lost(void **state)
{
	char text[512];
	struct iolat_sim_result *r;
	const struct iolat_sim_group *g;
	uint64_t first;

	(void)state;
	/* Idle for 5 slices, then one slice's budget at once (3 MiB fit in 4 MB). */
	snprintf(text, sizeof(text), capped_writer, "100ms", "505ms");
	r = run_text(text, 0);
	g = t_grp(r, "w");
	assert_int_equal(sent(r, g, 0, 500 * T_MS), 0);
	first = sent(r, g, 500 * T_MS, 510 * T_MS);
	print_message("after 505 ms idle: %llu MiB in the first 10 ms\n",
		      (unsigned long long)(first / MIB));
	assert_int_equal(first, 3 * MIB);
	done(r);
}

static const char adaptive_file[] =
	"[global]\ndevice=vdisk\nruntime=20s\nseed=1\nthrottle_slice=100ms\n"
	"actuate_period=100ms\nactuate_delay=%s\nvdisk_mbps=1200\nvdisk_read_us=80\n"
	"vdisk_jitter_pct=45\nvdisk_read_wait_pct=100\nvdisk_host_writes=10\n"
	"[group:main]\ntarget=300us\n[group:system/fbpkg]\n"
	"[reader]\ngroup=main\nrw=randread\nbs=4k\nrate_iops=3000\nrate_process=poisson\n"
	"iodepth=256\n"
	"[writer]\ngroup=system/fbpkg\nrw=write\nbs=1m\niodepth=32\n";

/*
 * Every sample's limit in force is the controller's rate at some sample in
 * [t - delay - period, t - delay] (a round reads it at most a period after
 * it moved; the write acts delay later); count the samples where it is not
 * the rate of the moment.
 */
static unsigned check_lag(const struct iolat_sim_result *r, uint64_t delay, uint64_t period)
{
	const struct iolat_sim_group *g = t_grp(r, "system");   /* the paced level: main's sibling */
	unsigned lagging = 0, changes = 0;

	for (size_t i = 1; i < r->nr_samples; i++) {
		const struct iolat_sim_sample *s = &g->samples[i];
		bool found = false;

		changes += s->pace_bps != g->samples[i - 1].pace_bps;
		if (s->t_ns < delay + period + SAMPLE_NS)
			continue;
		for (size_t k = 0; k <= i && !found; k++) {
			uint64_t t = g->samples[k].t_ns;

			if (t + delay + period >= s->t_ns && t + delay <= s->t_ns)
				found = g->samples[k].pace_bps == s->thr_bps;
		}
		if (!found)
			fail_msg("at %llu ms: %llu in force, not a rate of %llu-%llu ms before",
				 (unsigned long long)(s->t_ns / T_MS),
				 (unsigned long long)s->thr_bps,
				 (unsigned long long)((delay + period) / T_MS),
				 (unsigned long long)(delay / T_MS));
		lagging += s->thr_bps != s->pace_bps;
	}
	print_message("delay %llu ms: the controller's rate moved %u times, in force != rate in "
		      "%u of %zu samples\n", (unsigned long long)(delay / T_MS), changes, lagging,
		      r->nr_samples);
	assert_true(changes >= 5);    /* else the check proves nothing */
	return lagging;
}

static void test_actuation_period_and_delay(void **state)
{
	char text[1024];
	struct iolat_sim_result *r;
	unsigned slow, fast;

	(void)state;
	snprintf(text, sizeof(text), adaptive_file, "300ms");
	r = run_text(text, 1);
	assert_true(r->thr_writes >= 5);
	slow = check_lag(r, 300 * T_MS, 100 * T_MS);
	done(r);
	snprintf(text, sizeof(text), adaptive_file, "0");
	r = run_text(text, 1);
	fast = check_lag(r, 0, 100 * T_MS);
	done(r);
	/* The delay shows: more of the run with a limit that is not the rate of the moment. */
	assert_true(slow > fast);
	assert_true(slow >= 30);
}

static void test_off_by_default(void **state)
{
	struct iolat_jobfile *jf = t_load("sim-knee.ini");
	struct iolat_sim_result *r;
	const struct iolat_sim_group *g;

	(void)state;
	assert_non_null(jf);
	jf->global.mode = IOLAT_CTL_MODE_ADAPTIVE;
	r = t_run(jf, T_CONTROL, NULL, 0, -1);
	assert_non_null(r);
	assert_int_equal(r->thr_writes, 0);
	g = t_grp(r, "system/fbpkg");
	for (size_t i = 0; i < r->nr_samples; i++)
		assert_int_equal(g->samples[i].thr_bps, 0);
	iolat_sim_result_free(r);
	iolat_jobfile_free(jf);
}

static void test_weights_refused(void **state)
{
	struct iolat_jobfile *jf = t_parse("[global]\nthrottle_slice=100ms\n[group:a]\nweight=200\n"
					   "[j]\ngroup=a\nruntime=1s\n");
	struct iolat_sim_opts o = { .control = 1, .kernel_compat = -1 };
	struct iolat_sim_result *res = NULL;
	char err[512] = "";

	(void)state;
	assert_non_null(jf);
	assert_int_equal(iolat_sim_run(jf, &o, &res, err, sizeof(err)), -EINVAL);
	print_message("%s\n", err);
	assert_non_null(strstr(err, ":3: key 'weight'"));
	assert_null(strchr(err, '\n'));
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slices_clump_and_exact_rate),
		cmocka_unit_test(test_unused_budget_is_lost),
		cmocka_unit_test(test_actuation_period_and_delay),
		cmocka_unit_test(test_off_by_default),
		cmocka_unit_test(test_weights_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
