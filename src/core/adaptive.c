/* SPDX-License-Identifier: MIT */
/*
 * adaptive.c - IOLAT_CTL_ADAPTIVE behind the mode table
 * (docs/controller-adaptive.md): the glue between a parent's knee seeker
 * (knee.c, pure) and its children.
 *
 *  - Windows are judged by the p90 rule on every device.
 *  - Only the protected group's windows decide: the asking group, i.e. the
 *    tightest target that missed (as the kernel's scale_lat/scale_grp).
 *  - The children that may be throttled: every sibling of the asker without
 *    a target or with a looser one. While the parent has an episode they are
 *    watched: the pace gate (pace.c) counts their bytes and I/Os, and the
 *    parent reads those counts at each of the asker's windows.
 *  - A limit (bytes and I/Os per second, for the children together) is
 *    shared by water-filling: a child that did not use its share keeps what
 *    it used plus headroom, the rest is split evenly among the children that
 *    waited at the gate (by weight once the controller's weights are on,
 *    docs/weights.md). Shares are set on every change and once a second.
 *  - The shares reach the children through the cookie: the parent writes
 *    each child's want_* and moves its cookie one generation on; the child
 *    that sees the new cookie (at a submit, an observed completion or the
 *    gate) copies want_* into the rate the gate enforces.
 *  - A paced child has use_delay 1: its bypassed (swap, metadata) work is
 *    charged as delay and it reads as congested, as the kernel's groups
 *    pushed below depth 1.
 *  - The tick releases as the article's mode does (asker quiet: reset),
 *    but not while the asker has I/O outstanding (stalled, not idle).
 *
 * Context: as mode.h says of each operation; the parent's functions under
 * its child_lock, the child's lock-free.
 */
#include <string.h>

#include "core/ctl.h"
#include "core/mode.h"
#include "core/scale.h"

#define SPLIT_EVERY_NS  NSEC_PER_SEC /* shares re-set at least this often */
#define SPLIT_HEADROOM_PM 1250u      /* a child below its share keeps 1.25 x its use */

static const char *const step_names[IOLAT_STEP_COUNT] = {
	[IOLAT_STEP_NONE] = "none",
	[IOLAT_STEP_PACE] = "pace",
	[IOLAT_STEP_RELEASE] = "release",
	[IOLAT_STEP_MEASURE] = "measure",
	[IOLAT_STEP_LIMIT] = "limit",
	[IOLAT_STEP_BACKOFF] = "backoff",
	[IOLAT_STEP_HOLD] = "hold",
	[IOLAT_STEP_PROBE] = "probe",
	[IOLAT_STEP_PROBE_OK] = "probe_ok",
	[IOLAT_STEP_PROBE_FAIL] = "probe_fail",
	[IOLAT_STEP_FUTILE] = "futile",
	[IOLAT_STEP_ATTAINED] = "attained",
	[IOLAT_STEP_LIFT] = "lift",
	[IOLAT_STEP_RESET] = "reset",
};

const char *iolat_step_name(unsigned step)
{
	return step < IOLAT_STEP_COUNT ? step_names[step] : "?";
}

/* ---- watching: the pace gate counts a watched group's I/O ---- */

static void watch(struct iolat_group *c)
{
	struct iolat_adapt_child *a = &c->ad;

	if (atomic_exchange(&a->pace_watch, 1))
		return;
	atomic_fetch_add(&c->ctl->pace_watchers, 1);
	a->snap_bytes = a->split_bytes = atomic_load(&a->cal_bytes);
	a->snap_ios = atomic_load(&a->cal_ios);
	a->snap_waits = a->split_waits = atomic_load(&a->paced_ios);
	a->snap_served_bytes = atomic_load(&a->served_bytes);
	a->snap_served_ios = atomic_load(&a->served_ios);
}

void iolat_adapt_unwatch(struct iolat_group *g)
{
	if (atomic_exchange(&g->ad.pace_watch, 0))
		atomic_fetch_sub(&g->ctl->pace_watchers, 1);
}

static void adaptive_group_init(struct iolat_group *g, uint64_t now)
{
	const memory_order rlx = memory_order_relaxed;
	struct iolat_adapt_child *a = &g->ad;

	(void)now;
	iolat_adapt_unwatch(g); /* a recycled record */
	atomic_store_explicit(&a->last_step, IOLAT_STEP_NONE, rlx);
	atomic_store_explicit(&a->pace_bps, 0, rlx);
	atomic_store_explicit(&a->pace_iops, 0, rlx);
	atomic_store_explicit(&a->want_bps, 0, rlx);
	atomic_store_explicit(&a->want_iops, 0, rlx);
	atomic_store_explicit(&a->next_issue, 0, rlx);
	atomic_store_explicit(&a->cal_bytes, 0, rlx);
	atomic_store_explicit(&a->cal_ios, 0, rlx);
	atomic_store_explicit(&a->paced_ios, 0, rlx);
	atomic_store_explicit(&a->paced_ns, 0, rlx);
	atomic_store_explicit(&a->applied_bps, 0, rlx);
	atomic_store_explicit(&a->applied_iops, 0, rlx);
	atomic_store_explicit(&a->applied_at, 0, rlx);
	atomic_store_explicit(&a->served_bytes, 0, rlx);
	atomic_store_explicit(&a->served_ios, 0, rlx);
	atomic_store_explicit(&a->fed, 0, rlx);
	iolat_spin_lock(&g->child_lock);
	a->snap_bytes = a->snap_ios = a->snap_waits = 0;
	a->snap_served_bytes = a->snap_served_ios = 0;
	a->split_bytes = a->split_waits = 0;
	memset(&g->ap, 0, sizeof(g->ap));
	iolat_spin_unlock(&g->child_lock);
}

/* ---- the child: apply the parent's share ---- */

static void adaptive_child_apply(struct iolat_group *g, uint32_t mine, uint32_t cur)
{
	struct iolat_adapt_child *a = &g->ad;
	uint64_t bps = 0, iops = 0, was;

	(void)mine;
	if (cur != IOLAT_DEFAULT_COOKIE) {
		bps = atomic_load(&a->want_bps);
		iops = atomic_load(&a->want_iops);
	}
	was = atomic_load(&a->pace_bps) | atomic_load(&a->pace_iops);
	if ((bps || iops) && !was)
		atomic_store(&a->next_issue, ctl_now(g->ctl)); /* a fresh budget, no credit */
	atomic_store(&a->pace_bps, bps);
	atomic_store(&a->pace_iops, iops);
	if (bps || iops) {
		if (atomic_load(&g->use_delay) == 0)
			iolat_delay_use(g);
		if (!was)
			atomic_fetch_add_explicit(&g->scale_downs, 1, memory_order_relaxed);
	} else {
		iolat_delay_clear(g);
		if (was)
			atomic_fetch_add_explicit(&g->scale_ups, 1, memory_order_relaxed);
	}
	atomic_store_explicit(&a->last_step, bps || iops ? IOLAT_STEP_PACE : IOLAT_STEP_RELEASE,
			      memory_order_relaxed);
}

/* ---- the parent: its children ---- */

/* May @c, a child of @p, be throttled for the asker @asker? */
static bool throttlable(const struct iolat_group *p, const struct iolat_group *c,
			uint32_t asker)
{
	uint64_t target = atomic_load_explicit(&c->target_ns, memory_order_relaxed);
	uint64_t scale_lat = atomic_load_explicit(&p->scale_lat, memory_order_relaxed);

	return c->idx != asker && (!target || (scale_lat && target > scale_lat));
}

/* The next child of @p after index @i that may be throttled, or NULL. */
static struct iolat_group *next_child(struct iolat_group *p, uint32_t *i)
{
	struct iolat_ctl *ctl = p->ctl;
	uint32_t asker = atomic_load_explicit(&p->scale_grp, memory_order_relaxed);

	while (++*i < ctl->nr_groups) {
		struct iolat_group *c = grp_at(ctl, *i);

		/* Sequentially consistent, paired with destroy's store of used
		 * before its unwatch: either we skip the record or destroy sees
		 * our watch (ctl.c). */
		if (atomic_load(&c->used) && atomic_load(&c->parent) == p->idx &&
		    throttlable(p, c, asker))
			return c;
	}
	return NULL;
}

#define for_each_throttlable(p, c, i) \
	for (uint32_t i = 0; ((c) = next_child((p), &i)) != NULL;)

/* What the caller acting for @a says of it: served I/O (else the gate's
 * counts, or observed completions), and the rate in force (else its share). */
static void gather_fed(struct iolat_adapt_child *a, struct knee_obs *o, uint64_t *applied_at)
{
	uint32_t fed = atomic_load(&a->fed);

	if (fed & IOLAT_FED_SERVED) {
		uint64_t bytes = atomic_load(&a->served_bytes), ios = atomic_load(&a->served_ios);

		o->bytes += bytes - a->snap_served_bytes;
		o->ios += ios - a->snap_served_ios;
		a->snap_served_bytes = bytes;
		a->snap_served_ios = ios;
	}
	if (fed & IOLAT_FED_APPLIED) {
		uint64_t at = atomic_load(&a->applied_at);

		o->applied = true;
		o->applied_bps += atomic_load(&a->applied_bps);
		o->applied_iops += atomic_load(&a->applied_iops);
		*applied_at = at < *applied_at ? at : *applied_at;
	} else {
		o->applied_bps += atomic_load(&a->want_bps);
		o->applied_iops += atomic_load(&a->want_iops);
	}
}

/* What the watched children did since the parent's last look. */
static void gather(struct iolat_group *p, struct knee_obs *o)
{
	uint64_t applied_at = UINT64_MAX;
	struct iolat_group *c;

	for_each_throttlable(p, c, i) {
		struct iolat_adapt_child *a = &c->ad;
		uint64_t bytes = atomic_load(&a->cal_bytes), ios = atomic_load(&a->cal_ios);
		uint64_t waits = atomic_load(&a->paced_ios);

		if (!atomic_load(&a->pace_watch))
			continue;
		if (!(atomic_load(&a->fed) & IOLAT_FED_SERVED)) {
			o->bytes += bytes - a->snap_bytes;
			o->ios += ios - a->snap_ios;
		}
		o->waited += waits - a->snap_waits;
		a->snap_bytes = bytes;
		a->snap_ios = ios;
		a->snap_waits = waits;
		gather_fed(a, o, &applied_at);
	}
	o->applied_at = o->applied ? applied_at : 0;
}

/* Move @p's cookie one generation on (children apply their want_*). */
static void publish(struct iolat_group *p)
{
	uint32_t c = atomic_load(&p->child_cookie);

	c = c <= 1 || c >= IOLAT_DEFAULT_COOKIE ? IOLAT_DEFAULT_COOKIE - 1 : c - 1;
	/* Release: the want_* stored before, to the children's acquire load. */
	atomic_store_explicit(&p->child_cookie, c, memory_order_release);
}

/* A child's demand since the last split: its rate, or "more" if it waited. */
struct demand {
	struct iolat_group *c;
	uint64_t bps;
	bool more;
};

#define SPLIT_MAX 64u /* children split exactly; more get an even share */

/* Water-filling of @limit among @n demands: @share[i] out. */
static void water_fill(const struct demand *d, uint32_t n, uint64_t limit, uint64_t *share)
{
	uint64_t left = limit;
	uint32_t open = n;
	bool moved = true;

	for (uint32_t i = 0; i < n; i++)
		share[i] = 0;
	while (moved && open) {
		uint64_t fair = left / open;

		moved = false;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t want = d[i].bps / 1000 * SPLIT_HEADROOM_PM;

			if (share[i] || d[i].more || want >= fair)
				continue;
			share[i] = want > limit / (8 * n) ? want : limit / (8 * n) + 1;
			left = left > share[i] ? left - share[i] : 0;
			open--;
			moved = true;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!open)
			share[i] += left / n; /* all satisfied: the rest as headroom */
		else if (!share[i])
			share[i] = left / open ? left / open : 1;
	}
}

/*
 * Weights on (docs/weights.md): the same water-filling with each child's
 * fair part in proportion to its weight rather than even.
 */
static void water_fill_weighted(const struct demand *d, uint32_t n, uint64_t limit,
				uint64_t *share)
{
	uint64_t left = limit, wopen = 0, wall;
	bool moved = true;

	for (uint32_t i = 0; i < n; i++) {
		share[i] = 0;
		wopen += grp_weight(d[i].c);
	}
	wall = wopen;
	while (moved && wopen) {
		moved = false;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t want = d[i].bps / 1000 * SPLIT_HEADROOM_PM, w = grp_weight(d[i].c);
			uint64_t fair = weight_mul_div(left, w, wopen), floor;

			if (share[i] || d[i].more || want >= fair)
				continue;
			floor = weight_mul_div(limit, w, 8 * wall) + 1;
			share[i] = want > floor ? want : floor;
			left = left > share[i] ? left - share[i] : 0;
			wopen -= w;
			moved = true;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t w = grp_weight(d[i].c);

		if (!wopen)
			share[i] += weight_mul_div(left, w, wall);
		else if (!share[i])
			share[i] = weight_mul_div(left, w, wopen) ? weight_mul_div(left, w, wopen) : 1;
	}
}

/* Give each throttlable child its share of the knee's limit. */
static void split(struct iolat_group *p, uint64_t now)
{
	const struct iolat_knee *k = &p->ap.knee;
	uint64_t dt = now > p->ap.split_at ? now - p->ap.split_at : 1, share[SPLIT_MAX];
	struct demand d[SPLIT_MAX];
	struct iolat_group *c;
	uint32_t n = 0, all = 0;

	for_each_throttlable(p, c, i) {
		struct iolat_adapt_child *a = &c->ad;
		uint64_t bytes = atomic_load(&a->cal_bytes), waits = atomic_load(&a->paced_ios);

		all++;
		if (n < SPLIT_MAX) {
			d[n].c = c;
			d[n].bps = (bytes - a->split_bytes) * 1000 / (dt / 1000000 + 1);
			d[n].more = waits != a->split_waits ||
				    d[n].bps >= atomic_load(&a->want_bps) / 10 * 9;
			n++;
		}
		a->split_bytes = bytes;
		a->split_waits = waits;
	}
	if (ctl_weights_on(p->ctl))
		water_fill_weighted(d, n, k->limit_bps, share);
	else
		water_fill(d, n, k->limit_bps, share);
	for (uint32_t i = 0; i < n; i++) {
		atomic_store(&d[i].c->ad.want_bps, share[i]);
		atomic_store(&d[i].c->ad.want_iops, k->limit_iops ? (uint64_t)((double)k->limit_iops *
						   (double)share[i] / (double)k->limit_bps) + 1 : 0);
	}
	for_each_throttlable(p, c, i) /* beyond SPLIT_MAX: an even share */
		if (all > SPLIT_MAX && !atomic_load(&c->ad.want_bps))
			atomic_store(&c->ad.want_bps, k->limit_bps / all + 1);
	p->ap.split_at = now;
	publish(p);
}

static void watch_children(struct iolat_group *p)
{
	struct iolat_group *c;

	for_each_throttlable(p, c, i)
		watch(c);
}

/* Under @p's child_lock: forget the episode, unwatch and unpace the children. */
static void adaptive_parent_reset(struct iolat_group *p)
{
	struct iolat_ctl *ctl = p->ctl;

	knee_reset(&p->ap.knee);
	if (!atomic_load(&p->nr_children))
		return;
	for (uint32_t i = 1; i < ctl->nr_groups; i++) {
		struct iolat_group *c = grp_at(ctl, i);

		if (atomic_load(&c->used) && atomic_load(&c->parent) == p->idx) {
			atomic_store(&c->ad.want_bps, 0);
			atomic_store(&c->ad.want_iops, 0);
			iolat_adapt_unwatch(c);
		}
	}
}

/* ---- the parent: decide at the protected group's windows ---- */

/* Is @g the protected group of @p now? A tighter target that misses takes over. */
static bool protected_group(struct iolat_group *p, struct iolat_group *g, bool ok)
{
	uint64_t target = atomic_load_explicit(&g->target_ns, memory_order_relaxed);
	uint64_t scale_lat = atomic_load_explicit(&p->scale_lat, memory_order_relaxed);
	uint32_t asker = atomic_load_explicit(&p->scale_grp, memory_order_relaxed);

	if (!ok && (asker == IOLAT_NO_GROUP || target < scale_lat)) {
		atomic_store_explicit(&p->scale_lat, target, memory_order_relaxed);
		atomic_store_explicit(&p->scale_grp, g->idx, memory_order_relaxed);
		return true;
	}
	return asker == g->idx;
}

static void adaptive_window_decide(struct iolat_group *p, struct iolat_group *g,
				   const struct iolat_win_stat *w, bool ok, uint64_t now)
{
	struct knee_obs o = {
		.now = now, .win_ns = atomic_load_explicit(&g->win_ns, memory_order_relaxed),
		.nr = w->nr, .missed = w->missed, .sum_ns = w->sum_ns, .late_ns = w->late_ns,
		.stalled = w->stalled,
		.target_ns = atomic_load_explicit(&g->target_ns, memory_order_relaxed),
	};

	if (!protected_group(p, g, ok))
		return;
	atomic_store_explicit(&p->last_scale_event, now, memory_order_relaxed);
	gather(p, &o);
	switch (knee_window(&p->ap.knee, &o, ok)) {
	case KNEE_WATCH:
		watch_children(p);
		publish(p); /* an episode: the cookie leaves the default */
		break;
	case KNEE_SET:
		watch_children(p); /* a child that appeared meanwhile */
		split(p, now);
		break;
	case KNEE_RELEASE:
		iolat_child_lat_reset_locked(p); /* parent_reset: unwatch, unpace */
		break;
	case KNEE_NONE:
		if (p->ap.knee.limit_bps && now - p->ap.split_at >= SPLIT_EVERY_NS) {
			watch_children(p);
			split(p, now);
		}
		break;
	}
}

/* The article's release: the asker completed nothing since the last tick,
 * and has nothing outstanding (a stall is not idleness: stall.c). Its open
 * window goes with the episode: the completions left in it are its last
 * busy spell's, and would dilute the window that sees it come back (the
 * one a recall is judged on: measured on this project's disk, a tail of
 * ~300 reads in time hid the first late ones, and the memory came ~200 ms
 * later, as a first limit). */
static bool adaptive_tick_parent(struct iolat_group *p, uint64_t now)
{
	uint32_t asker = atomic_load_explicit(&p->scale_grp, memory_order_relaxed);

	if (asker != IOLAT_NO_GROUP && (iolat_active_since_last_tick(grp_at(p->ctl, asker)) ||
					iolat_stall_busy(grp_at(p->ctl, asker), now, false)))
		return false;
	if (asker != IOLAT_NO_GROUP)
		iolat_window_drop(grp_at(p->ctl, asker), now);
	iolat_child_lat_reset_locked(p);
	return true;
}

/* ---- what users read ---- */

static void adaptive_stat(const struct iolat_group *g, struct iolat_group_stat *st)
{
	const struct iolat_adapt_child *a = &g->ad;
	struct iolat_group *self = (struct iolat_group *)g; /* the lock only */
	const struct iolat_knee *k = &g->ap.knee;

	st->last_step = atomic_load(&a->last_step);
	if (atomic_load(&a->pace_watch)) {
		st->pace_bps = atomic_load(&a->pace_bps);
		st->pace_iops = atomic_load(&a->pace_iops);
	}
	st->paced_ios = atomic_load(&a->paced_ios);
	st->paced_ns = atomic_load(&a->paced_ns);
	iolat_spin_lock(&self->child_lock);
	st->last_decision = k->decision;
	st->unattainable = knee_unattainable(k);
	st->limit_bps = k->limit_bps;
	st->limit_iops = k->limit_iops;
	st->base_bps = k->base_bps;
	st->knee_bps = knee_good_rate(k, ctl_now(g->ctl));
	st->best_mean_ns = k->best_mean_ns;
	st->probe_hold_ns = knee_next_probe_ns(k);
	st->probes = k->probes;
	st->probe_fails = k->probe_fails;
	st->backoffs = k->backoffs;
	iolat_spin_unlock(&self->child_lock);
}

const struct iolat_mode_ops iolat_mode_adaptive = {
	.name = "adaptive",
	.flags = IOLAT_CTL_ADAPTIVE,
	.rule = { [0] = IOLAT_RULE_P90, [1] = IOLAT_RULE_P90 },   /* p90 on every device */
	.tick_needs_submit = false,
	.group_init = adaptive_group_init,
	.child_apply = adaptive_child_apply,
	.window_decide = adaptive_window_decide,
	.tick_parent = adaptive_tick_parent,
	.parent_reset = adaptive_parent_reset,
	.group_unused = iolat_adapt_unwatch,
	.stat = adaptive_stat,
};
