/* SPDX-License-Identifier: MIT */
/*
 * pace.c - the pace gate of IOLAT_CTL_ADAPTIVE: below depth 1 a throttled
 * group's submissions are spaced so that its bytes per second stay at the
 * rate of its rung (adaptive.c sets rung and rate). iocost-style virtual
 * time: a level's next_issue is when its next I/O may go; an I/O that goes
 * moves it on by bytes / rate from max(next_issue, now), so an idle group
 * builds no credit and one I/O of any size always fits (debt <= one I/O).
 * The gate also counts the bytes it lets through at depth 1: the first
 * rung's rate is measured from them.
 *
 * Context: any thread, lock-free (loads, and a CAS per paced level).
 */
#include "core/ctl.h"

#define PACE_MIN_BYTES 512u  /* an I/O of unknown size costs this much */

uint64_t iolat_pace_rate(uint64_t base_bps, uint32_t rung)
{
	uint64_t r = base_bps;

	/* 861/1024 = 0.841 ~ 2^(-1/4): four rungs halve the rate. */
	for (uint32_t i = 0; i < rung; i++)
		r = r / 1024 * 861 + r % 1024 * 861 / 1024;
	return r ? r : 1;
}

static uint64_t pace_cost_ns(uint64_t bytes, uint64_t bps)
{
	if (bytes < PACE_MIN_BYTES)
		bytes = PACE_MIN_BYTES;
	if (bytes > UINT64_MAX / NSEC_PER_SEC)
		return UINT64_MAX / 2;
	return bytes * NSEC_PER_SEC / bps;
}

/* Let the I/O through at @lvl: count it, move the virtual time on. */
static void pace_charge(struct iolat_group *lvl, uint64_t bytes, uint64_t now)
{
	struct iolat_adapt_child *a = &lvl->ad;
	uint64_t bps = atomic_load_explicit(&a->pace_bps, memory_order_relaxed);
	uint64_t ni, cost;

	atomic_fetch_add_explicit(&a->cal_bytes, bytes, memory_order_relaxed);
	if (!bps)
		return;
	cost = pace_cost_ns(bytes, bps);
	ni = atomic_load_explicit(&a->next_issue, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&a->next_issue, &ni,
						      (ni > now ? ni : now) + cost,
						      memory_order_relaxed, memory_order_relaxed))
		;
}

/* The slow part: some level is at depth 1 (and maybe paced). */
static uint64_t pace_due_slow(struct iolat_group *g, uint64_t bytes, uint64_t now)
{
	struct iolat_group *lvl, *worst = NULL;
	uint64_t wait = 0;

	for (lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl)) {
		struct iolat_adapt_child *a = &lvl->ad;
		uint64_t ni;

		if (!atomic_load_explicit(&a->pace_watch, memory_order_relaxed) ||
		    !atomic_load_explicit(&a->pace_bps, memory_order_relaxed))
			continue;
		ni = atomic_load_explicit(&a->next_issue, memory_order_relaxed);
		if (ni > now && ni - now > wait) {
			wait = ni - now;
			worst = lvl;
		}
	}
	if (worst) {
		atomic_fetch_add_explicit(&worst->ad.paced_ios, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&worst->ad.paced_ns, wait, memory_order_relaxed);
		return wait;
	}
	for (lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl))
		if (atomic_load_explicit(&lvl->ad.pace_watch, memory_order_relaxed))
			pace_charge(lvl, bytes, now);
	return 0;
}

uint64_t iolat_group_pace_due(struct iolat_group *g, uint64_t bytes, uint64_t now_ns)
{
	/* The common case: no group of this controller is at depth 1. */
	if (__builtin_expect(!g || !atomic_load_explicit(&g->ctl->pace_watchers,
							 memory_order_relaxed), 1))
		return 0;
	for (struct iolat_group *lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl))
		if (__builtin_expect(atomic_load_explicit(&lvl->ad.pace_watch,
							  memory_order_relaxed) != 0, 0))
			return pace_due_slow(g, bytes, now_ns);
	return 0;
}
