/* SPDX-License-Identifier: MIT */
/*
 * pace.c - the pace gate of IOLAT_CTL_ADAPTIVE. While a parent has an
 * episode its throttlable children are watched (adaptive.c): the gate counts
 * the bytes and I/Os each watched level lets through (the parent's knee
 * seeker reads the counts), and spaces the submissions of each level that
 * has a rate: iocost-style virtual time, a level's next_issue is when its
 * next I/O may go; an I/O that goes moves it on by its cost, max(bytes / bps,
 * 1 / iops), from max(next_issue, now - cost), so an idle group builds a
 * credit of one I/O at most (two may go back to back), a caller that woke up
 * to one cost late loses nothing, and one I/O of any size always fits (debt
 * <= one I/O): at rate R with I/Os of B bytes one I/O leaves every B/R,
 * whatever the caller's queue depth.
 *
 * A level is not paced while the group it protects (its parent's asking
 * group) has closed no window for 250 ms past its window length: the
 * protected group is idle, the throttle has no reason (wbt's close_io); the
 * tick then releases the episode. Not while it has I/O outstanding: that is
 * a stall behind the siblings, not idleness (stall.c).
 *
 * Context: any thread, lock-free (loads, adds, and a CAS per paced level).
 */
#include "core/ctl.h"

#define PACE_MIN_BYTES 512u                 /* an I/O of unknown size costs this much */
#define PACE_IDLE_NS   (250 * NSEC_PER_MSEC) /* the protected group idle this long */

static uint64_t pace_cost_ns(uint64_t bytes, uint64_t bps, uint64_t iops)
{
	uint64_t by_bytes = 0, by_ios = 0;

	if (bytes < PACE_MIN_BYTES)
		bytes = PACE_MIN_BYTES;
	if (bps)
		by_bytes = bytes > UINT64_MAX / NSEC_PER_SEC ? UINT64_MAX / 2 :
			   bytes * NSEC_PER_SEC / bps;
	if (iops)
		by_ios = NSEC_PER_SEC / iops;
	return by_bytes > by_ios ? by_bytes : by_ios;
}

/* Is the group that @lvl is throttled for idle at @now? A window overdue
 * with I/O outstanding is a stall, not idleness (stall.c: it may close). */
static bool protected_idle(const struct iolat_group *lvl, uint64_t now)
{
	const struct iolat_group *p = grp_parent(lvl);
	struct iolat_group *asker;
	uint32_t a;
	uint64_t start, win;

	if (!p)
		return false;
	a = atomic_load_explicit(&p->scale_grp, memory_order_relaxed);
	if (a == IOLAT_NO_GROUP || a >= lvl->ctl->nr_groups)
		return false;
	asker = grp_at(lvl->ctl, a);
	start = atomic_load_explicit(&asker->window_start, memory_order_relaxed);
	win = atomic_load_explicit(&asker->win_ns, memory_order_relaxed);
	if (now <= start || now - start < win || iolat_stall_busy(asker, now, true))
		return false;
	return now - start > win + PACE_IDLE_NS;
}

/* Does the gate hold I/O of @lvl back at @now? */
static bool level_paced(const struct iolat_group *lvl, uint64_t now)
{
	return grp_paced(lvl) && !protected_idle(lvl, now);
}

/* Let the I/O through at @lvl: count it, move the virtual time on. */
static void pace_charge(struct iolat_group *lvl, uint64_t bytes, uint64_t now)
{
	struct iolat_adapt_child *a = &lvl->ad;
	uint64_t ni, cost;

	atomic_fetch_add_explicit(&a->cal_bytes, bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->cal_ios, 1, memory_order_relaxed);
	if (!level_paced(lvl, now))
		return;
	cost = pace_cost_ns(bytes, atomic_load_explicit(&a->pace_bps, memory_order_relaxed),
			    atomic_load_explicit(&a->pace_iops, memory_order_relaxed));
	ni = atomic_load_explicit(&a->next_issue, memory_order_relaxed);
	/* An I/O up to one cost late (a caller that woke late) is not lost:
	 * the virtual time lags now by at most that much. */
	while (!atomic_compare_exchange_weak_explicit(&a->next_issue, &ni,
						      (ni + cost > now ? ni : now - cost) + cost,
						      memory_order_relaxed, memory_order_relaxed))
		;
}

/* The slow part: some level of the controller is watched, or weights are on. */
static uint64_t pace_due_slow(struct iolat_group *g, uint64_t bytes, uint64_t now)
{
	struct iolat_group *lvl, *worst = NULL;
	bool weights = ctl_weights_on(g->ctl);
	uint64_t wait = 0, wwait = 0;

	for (lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl)) {
		uint64_t ni;

		if (!atomic_load_explicit(&lvl->ad.pace_watch, memory_order_relaxed))
			continue;
		iolat_check_scale_change(lvl); /* the parent's latest share first */
		if (!level_paced(lvl, now))
			continue;
		ni = atomic_load_explicit(&lvl->ad.next_issue, memory_order_relaxed);
		if (ni > now && ni - now > wait) {
			wait = ni - now;
			worst = lvl;
		}
	}
	if (weights && !worst) /* the weight gate (weight_ctl.c): budgets */
		wwait = iolat_weight_wait(g, bytes, now);
	if (worst) {
		atomic_fetch_add_explicit(&worst->ad.paced_ios, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&worst->ad.paced_ns, wait, memory_order_relaxed);
		return wait;
	}
	if (wwait)
		return wwait;
	for (lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl))
		if (atomic_load_explicit(&lvl->ad.pace_watch, memory_order_relaxed))
			pace_charge(lvl, bytes, now);
	if (weights)
		iolat_weight_charge(g, bytes, now);
	return 0;
}

uint64_t iolat_group_pace_due(struct iolat_group *g, uint64_t bytes, uint64_t now_ns)
{
	/* The common case: no group of this controller is watched, no weights. */
	if (__builtin_expect(!g || (!atomic_load_explicit(&g->ctl->pace_watchers,
							  memory_order_relaxed) &&
				    !ctl_weights_on(g->ctl)), 1))
		return 0;
	if (ctl_weights_on(g->ctl) && g->idx != IOLAT_ROOT_IDX)
		return pace_due_slow(g, bytes, now_ns);
	for (struct iolat_group *lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl))
		if (__builtin_expect(atomic_load_explicit(&lvl->ad.pace_watch,
							  memory_order_relaxed) != 0, 0))
			return pace_due_slow(g, bytes, now_ns);
	return 0;
}

/* Completions observed elsewhere (observe.c): counted at the watched levels. */
void iolat_pace_observed(struct iolat_group *g, uint64_t bytes)
{
	if (!atomic_load_explicit(&g->ctl->pace_watchers, memory_order_relaxed))
		return;
	for (struct iolat_group *lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl))
		if (atomic_load_explicit(&lvl->ad.pace_watch, memory_order_relaxed)) {
			atomic_fetch_add_explicit(&lvl->ad.cal_bytes, bytes, memory_order_relaxed);
			atomic_fetch_add_explicit(&lvl->ad.cal_ios, 1, memory_order_relaxed);
		}
}

/* The rate a caller acting for the controller holds @g to (observe.c). */
void iolat_pace_in_force(const struct iolat_group *g, uint64_t now, uint64_t *bps,
			 uint64_t *iops)
{
	*bps = *iops = 0;
	if (!level_paced(g, now))
		return;
	*bps = atomic_load_explicit(&g->ad.pace_bps, memory_order_relaxed);
	*iops = atomic_load_explicit(&g->ad.pace_iops, memory_order_relaxed);
}
