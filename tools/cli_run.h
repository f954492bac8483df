/* SPDX-License-Identifier: MIT */
/*
 * cli_run.h - what `iolat run` and `iolat sim` do once the job file is
 * loaded and checked, the same way on either backend (src/run/run.h): the
 * progress line on a terminal, the stop on a signal (cli_stop.h), the runs
 * (one, or the hidden --repeat N / --loop SECONDS of them: the report is
 * the last run's), the report (the device line and the table, or JSON, to
 * stdout or --output), the --log CSVs and plots, the failed I/Os and the
 * exit code.
 * Context: the CLI's main thread.
 */
#ifndef IOLAT_TOOLS_CLI_RUN_H
#define IOLAT_TOOLS_CLI_RUN_H

#include <stdbool.h>

#include "cli_opts.h"
#include "run/run.h"

struct iolat_cli_run {
	const char *cmd;                     /* "run", "sim": for messages */
	const struct iolat_run_backend *be;
	struct iolat_run_opts o;             /* the command's own options (--seed,
					      * --faults); the rest is set from common */
	const struct iolat_cli_common *common;
	bool verbose;                        /* -v: events run and wall time */
};

/**
 * iolat_cli_run() - run @jf as @c says and report it.
 * Return: the exit code: 0 ok; 1 the run failed, I/Os failed, or the report
 * could not be written; 2 a job file the backend refuses; 128+N stopped by
 * signal N.
 */
int iolat_cli_run(const struct iolat_jobfile *jf, struct iolat_cli_run *c);

#endif /* IOLAT_TOOLS_CLI_RUN_H */
