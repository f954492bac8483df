/* SPDX-License-Identifier: MIT */
/*
 * `iolat run JOBFILE`: the job file on real files or block devices, through
 * the controller (src/job/runner.c) or without it (--no-control). Parses
 * options and the job file, shows a live progress line when stderr is a
 * terminal, prints the per-group table or JSON, writes the CSV time series
 * and plots with --log. SIGINT, SIGTERM and SIGHUP end the run early and it
 * still reports (cli_stop.h).
 * Exit: 0 ok; 1 the run failed or I/Os failed (per-group counts on stderr);
 * 2 bad usage or bad job file (one line naming file, line and key); 128+N
 * stopped by signal N.
 * Hidden options for soak tests (scripts/soak.sh): --repeat N and --loop
 * SECONDS run the job file again and again in this one process; the report
 * is the last run's.
 * Context: the CLI's main thread (plus the signal handler, which only sets a flag).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_opts.h"
#include "cli_output.h"
#include "cli_stop.h"
#include "commands.h"
#include "job/engines.h"
#include "job/jobfile.h"
#include "run/preflight.h"
#include "report/report.h"
#include "run/runner.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iolat run JOBFILE [--output-format=normal|json] [--output=FILE] [--log DIR]\n"
		"                 [--no-control] [--kernel-compat] [--control MODE] [--faults OPTS]\n"
		"                 [--parse-only] [-q]\n"
		"\n"
		"Runs JOBFILE's jobs on real files (or block devices) with the I/O engines,\n"
		"every I/O admitted by the io.latency controller: groups ([group:PATH],\n"
		"target=) whose I/O misses its target over a window get their looser siblings'\n"
		"queue depth clamped. Files are created and filled first when missing or too\n"
		"small (size=), after every check has passed: free space, the file-size\n"
		"limit, O_DIRECT, and for a block device that a job writes: not mounted, not\n"
		"held, no filesystem or partition signature (allow_mounted_write=1,\n"
		"allow_signature_write=1 override). A layout that fails or is interrupted\n"
		"is undone. The device's nr_requests and rotational flag are read from\n"
		"sysfs unless the job file sets them; the controller's queue depth is the\n"
		"device's nr_requests capped at the jobs' total iodepth (what they can have\n"
		"in flight). ioengine=uring falls back to psync when the kernel refuses\n"
		"io_uring. Files that verify= jobs write are read back after the run: every\n"
		"block must hold what its last successful write wrote.\n"
		"\n"
		"options:\n"
		"  --output-format=FMT  normal (the per-group table) or json\n"
		"  --output=FILE        write the table or JSON to FILE instead of stdout\n"
		"  --log DIR            per-window CSV time series per group, and plots\n"
		"                       (latency.png, depth.png) when gnuplot is installed\n"
		"  --parse-only         check the job file and everything a run would check,\n"
		"                       say what the layout would do, and exit: no file touched\n"
		"  --no-control         run without the controller (as control=0): a baseline\n"
		"  --kernel-compat      the kernel's timer and HDD-mean behaviour\n"
		"  --control MODE       article (default), kernel or adaptive\n"
		"  --faults OPTS        options of ioengine=faulty:<engine> jobs:\n"
		"                       %s\n"
		"                       (a shortcut of the job file's faulty.KEY=VALUE keys;\n"
		"                       given both, these win key by key)\n"
		"  -q, --quiet          no progress line\n"
		"  -h, --help           this text\n"
		"\n"
		"environment: IOLAT_CHECK=1 checks the controller's invariants at every sample\n"
		"and the I/O accounting at the end (a failed check: exit 1)\n"
		"\n"
		"Ctrl-C (SIGINT), SIGTERM or SIGHUP stop the run: what ran is reported\n"
		"(\"interrupted\": true in JSON, a last line in the table); a second signal kills.\n"
		"\n"
		"exit status: 0 ok, 1 the run failed or I/Os failed, 2 bad usage or bad job file,\n"
		"128+N stopped by signal N (130: Ctrl-C, 143: SIGTERM, 129: SIGHUP)\n",
		iolat_job_engine_options_help(IOLAT_JOB_ENGINE_FAULTS));
}

static int bad_usage(const char *fmt, const char *arg)
{
	return iolat_cli_usage_error("run", fmt, arg);
}

struct cli {
	bool tty;           /* the progress line is on screen */
	bool shown;
};

static void clear_progress(struct cli *c)
{
	if (c->shown) {
		fputs("\r\033[K", stderr);
		c->shown = false;
	}
}

static void on_progress(void *ctx, const struct iolat_runner_progress *p)
{
	struct cli *c = ctx;

	if (!c->tty)
		return;
	if (p->total_ns)
		fprintf(stderr, "\r\033[K[%5.1fs/%.0fs] %u jobs  %8.0f IOPS  %8.1f MiB/s  %" PRIu64
			" errors", (double)p->elapsed_ns / 1e9, (double)p->total_ns / 1e9,
			p->jobs_running, p->iops, p->mib_s, p->errors);
	else
		fprintf(stderr, "\r\033[K[%5.1fs] %u jobs  %8.0f IOPS  %8.1f MiB/s  %" PRIu64
			" errors", (double)p->elapsed_ns / 1e9, p->jobs_running, p->iops, p->mib_s,
			p->errors);
	fflush(stderr);
	c->shown = true;
}

static void on_note(void *ctx, const char *line)
{
	clear_progress(ctx);
	fprintf(stderr, "iolat run: %s\n", line);
}

/* Failed I/Os, per group, on stderr; what faulty engines injected, if any. */
static void report_errors(const struct iolat_runner_result *res)
{
	struct iolat_report_row row;

	fprintf(stderr, "iolat run: %" PRIu64 " I/Os failed", res->nr_errors);
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
static void report_verify(const struct iolat_runner_result *res, bool json, FILE *out)
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
		fprintf(stderr, "iolat run: verify: %" PRIu64 " blocks did not read back as written; "
			"first: %s\n", res->verify_bad, res->verify_first_bad);
}

/* --parse-only: the job file and every check before a run; nothing is touched. */
static int parse_only(const struct iolat_jobfile *jf, const char *faults, const char *file)
{
	struct iolat_preflight pf;
	char err[IOLAT_JOBFILE_ERR_MAX], sz[32];
	int ret = iolat_preflight_check(jf, faults, &pf, err, sizeof(err));

	if (ret) {
		fprintf(stderr, "iolat run: %s\n", err[0] ? err : strerror(-ret));
		iolat_preflight_free(&pf);
		return ret == -ENOMEM ? IOLAT_EXIT_FAILED : IOLAT_EXIT_USAGE;
	}
	printf("%s: ok (%u jobs, %u groups)\n", file, jf->nr_jobs, jf->nr_groups);
	for (unsigned i = 0; i < pf.nr_files; i++) {
		const struct iolat_pf_file *f = &pf.files[i];

		printf("  %s: %s%s\n", f->path, f->blockdev ? "block device" :
		       !f->layout ? "used as it is" : !f->exists ? "would be created, " :
		       f->need > f->have ? "would be extended to " : "would be rewritten, ",
		       f->blockdev || !f->layout ? "" :
		       iolat_format_bytes(f->need > f->have ? f->need : f->have, sz, sizeof(sz)));
	}
	iolat_preflight_free(&pf);
	return IOLAT_EXIT_OK;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The command line: options for the runner, the shared ones (job file included). */
struct run_args {
	struct iolat_runner_opts o;
	struct iolat_cli_common common;
};

/* Parse the command line into @a. Returns -1 to go on, else the exit code
 * (--help: 0; bad usage: 2, with its line on stderr). */
static int parse_args(int argc, char **argv, struct run_args *a)
{
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage(stdout);
			return IOLAT_EXIT_OK;
		} else if ((ret = iolat_cli_common_opt(&a->common, "run", argc, argv, &i)) != 0) {
			if (ret < 0)
				return IOLAT_EXIT_USAGE;
		} else if (iolat_cli_is_opt(arg, "--faults")) {
			if (!(v = iolat_cli_opt_value(argc, argv, &i, "--faults")))
				return bad_usage("%s needs options (kind=eio,rate=0.01...)", "--faults");
			a->o.fault_options = v;
		} else if (iolat_cli_operand(&a->common, "run", arg) < 0) {
			return IOLAT_EXIT_USAGE;
		}
	}
	a->o.control = a->common.control;
	a->o.kernel_compat = a->common.kernel_compat;
	a->o.mode = a->common.mode;
	a->o.default_mode = IOLAT_CLI_DEFAULT_MODE;
	return -1;
}

/* The runs of one command: one, or --repeat N / --loop SECONDS of them. */
struct run_tally {
	double t0;
	uint64_t iters, failed_all, bad_all;
};

/* Run the job file until the repeat count or loop time is reached, a run
 * fails, or a stop is requested. *@res is the last run's result. */
static int run_repeated(const struct iolat_jobfile *jf, const struct iolat_runner_opts *o,
			const struct iolat_cli_common *common, struct iolat_runner_result **res,
			struct run_tally *t, char *err, size_t errlen)
{
	int ret;

	t->t0 = now_s();
	for (;;) {
		iolat_runner_result_free(*res);
		*res = NULL;
		ret = iolat_runner_run(jf, o, res, err, errlen);
		if (ret)
			return ret;
		t->iters++;
		t->failed_all += (*res)->nr_errors;
		t->bad_all += (*res)->verify_bad;
		if (atomic_load(&iolat_cli_stop_flag) ||
		    (common->loop_s > 0 ? now_s() - t->t0 >= common->loop_s
					: (double)t->iters >= common->repeat))
			return 0;
	}
}

/* A run that failed: its message, and the exit code (2 for a bad job file,
 * 128+N when stopped by signal N before the jobs started, else 1). */
static int run_failed(int ret, const struct run_tally *t, const char *err)
{
	int rc = ret == -EINVAL ? IOLAT_EXIT_USAGE : IOLAT_EXIT_FAILED;

	if (t->iters)
		fprintf(stderr, "iolat run: run %" PRIu64 " failed:\n", t->iters + 1);
	fprintf(stderr, "iolat run: %s\n", err[0] ? err : strerror(-ret));
	if (ret == -EINTR && iolat_cli_stop_signal())
		rc = iolat_cli_stop_exit_code();
	return rc;
}

/* The report to stdout or --output: the device line and table, or JSON;
 * then the verify verdict. 0, or -1 when it could not be written. */
static int write_report(const struct iolat_runner_result *res, const struct iolat_cli_common *common)
{
	FILE *out_f = iolat_cli_open_output("run", common->output);
	int ret, cret;

	if (!out_f)
		return -1;
	if (common->json) {
		ret = iolat_report_write_json(res->report, out_f);
	} else {
		fprintf(out_f, "device %s (%s, %s rule%s), nr_requests %u, %.1f s, controller %s\n",
		       res->disk[0] ? res->disk : "unknown",
		       res->rotational ? "rotational" : "non-rotational",
		       res->rotational ? "mean" : "p90",
		       res->device_known ? "" : ", defaults: not found in sysfs",
		       res->nr_requests, (double)res->duration_ns / 1e9,
		       !res->control ? "off" : res->kernel_compat ? "on (kernel compat)" :
		       res->mode == IOLAT_MODE_ADAPTIVE ? "on (adaptive)" : "on");
		ret = iolat_report_write_table(res->report, out_f);
	}
	report_verify(res, common->json, out_f);
	cret = iolat_cli_close_output(out_f);
	if (cret || ret) {
		fprintf(stderr, "iolat run: cannot write the report: %s\n", strerror(cret ? -cret : EIO));
		return -1;
	}
	return 0;
}

/* After a run that completed: the notes on stderr, the report, the log,
 * the failed I/Os; returns the exit code. */
static int report_run(const struct iolat_runner_result *res, const struct iolat_cli_common *common,
		      const struct run_tally *t)
{
	int rc = IOLAT_EXIT_OK;

	if (res->interrupted)
		fprintf(stderr, "iolat run: interrupted by signal %d: reporting the %.1f s that ran\n",
			iolat_cli_stop_signal(), (double)res->duration_ns / 1e9);
	if (t->iters > 1)
		fprintf(stderr, "iolat run: %" PRIu64 " runs in %.1f s: %" PRIu64 " I/Os failed, %"
			PRIu64 " blocks read back wrong, in all; the report is the last run's\n",
			t->iters, now_s() - t->t0, t->failed_all, t->bad_all);
	if (write_report(res, common))
		return IOLAT_EXIT_FAILED;
	if (common->logdir && iolat_cli_write_log("run", res->report, common->logdir))
		rc = IOLAT_EXIT_FAILED;
	if (res->nr_errors) {
		report_errors(res);
		rc = IOLAT_EXIT_FAILED;
	}
	if (res->verify_bad || t->failed_all || t->bad_all)
		rc = IOLAT_EXIT_FAILED;
	if (res->checked)
		fprintf(stderr, "iolat run: IOLAT_CHECK: the controller's invariants held at every "
			"sample and at the end; every I/O completed once\n");
	if (res->interrupted)
		rc = iolat_cli_stop_exit_code();   /* 128 + the signal, whatever else happened */
	return rc;
}

int iolat_cmd_run(int argc, char **argv)
{
	struct run_args a = {
		.o = { .control = -1, .kernel_compat = -1, .stop = &iolat_cli_stop_flag },
		.common = IOLAT_CLI_COMMON_INIT,
	};
	struct iolat_jobfile *jf = NULL;
	struct iolat_runner_result *res = NULL;
	struct run_tally tally = { 0 };
	char err[IOLAT_JOBFILE_ERR_MAX];
	struct cli cli = { 0 };
	int ret, rc;

	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	ret = iolat_cli_load_checked("run", &a.common, &jf);
	if (!ret && a.common.parse_only)
		ret = parse_only(jf, a.o.fault_options, a.common.file);
	if (ret || a.common.parse_only) {
		iolat_jobfile_free(jf);
		return ret;
	}
	cli.tty = !a.common.quiet && isatty(STDERR_FILENO);
	a.o.progress = on_progress;
	a.o.note = on_note;
	a.o.ctx = &cli;
	iolat_cli_stop_install();
	ret = run_repeated(jf, &a.o, &a.common, &res, &tally, err, sizeof(err));
	clear_progress(&cli);
	rc = ret ? run_failed(ret, &tally, err) : report_run(res, &a.common, &tally);
	iolat_cli_stop_restore();
	iolat_runner_result_free(res);
	iolat_jobfile_free(jf);
	return rc;
}
