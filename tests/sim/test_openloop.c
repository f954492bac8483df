/* SPDX-License-Identifier: MIT */
/*
 * test_openloop.c - open-loop jobs (rate_iops=, rate= with
 * rate_process=poisson) run by the one runner on the simulator, in virtual
 * time: the asked rate is delivered; a device stall shows in an open-loop
 * reader's percentiles (its latency counts from each arrival) and not in a
 * closed-loop reader's (one I/O waits, the others are simply never issued);
 * arrivals that wait for a full queue are counted late, with the backlog;
 * the controller's windows still see the device's latency (submission to
 * completion) while the report counts from the arrival; an overloaded job's
 * backlog grows and its arrivals left at the end are counted, not lost.
 * Context: single-threaded cmocka program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "helpers/t_scen.h"

/* An ssd whose only stall is one pause of 200 ms once 8 MiB are programmed
 * (no write buffer, no jitter): the 8 one-MiB writes of the "stall" job. */
#define STALL_DEVICE "[global]\ndevice=ssd\ncontrol=0\nssd_wbuf_mib=0\nssd_jitter_pct=0\n" \
	"ssd_gc_every_mib=8\nssd_gc_min_ms=200\nssd_gc_max_ms=200\n"
#define STALL_JOB "[stall]\nrw=write\nbs=1m\nsize=8m\n"

struct t_run {
	struct iolat_jobfile *jf;
	struct iolat_sim_result *res;
};

static struct t_run run_text(const char *text)
{
	struct t_run t = { .jf = t_parse(text) };
	char err[512];

	assert_non_null(t.jf);
	if (iolat_sim_run(t.jf, NULL, &t.res, err, sizeof(err)))
		fail_msg("iolat_sim_run: %s", err);
	assert_int_equal(t.res->nr_submitted, t.res->nr_completed);
	return t;
}

static void run_free(struct t_run *t)
{
	iolat_sim_result_free(t->res);
	iolat_jobfile_free(t->jf);
}

static struct iolat_report_row row_of(const struct t_run *t, const char *name)
{
	struct iolat_report_row row;
	unsigned n = iolat_report_nr_rows(t->res->report);

	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(iolat_report_row(t->res->report, i, &row), 0);
		if (!strcmp(row.name, name))
			return row;
	}
	fail_msg("no row %s", name);
	return row;
}

/* rate_iops=2000, linear: exactly one arrival every 500 us, all delivered. */
static void test_linear_rate_delivered(void **state)
{
	struct t_run t = run_text("[global]\ndevice=ssd\ncontrol=0\n"
				  "[r]\nrw=randread\nrate_iops=2000\nrate_process=linear\n"
				  "iodepth=16\nruntime=5s\ntime_based\n");
	struct iolat_report_openloop o;
	double iops;

	assert_true(iolat_report_job_openloop(t.res->report, 0, &o, &iops));
	assert_true(o.asked_iops > 1999.999 && o.asked_iops < 2000.001);
	assert_int_equal(o.arrived, 10000);     /* at 0, 0.5 ms, ... 4999.5 ms */
	assert_int_equal(o.started, 10000);
	assert_int_equal(o.late, 0);             /* the device keeps up: nobody waited */
	assert_int_equal(o.max_backlog, 1);
	assert_true(o.started_iops > 1999.999 && o.started_iops < 2000.001);
	assert_true(iops > 1990 && iops < 2010);
	run_free(&t);
}

/* rate_iops=R,W: reads and writes arrive apart, each at its rate. */
static void test_split_rates_delivered(void **state)
{
	struct t_run t = run_text("[global]\ndevice=ssd\ncontrol=0\nseed=5\n"
				  "[m]\nrw=randrw\nrate_iops=1500,500\nrate_process=poisson\n"
				  "iodepth=16\nruntime=5s\ntime_based\n");
	struct iolat_report_row root = row_of(&t, "(root)");
	struct iolat_report_openloop o;

	assert_true(iolat_report_job_openloop(t.res->report, 0, &o, NULL));
	assert_true(o.asked_iops > 1999.999 && o.asked_iops < 2000.001);
	assert_true(root.ios_read > 7500 * 97 / 100 && root.ios_read < 7500 * 103 / 100);
	assert_true(root.ios_write > 2500 * 95 / 100 && root.ios_write < 2500 * 105 / 100);
	/* started, less those still in flight at the end (at most iodepth) */
	assert_true(root.ios_read + root.ios_write <= o.started);
	assert_true(root.ios_read + root.ios_write + 16 >= o.started);
	run_free(&t);
}

/* rate= with rate_process=poisson is an arrival rate of rate / bs I/Os per
 * second; from a fixed seed the count lands within 3 % of it, and the same
 * seed gives the same count. */
static void test_poisson_rate_from_bytes(void **state)
{
	const char *text = "[global]\ndevice=ssd\ncontrol=0\nseed=42\n"
			   "[r]\nrw=randread\nbs=8k\nrate=16m\nrate_process=poisson\n"
			   "iodepth=32\nruntime=5s\ntime_based\n";
	struct t_run t = run_text(text), u = run_text(text);
	struct iolat_report_openloop o, p;

	assert_true(iolat_report_job_openloop(t.res->report, 0, &o, NULL));
	assert_true(iolat_report_job_openloop(u.res->report, 0, &p, NULL));
	assert_true(o.asked_iops > 2047.999 && o.asked_iops < 2048.001);   /* 16 MiB/s / 8 KiB */
	assert_true(o.arrived > 10240 * 97 / 100 && o.arrived < 10240 * 103 / 100);
	assert_int_equal(o.arrived, p.arrived);
	/* rate= alone stays a cap: closed loop, no open-loop figures */
	run_free(&u);
	u = run_text("[global]\ndevice=ssd\ncontrol=0\n[r]\nrw=randread\nbs=8k\nrate=16m\n"
		     "iodepth=32\nruntime=1s\ntime_based\n");
	assert_false(iolat_report_job_openloop(u.res->report, 0, NULL, NULL));
	run_free(&u);
	run_free(&t);
}

/*
 * The point of it all. The device stops for 200 ms. An open-loop reader at
 * 1000 I/Os per second (linear: ~200 arrivals fall in the stall) sees it in
 * its percentiles: every arrival of the stall waits for its end, so ~20 % of
 * its I/Os take 5 ms or more, and with iodepth 32 the ~168 that found the
 * queue full are counted late with the backlog they made. A closed-loop QD 1
 * reader beside it issues one read that waits 200 ms and none meanwhile: its
 * p99 looks like a quiet disk. Without the stall the open-loop reader is
 * quiet too (the stall is the only cause).
 */
static void test_stall_shows_in_open_loop_only(void **state)
{
	static const char jobs[] =
		"[group:open]\n[open]\ngroup=open\nrw=randread\nrate_iops=1000\n"
		"rate_process=linear\niodepth=32\nruntime=1s\ntime_based\n"
		"[group:closed]\n[closed]\ngroup=closed\nrw=randread\niodepth=1\n"
		"runtime=1s\ntime_based\n";
	char text[1024];
	struct iolat_report_openloop o;
	struct iolat_report_row open, closed;
	struct t_run t;

	snprintf(text, sizeof(text), "%s%s%s", STALL_DEVICE, STALL_JOB, jobs);
	t = run_text(text);
	open = row_of(&t, "open");
	closed = row_of(&t, "closed");
	assert_true(iolat_report_job_openloop(t.res->report, 1, &o, NULL));
	/* the stall is in both readers' worst I/O */
	assert_true(open.lat_max_ns > 150 * T_MS);
	assert_true(closed.lat_max_ns > 150 * T_MS);
	/* ... but only the open-loop reader's percentiles show it */
	assert_true(open.lat_p90_ns > 20 * T_MS);
	assert_true(open.lat_p50_ns < 1 * T_MS);
	assert_true(closed.lat_p99_ns < 1 * T_MS);
	/* 200 arrivals in the stall, 32 of them in the queue: the rest waited */
	assert_true(o.late >= 160 && o.late <= 170);
	assert_true(o.max_backlog >= 160 && o.max_backlog <= 171);
	assert_int_equal(o.arrived, 1000);
	assert_int_equal(o.started, 1000);
	/* after the stall the backlog went out: the rate asked was delivered */
	assert_int_equal(open.ios_read, 1000);
	run_free(&t);

	/* no stall: a quiet reader, nobody late */
	snprintf(text, sizeof(text), "%s%s", STALL_DEVICE, jobs);
	t = run_text(text);
	open = row_of(&t, "open");
	assert_true(iolat_report_job_openloop(t.res->report, 0, &o, NULL));
	assert_true(open.lat_max_ns < 1 * T_MS);
	assert_int_equal(o.late, 0);
	run_free(&t);
}

/*
 * Asked more than QD 1 can give (reads of ~90 us: ~11 k/s at most): the
 * backlog grows for the whole run, the report's latency (from each arrival)
 * grows with it, the arrivals left at the end are counted as never started;
 * the controller's windows measure submission to completion, so they stay
 * within the 1 ms target: the controller judges the device, not the backlog.
 */
static void test_overload_backlog_and_controller_view(void **state)
{
	struct t_run t = run_text("[global]\ndevice=ssd\ncontrol=article\n[group:r]\ntarget=1ms\n"
				  "[r]\ngroup=r\nrw=randread\nrate_iops=20000\nrate_process=linear\n"
				  "iodepth=1\nruntime=2s\ntime_based\n");
	struct iolat_report_row r = row_of(&t, "r");
	struct iolat_report_openloop o;
	double iops;

	assert_true(iolat_report_job_openloop(t.res->report, 0, &o, &iops));
	assert_int_equal(o.arrived, 40000);
	assert_true(o.started < 30000);
	assert_true(o.arrived - o.started > 10000);         /* never started: counted */
	assert_true(o.max_backlog >= o.arrived - o.started);
	assert_true(o.late > o.started * 9 / 10);
	assert_true(iops < 15000);
	assert_true(o.started_iops * 2 > (double)o.started - 1 && o.started_iops * 2 < o.started + 1.0);
	assert_true(r.lat_p50_ns > 200 * T_MS);             /* the backlog's wait counts */
	assert_true(r.bound);
	assert_true(r.windows_ok >= 15);
	assert_int_equal(r.windows_missed, 0);              /* the device's latency is fine */
	run_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear_rate_delivered),
		cmocka_unit_test(test_poisson_rate_from_bytes),
		cmocka_unit_test(test_split_rates_delivered),
		cmocka_unit_test(test_stall_shows_in_open_loop_only),
		cmocka_unit_test(test_overload_backlog_and_controller_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
