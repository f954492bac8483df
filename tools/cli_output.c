/* SPDX-License-Identifier: MIT */
/*
 * cli_output.c - checks and opens the destinations of iolat run/sim (see
 * cli_output.h). The checks use stat(2) and access(2) only: nothing is
 * created before the run.
 * Context: the CLI's main thread.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli_output.h"
#include "commands.h"
#include "job/jobfile.h"
#include "run/preflight.h"
#include "report/report.h"

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
	int err = 0;

	if (!f)
		return -EIO;
	if (fflush(f) || ferror(f))
		err = errno ? -errno : -EIO;
	if (f != stdout && fclose(f) && !err)
		err = errno ? -errno : -EIO;
	return err;
}

/* @path made absolute without resolving its last component: realpath(dir) + "/" + base. */
static bool canonical(const char *path, char *out, size_t len)
{
	char a[PATH_MAX], b[PATH_MAX], dir[PATH_MAX];

	snprintf(a, sizeof(a), "%s", path);
	snprintf(b, sizeof(b), "%s", path);
	if (!realpath(dirname(a), dir))
		return false;
	snprintf(out, len, "%s/%s", strcmp(dir, "/") ? dir : "", basename(b));
	return true;
}

/* Are @a and @b the same file (or block device), existing or yet to be made? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char ca[PATH_MAX + NAME_MAX], cb[PATH_MAX + NAME_MAX];

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return (sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino) ||
		       (S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode) && sa.st_rdev == sb.st_rdev);
	return canonical(a, ca, sizeof(ca)) && canonical(b, cb, sizeof(cb)) && !strcmp(ca, cb);
}

int iolat_cli_check_not_input(const char *cmd, const char *opt, const char *path, const char *jobfile,
			      const struct iolat_jobfile *jf)
{
	char why[PATH_MAX + 96];

	if (!path)
		return 0;
	if (jobfile && same_file(path, jobfile))
		return refuse(cmd, opt, path, "is the job file: the run would overwrite its own input");
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const char *fn = jf->jobs[i].filename;

		if (!fn || !same_file(path, fn))
			continue;
		snprintf(why, sizeof(why), "is job '%s''s %s %s: the run would overwrite its own data",
			 jf->jobs[i].name, fn[0] == '/' && !strncmp(fn, "/dev/", 5) ? "device" : "filename", fn);
		return refuse(cmd, opt, path, why);
	}
	return 0;
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
