/* SPDX-License-Identifier: MIT */
/*
 * actuate.h - one cgroup's limits on one device, as iolatd keeps them: the
 * administrator's own limits (read before the first write, and re-read
 * whenever the file no longer holds what iolatd wrote), what is written
 * (the minimum of the administrator's and the controller's, kind by kind),
 * when, and for how long a limit has been in force. Writes are rate-limited
 * and skipped when every value moved by less than an eighth.
 *
 * A lowering is primed. Linux 6.1's block throttle (and every kernel with
 * the same code) carries, at each write of a group's limits while it has
 * I/O queued, what the old limits allowed since the throttle's current
 * slice began minus what they let through, into an unsigned field: a lower
 * limit written at the wrong moment makes that carry wrap, and the group is
 * not limited at all until it pauses. The carry's deficit is at most the old
 * limit times the time left to the throttle's next slice boundary; slices
 * are 100 ms long and start again at every write. So a write that lowers
 * any limit, or removes ours, first writes the values in force again (the
 * prime, a new slice begins), and the lower values follow between
 * ACT_PRIME_NS and ACT_PRIME_LATE_NS later, before the slice's end, with no
 * kind lowered below half of its value in force per write: the deficit is
 * then under what the new limit allows in a slice. A commit due later than
 * that is primed again. Raising a limit is written at once. Measured on
 * Debian 12's 6.1 kernel: docs/iolatd.md, "Limits that hold on 6.1".
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
	bool primed;              /* a lowering waits for its commit (act_commit_due) */
	bool release_due;         /* ... and it is the release (restore admin) */
	struct cg_limits next;    /* the values it commits */
	uint64_t primed_ns;       /* when the prime went out */
	unsigned primes;          /* primes written, in all */
};

#define ACT_MIN_INTERVAL_NS 100000000ull /* at most one decision per 100 ms */
#define ACT_PRIME_NS 60000000ull         /* a primed lowering commits this long after... */
#define ACT_PRIME_LATE_NS 90000000ull    /* ...and not later than this (before 96 ms) */

/* Where the limit goes. */
void act_init(struct act *a, const char *cgdir, dev_t dev);

/*
 * act_apply() - bring the file to @want (all 0: nothing of ours), at @now.
 * With @dry_run nothing is written but the bookkeeping is the same.
 * Return: 1 when a write happened (or would have; a prime counts), 0 when
 * nothing changed, -errno when the write failed (the cgroup may be gone).
 * @before_write, when not NULL, is called with the new bookkeeping before
 * the write goes out (to record it on disk first).
 */
int act_apply(struct act *a, const struct cgfs_root *root, const struct cg_limits *want,
	      uint64_t now, bool dry_run, void (*before_write)(void *ctx), void *ctx);

/*
 * act_commit_due() - a primed lowering whose time has come is written (one
 * that is late is primed again). Call it often: every 20 ms or so.
 * Return as act_apply (0: nothing due).
 */
int act_commit_due(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run,
		   void (*before_write)(void *ctx), void *ctx);

/* Remove what we wrote at once (not primed), restoring the administrator's limits. Return as act_apply. */
int act_release(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run);

/* Time under a limit of ours up to @now. */
uint64_t act_limited_ns(const struct act *a, uint64_t now);

/* The minimum of two limits where 0 means none. */
uint64_t act_min_limit(uint64_t a, uint64_t b);

#endif
