/* SPDX-License-Identifier: MIT */
/*
 * exempt.h - the groups iolatd never limits (exempt.c): its own cgroup,
 * systemd-journald.service and the configuration's exempt=.
 * Context: the daemon's one thread (pure functions besides the read of
 * /proc/self/cgroup).
 */
#ifndef IOLAT_DAEMON_EXEMPT_H
#define IOLAT_DAEMON_EXEMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/config/config.h"

#define IOLATD_JOURNALD_UNIT "systemd-journald.service"

/* Why a node is exempt (iolatd_exempt_why); EXEMPT_NONE: it is not. */
enum iolatd_exempt {
	EXEMPT_NONE = 0,
	EXEMPT_SELF,       /* iolatd's own cgroup */
	EXEMPT_JOURNALD,   /* the system's logger, systemd-journald.service */
	EXEMPT_CONFIG,     /* named by exempt= */
};

/* "self", "journald", "config" (the status file's reason=); "-" for none. */
const char *iolatd_exempt_name(enum iolatd_exempt why);

/*
 * iolatd_exempt_self() - the calling process's cgroup in the hierarchy of
 * cgroup @version (2: the "0::" line; 1: the line whose controllers include
 * blkio) from @proc_file (/proc/self/cgroup's format), relative to the
 * hierarchy's root, into @out ("" at the root, or when not found).
 * Return: 0, or -errno when the file cannot be read (@out "").
 */
int iolatd_exempt_self(const char *proc_file, int version, char *out, size_t len);

/*
 * iolatd_exempt_why() - is the cgroup @rel (relative to the root) exempt
 * under @cfg, with iolatd's own cgroup at @self ("" none)? A configured
 * group or a parent of one never is. An entry with a '/' is a path; one
 * without names every cgroup of that last component (a unit's).
 */
enum iolatd_exempt iolatd_exempt_why(const struct iolatd_config *cfg, const char *self, const char *rel);

/* Is @rel a proper parent of @below ("a" of "a/b")? */
bool iolatd_exempt_above(const char *rel, const char *below);

#endif
