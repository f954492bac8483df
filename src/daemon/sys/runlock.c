/* SPDX-License-Identifier: MIT */
/*
 * runlock.c - the run directory's lock (runlock.h).
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "daemon/config/config.h"
#include "daemon/sys/runlock.h"

void iolatd_runlock_note_pid(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n)
		return; /* the lock holds without its pid; only the message of a second start is poorer */
}

int iolatd_runlock_take(const char *run_dir, char *err, size_t errlen)
{
	char path[IOLATD_PATH_MAX + 16], pid[32] = "";
	int fd, ret;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", run_dir, RUNLOCK_FILE);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "run directory %s: cannot open %s: %s", run_dir, path, strerror(-ret));
		return ret;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		iolatd_runlock_note_pid(fd);
		return fd;
	}
	ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
	n = pread(fd, pid, sizeof(pid) - 1, 0);
	pid[n > 0 ? n : 0] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
	close(fd);
	if (ret == -EBUSY)
		snprintf(err, errlen, "run directory %s is in use by iolatd pid %s (%s): one iolatd per run "
			 "directory (give another --run-dir to run a second)", run_dir, *pid ? pid : "?", path);
	else
		snprintf(err, errlen, "run directory %s: cannot lock %s: %s", run_dir, path, strerror(-ret));
	return ret;
}
