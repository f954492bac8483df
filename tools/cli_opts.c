/* SPDX-License-Identifier: MIT */
/*
 * cli_opts.c - option-parsing helpers shared by iolat run, sim and demo.
 * Context: the CLI's main thread.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opts.h"
#include "cli_output.h"
#include "commands.h"
#include "job/jobfile.h"

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

/* A positive number (up to 1e9), or -1. */
static double parse_positive(const char *v)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	return !*v || *end || errno || !(d > 0) || d > 1e9 ? -1 : d;
}

/* "article, kernel or adaptive": the core's modes, for a usage error. */
static const char *mode_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int m = 1; iolat_ctl_mode_name(m) && used < len; m++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", m == 1 ? "" :
					 iolat_ctl_mode_name(m + 1) ? ", " : " or ",
					 iolat_ctl_mode_name(m));
	return buf;
}

int iolat_cli_common_opt(struct iolat_cli_common *c, const char *cmd, int argc, char **argv,
			 int *i)
{
	const char *a = argv[*i], *v;

	if (iolat_cli_is_opt(a, "--output-format")) {
		if (!(v = iolat_cli_opt_value(argc, argv, i, "--output-format")))
			return iolat_cli_usage_error(cmd, "%s needs normal or json",
						     "--output-format"), -1;
		if (strcmp(v, "json") && strcmp(v, "normal"))
			return iolat_cli_usage_error(cmd, "--output-format: '%s' is not normal or json",
						     v), -1;
		c->json = !strcmp(v, "json");
	} else if (iolat_cli_is_opt(a, "--log")) {
		if (!(v = iolat_cli_opt_value(argc, argv, i, "--log")) || !*v)
			return iolat_cli_usage_error(cmd, "%s needs a directory", "--log"), -1;
		c->logdir = v;
	} else if (iolat_cli_is_opt(a, "--repeat")) {
		/* hidden: run it N times in this process (soak tests) */
		if (!(v = iolat_cli_opt_value(argc, argv, i, "--repeat")) ||
		    (c->repeat = parse_positive(v)) < 1 || c->repeat != (double)(uint64_t)c->repeat)
			return iolat_cli_usage_error(cmd, "%s needs a positive count", "--repeat"), -1;
	} else if (iolat_cli_is_opt(a, "--loop")) {
		/* hidden: run it again and again for SECONDS (soak tests) */
		if (!(v = iolat_cli_opt_value(argc, argv, i, "--loop")) ||
		    (c->loop_s = parse_positive(v)) < 0)
			return iolat_cli_usage_error(cmd, "%s needs a positive number of seconds",
						     "--loop"), -1;
	} else if (iolat_cli_is_opt(a, "--output")) {
		if (!(v = iolat_cli_opt_value(argc, argv, i, "--output")) || !*v)
			return iolat_cli_usage_error(cmd, "%s needs a file", "--output"), -1;
		c->output = v;
	} else if (!strcmp(a, "--parse-only")) {
		c->parse_only = true;
	} else if (!strcmp(a, "--no-control")) {
		c->control = 0;
	} else if (!strcmp(a, "--kernel-compat")) {
		c->kernel_compat = 1;
	} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		c->quiet = true;
	} else if (iolat_cli_is_opt(a, "--control")) {
		if (!(v = iolat_cli_opt_value(argc, argv, i, "--control")) ||
		    !(c->mode = iolat_ctl_mode_parse(v))) {
			char names[64];

			return iolat_cli_usage_error(cmd, "--control needs %s",
						     mode_names(names, sizeof(names))), -1;
		}
	} else {
		return 0;
	}
	return 1;
}

int iolat_cli_operand(struct iolat_cli_common *c, const char *cmd, const char *arg)
{
	if (arg[0] == '-' && arg[1])
		return iolat_cli_usage_error(cmd, "unknown option '%s'", arg), -1;
	if (c->file)
		return iolat_cli_usage_error(cmd, "one job file only ('%s' is a second)", arg), -1;
	c->file = arg;
	return 1;
}

int iolat_cli_load_jobfile(const char *cmd, const char *file, struct iolat_jobfile **jf)
{
	char err[IOLAT_JOBFILE_ERR_MAX];
	int ret;

	if (!file) {
		fprintf(stderr, "iolat %s: a job file is needed: iolat %s JOBFILE (see iolat %s --help)\n",
			cmd, cmd, cmd);
		return IOLAT_EXIT_USAGE;
	}
	ret = iolat_jobfile_parse_file(file, jf, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iolat %s: %s\n", cmd, err[0] ? err : strerror(-ret));
		return ret == -ENOMEM ? IOLAT_EXIT_FAILED : IOLAT_EXIT_USAGE;
	}
	/* A scenario (src/scen) is a simulation only. */
	for (unsigned i = 0; strcmp(cmd, "sim") != 0 && i < (*jf)->nr_jobs; i++) {
		const struct iolat_job *j = &(*jf)->jobs[i];

		if (j->scen) {
			fprintf(stderr, "iolat %s: %s:%u: key 'rw': rw=%s belongs to %s, a "
				"simulation: run it with iolat sim\n", cmd, (*jf)->file, j->line,
				j->workload, j->scen->what);
			iolat_jobfile_free(*jf);
			*jf = NULL;
			return IOLAT_EXIT_USAGE;
		}
	}
	return 0;
}

int iolat_cli_load_checked(const char *cmd, const struct iolat_cli_common *c,
			   struct iolat_jobfile **jf)
{
	int ret = iolat_cli_load_jobfile(cmd, c->file, jf);

	if (!ret)
		ret = iolat_cli_check_output(cmd, c->output);
	if (!ret)
		ret = iolat_cli_check_logdir(cmd, c->logdir);
	if (!ret)
		ret = iolat_cli_check_not_input(cmd, "--output", c->output, c->file, *jf);
	if (!ret)
		ret = iolat_cli_check_not_input(cmd, "--log", c->logdir, c->file, *jf);
	return ret;
}
