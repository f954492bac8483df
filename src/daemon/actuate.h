/* SPDX-License-Identifier: MIT */
/*
 * actuate.h - one cgroup's limits on one device, as iolatd keeps them: the
 * administrator's own limits (read before the first write, and re-read
 * whenever the file no longer holds what iolatd wrote), what is written
 * (the minimum of the administrator's and the controller's, kind by kind),
 * when, and for how long a limit has been in force. Writes are rate-limited
 * and skipped when every value moved by less than an eighth.
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_ACTUATE_H
#define IOLAT_DAEMON_ACTUATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/cgroupfs.h"

struct act {
	char cgdir[IOLATD_PATH_MAX];
	dev_t dev;
	bool active;              /* a limit of ours is in force */
	struct cg_limits admin;   /* the administrator's, valid while active */
	struct cg_limits written; /* what is in the file now, as written */
	uint64_t last_write_ns;
	uint64_t active_since_ns; /* when the current limit episode began */
	uint64_t limited_ns;      /* total time under a limit of ours, closed episodes */
	unsigned writes, write_errors;
	int last_error;           /* -errno of the last failed write, 0 */
};

#define ACT_MIN_INTERVAL_NS 100000000ull /* at most one write per 100 ms */

/* Where the limit goes. */
void iolatd_act_init(struct act *a, const char *cgdir, dev_t dev);

/*
 * iolatd_act_apply() - bring the file to @want (all 0: nothing of ours), at @now.
 * With @dry_run nothing is written but the bookkeeping is the same.
 * Return: 1 when a write happened (or would have), 0 when nothing changed,
 * -errno when the write failed (the cgroup may be gone).
 * @before_write, when not NULL, is called with the new bookkeeping before
 * the write goes out (to record it on disk first).
 */
int iolatd_act_apply(struct act *a, const struct cgfs_root *root, const struct cg_limits *want,
	      uint64_t now, bool dry_run, void (*before_write)(void *ctx), void *ctx);

/* Remove what we wrote, restoring the administrator's limits. Return as iolatd_act_apply. */
int iolatd_act_release(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run);

/* Time under a limit of ours up to @now. */
uint64_t iolatd_act_limited_ns(const struct act *a, uint64_t now);

/* The minimum of two limits where 0 means none. */
uint64_t iolatd_act_min_limit(uint64_t a, uint64_t b);

#endif
