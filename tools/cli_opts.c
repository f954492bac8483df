/* SPDX-License-Identifier: MIT */
/*
 * cli_opts.c - option-parsing helpers shared by iolat run, sim and demo.
 * Context: the CLI's main thread.
 */
#include <stdio.h>
#include <string.h>

#include "cli_opts.h"
#include "commands.h"

const char *iolat_cli_opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);

	if (!strncmp(argv[*i], opt, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (!strcmp(argv[*i], opt)) {
		if (*i + 1 >= argc)
			return NULL;
		return argv[++*i];
	}
	return NULL;
}

bool iolat_cli_is_opt(const char *arg, const char *opt)
{
	size_t n = strlen(opt);

	return !strncmp(arg, opt, n) && (arg[n] == '\0' || arg[n] == '=');
}

int iolat_cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "iolat %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see iolat %s --help)\n", cmd);
	return IOLAT_EXIT_USAGE;
}
