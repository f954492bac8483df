/* SPDX-License-Identifier: MIT */
/*
 * stall.c - a protected group that waits is not idle (IOLAT_CTL_ADAPTIVE).
 * A group whose windows stop closing has either stopped submitting (idle:
 * the pace gate lets go, the tick ends the episode) or has I/O submitted
 * that does not complete: the disk stalls behind its throttled siblings, and
 * lifting their limit then would make the stall worse. The two are told
 * apart by the group's I/O outstanding: admitted and not completed
 * (inflight.c, for I/O passing iolat_throttle*()), or the count a caller
 * that only observes completions reports (iolat_group_observe_inflight()).
 *
 * No I/O carries a time of its own here, so the age of a stall is measured
 * as a lower bound: the first look that finds I/O outstanding records the
 * group's count of recorded completions and the time; while later looks
 * find I/O still outstanding and that count unchanged, nothing completed
 * since, so what was outstanding at the record still is, and is at least
 * that old. A completion starts a new record. A stall older than the
 * target, in a window overdue, closes that window with the stalled I/O
 * counted late (window.c): the period verdict and the emergency see it
 * before the stalled I/O completes. A stall is believed for STALL_MAX_NS at
 * most (the block layer's own request timeout completes a request by then):
 * a count that went wrong cannot hold a limit for ever.
 *
 * Context: any thread, lock-free (the record: plain atomics, ordered so that
 * a racing look can only see a younger stall, never an older one); with
 * @close, the window close takes the parent's child_lock (never call it so
 * under that lock).
 */
#include "core/ctl.h"

#define STALL_MAX_NS (30 * NSEC_PER_SEC) /* no stall is believed longer */

/* @g's I/O outstanding: what its caller reported, else its admissions. */
static uint32_t outstanding(struct iolat_group *g)
{
	if (atomic_load_explicit(&g->obs_inflight_fed, memory_order_relaxed))
		return atomic_load_explicit(&g->obs_inflight, memory_order_relaxed);
	return iolat_inflight_sum(g);
}

/* Recorded completions of @g (its subtree's latencies at its level). */
static uint64_t completions(const struct iolat_group *g)
{
	struct iolat_win_stat s;

	iolat_grp_sum_slots(g, &s, NULL);
	return s.nr;
}

/* Look at @g at @now: how long it has had I/O outstanding that has not
 * completed (0: none, or a fresh record); @n: how many. */
static uint64_t stall_age(struct iolat_group *g, uint64_t now, uint32_t *n)
{
	uint64_t done, rec, since;

	*n = outstanding(g);
	if (!*n) {
		atomic_store(&g->stall_since, 0);
		return 0;
	}
	done = completions(g);
	/* Sequentially consistent, the record's done read before its time: a
	 * look that sees a new record's done sees its time (stored first). */
	rec = atomic_load(&g->stall_done);
	since = atomic_load(&g->stall_since);
	if (!since || rec != done || since > now) {
		atomic_store(&g->stall_since, now ? now : 1);
		atomic_store(&g->stall_done, done);
		return 0;
	}
	if (now - since > STALL_MAX_NS)
		return (*n = 0);
	return now - since;
}

bool iolat_stall_busy(struct iolat_group *g, uint64_t now, bool close)
{
	uint64_t target = atomic_load_explicit(&g->target_ns, memory_order_relaxed);
	uint64_t start, age;
	uint32_t n;

	age = stall_age(g, now, &n);
	if (!n)
		return false;
	start = atomic_load_explicit(&g->window_start, memory_order_relaxed);
	if (close && target && age >= target && now > start &&
	    now - start >= atomic_load_explicit(&g->win_ns, memory_order_relaxed) &&
	    atomic_compare_exchange_strong(&g->window_start, &start, now)) {
		/* We alone close this window: the stalled I/O is late in it. */
		struct iolat_win_stat late = { .nr = n, .missed = n, .sum_ns = n * age,
					       .late_ns = n * age };

		atomic_fetch_add_explicit(&g->stalled_windows, 1, memory_order_relaxed);
		iolat_check_latencies_with(g, now, &late);
	}
	return true;
}
