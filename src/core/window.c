/* SPDX-License-Identifier: MIT */
/*
 * window.c - the slow path at the end of a group's window (docs/controller.md
 * R9, R10, R12):
 * fold the per-thread stats, keep the HDD latency average, judge the window
 * by the mode's rule for the device (ctl->rule: mean or p90) and, under the
 * parent's lock, let the mode decide what the parent's scale cookie does
 * (mode.h: window_decide).
 *
 * A window closed by a stall (stall.c) has the I/O still outstanding added
 * to its figures, late. The adaptive mode drops the window of a protected
 * group that went quiet (iolat_window_drop()).
 *
 * Context: called from iolat_done*() (or stall.c) by the single thread that won the CAS
 * on the group's window_start; takes the parent's child_lock. Never blocks.
 */
#include "core/ctl.h"
#include "core/scale.h"

void iolat_grp_sum_slots(const struct iolat_group *g, struct iolat_win_stat *sum,
			 uint64_t *done)
{
	const struct iolat_slot *s = grp_slots(g);
	uint64_t d = 0;

	sum->nr = sum->sum_ns = sum->missed = sum->late_ns = 0;
	for (uint32_t i = 0; i < g->ctl->nr_slots; i++) {
		sum->nr += atomic_load_explicit(&s[i].nr, memory_order_relaxed);
		sum->sum_ns += atomic_load_explicit(&s[i].sum_ns, memory_order_relaxed);
		sum->missed += atomic_load_explicit(&s[i].missed, memory_order_relaxed);
		sum->late_ns += atomic_load_explicit(&s[i].late_ns, memory_order_relaxed);
		d += atomic_load_explicit(&s[i].done, memory_order_relaxed);
	}
	if (done)
		*done = d;
}

/* This window's samples: cumulative sums minus the last window's snapshot. */
static void take_window(struct iolat_group *g, struct iolat_win_stat *w)
{
	struct iolat_win_stat now;
	uint64_t snr = atomic_load_explicit(&g->snap_nr, memory_order_relaxed);
	uint64_t ssum = atomic_load_explicit(&g->snap_sum, memory_order_relaxed);
	uint64_t smiss = atomic_load_explicit(&g->snap_missed, memory_order_relaxed);
	uint64_t slate = atomic_load_explicit(&g->snap_late, memory_order_relaxed);

	iolat_grp_sum_slots(g, &now, NULL);
	w->nr = now.nr - snr;
	w->sum_ns = now.sum_ns - ssum;
	w->missed = now.missed - smiss;
	w->late_ns = now.late_ns - slate;
	atomic_store_explicit(&g->snap_nr, now.nr, memory_order_relaxed);
	atomic_store_explicit(&g->snap_sum, now.sum_ns, memory_order_relaxed);
	atomic_store_explicit(&g->snap_missed, now.missed, memory_order_relaxed);
	atomic_store_explicit(&g->snap_late, now.late_ns, memory_order_relaxed);
}

static uint64_t stat_mean(const struct iolat_win_stat *s)
{
	return s->nr ? s->sum_ns / s->nr : 0;
}

void iolat_window_drop(struct iolat_group *g, uint64_t now)
{
	uint64_t start = atomic_load_explicit(&g->window_start, memory_order_relaxed);
	struct iolat_win_stat gone;

	if (now > start && atomic_compare_exchange_strong(&g->window_start, &start, now))
		take_window(g, &gone); /* we alone own this window: its samples go */
}

bool iolat_window_within(const struct iolat_group *g, const struct iolat_win_stat *w,
			 uint64_t mean, uint64_t target)
{
	if (g->ctl->rule == IOLAT_RULE_MEAN)
		return iolat_hdd_ok(mean, target);
	return iolat_ssd_ok(w->missed, w->nr);
}

void iolat_check_latencies(struct iolat_group *g, uint64_t now)
{
	iolat_check_latencies_with(g, now, NULL);
}

void iolat_check_latencies_with(struct iolat_group *g, uint64_t now,
				const struct iolat_win_stat *extra)
{
	struct iolat_group *p = grp_parent(g);
	struct iolat_win_stat stat = { 0 };
	uint64_t target = atomic_load_explicit(&g->target_ns, memory_order_relaxed);
	uint64_t mean;
	bool ok;

	take_window(g, &stat);
	if (!p)
		return;
	if (extra) { /* I/O still outstanding, late (stall.c) */
		stat.nr += extra->nr;
		stat.stalled = extra->nr;
		stat.missed += extra->missed;
		stat.sum_ns += extra->sum_ns;
		stat.late_ns += extra->late_ns;
	}
	mean = stat_mean(&stat);
	atomic_store_explicit(&g->last_mean_ns, mean, memory_order_relaxed);
	if (g->ctl->rotational)
		atomic_store_explicit(&g->lat_avg_ns,
			iolat_lat_avg_update(atomic_load_explicit(&g->lat_avg_ns, memory_order_relaxed),
					     atomic_load_explicit(&g->win_ns, memory_order_relaxed),
					     mean),
			memory_order_relaxed);
	ok = iolat_window_within(g, &stat, mean, target);
	atomic_fetch_add_explicit(ok ? &g->windows_ok : &g->windows_missed, 1,
				  memory_order_relaxed);

	/* Fast path: all is well and nobody under this parent is throttled. */
	if (ok && atomic_load(&p->child_cookie) == IOLAT_DEFAULT_COOKIE)
		return;

	iolat_spin_lock(&p->child_lock);
	g->ctl->mode->window_decide(p, g, &stat, ok, now);
	iolat_spin_unlock(&p->child_lock);
}
