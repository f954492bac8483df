/* SPDX-License-Identifier: MIT */
/*
 * cli_opts.h - the small option-parsing helpers the iolat subcommands share:
 * "--opt=VALUE" / "--opt VALUE" values and the one-line usage error.
 * Context: the CLI's main thread.
 */
#ifndef IOLAT_TOOLS_CLI_OPTS_H
#define IOLAT_TOOLS_CLI_OPTS_H

#include <stdbool.h>

/* The value of --opt given as "--opt=VALUE" or "--opt VALUE" (advancing *i);
 * NULL when argv[*i] is not --opt or its value is missing. */
const char *iolat_cli_opt_value(int argc, char **argv, int *i, const char *opt);

/* argv element @arg is --opt or --opt=...: */
bool iolat_cli_is_opt(const char *arg, const char *opt);

/* "iolat CMD: <fmt with arg> (see iolat CMD --help)" on stderr; returns exit code 2. */
int iolat_cli_usage_error(const char *cmd, const char *fmt, const char *arg);

#endif
