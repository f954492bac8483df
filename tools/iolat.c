/* SPDX-License-Identifier: MIT */
/*
 * The iolat CLI dispatcher: `iolat run|sim|demo ...` hand over to the
 * subcommands in tools/cmd_*.c (tools/commands.h); `iolat help [keys|CMD]`
 * and `iolat --version` are answered here. Exit codes: 0 ok, 1 run failed,
 * 2 bad usage or bad job file.
 * Context: the process's main thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "job/jobfile.h"
#include "scen/scenarios.h"
#include "util/version.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{ "run",  iolat_cmd_run,  "run JOBFILE on a real file or block device through the controller" },
	{ "sim",  iolat_cmd_sim,  "run JOBFILE on a simulated device in virtual time (deterministic)" },
	{ "demo", iolat_cmd_demo, "the article's story, four modes side by side (--sim, --memleak, --cgroups)" },
	{ "calibrate", iolat_cmd_calibrate, "measure a disk's knee and suggest a latency target (about a minute)" },
	{ "status", iolat_cmd_status, "what iolatd is doing, per cgroup (--format=json|prometheus, --watch)" },
};

#define NR_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: iolat COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < NR_SUBCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(f, "  %-10s %s\n", "help", "this text; `iolat help keys` lists every job-file key");
	fprintf(f, "  %-10s %s\n", "help CMD", "the options of CMD (same as `iolat CMD --help`)");
	fprintf(f, "  %-13s %s\n", "-V, --version", "print the version");
	fprintf(f, "\nexit status: 0 ok, 1 run failed (I/O errors), 2 bad usage or bad job file,\n"
		   "128+N stopped by signal N (130: Ctrl-C)\n");
}

static const struct subcommand *find_subcommand(const char *name)
{
	for (size_t i = 0; i < NR_SUBCOMMANDS; i++)
		if (strcmp(subcommands[i].name, name) == 0)
			return &subcommands[i];
	return NULL;
}

static int print_keys(void)
{
	int need = iolat_jobfile_format_keys(NULL, 0);
	if (need < 0)
		return IOLAT_EXIT_FAILED;
	char *buf = malloc((size_t)need + 1);
	if (!buf) {
		fprintf(stderr, "iolat: out of memory\n");
		return IOLAT_EXIT_FAILED;
	}
	iolat_jobfile_format_keys(buf, (size_t)need + 1);
	fputs(buf, stdout);
	free(buf);
	return fflush(stdout) == 0 ? IOLAT_EXIT_OK : IOLAT_EXIT_FAILED;
}

static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return IOLAT_EXIT_OK;
	}
	if (strcmp(argv[1], "keys") == 0)
		return print_keys();
	const struct subcommand *sc = find_subcommand(argv[1]);
	if (!sc) {
		fprintf(stderr, "iolat help: unknown topic '%s' (try: keys, run, sim, demo, calibrate, status)\n", argv[1]);
		return IOLAT_EXIT_USAGE;
	}
	char *sub_argv[] = { (char *)sc->name, (char *)"--help", NULL };
	return sc->fn(2, sub_argv);
}

int main(int argc, char **argv)
{
	if (iolat_scenarios_register()) {   /* their job-file keys: before any job file */
		fprintf(stderr, "iolat: a scenario's job-file keys clash (a bug)\n");
		return IOLAT_EXIT_FAILED;
	}
	if (argc < 2) {
		usage(stderr);
		return IOLAT_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
		printf("iolat %s\n", IOLAT_VERSION_STRING);
		return IOLAT_EXIT_OK;
	}
	if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
		return cmd_help(argc - 1, argv + 1);
	const struct subcommand *sc = find_subcommand(cmd);
	if (!sc) {
		fprintf(stderr, "iolat: unknown command '%s'\n", cmd);
		usage(stderr);
		return IOLAT_EXIT_USAGE;
	}
	return sc->fn(argc - 1, argv + 1);
}
