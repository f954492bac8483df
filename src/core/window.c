/* SPDX-License-Identifier: MIT */
/*
 * window.c - the slow path at the end of a group's window (docs/controller.md
 * R9, R10, R12):
 * fold the per-thread stats, judge the window (mean rule on rotational
 * devices, p90 rule otherwise), and under the parent's lock move the parent's
 * scale cookie down (a miss: throttle the looser siblings) or up (the group
 * that asked is fine again).
 *
 * Context: called from iolat_done*() by the single thread that won the CAS
 * on the group's window_start; takes the parent's child_lock. Never blocks.
 */
#include "core/ctl.h"
#include "core/scale.h"

void iolat_grp_sum_slots(const struct iolat_group *g, struct iolat_win_stat *sum,
			 uint64_t *done)
{
	const struct iolat_slot *s = grp_slots(g);
	uint64_t d = 0;

	sum->nr = sum->sum_ns = sum->missed = 0;
	for (uint32_t i = 0; i < g->ctl->nr_slots; i++) {
		sum->nr += atomic_load_explicit(&s[i].nr, memory_order_relaxed);
		sum->sum_ns += atomic_load_explicit(&s[i].sum_ns, memory_order_relaxed);
		sum->missed += atomic_load_explicit(&s[i].missed, memory_order_relaxed);
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

	iolat_grp_sum_slots(g, &now, NULL);
	w->nr = now.nr - snr;
	w->sum_ns = now.sum_ns - ssum;
	w->missed = now.missed - smiss;
	atomic_store_explicit(&g->snap_nr, now.nr, memory_order_relaxed);
	atomic_store_explicit(&g->snap_sum, now.sum_ns, memory_order_relaxed);
	atomic_store_explicit(&g->snap_missed, now.missed, memory_order_relaxed);
}

static uint64_t stat_mean(const struct iolat_win_stat *s)
{
	return s->nr ? s->sum_ns / s->nr : 0;
}

/* The carried-over mean: correct, or always 0 as the kernel's bug B1 makes it. */
static uint64_t cur_stat_mean(const struct iolat_group *g)
{
	return ctl_compat_b1(g->ctl) ? 0 : stat_mean(&g->cur_stat);
}

static bool window_ok(const struct iolat_group *g, const struct iolat_win_stat *s,
		      uint64_t mean, uint64_t target)
{
	if (g->ctl->rotational)
		return iolat_hdd_ok(mean, target);
	return iolat_ssd_ok(s->missed, s->nr);
}

/* The asking group @g is fine again: one cookie step up (under child_lock). */
static void scale_up(struct iolat_group *p, struct iolat_group *g, uint64_t now)
{
	uint32_t cookie = atomic_load(&p->child_cookie);
	uint32_t next = iolat_cookie_step(cookie, atomic_load(&g->ctl->qd), true);

	/* Adaptive: into a known-bad cookie only after the hold (no event). */
	if (ctl_adaptive(g->ctl) && !iolat_adapt_up(p, cookie, &next, now))
		return;
	atomic_store_explicit(&p->last_scale_event, now, memory_order_relaxed);
	/* Release: pairs with the children's acquire loads of the cookie in
	 * admit.c (check_scale_fast, admit, iolat_check_scale_change). */
	atomic_store_explicit(&p->child_cookie, next, memory_order_release);
}

/* @g missed its @target: throttle its looser siblings (under child_lock). */
static void scale_down(struct iolat_group *p, struct iolat_group *g, uint64_t target,
		       uint64_t now)
{
	uint64_t scale_lat = atomic_load_explicit(&p->scale_lat, memory_order_relaxed);
	uint32_t cookie, next;

	/* A looser group missing while a tighter one owns the throttling
	 * changes nothing. */
	if (scale_lat && scale_lat < target)
		return;
	atomic_store_explicit(&p->last_scale_event, now, memory_order_relaxed);
	if (atomic_load_explicit(&p->scale_grp, memory_order_relaxed) == IOLAT_NO_GROUP ||
	    scale_lat > target) {
		atomic_store_explicit(&p->scale_lat, target, memory_order_relaxed);
		atomic_store_explicit(&p->scale_grp, g->idx, memory_order_relaxed);
	}
	cookie = atomic_load(&p->child_cookie);
	next = iolat_cookie_step(cookie, atomic_load(&g->ctl->qd), false);
	if (ctl_adaptive(g->ctl))
		next = iolat_adapt_down(p, cookie, next, now,
					atomic_load_explicit(&g->win_ns, memory_order_relaxed));
	/* Release: publishes scale_lat (and child_nr_samples) with the cookie
	 * to admit.c's acquire loads. */
	atomic_store_explicit(&p->child_cookie, next, memory_order_release);
}

void iolat_check_latencies(struct iolat_group *g, uint64_t now)
{
	struct iolat_group *p = grp_parent(g);
	struct iolat_win_stat stat;
	uint64_t target = atomic_load_explicit(&g->target_ns, memory_order_relaxed);
	uint64_t mean, last, samples;
	bool ok, cur_ok;

	take_window(g, &stat);
	if (!p)
		return;
	mean = stat_mean(&stat);
	atomic_store_explicit(&g->last_mean_ns, mean, memory_order_relaxed);
	if (g->ctl->rotational)
		atomic_store_explicit(&g->lat_avg_ns,
			iolat_lat_avg_update(atomic_load_explicit(&g->lat_avg_ns, memory_order_relaxed),
					     atomic_load_explicit(&g->win_ns, memory_order_relaxed),
					     mean),
			memory_order_relaxed);
	ok = window_ok(g, &stat, mean, target);
	atomic_fetch_add_explicit(ok ? &g->windows_ok : &g->windows_missed, 1,
				  memory_order_relaxed);

	/* Fast path: all is well and nobody under this parent is throttled. */
	if (ok && atomic_load(&p->child_cookie) == IOLAT_DEFAULT_COOKIE)
		return;

	iolat_spin_lock(&p->child_lock);
	g->cur_stat.nr += stat.nr;
	g->cur_stat.sum_ns += stat.sum_ns;
	g->cur_stat.missed += stat.missed;
	samples = g->cur_stat.nr;
	atomic_store_explicit(&p->child_nr_samples,
			      atomic_load_explicit(&p->child_nr_samples, memory_order_relaxed) -
			      atomic_load_explicit(&g->nr_samples, memory_order_relaxed) + samples,
			      memory_order_relaxed);
	atomic_store_explicit(&g->nr_samples, samples, memory_order_relaxed);

	/* At most one scale event per 500 ms per parent; keep accumulating.
	 * A last_scale_event of 0 means "never" (also after a reset). */
	last = atomic_load_explicit(&p->last_scale_event, memory_order_relaxed);
	if (last && (last >= now || now - last < IOLAT_MIN_ADJUST_NS) &&
	    !(ctl_adaptive(g->ctl) && !ok && iolat_adapt_early_revert(p, now)))
		goto out_keep;

	cur_ok = window_ok(g, &g->cur_stat, cur_stat_mean(g), target);
	if (cur_ok && ok) {
		if (samples < IOLAT_MIN_GOOD_SAMPLES)
			goto out_keep;
		/* Only the group that asked for throttling may release it here. */
		if (atomic_load_explicit(&p->scale_grp, memory_order_relaxed) == g->idx)
			scale_up(p, g, now);
	} else {
		scale_down(p, g, target, now);
	}
	g->cur_stat.nr = g->cur_stat.sum_ns = g->cur_stat.missed = 0;
out_keep:
	iolat_spin_unlock(&p->child_lock);
}
