/* SPDX-License-Identifier: MIT */
/*
 * placement.h - where a clamped node's limits are written. On cgroup v2,
 * io.max is hierarchical: the node's own cgroup takes the whole budget. On
 * cgroup v1 the blkio throttle is flat (a limit binds only the bios of that
 * very cgroup, not its children's), so the budget is divided among the
 * cgroups at or below the node that do I/O, its "carriers", kind by kind:
 * a carrier using less than 80 % of its last part gets what it uses plus a
 * half; the rest is shared equally by those that use their part (a new
 * carrier counts as one), each at least a half of an equal share between
 * them; when none uses its part, the whole budget is shared in proportion
 * to use. Each part is at least the floor (min_bps, min_iops). So the parts
 * add up to the budget, follow use as it moves, and a carrier held by its
 * part can grow back.
 * Pure arithmetic. Context: any thread.
 */
#ifndef IOLAT_DAEMON_PLACEMENT_H
#define IOLAT_DAEMON_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/sys/cgroupfs.h"

#define PLACE_MAX_CARRIERS 256 /* more are not limited (status says so) */

struct carrier {
	double rate[CG_NR_LIMITS];    /* what it did, per second, by kind */
	struct cg_limits last;        /* its part at the last round, 0: none */
	bool seen[2];                 /* did I/O recently: [read, write] */
	struct cg_limits part;        /* out: its part now, 0: no limit */
};

/*
 * iolatd_place_split() - divide @budget (0 in a kind: no limit of that kind) among
 * @n carriers (at most PLACE_MAX_CARRIERS); a carrier gets a kind only for a direction it was seen doing.
 * @sum (optional) receives the parts' sums, kind by kind.
 */
void iolatd_place_split(const struct cg_limits *budget, struct carrier *c, unsigned n,
		 uint64_t min_bps, uint64_t min_iops, struct cg_limits *sum);

#endif
