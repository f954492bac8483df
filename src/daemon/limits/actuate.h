/* SPDX-License-Identifier: MIT */
/*
 * actuate.h - one cgroup's limits on one device, as iolatd keeps them: the
 * administrator's own limits (read before the first write, and re-read
 * whenever the file no longer holds what iolatd wrote), what is written
 * (the minimum of the administrator's and the controller's, kind by kind),
 * when, and for how long a limit has been in force. Writes are rate-limited
 * and skipped when every value moved by less than an eighth (2 % when the
 * caller sets band_pm so: the adaptive mode).
 *
 * Limits that hold on Linux 6.1 (and every kernel with its block throttle):
 * at each write of a group's limits while it has I/O queued, the throttle
 * carries what the old limits allowed since its current 100 ms slice began
 * minus what they let through over to the new ones, in an unsigned field;
 * when that carry is below minus what the new limit allows in a slice, the
 * sum wraps and the group runs unlimited for a slice, and every write made
 * before it has paid that debt back wraps again (docs/iolatd.md, "Limits
 * that hold on 6.1"). So:
 *  - a write that lowers a kind is primed: the values in force are written
 *    again (a new slice begins), the lower ones follow between ACT_PRIME_NS
 *    and ACT_PRIME_LATE_NS later, before that slice ends, no kind below half
 *    its value per write (the deficit is then at most what the old limit
 *    allows in the rest of the slice: under what the new one allows in a
 *    slice); a larger drop goes on by halves, each write the prime of the
 *    next; a commit due later is primed again;
 *  - a kind that appears (none in force) first gets ACT_OPEN_BPS or
 *    ACT_OPEN_IOPS, which bind nothing, and its value ACT_FOLD_NS later: the
 *    slice that passes folds an old carry (of an earlier episode, another
 *    daemon) into what was dispatched, and nothing is queued at the write;
 *  - every value of ours is a multiple of ACT_ROUND: what a limit allows in
 *    a slice (a tenth of it) is then a whole number, and rewriting or raising
 *    a limit cannot leave a carry below minus one slice's allowance;
 *  - raising, and removing ours, is written at once.
 * All of that only where the kernel needs it (struct act's staged, set from
 * the running kernel's BTF: iolatd_bpf_throttle_carry()); elsewhere every
 * value is written at once (still a multiple of ACT_ROUND).
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_ACTUATE_H
#define IOLAT_DAEMON_ACTUATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/sys/cgroupfs.h"

struct act {
	char cgdir[IOLATD_PATH_MAX];
	dev_t dev;
	bool active;              /* a limit of ours is in force */
	struct cg_limits admin;   /* the administrator's, valid while active */
	struct cg_limits written; /* what is in the file now, as written */
	struct cg_limits before;  /* while a write is recorded ahead of it: what the file holds */
	uint64_t last_write_ns;
	uint64_t active_since_ns; /* when the current limit episode began */
	uint64_t limited_ns;      /* total time under a limit of ours, closed episodes */
	unsigned writes, write_errors;
	int last_error;           /* -errno of the last failed write, 0 */
	enum act_pending { ACT_NONE, ACT_LOWER, ACT_FOLD } pending; /* what iolatd_act_commit_due() writes */
	struct cg_limits next;    /* the values it commits */
	unsigned opened;          /* ACT_FOLD: the kinds opened (bit per kind) */
	uint64_t primed_ns;       /* when the prime (or the opening) went out */
	unsigned primes, opens;   /* primes and openings written, in all */
	bool staged;              /* lowerings primed, kinds opened (6.1's throttle); else written at once */
	uint32_t band_pm;         /* dead band: changes under this (per mille) are not written; 0: 125 */
};

#define ACT_MIN_INTERVAL_NS 100000000ull /* at most one decision per 100 ms */
#define ACT_PRIME_NS 60000000ull         /* a primed lowering commits this long after... */
#define ACT_PRIME_LATE_NS 90000000ull    /* ...and not later than this (before 96 ms) */
#define ACT_FOLD_NS 150000000ull         /* an opened kind gets its value this long after */
#define ACT_OPEN_BPS (1ull << 40)        /* 1 TiB/s */
#define ACT_OPEN_IOPS (1ull << 24)
#define ACT_ROUND 10
#define ACT_BAND_PM 125u                 /* the dead band: a change under 1/8 is not written ... */
#define ACT_BAND_ADAPTIVE_PM 20u         /* ... under 2 % in the adaptive mode (each step counts) */

/* Where the limit goes; staged (6.1's rules) unless set otherwise after. */
void iolatd_act_init(struct act *a, const char *cgdir, dev_t dev);

/*
 * iolatd_act_apply() - bring the file to @want (all 0: nothing of ours), at @now.
 * With @dry_run nothing is written but the bookkeeping is the same.
 * Return: 1 when a write happened (or would have; a prime counts), 0 when
 * nothing changed, -errno when the write failed (the cgroup may be gone).
 * @before_write, when not NULL, is called with the new bookkeeping before
 * the write goes out (to record it on disk first).
 */
int iolatd_act_apply(struct act *a, const struct cgfs_root *root, const struct cg_limits *want,
	      uint64_t now, bool dry_run, void (*before_write)(void *ctx), void *ctx);

/*
 * iolatd_act_commit_due() - a primed lowering or an opened kind whose time has come
 * is written (a lowering that is late is primed again). Call it often: every
 * 20 ms or so. Return as iolatd_act_apply (0: nothing due).
 */
int iolatd_act_commit_due(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run,
		   void (*before_write)(void *ctx), void *ctx);

/* Remove what we wrote, at once, restoring the administrator's limits. Return as iolatd_act_apply. */
int iolatd_act_release(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run);

/* Time under a limit of ours up to @now. */
uint64_t iolatd_act_limited_ns(const struct act *a, uint64_t now);

/* The minimum of two limits where 0 means none. */
uint64_t iolatd_act_min_limit(uint64_t a, uint64_t b);

#endif
