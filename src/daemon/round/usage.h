/* SPDX-License-Identifier: MIT */
/*
 * usage.h - what each cgroup did on each controlled disk, cgroup by cgroup
 * (not node by node): bytes and requests per direction this period and
 * their smoothed rates. On cgroup v1 a clamped node's budget is divided
 * among the cgroups below it by these figures (placement.h), since the v1
 * block throttle binds only the cgroup a bio belongs to. Entries are made at
 * a cgroup's first completion and dropped after USAGE_IDLE_NS without I/O.
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_USAGE_H
#define IOLAT_DAEMON_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/sys/cgroupfs.h"

#define USAGE_SLOTS 4096                  /* a power of two */
#define USAGE_IDLE_NS 10000000000ull      /* dropped after 10 s without I/O */
#define USAGE_ACTIVE_NS 3000000000ull     /* carries a limit while it did I/O within 3 s */

struct usage_ent {
	uint64_t ino;                     /* 0: free slot */
	unsigned dev;                     /* the daemon's device index */
	uint64_t cur_bytes[2], cur_ios[2];/* this period, [read, write] */
	double rate[CG_NR_LIMITS];        /* smoothed per second, by limit kind */
	uint64_t last_io_ns[2];           /* last completion per direction, 0: never */
	struct cg_limits alloc;           /* its part of a budget at the last round, 0: none */
	bool carrying;                    /* alloc is set */
};

struct usage {
	struct usage_ent slot[USAGE_SLOTS];
	unsigned used;
};

/* One completion of cgroup @ino on device @dev. */
void iolatd_usage_add(struct usage *u, uint64_t ino, unsigned dev, bool write, uint64_t bytes, uint64_t now);

/* The entry of @ino on @dev, or NULL. */
struct usage_ent *iolatd_usage_find(struct usage *u, uint64_t ino, unsigned dev);

/*
 * End a period of @period_ns on @dev: this period's counts become rates
 * (an EMA, a quarter per period), idle entries go.
 */
void iolatd_usage_roll(struct usage *u, unsigned dev, uint64_t period_ns, uint64_t now);

/* Did @e do I/O in direction @dir (0 read, 1 write) within @within_ns of @now? */
bool iolatd_usage_recent(const struct usage_ent *e, int dir, uint64_t now, uint64_t within_ns);

#endif
