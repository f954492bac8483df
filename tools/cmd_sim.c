/* SPDX-License-Identifier: MIT */
/*
 * `iolat sim JOBFILE`: the job file on a simulated device (src/sim), in
 * virtual time, through the real controller. Parses the options and the job
 * file, runs iolat_sim_run(), prints the per-group table or JSON, and writes
 * the CSV time series and plots with --log. Same job file and seed, same
 * output, byte for byte (wall-clock figures go to stderr, and only with -v).
 * Exit: 0 ok, 1 the simulation failed, 2 bad usage or bad job file.
 * Hidden options for soak tests (scripts/soak.sh): --repeat N and --loop
 * SECONDS simulate the job file again and again in this one process; the
 * report is the last run's.
 * Context: the CLI's main thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_opts.h"
#include "cli_output.h"
#include "cli_stop.h"
#include "commands.h"
#include "job/jobfile.h"
#include "scen/memleak/memleak.h"
#include "report/report.h"
#include "run/run_sim.h"

static void usage(FILE *f)
{
	char *models;
	int n = iolat_sim_format_models(NULL, 0);

	fprintf(f,
		"usage: iolat sim JOBFILE [--seed N] [--output-format=normal|json] [--log DIR]\n"
		"                 [--no-control] [--kernel-compat] [--control MODE] [--output=FILE]\n"
		"                 [--parse-only] [-v] [-q]\n"
		"\n"
		"Runs JOBFILE's jobs on a simulated device in virtual time, through the real\n"
		"io.latency controller: deterministic (same file and seed, same output) and\n"
		"much faster than real time. The job file is the one `iolat run` reads; the\n"
		"device is chosen in [global] with device=ssd|hdd|bad-ssd|vdisk (default ssd) and\n"
		"tuned with the model keys below; nr_requests= sets the device queue depth.\n"
		"\n"
		"options:\n"
		"  --seed N                 seed of every random choice (default: the job\n"
		"                           file's seed=, else 1)\n"
		"  --output-format=FMT      normal (the per-group table) or json\n"
		"  --output=FILE            write the table or JSON to FILE instead of stdout\n"
		"  --log DIR                per-window CSV time series per group, and plots\n"
		"                           (latency.png, depth.png) when gnuplot is installed\n"
		"  --parse-only             check the job file (keys, values, groups, the device\n"
		"                           model's keys) as a run would, and exit\n"
		"  --no-control             run without the controller (as control=0)\n"
		"  --kernel-compat          the kernel's timer and HDD-mean behaviour\n"
		"  --control MODE           article (the kernel's rules, article's release;\n"
		"                           default), kernel (as --kernel-compat) or adaptive\n"
		"                           (pace rungs below depth 1, probe back-off)\n"
		"                           (IOLAT_CTL_KERNEL_COMPAT) instead of ours\n"
		"  -v, --verbose            events run and wall time on stderr\n"
		"  -q, --quiet              no progress line (shown on a terminal when a\n"
		"                           run takes more than a second of wall time)\n"
		"  -h, --help               this text\n"
		"\n"
		"Ctrl-C (SIGINT), SIGTERM or SIGHUP stop the simulation: the report covers\n"
		"the virtual time reached; a second signal kills.\n"
		"\n"
		"exit status: 0 ok, 1 the simulation failed, 2 bad usage or bad job file,\n"
		"128+N stopped by signal N (130: Ctrl-C)\n"
		"\n"
		"device models and their job-file keys (key=default):\n");
	if (n > 0 && (models = malloc((size_t)n + 1))) {
		iolat_sim_format_models(models, (size_t)n + 1);
		fputs(models, f);
		free(models);
	}
}

static int bad_usage(const char *fmt, const char *arg)
{
	return iolat_cli_usage_error("sim", fmt, arg);
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The progress line: on a terminal, once a run has taken a second of wall time. */
struct sim_progress {
	bool tty, shown;
	double t0, last;
};

static void on_progress(void *ctx, uint64_t virt_ns, uint64_t total_ns)
{
	struct sim_progress *p = ctx;
	double now = wall_s();

	if (!p->tty || now - p->t0 < 1.0 || now - p->last < 0.25)
		return;
	p->last = now;
	if (total_ns)
		fprintf(stderr, "\r\033[K[%.1fs/%.0fs virtual, %.0f%%, %.0fs wall] Ctrl-C stops and "
			"reports", (double)virt_ns / 1e9, (double)total_ns / 1e9,
			100.0 * (double)virt_ns / (double)total_ns, now - p->t0);
	else
		fprintf(stderr, "\r\033[K[%.1fs virtual, %.0fs wall] Ctrl-C stops and reports",
			(double)virt_ns / 1e9, now - p->t0);
	fflush(stderr);
	p->shown = true;
}

static void clear_progress(struct sim_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

/* The command line: options for the simulation, the shared ones (job file
 * included), -v. */
struct sim_args {
	struct iolat_sim_opts o;
	struct iolat_cli_common common;
	bool verbose;
};

/* --seed N: a non-negative integer (decimal, 0x hex or 0 octal). */
static int parse_seed(int argc, char **argv, int *i, struct iolat_sim_opts *o)
{
	const char *v = iolat_cli_opt_value(argc, argv, i, "--seed");
	char *end;

	if (!v)
		return bad_usage("%s needs a number", "--seed");
	errno = 0;
	o->seed = strtoull(v, &end, 0);
	if (!*v || *end || errno || *v == '-')
		return bad_usage("--seed: '%s' is not a non-negative integer", v);
	o->seed_set = true;
	return 0;
}

/* Parse the command line into @a. Returns -1 to go on, else the exit code
 * (--help: 0; bad usage: 2, with its line on stderr). */
static int parse_args(int argc, char **argv, struct sim_args *a)
{
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage(stdout);
			return IOLAT_EXIT_OK;
		} else if ((ret = iolat_cli_common_opt(&a->common, "sim", argc, argv, &i)) != 0) {
			if (ret < 0)
				return IOLAT_EXIT_USAGE;
		} else if (iolat_cli_is_opt(arg, "--seed")) {
			if ((ret = parse_seed(argc, argv, &i, &a->o)) != 0)
				return ret;
		} else if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
			a->verbose = true;
		} else if (iolat_cli_operand(&a->common, "sim", arg) < 0) {
			return IOLAT_EXIT_USAGE;
		}
	}
	a->o.control = a->common.control;
	a->o.kernel_compat = a->common.kernel_compat;
	a->o.mode = a->common.mode;
	a->o.default_mode = IOLAT_CLI_DEFAULT_MODE;
	return -1;
}

/* Simulate the job file until the repeat count or loop time is reached, a
 * run fails, or a stop is requested; *@iters counts the runs that
 * completed, *@res is the last one's result. */
static int sim_repeated(const struct iolat_jobfile *jf, const struct iolat_sim_opts *o,
			const struct iolat_cli_common *common, double t0,
			struct iolat_sim_result **res, uint64_t *iters, char *err, size_t errlen)
{
	int ret;

	for (;;) {
		iolat_sim_result_free(*res);
		*res = NULL;
		ret = iolat_sim_run(jf, o, res, err, errlen);
		if (ret)
			return ret;
		(*iters)++;
		if (atomic_load(&iolat_cli_stop_flag) ||
		    (common->loop_s > 0 ? wall_s() - t0 >= common->loop_s
					: (double)*iters >= common->repeat))
			return 0;
	}
}

/* The report to stdout or --output: the device line and table, or JSON.
 * 0, or -1 when it could not be written. */
static int write_report(const struct iolat_sim_result *res, const struct iolat_cli_common *common)
{
	FILE *out_f = iolat_cli_open_output("sim", common->output);
	int ret, cret;

	if (!out_f)
		return -1;
	if (common->json) {
		ret = iolat_report_write_json(res->report, out_f);
	} else {
		fprintf(out_f, "device %s (%s, %s rule), nr_requests %u, seed %" PRIu64 ", "
		       "%.3f s virtual, controller %s\n",
		       res->device, res->rotational ? "rotational" : "non-rotational",
		       res->rotational ? "mean" : "p90", res->nr_requests, res->seed,
		       (double)res->duration_ns / 1e9,
		       !res->control ? "off" : res->kernel_compat ? "on (kernel compat)" :
		       res->mode == IOLAT_MODE_ADAPTIVE ? "on (adaptive)" : "on");
		ret = iolat_report_write_table(res->report, out_f);
	}
	cret = iolat_cli_close_output(out_f);
	if (cret || ret) {
		fprintf(stderr, "iolat sim: cannot write the report: %s\n", strerror(cret ? -cret : EIO));
		return -1;
	}
	return 0;
}

/* After the runs: the notes on stderr (-v: events and times), the report,
 * the log; returns the exit code. */
static int report_sim(const struct iolat_sim_result *res, const struct sim_args *a,
		      uint64_t iters, double t0)
{
	int rc = IOLAT_EXIT_OK;

	if (iters > 1)
		fprintf(stderr, "iolat sim: %" PRIu64 " runs in %.1f wall s; the report is the last "
			"run's\n", iters, wall_s() - t0);
	if (a->verbose)
		fprintf(stderr, "iolat sim: %" PRIu64 " events, %.3f virtual s in %.3f wall s\n",
			res->events, (double)res->duration_ns / 1e9, wall_s() - t0);
	if (res->interrupted)
		fprintf(stderr, "iolat sim: interrupted by signal %d: reporting the %.3f virtual s "
			"reached\n", iolat_cli_stop_signal(), (double)res->duration_ns / 1e9);
	if (write_report(res, &a->common))
		return IOLAT_EXIT_FAILED;
	if (a->common.logdir)
		rc = iolat_cli_write_log("sim", res->report, a->common.logdir);
	if (res->interrupted)
		rc = iolat_cli_stop_exit_code();
	return rc;
}

/* The simulation proper: progress, stop, the runs and their report. */
static int simulate(const struct iolat_jobfile *jf, struct sim_args *a)
{
	struct sim_progress prog = { 0 };
	struct iolat_sim_result *res = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];
	double t0 = wall_s();
	uint64_t iters = 0;
	int ret, rc;

	prog.tty = !a->common.quiet && isatty(STDERR_FILENO);
	prog.t0 = t0;
	a->o.stop = &iolat_cli_stop_flag;
	a->o.progress = on_progress;
	a->o.ctx = &prog;
	iolat_cli_stop_install();
	ret = sim_repeated(jf, &a->o, &a->common, t0, &res, &iters, err, sizeof(err));
	clear_progress(&prog);
	if (ret) {
		if (iters)
			fprintf(stderr, "iolat sim: run %" PRIu64 " failed:\n", iters + 1);
		fprintf(stderr, "iolat sim: %s\n", err[0] ? err : strerror(-ret));
		rc = ret == -EINVAL ? IOLAT_EXIT_USAGE : IOLAT_EXIT_FAILED;
	} else {
		rc = report_sim(res, a, iters, t0);
	}
	iolat_cli_stop_restore();
	iolat_sim_result_free(res);
	return rc;
}

int iolat_cmd_sim(int argc, char **argv)
{
	struct sim_args a = {
		.o = { .control = -1, .kernel_compat = -1 },
		.common = IOLAT_CLI_COMMON_INIT,
	};
	struct iolat_jobfile *jf = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];
	int ret, rc;

	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	ret = iolat_cli_load_checked("sim", &a.common, &jf);
	if (!ret && a.common.parse_only && (rc = iolat_sim_check(jf, &a.o, err, sizeof(err)))) {
		fprintf(stderr, "iolat sim: %s\n", err[0] ? err : strerror(-rc));
		ret = rc == -EINVAL ? IOLAT_EXIT_USAGE : IOLAT_EXIT_FAILED;
	}
	if (ret || a.common.parse_only) {
		if (!ret)
			printf("%s: ok (%u jobs, %u groups)\n", a.common.file, jf->nr_jobs, jf->nr_groups);
		iolat_jobfile_free(jf);
		return ret;
	}
	ret = iolat_ml_jobfile_kind(jf, err, sizeof(err));
	if (ret) {   /* the leaking-service scenario (tools/demo_memleak.c) */
		rc = ret < 0 ? (fprintf(stderr, "iolat sim: %s\n", err), IOLAT_EXIT_USAGE) :
			       iolat_sim_memleak(jf, a.common.logdir, a.common.json,
						 a.o.seed_set ? &a.o.seed : NULL, a.common.control);
	} else {
		rc = simulate(jf, &a);
	}
	iolat_jobfile_free(jf);
	return rc;
}
