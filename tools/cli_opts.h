/* SPDX-License-Identifier: MIT */
/*
 * cli_opts.h - the small option-parsing helpers the iolat subcommands share:
 * "--opt=VALUE" / "--opt VALUE" values and the one-line usage error.
 * Context: the CLI's main thread.
 */
#ifndef IOLAT_TOOLS_CLI_OPTS_H
#define IOLAT_TOOLS_CLI_OPTS_H

#include <stdbool.h>

#include "iolatency.h"

/* The value of --opt given as "--opt=VALUE" or "--opt VALUE" (advancing *i);
 * NULL when argv[*i] is not --opt or its value is missing. */
const char *iolat_cli_opt_value(int argc, char **argv, int *i, const char *opt);

/* argv element @arg is --opt or --opt=...: */
bool iolat_cli_is_opt(const char *arg, const char *opt);

/* The options `iolat run` and `iolat sim` share, and their one operand. */
struct iolat_cli_common {
	bool json;              /* --output-format=json */
	const char *logdir;     /* --log DIR */
	double repeat;          /* hidden --repeat N (soak tests); 1 */
	double loop_s;          /* hidden --loop SECONDS (soak tests); 0 */
	int control;            /* --no-control: 0; else -1 (the job file's) */
	int kernel_compat;      /* --kernel-compat: 1; else -1 (the job file's) */
	const char *output;     /* --output FILE: the report goes there; NULL: stdout */
	bool parse_only;        /* --parse-only: check the job file, run nothing */
	int mode;               /* --control MODE: enum iolat_ctl_mode; 0: the job file's */
	bool quiet;             /* -q, --quiet: no progress line */
	const char *file;       /* the job file (the one operand) */
};

/* The CLI's mode when neither the command line nor the job file names one. */
#define IOLAT_CLI_DEFAULT_MODE IOLAT_CTL_MODE_ADAPTIVE /* BENCHMARKS.md §3, §4 */

#define IOLAT_CLI_COMMON_INIT { .repeat = 1, .control = -1, .kernel_compat = -1 }

/* Parse argv[*i] if it is one of the shared options: 1 when consumed, 0 when
 * it is not one of them, -1 after printing a usage error. */
int iolat_cli_common_opt(struct iolat_cli_common *c, const char *cmd, int argc, char **argv,
			 int *i);

/* argv element @arg after the command's own options: the job file, or a
 * usage error for an unknown option or a second file. 1 when taken, -1
 * after printing the error. */
int iolat_cli_operand(struct iolat_cli_common *c, const char *cmd, const char *arg);

struct iolat_jobfile;

/* Parse the job file @file (NULL: none given) for `iolat CMD`: 0, or the exit
 * code after printing one line (2 for a bad or missing file). */
int iolat_cli_load_jobfile(const char *cmd, const char *file, struct iolat_jobfile **jf);

/* The job file @c names, parsed, and @c's --output and --log checked, for
 * `iolat CMD`, before anything runs: 0, or the exit code after one line. */
int iolat_cli_load_checked(const char *cmd, const struct iolat_cli_common *c,
			   struct iolat_jobfile **jf);

/* "iolat CMD: <fmt with arg> (see iolat CMD --help)" on stderr; returns exit code 2. */
int iolat_cli_usage_error(const char *cmd, const char *fmt, const char *arg);

#endif
