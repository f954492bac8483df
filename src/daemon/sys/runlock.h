/* SPDX-License-Identifier: MIT */
/*
 * runlock.h - one iolatd per run directory: RUN_DIR/lock, locked (flock,
 * exclusive) for the daemon's life and holding its pid. A second daemon on
 * the same directory would take the first one's limits for an
 * administrator's and leave them behind; it is refused, naming the holder.
 * The lock goes with the process (crash and SIGKILL included).
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_RUNLOCK_H
#define IOLAT_DAEMON_RUNLOCK_H

#include <stddef.h>

#define RUNLOCK_FILE "lock"

/* Take the lock of @run_dir. Return: the lock's fd, -EBUSY (held: @err names the pid) or -errno. */
int iolatd_runlock_take(const char *run_dir, char *err, size_t errlen);

/* Write this process's pid into the lock (after a fork, e.g. daemon()). */
void iolatd_runlock_note_pid(int fd);

#endif
