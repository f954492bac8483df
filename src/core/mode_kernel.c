/* SPDX-License-Identifier: MIT */
/*
 * mode_kernel.c - the kernel's policy (docs/controller.md R5-R7, R10-R14),
 * behind the mode table as two modes that differ only in their tick:
 *
 *   article  a parent whose asking group completed nothing since the
 *            previous tick is reset at once (the article's release);
 *   kernel   the kernel's timer: a parent without an asker climbs one cookie
 *            step per tick, an asker is forgotten 5 s after the last event.
 *
 * A child applies each cookie change as one step: down halves its depth (at
 * depth 1: one more unit of use_delay), up grows it by qd/16 (at depth 1 it
 * first pays off a unit of use_delay), the default cookie makes it
 * unlimited. A parent moves its cookie at most once per 500 ms: down when a
 * child misses (a tighter miss takes over the asking), up when the asking
 * child has been fine over enough samples.
 *
 * Context: as mode.h says of each operation.
 */
#include "core/ctl.h"
#include "core/mode.h"
#include "core/scale.h"

/* ---- the child ---- */

bool iolat_child_spared(const struct iolat_group *g, const struct iolat_group *p)
{
	uint64_t target = atomic_load_explicit(&g->target_ns, memory_order_relaxed);
	uint64_t scale_lat, thresh;

	if (!target)
		return false;
	scale_lat = atomic_load_explicit(&p->scale_lat, memory_order_relaxed);
	/* Same or tighter target than the one that asked: spared. */
	if (!scale_lat || target <= scale_lat)
		return true;
	/* The 5% rule: a group that did little of the I/O is spared. */
	thresh = atomic_load_explicit(&p->child_nr_samples, memory_order_relaxed) * 5 / 100;
	if (thresh < 1)
		thresh = 1;
	return atomic_load_explicit(&g->nr_samples, memory_order_relaxed) <= thresh;
}

/* One depth step of @g, up or down, under depth_lock (a limit folds the
 * in-flight count first: inflight.c). */
static void apply_depth_step(struct iolat_group *g, uint32_t qd, bool up)
{
	uint32_t old, new;

	iolat_depth_lock(g);
	old = atomic_load(&g->max_depth);
	new = iolat_depth_step(old, qd, up);
	if (new != old)
		atomic_fetch_add_explicit(up ? &g->scale_ups : &g->scale_downs, 1,
					  memory_order_relaxed);
	/*
	 * A reset to the default cookie may have been applied by another thread
	 * since our cookie CAS; its "unlimited" must win, or the group would stay
	 * clamped under an unthrottled parent. Under depth_lock: a reset applied
	 * after this check stores its unlimited depth after ours.
	 */
	if (!up && atomic_load(&g->scale_cookie) == IOLAT_DEFAULT_COOKIE) {
		new = IOLAT_DEPTH_MAX;
		up = true;
	}
	iolat_depth_store_locked(g, new);
	iolat_depth_unlock(g);
	if (up) {
		iolat_wake(g, true);
		iolat_inflight_relax(g); /* if unlimited again: distributed */
	}
}

/* Back at the default cookie: unlimited, no delay. */
static void child_release(struct iolat_group *g)
{
	bool was = atomic_load(&g->max_depth) != IOLAT_DEPTH_MAX ||
		   atomic_load(&g->use_delay) != 0;

	iolat_delay_clear(g);
	iolat_depth_set(g, IOLAT_DEPTH_MAX);
	if (was)
		atomic_fetch_add_explicit(&g->scale_ups, 1, memory_order_relaxed);
	iolat_wake(g, true);
	iolat_inflight_relax(g); /* unlimited, nobody waits: distributed again */
}

static void kernel_child_apply(struct iolat_group *g, uint32_t mine, uint32_t cur)
{
	bool up = cur > mine;
	uint32_t qd, old;

	if (!up && iolat_child_spared(g, grp_parent(g)))
		return;
	if (!up && atomic_load(&g->max_depth) == 1) {
		/* Already at the floor: escalate to induced delay. */
		iolat_delay_use(g);
		atomic_fetch_add_explicit(&g->scale_downs, 1, memory_order_relaxed);
		return;
	}
	if (cur == IOLAT_DEFAULT_COOKIE) {
		child_release(g);
		return;
	}
	qd = atomic_load_explicit(&g->ctl->qd, memory_order_relaxed);
	old = atomic_load(&g->max_depth);
	if (up && (old < qd ? old : qd) == 1 && iolat_delay_unuse(g)) {
		/* Each up step at depth 1 first pays off one unit of delay. */
		atomic_fetch_add_explicit(&g->scale_ups, 1, memory_order_relaxed);
		return;
	}
	apply_depth_step(g, qd, up);
}

/* ---- the window and the parent's cookie ---- */

/* The carried-over mean: correct, or always 0 as the kernel's bug B1 makes it. */
static uint64_t cur_stat_mean(const struct iolat_group *g)
{
	const struct iolat_win_stat *s = &g->cur_stat;

	return ctl_compat_b1(g->ctl) || !s->nr ? 0 : s->sum_ns / s->nr;
}

/* The asking group @g is fine again: one cookie step up. */
static void scale_up(struct iolat_group *p, struct iolat_group *g, uint64_t now)
{
	uint32_t cookie = atomic_load(&p->child_cookie);
	uint32_t next = iolat_cookie_step(cookie, atomic_load(&g->ctl->qd), true);

	atomic_store_explicit(&p->last_scale_event, now, memory_order_relaxed);
	/* Release: pairs with the children's acquire loads of the cookie in
	 * admit.c (check_scale_fast, admit, iolat_check_scale_change). */
	atomic_store_explicit(&p->child_cookie, next, memory_order_release);
}

/* @g missed its @target: throttle its looser siblings. */
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
	/* Release: publishes scale_lat (and child_nr_samples) with the cookie
	 * to admit.c's acquire loads. */
	atomic_store_explicit(&p->child_cookie, next, memory_order_release);
}

/* Carry @w into @g's cur_stat and the parent's sample counts (with
 * IOLAT_CTL_BYPASS_SHARE, @g's bypass I/O completed while throttled counts
 * there too: its share of the I/O for the 5 % rule); returns the samples
 * carried. */
static uint64_t carry_window(struct iolat_group *p, struct iolat_group *g,
			     const struct iolat_win_stat *w)
{
	uint64_t samples, share;

	g->cur_stat.nr += w->nr;
	g->cur_stat.sum_ns += w->sum_ns;
	g->cur_stat.missed += w->missed;
	samples = share = g->cur_stat.nr;
	if (g->ctl->flags & IOLAT_CTL_BYPASS_SHARE) {
		uint64_t b = atomic_load_explicit(&g->bypass_throttled, memory_order_relaxed);

		g->bypass_carried += b - g->bypass_seen;
		g->bypass_seen = b;
		share += g->bypass_carried;
	}
	atomic_store_explicit(&p->child_nr_samples,
			      atomic_load_explicit(&p->child_nr_samples, memory_order_relaxed) -
			      atomic_load_explicit(&g->nr_samples, memory_order_relaxed) + share,
			      memory_order_relaxed);
	atomic_store_explicit(&g->nr_samples, share, memory_order_relaxed);
	return samples;
}

static void kernel_window_decide(struct iolat_group *p, struct iolat_group *g,
				 const struct iolat_win_stat *w, bool ok, uint64_t now)
{
	uint64_t target = atomic_load_explicit(&g->target_ns, memory_order_relaxed);
	uint64_t samples = carry_window(p, g, w), last;

	/* At most one scale event per 500 ms per parent; keep accumulating.
	 * A last_scale_event of 0 means "never" (also after a reset). */
	last = atomic_load_explicit(&p->last_scale_event, memory_order_relaxed);
	if (last && (last >= now || now - last < IOLAT_MIN_ADJUST_NS))
		return;
	if (ok && iolat_window_within(g, &g->cur_stat, cur_stat_mean(g), target)) {
		if (samples < IOLAT_MIN_GOOD_SAMPLES)
			return;
		/* Only the group that asked for throttling may release it here. */
		if (atomic_load_explicit(&p->scale_grp, memory_order_relaxed) == g->idx)
			scale_up(p, g, now);
	} else {
		scale_down(p, g, target, now);
	}
	g->cur_stat.nr = g->cur_stat.sum_ns = g->cur_stat.missed = 0;
	g->bypass_carried = 0;
}

/* ---- the tick ---- */

bool iolat_active_since_last_tick(struct iolat_group *g)
{
	struct iolat_ctl *ctl = g->ctl;
	struct iolat_win_stat s;
	bool active;

	/* A group is looked at only while it is an asking group; when the last
	 * look was not at the previous tick, it counts as active and this tick
	 * starts the comparison. */
	iolat_grp_sum_slots(g, &s, NULL);
	active = atomic_load_explicit(&g->tick_seq, memory_order_relaxed) + 1 != ctl->tick_seq ||
		 s.nr != atomic_load_explicit(&g->tick_nr, memory_order_relaxed);
	atomic_store_explicit(&g->tick_nr, s.nr, memory_order_relaxed);
	atomic_store_explicit(&g->tick_seq, ctl->tick_seq, memory_order_relaxed);
	return active;
}

/* No asking group: climb one cookie step (both modes). */
static void tick_climb(struct iolat_group *p)
{
	/* Release: pairs with admit.c's acquire loads of the cookie. */
	atomic_store_explicit(&p->child_cookie,
			      iolat_cookie_step(atomic_load(&p->child_cookie),
						atomic_load(&p->ctl->qd), true),
			      memory_order_release);
}

static bool article_tick_parent(struct iolat_group *p, uint64_t now)
{
	uint32_t asker = atomic_load_explicit(&p->scale_grp, memory_order_relaxed);
	uint64_t last = atomic_load_explicit(&p->last_scale_event, memory_order_relaxed);

	if (asker == IOLAT_NO_GROUP) {
		tick_climb(p);
	} else if (!iolat_active_since_last_tick(grp_at(p->ctl, asker))) {
		/* The asking group went quiet: unclamp everybody under p. */
		iolat_child_lat_reset_locked(p);
		return true;
	} else if (now - last >= IOLAT_SCALE_GRP_EXPIRY_NS) {
		atomic_store_explicit(&p->scale_grp, IOLAT_NO_GROUP, memory_order_relaxed);
	}
	return false;
}

static bool kernel_tick_parent(struct iolat_group *p, uint64_t now)
{
	uint32_t asker = atomic_load_explicit(&p->scale_grp, memory_order_relaxed);
	uint64_t last = atomic_load_explicit(&p->last_scale_event, memory_order_relaxed);

	if (asker == IOLAT_NO_GROUP)
		tick_climb(p);
	else if (now - last >= IOLAT_SCALE_GRP_EXPIRY_NS)
		atomic_store_explicit(&p->scale_grp, IOLAT_NO_GROUP, memory_order_relaxed);
	return false;
}

static void no_parent_reset(struct iolat_group *p)
{
	(void)p;
}

static void no_group_init(struct iolat_group *g, uint64_t now)
{
	(void)g;
	(void)now;
}

const struct iolat_mode_ops iolat_mode_article = {
	.name = "article",
	.flags = 0,
	.rule = { [0] = IOLAT_RULE_P90, [1] = IOLAT_RULE_MEAN },   /* io.latency's */
	.tick_needs_submit = false,
	.group_init = no_group_init,
	.child_apply = kernel_child_apply,
	.window_decide = kernel_window_decide,
	.tick_parent = article_tick_parent,
	.parent_reset = no_parent_reset,
	.group_unused = iolat_mode_no_group_unused,
	.stat = NULL,
};

const struct iolat_mode_ops iolat_mode_kernel = {
	.name = "kernel",
	.flags = IOLAT_CTL_KERNEL_COMPAT,
	.rule = { [0] = IOLAT_RULE_P90, [1] = IOLAT_RULE_MEAN },   /* io.latency's */
	.tick_needs_submit = true,
	.group_init = no_group_init,
	.child_apply = kernel_child_apply,
	.window_decide = kernel_window_decide,
	.tick_parent = kernel_tick_parent,
	.parent_reset = no_parent_reset,
	.group_unused = iolat_mode_no_group_unused,
	.stat = NULL,
};
