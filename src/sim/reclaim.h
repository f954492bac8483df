/* SPDX-License-Identifier: MIT */
/*
 * reclaim.h - which unit reclaim takes next: the group (memory.low and the
 * overage rule), the list (swappiness), and the unit (a CLOCK hand).
 *
 * Group: the live leaf groups with something reclaimable are candidates.
 * Those above their memory.low weigh their overage (usage - low), as the
 * kernel scales each cgroup's scan target by its unprotected share; when no
 * candidate is above its low, protection is off and each weighs its usage
 * (the kernel's second pass that ignores memory.low). One group is drawn
 * with probability proportional to its weight.
 * List: anon weighs nr_anon x swappiness, file nr_file x (200 - swappiness)
 * (the kernel's scan balance); anon only while a swap slot is free.
 * Unit: from the head of the list, a referenced unit loses its bit and goes
 * to the tail (second chance); the first unreferenced one is the victim.
 * Context: one simulation thread.
 */
#ifndef IOLAT_SIM_RECLAIM_H
#define IOLAT_SIM_RECLAIM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/mem.h"
#include "util/rng.h"

struct iolat_reclaim_cfg {
	unsigned swappiness;    /* 0..200; 60 as the kernel's default */
	bool honour_low;        /* false: memory.low ignored (the stock machine) */
};

/**
 * iolat_reclaim_pick_group() - the group reclaim takes from next, or -1 when
 * no live leaf group has anything reclaimable.
 */
int iolat_reclaim_pick_group(const struct iolat_mem *m, const struct iolat_reclaim_cfg *c,
			     struct iolat_rng *rng);

/**
 * iolat_reclaim_pick() - choose and take the next victim off its LRU list:
 * its unit id, or IOLAT_MEM_NONE when nothing is reclaimable (then the
 * machine is out of memory, unless I/O in flight will free frames). The
 * caller drops a file unit or swaps an anon unit out. Counts it as scanned.
 */
uint32_t iolat_reclaim_pick(struct iolat_mem *m, const struct iolat_reclaim_cfg *c,
			    struct iolat_rng *rng);

#endif /* IOLAT_SIM_RECLAIM_H */
