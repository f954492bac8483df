/* SPDX-License-Identifier: MIT */
/*
 * `iolat run JOBFILE`: the job file on real files or block devices, through
 * the controller or without it (--no-control): the one runner on the
 * engines backend (src/run/run.h). Parses the options (the shared ones,
 * --faults) and the job file, says what --parse-only would lay out; the
 * run, its progress line, stop and report are cli_run.c's, as for `iolat
 * sim`: the per-group table or JSON, the CSV time series and plots with
 * --log. SIGINT, SIGTERM and SIGHUP end the run early and it still reports
 * (cli_stop.h).
 * Exit: 0 ok; 1 the run failed or I/Os failed (per-group counts on stderr);
 * 2 bad usage or bad job file (one line naming file, line and key); 128+N
 * stopped by signal N.
 * Hidden options for soak tests (scripts/soak.sh): --repeat N and --loop
 * SECONDS run the job file again and again in this one process; the report
 * is the last run's.
 * Context: the CLI's main thread (plus the signal handler, which only sets a flag).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_opts.h"
#include "cli_run.h"
#include "commands.h"
#include "job/engines.h"
#include "job/jobfile.h"
#include "run/preflight.h"
#include "run/run.h"

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
		"  --control MODE       adaptive (default), article or kernel\n"
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

/* Parse the command line: the shared options into @common, --faults into
 * @o. Returns -1 to go on, else the exit code (--help: 0; bad usage: 2, with
 * its line on stderr). */
static int parse_args(int argc, char **argv, struct iolat_cli_common *common,
		      struct iolat_run_opts *o)
{
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage(stdout);
			return IOLAT_EXIT_OK;
		} else if ((ret = iolat_cli_common_opt(common, "run", argc, argv, &i)) != 0) {
			if (ret < 0)
				return IOLAT_EXIT_USAGE;
		} else if (iolat_cli_is_opt(arg, "--faults")) {
			if (!(v = iolat_cli_opt_value(argc, argv, &i, "--faults")))
				return bad_usage("%s needs options (kind=eio,rate=0.01...)", "--faults");
			o->fault_options = v;
		} else if (iolat_cli_operand(common, "run", arg) < 0) {
			return IOLAT_EXIT_USAGE;
		}
	}
	return -1;
}

int iolat_cmd_run(int argc, char **argv)
{
	struct iolat_cli_common common = IOLAT_CLI_COMMON_INIT;
	struct iolat_cli_run a = { .cmd = "run", .be = &iolat_backend_engines, .common = &common };
	struct iolat_jobfile *jf = NULL;
	int rc = parse_args(argc, argv, &common, &a.o);

	if (rc >= 0)
		return rc;
	rc = iolat_cli_load_checked("run", &common, &jf);
	if (!rc)
		rc = common.parse_only ? parse_only(jf, a.o.fault_options, common.file)
				       : iolat_cli_run(jf, &a);
	iolat_jobfile_free(jf);
	return rc;
}
