/* SPDX-License-Identifier: MIT */
/*
 * cli_output.c - checks and opens the destinations of iolat run/sim (see
 * cli_output.h). The checks use stat(2) and access(2) only: nothing is
 * created before the run.
 * Context: the CLI's main thread.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli_output.h"
#include "commands.h"
#include "job/jobfile.h"
#include "job/preflight.h"
#include "job/report.h"

static int refuse(const char *cmd, const char *opt, const char *path, const char *why)
{
	fprintf(stderr, "iolat %s: %s %s: %s\n", cmd, opt, path, why);
	return IOLAT_EXIT_USAGE;
}

/* @path is on a read-only filesystem (which access() does not see for root). */
static bool read_only(const char *path)
{
	struct statvfs vfs;

	return statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

/* A new entry @path can be made: its parent is a directory we may write. */
static int check_parent(const char *cmd, const char *opt, const char *path)
{
	char dir[PATH_MAX];
	struct stat st;

	iolat_path_dir(path, dir, sizeof(dir));
	if (stat(dir, &st) < 0)
		return refuse(cmd, opt, path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return refuse(cmd, opt, path, "its parent is not a directory");
	if (access(dir, W_OK | X_OK) < 0 || read_only(dir))
		return refuse(cmd, opt, path, "cannot create it: its directory is not writable");
	return 0;
}

int iolat_cli_check_output(const char *cmd, const char *path)
{
	struct stat st;

	if (!path)
		return 0;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? check_parent(cmd, "--output", path) :
					 refuse(cmd, "--output", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return refuse(cmd, "--output", path, "is a directory (expected a file)");
	if (access(path, W_OK) < 0 || read_only(path))
		return refuse(cmd, "--output", path, "not writable");
	return 0;
}

int iolat_cli_check_logdir(const char *cmd, const char *dir)
{
	struct stat st;

	if (!dir)
		return 0;
	if (stat(dir, &st) < 0)
		return errno == ENOENT ? check_parent(cmd, "--log", dir) :
					 refuse(cmd, "--log", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return refuse(cmd, "--log", dir, "not a directory");
	if (access(dir, W_OK | X_OK) < 0 || read_only(dir))
		return refuse(cmd, "--log", dir, "not writable");
	return 0;
}

FILE *iolat_cli_open_output(const char *cmd, const char *path)
{
	FILE *f;

	if (!path)
		return stdout;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "iolat %s: --output %s: %s\n", cmd, path, strerror(errno));
	return f;
}

int iolat_cli_close_output(FILE *f)
{
	int bad;

	if (!f)
		return -EIO;
	bad = ferror(f) || fflush(f);
	if (f != stdout)
		bad |= fclose(f) != 0;
	return bad ? -EIO : 0;
}

int iolat_cli_write_log(const char *cmd, const struct iolat_report *rep, const char *dir)
{
	char err[IOLAT_JOBFILE_ERR_MAX];
	unsigned flags = 0;
	int ret;

	ret = iolat_report_write_log(rep, dir, &flags, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iolat %s: --log %s: %s\n", cmd, dir, err[0] ? err : strerror(-ret));
		return IOLAT_EXIT_FAILED;
	}
	if (flags & IOLAT_LOG_NO_GNUPLOT)
		fprintf(stderr, "iolat %s: gnuplot not found: CSV written to %s, plots skipped\n",
			cmd, dir);
	else if (flags & IOLAT_LOG_PLOT_FAILED)
		fprintf(stderr, "iolat %s: gnuplot failed: CSV written to %s, no plots\n", cmd, dir);
	return 0;
}
