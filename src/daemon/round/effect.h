/* SPDX-License-Identifier: MIT */
/*
 * effect.h - does a limit of ours hold? Per node and device, the node's
 * whole subtree's I/O of each second is compared with what its limits
 * allowed over that second (the sum of the parts written, period by
 * period), in bytes (the throttle counts bios against IOPS limits, the
 * measurement sees requests). A limit that lets through more than
 * EFFECT_OVER times what it allows (plus a second at the floor, for noise) for EFFECT_OVER_SECS
 * seconds in a row is not holding: it is reported, with the likely cause,
 * and while it does not hold the limits are not tightened further. It holds
 * again after EFFECT_OK_SECS seconds within.
 * Also here: the use_delay the daemon acts on. The core's use_delay keeps
 * climbing as long as the protected group misses; below the floor more
 * steps change nothing but the time it takes to come back. So the daemon
 * follows the core's steps, up only while its limit holds and is above the
 * floor, down at once; a climb it did not follow is not paid back later
 * (issue 20: a writer held at the floor for 20 s after a run whose limit had
 * no effect had left use_delay at 48).
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_EFFECT_H
#define IOLAT_DAEMON_EFFECT_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/round/ratelimit.h"
#include "daemon/sys/cgroupfs.h"

#define EFFECT_OVER 1.5
#define EFFECT_OVER_SECS 3
#define EFFECT_OK_SECS 2

struct effect {
	double used[CG_NR_LIMITS], allowed[CG_NR_LIMITS]; /* this second */
	unsigned periods, limited[CG_NR_LIMITS];          /* periods this second, of them limited */
	double secs;                                      /* and their length summed */
	uint64_t last[CG_NR_LIMITS];                      /* the limit in force the period before */
	unsigned over_secs, ok_secs;
	bool ineffective;
	int over_kind;            /* the kind found over, when ineffective */
	double over_rate, allowed_rate; /* its use and its allowance, per second */
	uint64_t ineffective_secs;/* seconds spent not holding, in all */
	int core_delay, delay;    /* the core's use_delay last seen; the one acted on */
};

/* A period of @period_ns ended: the subtree did @s under @in_force (0 kinds: none). */
void iolatd_effect_period(struct effect *e, const struct rate_sample *s, const struct cg_limits *in_force,
		   uint64_t period_ns);

/* A second ended. Return: 1 the limit stopped holding, -1 it holds again, 0 no change. */
int iolatd_effect_second(struct effect *e, uint64_t min_bps, uint64_t min_iops);

/* The use_delay to act on, given the core's and whether the last limits were at the floor. */
int iolatd_effect_delay(struct effect *e, int core_use_delay, bool at_floor);

/* Forget the episode (the node is released). */
void iolatd_effect_reset(struct effect *e);

#endif
