/* SPDX-License-Identifier: MIT */
/*
 * cli_run.c - the runs of `iolat run` and `iolat sim` and their report
 * (cli_run.h). Same job file and seed, same report, byte for byte, with the
 * simulator: wall-clock figures go to stderr only.
 * Context: the CLI's main thread (plus the signal handler of cli_stop.c,
 * which only sets a flag).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_output.h"
#include "cli_run.h"
#include "cli_stop.h"
#include "commands.h"
#include "report/report.h"

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The progress line, on a terminal only (and with the simulator only once
 * a run has taken a second of wall time); the runs' tally. */
struct cli_state {
	struct iolat_cli_run *c;
	bool tty, shown;
	double t0, last;
	uint64_t iters, failed_all, bad_all;
};

static void clear_progress(struct cli_state *st)
{
	if (st->shown)
		fputs("\r\033[K", stderr);
	st->shown = false;
}

static void show_engines(const struct iolat_run_progress *p)
{
	if (p->total_ns)
		fprintf(stderr, "\r\033[K[%5.1fs/%.0fs] %u jobs  %8.0f IOPS  %8.1f MiB/s  %" PRIu64
			" errors", (double)p->elapsed_ns / 1e9, (double)p->total_ns / 1e9,
			p->jobs_running, p->iops, p->mib_s, p->errors);
	else
		fprintf(stderr, "\r\033[K[%5.1fs] %u jobs  %8.0f IOPS  %8.1f MiB/s  %" PRIu64
			" errors", (double)p->elapsed_ns / 1e9, p->jobs_running, p->iops, p->mib_s,
			p->errors);
}

static void show_virtual(const struct iolat_run_progress *p, double wall)
{
	if (p->total_ns)
		fprintf(stderr, "\r\033[K[%.1fs/%.0fs virtual, %.0f%%, %.0fs wall] Ctrl-C stops and "
			"reports", (double)p->elapsed_ns / 1e9, (double)p->total_ns / 1e9,
			100.0 * (double)p->elapsed_ns / (double)p->total_ns, wall);
	else
		fprintf(stderr, "\r\033[K[%.1fs virtual, %.0fs wall] Ctrl-C stops and reports",
			(double)p->elapsed_ns / 1e9, wall);
}

static void on_progress(void *ctx, const struct iolat_run_progress *p)
{
	struct cli_state *st = ctx;
	double now = wall_s();

	if (!st->tty)
		return;
	if (st->c->be == &iolat_backend_sim) {
		if (now - st->t0 < 1.0 || now - st->last < 0.25)
			return;
		st->last = now;
		show_virtual(p, now - st->t0);
	} else {
		show_engines(p);
	}
	fflush(stderr);
	st->shown = true;
}

static void on_note(void *ctx, const char *line)
{
	struct cli_state *st = ctx;

	clear_progress(st);
	fprintf(stderr, "iolat %s: %s\n", st->c->cmd, line);
}

/* Run the job file until the repeat count or loop time is reached, a run
 * fails, or a stop is requested. *@res is the last run's result. */
static int run_repeated(const struct iolat_jobfile *jf, struct cli_state *st,
			struct iolat_run_result **res, char *err, size_t errlen)
{
	const struct iolat_cli_common *common = st->c->common;
	int ret;

	for (;;) {
		iolat_run_result_free(*res);
		*res = NULL;
		ret = iolat_run(jf, st->c->be, &st->c->o, res, err, errlen);
		if (ret)
			return ret;
		st->iters++;
		st->failed_all += (*res)->nr_errors;
		st->bad_all += (*res)->verify_bad;
		if (atomic_load(&iolat_cli_stop_flag) ||
		    (common->loop_s > 0 ? wall_s() - st->t0 >= common->loop_s
					: (double)st->iters >= common->repeat))
			return 0;
	}
}

/* A run that failed: its message, and the exit code (2 for a bad job file,
 * 128+N when stopped by signal N before the jobs started, else 1). */
static int run_failed(const struct cli_state *st, int ret, const char *err)
{
	const char *cmd = st->c->cmd;
	int rc = ret == -EINVAL ? IOLAT_EXIT_USAGE : IOLAT_EXIT_FAILED;

	if (st->iters)
		fprintf(stderr, "iolat %s: run %" PRIu64 " failed:\n", cmd, st->iters + 1);
	fprintf(stderr, "iolat %s: %s\n", cmd, err[0] ? err : strerror(-ret));
	if (ret == -EINTR && iolat_cli_stop_signal())
		rc = iolat_cli_stop_exit_code();
	return rc;
}

/* Failed I/Os, per group, on stderr; what faulty engines injected, if any. */
static void report_errors(const char *cmd, const struct iolat_run_result *res)
{
	struct iolat_report_row row;

	fprintf(stderr, "iolat %s: %" PRIu64 " I/Os failed", cmd, res->nr_errors);
	if (res->nr_short || res->nr_verify_failed)
		fprintf(stderr, " (%" PRIu64 " short, %" PRIu64 " bad data)", res->nr_short,
			res->nr_verify_failed);
	fprintf(stderr, "\n");
	for (unsigned i = 0; i < iolat_report_nr_rows(res->report); i++) {
		if (iolat_report_row(res->report, i, &row))
			continue;
		fprintf(stderr, "  group %-24s %" PRIu64 " failed I/Os", row.name, row.errors);
		if (row.faulty)
			fprintf(stderr, " (injected: %" PRIu64 " EIO, %" PRIu64 " ENOSPC, %" PRIu64
				" short)", row.faults.eio, row.faults.enospc, row.faults.short_io);
		fprintf(stderr, "\n");
	}
	if (res->first_error[0])
		fprintf(stderr, "  first: %s\n", res->first_error);
}

/* The verify pass's verdict: a line on stdout (normal format), bad blocks on stderr. */
static void report_verify(const char *cmd, const struct iolat_run_result *res, bool json,
			  FILE *out)
{
	if (!res->verify_ran)
		return;
	if (!json)
		fprintf(out, "verify: %" PRIu64 " blocks of %u bytes read back after the run (%" PRIu64
			" set by successful writes): %" PRIu64 " bad; %" PRIu64 " not checked (their "
			"last write failed or overlapped another)\n", res->verify_checked,
			res->verify_block, res->verify_written, res->verify_bad,
			res->verify_unspecified);
	if (res->verify_bad)
		fprintf(stderr, "iolat %s: verify: %" PRIu64 " blocks did not read back as written; "
			"first: %s\n", cmd, res->verify_bad, res->verify_first_bad);
}

/* The report to stdout or --output: the device line and table, or JSON;
 * then the verify verdict. 0, or -1 when it could not be written. */
static int write_report(const char *cmd, const struct iolat_run_result *res,
			const struct iolat_cli_common *common)
{
	FILE *out_f = iolat_cli_open_output(cmd, common->output);
	char line[256];
	int ret, cret;

	if (!out_f)
		return -1;
	if (common->json) {
		ret = iolat_report_write_json(res->report, out_f);
	} else {
		iolat_run_describe(res, line, sizeof(line));
		fprintf(out_f, "%s\n", line);
		ret = iolat_report_write_table(res->report, out_f);
	}
	report_verify(cmd, res, common->json, out_f);
	cret = iolat_cli_close_output(out_f);
	if (cret || ret) {
		fprintf(stderr, "iolat %s: cannot write the report: %s\n", cmd,
			strerror(cret ? -cret : EIO));
		return -1;
	}
	return 0;
}

/* What the runs were, on stderr: a stop, the tally of repeated runs, -v. */
static void say_runs(const struct cli_state *st, const struct iolat_run_result *res)
{
	const char *cmd = st->c->cmd;
	double secs = (double)res->duration_ns / 1e9;

	if (res->interrupted && res->virtual_time)
		fprintf(stderr, "iolat %s: interrupted by signal %d: reporting the %.3f virtual s "
			"reached\n", cmd, iolat_cli_stop_signal(), secs);
	else if (res->interrupted)
		fprintf(stderr, "iolat %s: interrupted by signal %d: reporting the %.1f s that ran\n",
			cmd, iolat_cli_stop_signal(), secs);
	if (st->iters > 1 && res->virtual_time)
		fprintf(stderr, "iolat %s: %" PRIu64 " runs in %.1f wall s; the report is the last "
			"run's\n", cmd, st->iters, wall_s() - st->t0);
	else if (st->iters > 1)
		fprintf(stderr, "iolat %s: %" PRIu64 " runs in %.1f s: %" PRIu64 " I/Os failed, %"
			PRIu64 " blocks read back wrong, in all; the report is the last run's\n",
			cmd, st->iters, wall_s() - st->t0, st->failed_all, st->bad_all);
	if (st->c->verbose)
		fprintf(stderr, "iolat %s: %" PRIu64 " events, %.3f virtual s in %.3f wall s\n", cmd,
			res->events, secs, wall_s() - st->t0);
}

/* After runs that completed: the notes on stderr, the report, the log,
 * the failed I/Os; returns the exit code. */
static int report_run(const struct cli_state *st, const struct iolat_run_result *res)
{
	const struct iolat_cli_common *common = st->c->common;
	const char *cmd = st->c->cmd;
	int rc = IOLAT_EXIT_OK;

	say_runs(st, res);
	if (write_report(cmd, res, common))
		return IOLAT_EXIT_FAILED;
	if (common->logdir && iolat_cli_write_log(cmd, res->report, common->logdir))
		rc = IOLAT_EXIT_FAILED;
	if (res->nr_errors) {
		report_errors(cmd, res);
		rc = IOLAT_EXIT_FAILED;
	}
	if (res->verify_bad || st->failed_all || st->bad_all)
		rc = IOLAT_EXIT_FAILED;
	if (res->checked)
		fprintf(stderr, "iolat %s: IOLAT_CHECK: the controller's invariants held at every "
			"sample and at the end; every I/O completed once\n", cmd);
	if (res->interrupted)
		rc = iolat_cli_stop_exit_code();   /* 128 + the signal, whatever else happened */
	return rc;
}

int iolat_cli_run(const struct iolat_jobfile *jf, struct iolat_cli_run *c)
{
	const struct iolat_cli_common *common = c->common;
	struct cli_state st = { .c = c };
	struct iolat_run_result *res = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];
	int ret, rc;

	c->o.control = common->control;
	c->o.kernel_compat = common->kernel_compat;
	c->o.mode = common->mode;
	c->o.default_mode = IOLAT_CLI_DEFAULT_MODE;
	c->o.stop = &iolat_cli_stop_flag;
	c->o.progress = on_progress;
	c->o.note = on_note;
	c->o.ctx = &st;
	st.tty = !common->quiet && isatty(STDERR_FILENO);
	st.t0 = wall_s();
	iolat_cli_stop_install();
	ret = run_repeated(jf, &st, &res, err, sizeof(err));
	clear_progress(&st);
	rc = ret ? run_failed(&st, ret, err) : report_run(&st, res);
	iolat_cli_stop_restore();
	iolat_run_result_free(res);
	return rc;
}
