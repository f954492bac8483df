/* SPDX-License-Identifier: MIT */
/*
 * state.h - what iolatd wrote, recorded under its run directory
 * (/run/iolatd by default), so that a daemon that restarts after a crash or
 * SIGKILL first puts back every limit it had written: for each cgroup and
 * device, the administrator's limits found before and the limits written.
 * The file is replaced atomically (write a temporary, rename) before each
 * write to cgroupfs, so a record always exists for a limit in force.
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_STATE_H
#define IOLAT_DAEMON_STATE_H

#include <stddef.h>
#include <sys/types.h>

#include "daemon/sys/cgroupfs.h"

struct state_rec {
	char cgdir[IOLATD_PATH_MAX];  /* absolute */
	dev_t dev;
	struct cg_limits admin;       /* found before the first write; 0: none */
	struct cg_limits written;     /* in force now; 0: not written */
	struct cg_limits before;      /* recorded ahead of a write: what the file held until it
				       * lands (a kill between the two leaves that); 0: none */
};

#define STATE_FILE "limits"

/* Replace the records with @recs. Return: 0 or -errno. An empty set removes the file. */
int iolatd_state_save(const char *run_dir, const struct state_rec *recs, unsigned n);

/*
 * Read the records (at most @max). Return: the number read, 0 when there is
 * no file, -EINVAL for a damaged file (@why says where), -errno.
 */
int iolatd_state_load(const char *run_dir, struct state_rec *recs, unsigned max, char *err, size_t errlen);

/*
 * iolatd_state_cleanup() - put back every recorded limit that is still the one
 * written, or the one it replaced when the daemon died between recording a
 * write and making it (a limit changed since by someone else is left alone), restoring
 * the administrator's value, then remove the record file. A cgroup that is
 * gone is skipped. Return: the number of limits restored, or -errno when
 * the records cannot be read (the file is then kept).
 */
int iolatd_state_cleanup(const char *run_dir, const struct cgfs_root *root, char *err, size_t errlen);

#endif
