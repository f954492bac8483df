/* SPDX-License-Identifier: MIT */
/*
 * `iolat sim JOBFILE`: the job file on a simulated device (src/sim), in
 * virtual time, through the real controller: the one runner on the
 * simulator backend (src/run/run.h). Parses the options (the shared ones,
 * --seed, -v) and the job file; the run, its progress line, stop and report
 * are cli_run.c's, as for `iolat run`: the per-group table or JSON, the CSV
 * time series and plots with --log. A scenario's job file (src/scen) goes
 * to its own run. Same job file and seed, same output, byte for byte
 * (wall-clock figures go to stderr, and only with -v).
 * Exit: 0 ok, 1 the simulation failed, 2 bad usage or bad job file.
 * Hidden options for soak tests (scripts/soak.sh): --repeat N and --loop
 * SECONDS simulate the job file again and again in this one process; the
 * report is the last run's.
 * Context: the CLI's main thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opts.h"
#include "cli_run.h"
#include "commands.h"
#include "job/jobfile.h"
#include "run/run.h"
#include "run/run_sim.h"   /* iolat_sim_format_models() */
#include "scen/memleak/memleak.h"

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
		"  --control MODE           adaptive (default: siblings paced at a rate that\n"
		"                           seeks the disk's knee), article (the kernel's\n"
		"                           rules, the article's release) or kernel (as\n"
		"                           --kernel-compat)\n"
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

/* --seed N: a non-negative integer (decimal, 0x hex or 0 octal). */
static int parse_seed(int argc, char **argv, int *i, struct iolat_run_opts *o)
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

/* Parse the command line: the shared options into @common, --seed and -v
 * into @a. Returns -1 to go on, else the exit code (--help: 0; bad usage:
 * 2, with its line on stderr). */
static int parse_args(int argc, char **argv, struct iolat_cli_common *common,
		      struct iolat_cli_run *a)
{
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage(stdout);
			return IOLAT_EXIT_OK;
		} else if ((ret = iolat_cli_common_opt(common, "sim", argc, argv, &i)) != 0) {
			if (ret < 0)
				return IOLAT_EXIT_USAGE;
		} else if (iolat_cli_is_opt(arg, "--seed")) {
			if ((ret = parse_seed(argc, argv, &i, &a->o)) != 0)
				return ret;
		} else if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
			a->verbose = true;
		} else if (iolat_cli_operand(common, "sim", arg) < 0) {
			return IOLAT_EXIT_USAGE;
		}
	}
	return -1;
}

/* --parse-only: everything a simulated run checks before its first event. */
static int parse_only(const struct iolat_jobfile *jf, struct iolat_cli_run *a)
{
	const struct iolat_cli_common *common = a->common;
	char err[IOLAT_JOBFILE_ERR_MAX];
	int ret;

	a->o.control = common->control;
	a->o.kernel_compat = common->kernel_compat;
	a->o.mode = common->mode;
	a->o.default_mode = IOLAT_CLI_DEFAULT_MODE;
	ret = iolat_run_check(jf, &iolat_backend_sim, &a->o, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iolat sim: %s\n", err[0] ? err : strerror(-ret));
		return ret == -EINVAL ? IOLAT_EXIT_USAGE : IOLAT_EXIT_FAILED;
	}
	printf("%s: ok (%u jobs, %u groups)\n", common->file, jf->nr_jobs, jf->nr_groups);
	return IOLAT_EXIT_OK;
}

/* A job file of a scenario (src/scen) runs its own way (demo_memleak.c). */
static int run_scenario(const struct iolat_jobfile *jf, const struct iolat_cli_run *a, int kind,
			const char *err)
{
	const struct iolat_cli_common *common = a->common;

	if (kind < 0) {
		fprintf(stderr, "iolat sim: %s\n", err);
		return IOLAT_EXIT_USAGE;
	}
	return iolat_sim_memleak(jf, common->logdir, common->json,
				 a->o.seed_set ? &a->o.seed : NULL, common->control);
}

int iolat_cmd_sim(int argc, char **argv)
{
	struct iolat_cli_common common = IOLAT_CLI_COMMON_INIT;
	struct iolat_cli_run a = { .cmd = "sim", .be = &iolat_backend_sim, .common = &common };
	struct iolat_jobfile *jf = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];
	int rc = parse_args(argc, argv, &common, &a), kind;

	if (rc >= 0)
		return rc;
	rc = iolat_cli_load_checked("sim", &common, &jf);
	if (rc || common.parse_only) {
		rc = rc ? rc : parse_only(jf, &a);
		iolat_jobfile_free(jf);
		return rc;
	}
	kind = iolat_ml_jobfile_kind(jf, err, sizeof(err));
	rc = kind ? run_scenario(jf, &a, kind, err) : iolat_cli_run(jf, &a);
	iolat_jobfile_free(jf);
	return rc;
}
