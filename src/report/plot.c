/* SPDX-License-Identifier: MIT */
/*
 * plot.c - gnuplot run on a script, without a shell (plot.h).
 * Context: any thread of a tool; the child makes async-signal-safe calls only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/plot.h"

/* Full path of an executable @name on PATH, or false. */
static bool find_on_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (!path || !*path)
		return false;
	while (*path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);

		if (n && (size_t)snprintf(out, len, "%.*s/%s", (int)n, path, name) < len &&
		    access(out, X_OK) == 0)
			return true;
		path += n + (end ? 1 : 0);
	}
	return false;
}

int iolat_plot_run(const char *dir, const char *script)
{
	char gnuplot[4096];
	int status;
	pid_t pid;

	if (!find_on_path("gnuplot", gnuplot, sizeof(gnuplot)))
		return -ENOENT;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (chdir(dir) == 0)
			execl(gnuplot, "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}
