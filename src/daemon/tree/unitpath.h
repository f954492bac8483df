/* SPDX-License-Identifier: MIT */
/*
 * unitpath.h - where a systemd unit's cgroup is when systemd does not say:
 * a unit's cgroup is a directory named exactly as the unit (web.service,
 * batch.slice) somewhere under the hierarchy's root (system.slice/web.service,
 * user.slice/user-1000.slice/user@1000.service/app.slice/x.service). Used when
 * `systemctl show` gives no answer in time (a busy host, a slow VM), so that a
 * group named by its unit is found all the same.
 * Context: any thread; reads directories only.
 */
#ifndef IOLATD_UNITPATH_H
#define IOLATD_UNITPATH_H

#include <stddef.h>

/* How deep below the root the search looks (a user's app slice is at 4). */
#define UNITPATH_MAX_DEPTH 5

/**
 * iolatd_unitpath_find() - the cgroup of unit @name below @root, as a path
 * relative to it ("system.slice/web.service") in @out.
 * Return: 0 (exactly one found); -ENOENT (none); -EEXIST (more than one:
 * ambiguous, nothing chosen); -ENAMETOOLONG; -EINVAL (not a unit name).
 */
int iolatd_unitpath_find(const char *root, const char *name, char *out, size_t len);

#endif /* IOLATD_UNITPATH_H */
