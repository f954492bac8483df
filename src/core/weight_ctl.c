/* SPDX-License-Identifier: MIT */
/*
 * weight_ctl.c - weights in the controller (docs/weights.md): a group's
 * weight, what each group was delivered, the period that divides the
 * capacity among the active groups (weight.c's rules, top down from the
 * root), the weight gate that holds a group to its budget in-process, and
 * the figures users read (iolat_group_share()).
 *
 * Counting: the gate (iolat_group_pace_due(), before each admission) and
 * iolat_observe_done*() add each I/O's bytes at every level from its group
 * up; a group fed by iolat_group_observe_served() is counted by those
 * reports only. Nothing is counted or divided until the first
 * iolat_group_set_weight() on the controller.
 *
 * The period: about once a second, the first caller past its end (the gate,
 * an observed completion or served report, the tick) wins a CAS and runs it
 * under the controller's weight_lock: each group's use and activity over the
 * period, the capacity estimate from the device's total, then each parent's
 * children divided, parents before their children.
 *
 * Between periods: a group that was idle and does I/O (counted, through the
 * gate, or in a served report) is activated and the shares are divided again
 * at once, measuring nothing (activation); a donor that a served report shows
 * at its reduced budget snaps back; a group whose served reports show nothing
 * for WEIGHT_STOP_NS while its caller reports nothing of it outstanding has
 * stopped: it is deactivated and the shares divided again at once (a group
 * that waits in the device has I/O outstanding: starved, not stopped). At
 * the period's end, a group activated within it is judged by its rate since
 * then, and one that stopped stays inactive.
 *
 * The gate: a budgeted level has a virtual time like the pace gate's (at
 * rate R, one I/O of B bytes every B/R; an idle group builds no credit); a
 * donor that would wait gets its fair part back at once (snap-back).
 *
 * Context: any thread; the counting and the gate lock-free (one relaxed load
 * a level to see whether an activation is due), the period and an
 * activation under weight_lock (a leaf lock: no other lock is taken under it).
 */
#include <errno.h>

#include "core/ctl.h"

#define WEIGHT_MIN_BYTES 512u /* an I/O of unknown size costs this much */

static uint64_t per_sec(uint64_t n, uint64_t dt)
{
	if (!dt)
		return 0;
	return n > UINT64_MAX / NSEC_PER_SEC ? n / dt * NSEC_PER_SEC : n * NSEC_PER_SEC / dt;
}

void iolat_weight_group_init(struct iolat_group *g)
{
	const memory_order rlx = memory_order_relaxed;
	struct iolat_weight_grp *w = &g->w;

	atomic_store_explicit(&w->weight, 0, rlx);
	atomic_store_explicit(&w->donor, 0, rlx);
	atomic_store_explicit(&w->bytes, 0, rlx);
	atomic_store_explicit(&w->ios, 0, rlx);
	atomic_store_explicit(&w->waits, 0, rlx);
	atomic_store_explicit(&w->budget_bps, WEIGHT_UNLIMITED, rlx);
	atomic_store_explicit(&w->fair_bps, 0, rlx);
	atomic_store_explicit(&w->next_issue, 0, rlx);
	atomic_store_explicit(&w->snapbacks, 0, rlx);
	atomic_store_explicit(&w->idle, 1, rlx);
	atomic_store_explicit(&w->served_at, 0, rlx);
	atomic_store_explicit(&w->served_snap, 0, rlx);
	atomic_store_explicit(&w->io_at, 0, rlx);
	iolat_spin_lock(&g->ctl->weight_lock);
	w->snap_bytes = w->snap_ios = w->snap_waits = 0;
	w->active_at = w->rate_bps = w->stopped_at = 0;
	w->snap_served = w->snap_served_ios = 0;
	w->active = w->busy = w->snapped = false;
	w->hweight = g->idx == IOLAT_ROOT_IDX ? 1.0 : 0.0;
	w->share_bps = w->use_bps = w->donated_bps = 0;
	iolat_spin_unlock(&g->ctl->weight_lock);
}

int iolat_group_set_weight(struct iolat_group *g, unsigned weight)
{
	struct iolat_ctl *ctl;

	if (!g || g->idx == IOLAT_ROOT_IDX || weight < IOLAT_WEIGHT_MIN ||
	    weight > IOLAT_WEIGHT_MAX)
		return -EINVAL;
	ctl = g->ctl;
	atomic_store(&g->w.weight, weight);
	if (!atomic_load(&ctl->weights_on)) {
		iolat_spin_lock(&ctl->weight_lock);
		if (!atomic_load(&ctl->weights_on)) {
			atomic_store(&ctl->weight_at, ctl_now(ctl));
			atomic_store(&ctl->weights_on, 1);
		}
		iolat_spin_unlock(&ctl->weight_lock);
	}
	return 0;
}

unsigned iolat_group_weight(const struct iolat_group *g)
{
	return g ? grp_weight(g) : 0;
}

/* ---- activation and counting ---- */

static void divide_all(struct iolat_ctl *ctl, uint64_t now);

static bool lvl_idle(const struct iolat_group *lvl)
{
	return atomic_load_explicit(&lvl->w.idle, memory_order_relaxed) != 0;
}

/* A level from @g up was idle (its callers' walk saw it): activate. */
static void activate(struct iolat_group *g, uint64_t now)
{
	struct iolat_ctl *ctl = g->ctl;
	bool idle = false;

	iolat_spin_lock(&ctl->weight_lock);
	for (struct iolat_group *lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl)) {
		if (!atomic_exchange(&lvl->w.idle, 0))
			continue;
		/* Starting: wants its part (not a donor) until a period has measured it. */
		lvl->w.active = lvl->w.busy = true;
		lvl->w.active_at = now;
		lvl->w.stopped_at = 0;
		idle = true;
	}
	if (idle && ctl->weight_cap_bps)
		divide_all(ctl, now);
	iolat_spin_unlock(&ctl->weight_lock);
}

void iolat_weight_maybe_activate(struct iolat_group *g, uint64_t now)
{
	for (struct iolat_group *lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl))
		if (lvl_idle(lvl)) {
			activate(g, now);
			return;
		}
}

void iolat_weight_count(struct iolat_group *g, uint64_t bytes, uint64_t now)
{
	bool idle = false;

	for (struct iolat_group *lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl)) {
		atomic_fetch_add_explicit(&lvl->w.bytes, bytes, memory_order_relaxed);
		atomic_fetch_add_explicit(&lvl->w.ios, 1, memory_order_relaxed);
		idle |= lvl_idle(lvl);
	}
	if (idle)
		activate(g, now);
}

/* ---- the gate ---- */

static uint64_t cost_ns(uint64_t bytes, uint64_t bps)
{
	if (bytes < WEIGHT_MIN_BYTES)
		bytes = WEIGHT_MIN_BYTES;
	return bytes > UINT64_MAX / NSEC_PER_SEC ? UINT64_MAX / 2 : bytes * NSEC_PER_SEC / bps;
}

/* A donor that reached its reduced budget: its fair part back, now. */
static void snap_back(struct iolat_group *lvl, uint64_t now)
{
	uint64_t fair = atomic_load(&lvl->w.fair_bps);

	if (!atomic_exchange(&lvl->w.donor, 0))
		return;
	if (fair > atomic_load(&lvl->w.budget_bps) || !fair)
		atomic_store(&lvl->w.budget_bps, fair ? fair : WEIGHT_UNLIMITED);
	atomic_store(&lvl->w.next_issue, now);
	atomic_fetch_add_explicit(&lvl->w.snapbacks, 1, memory_order_relaxed);
}

/*
 * Served nothing since WEIGHT_STOP_NS ago, with a count of its outstanding
 * I/O reported and at 0: @g stopped. Deactivated (idle: its next I/O
 * activates it again) and the shares divided again now, not at the period's
 * end a second later. A group held in the device behind its sibling has I/O
 * outstanding and may complete none of it for longer than that (on the
 * disk: 300-600 ms): only a count at 0 tells it has stopped. Without a
 * count, a starved group and a stopped one look alike: nothing is decided
 * early.
 */
static void maybe_stop(struct iolat_group *g, uint64_t now)
{
	struct iolat_ctl *ctl = g->ctl;
	uint64_t at = atomic_load(&g->w.io_at);

	if (!at || now < at + WEIGHT_STOP_NS || lvl_idle(g) || !atomic_load(&g->obs_inflight_fed) ||
	    atomic_load(&g->obs_inflight))
		return;
	iolat_spin_lock(&ctl->weight_lock);
	if (!atomic_exchange(&g->w.idle, 1)) {
		g->w.active = g->w.busy = false;
		g->w.rate_bps = 0;
		g->w.active_at = 0;
		g->w.stopped_at = now;
		if (ctl->weight_cap_bps)
			divide_all(ctl, now);
	}
	iolat_spin_unlock(&ctl->weight_lock);
}

/* Fed by served reports (no gate): a donor served at its reduced budget's
 * rate since the last report snaps back the same way; one served nothing
 * for a while may have stopped. */
void iolat_weight_served(struct iolat_group *g, uint64_t bytes, uint64_t now)
{
	uint64_t at = atomic_exchange(&g->w.served_at, now), budget;

	if (bytes)
		atomic_store(&g->w.io_at, now);
	else
		maybe_stop(g, now);

	if (!at || now <= at || !atomic_load(&g->w.donor))
		return;
	budget = atomic_load(&g->w.budget_bps);
	if (budget == WEIGHT_UNLIMITED ||
	    per_sec(bytes, now - at) < weight_mul_div(budget, WEIGHT_BUSY_PM, 1000))
		return;
	snap_back(g, now);
	atomic_fetch_add(&g->w.waits, 1); /* it wanted more: busy at the period's end */
	atomic_store(&g->w.served_snap, 1);
}

uint64_t iolat_weight_wait(struct iolat_group *g, uint64_t bytes, uint64_t now)
{
	struct iolat_group *worst = NULL;
	uint64_t wait = 0;

	(void)bytes;
	iolat_weight_maybe_period(g->ctl, now);
	for (struct iolat_group *lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl)) {
		uint64_t ni;

		if (atomic_load_explicit(&lvl->w.budget_bps, memory_order_relaxed) == WEIGHT_UNLIMITED)
			continue;
		ni = atomic_load_explicit(&lvl->w.next_issue, memory_order_relaxed);
		if (ni <= now)
			continue;
		if (atomic_load_explicit(&lvl->w.donor, memory_order_relaxed)) {
			snap_back(lvl, now);
			continue;
		}
		if (ni - now > wait) {
			wait = ni - now;
			worst = lvl;
		}
	}
	if (worst)
		atomic_fetch_add_explicit(&worst->w.waits, 1, memory_order_relaxed);
	return wait;
}

void iolat_weight_charge(struct iolat_group *g, uint64_t bytes, uint64_t now)
{
	bool idle = false;

	for (struct iolat_group *lvl = g; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl)) {
		struct iolat_weight_grp *w = &lvl->w;
		uint64_t bps, ni, cost, lag;

		atomic_fetch_add_explicit(&w->bytes, bytes, memory_order_relaxed);
		atomic_fetch_add_explicit(&w->ios, 1, memory_order_relaxed);
		idle |= lvl_idle(lvl);
		bps = atomic_load_explicit(&w->budget_bps, memory_order_relaxed);
		if (bps == WEIGHT_UNLIMITED)
			continue;
		cost = cost_ns(bytes, bps ? bps : 1);
		lag = cost > WEIGHT_SLACK_NS ? cost : WEIGHT_SLACK_NS;
		lag = lag < now ? lag : now;
		ni = atomic_load_explicit(&w->next_issue, memory_order_relaxed);
		/* A caller up to max(one cost, the slack) late loses nothing: a
		 * thread that sleeps coarsely still gets its budget. */
		while (!atomic_compare_exchange_weak_explicit(&w->next_issue, &ni,
							      (ni > now - lag ? ni : now - lag) + cost,
							      memory_order_relaxed, memory_order_relaxed))
			;
	}
	if (idle)
		activate(g, now);
}

/* ---- the period ---- */

/*
 * One group's use, activity and busyness over the period [@from, @now]. One
 * activated within it is judged by its rate since then (over the whole
 * period a sibling that started late would look like a donor for a period),
 * and is busy, not yet measured, when that was under WEIGHT_FRESH_NS ago.
 */
static bool measure(struct iolat_group *g, uint64_t from, uint64_t now, uint64_t *since)
{
	struct iolat_weight_grp *w = &g->w;
	uint64_t bytes, ios, waits = atomic_load(&w->waits), budget = atomic_load(&w->budget_bps);
	uint64_t dt = now - from;
	bool fresh = w->active_at > from && w->active_at <= now;

	if (atomic_load(&g->ad.fed) & IOLAT_FED_SERVED) {
		uint64_t b = atomic_load(&g->ad.served_bytes), n = atomic_load(&g->ad.served_ios);

		bytes = b - w->snap_served;
		ios = n - w->snap_served_ios;
		w->snap_served = b;
		w->snap_served_ios = n;
	} else {
		uint64_t b = atomic_load(&w->bytes), n = atomic_load(&w->ios);

		bytes = b - w->snap_bytes;
		ios = n - w->snap_ios;
		w->snap_bytes = b;
		w->snap_ios = n;
	}
	w->use_bps = per_sec(bytes, dt);
	w->rate_bps = fresh ? per_sec(bytes, now - w->active_at) : w->use_bps;
	w->active = (bytes || ios) && !w->stopped_at;   /* stopped within it: stays so */
	w->stopped_at = 0;
	w->busy = waits != w->snap_waits ||
		  (fresh && now - w->active_at < WEIGHT_FRESH_NS) ||
		  (budget != WEIGHT_UNLIMITED &&
		   w->rate_bps >= weight_mul_div(budget, WEIGHT_BUSY_PM, 1000));
	w->snap_waits = waits;
	*since = w->active_at;
	w->active_at = 0;
	w->snapped = atomic_exchange(&w->served_snap, 0) != 0;
	atomic_store(&w->idle, !w->active);
	return fresh;
}

static uint32_t depth_of(const struct iolat_group *g)
{
	uint32_t d = 0;

	for (const struct iolat_group *p = grp_parent(g); p; p = grp_parent(p))
		d++;
	return d;
}

/* Divide what @p's children may use among them (weight.c). */
static void divide_children(struct iolat_ctl *ctl, struct iolat_group *p, uint64_t cap,
			    uint64_t now)
{
	struct weight_node *nodes = ctl->weight_nodes;
	uint32_t *idx = ctl->weight_idx;
	uint64_t pbudget = p->idx == IOLAT_ROOT_IDX ? WEIGHT_UNLIMITED :
			   atomic_load(&p->w.budget_bps);
	uint64_t pool;
	uint32_t n = 0;

	pool = pbudget == WEIGHT_UNLIMITED ? p->w.share_bps : pbudget;
	for (uint32_t i = 1; i < ctl->nr_groups; i++) {
		struct iolat_group *c = grp_at(ctl, i);

		if (!atomic_load_explicit(&c->used, memory_order_acquire) ||
		    atomic_load(&c->parent) != p->idx)
			continue;
		if (n == WEIGHT_SPLIT_MAX) { /* beyond: not divided */
			c->w.hweight = 0;
			c->w.share_bps = c->w.donated_bps = 0;
			atomic_store(&c->w.budget_bps, WEIGHT_UNLIMITED);
			continue;
		}
		idx[n] = i;
		nodes[n] = (struct weight_node){
			.weight = grp_weight(c), .active = c->w.active, .busy = c->w.busy,
			.exempt = atomic_load(&c->target_ns) != 0, .use_bps = c->w.rate_bps,
		};
		n++;
	}
	weight_divide(nodes, n, p->w.hweight, cap, pool, pbudget);
	for (uint32_t k = 0; k < n; k++) {
		struct iolat_group *c = grp_at(ctl, idx[k]);
		const struct weight_node *x = &nodes[k];
		uint64_t was = atomic_load(&c->w.budget_bps);

		c->w.hweight = x->hweight;
		c->w.share_bps = x->share_bps;
		c->w.donated_bps = x->donated_bps;
		atomic_store(&c->w.fair_bps, x->donor ? x->fair_bps : 0);
		atomic_store(&c->w.donor, x->donor);
		if (was == WEIGHT_UNLIMITED && x->budget_bps != WEIGHT_UNLIMITED)
			atomic_store(&c->w.next_issue, now); /* a fresh budget, no credit */
		atomic_store(&c->w.budget_bps, x->budget_bps);
	}
}

/* A budget in force on a group that did I/O in the period. */
static bool budget_binds(const struct iolat_group *g)
{
	return g->w.active && atomic_load(&g->w.budget_bps) != WEIGHT_UNLIMITED;
}

/*
 * The budgets the device is judged against: those that bind under no
 * ancestor whose budget binds. At the top level when the top level is
 * divided; below a lone top-level group (unlimited) its children's, and so
 * on down: the capacity must see them wherever the division happens.
 */
static bool outermost_budget(const struct iolat_group *g)
{
	if (!budget_binds(g))
		return false;
	for (const struct iolat_group *p = grp_parent(g); p && p->idx != IOLAT_ROOT_IDX;
	     p = grp_parent(p))
		if (budget_binds(p))
			return false;
	return true;
}

/*
 * What a top-level group counts for in the device's total. While the
 * estimate is not known yet, one that began doing I/O within the period at
 * least WEIGHT_FRESH_NS before its end counts by its rate since then: the
 * period began before it did, and its whole-period mean would halve the
 * first estimate (seen on the disk: 1.6-2.3 GB/s where two writers did
 * 4.1-4.9 GB/s a second later; budgets cut from it took six periods of
 * steps to climb back). Too high an estimate is found short and corrected
 * the next period; too low is only climbed back by steps.
 */
static uint64_t counted_use(const struct iolat_group *g, bool known, bool fresh, uint64_t since,
			    uint64_t now)
{
	if (!known && fresh && now - since >= WEIGHT_FRESH_NS)
		return g->w.rate_bps;
	return g->w.use_bps;
}

static void run_period(struct iolat_ctl *ctl, uint64_t from, uint64_t now)
{
	struct iolat_group *root = grp_at(ctl, IOLAT_ROOT_IDX);
	uint64_t total = 0, allowed, bound_use = 0, bound_lim = 0, since;
	bool budgeted = false, known = ctl->weight_cap.bps != 0, fresh, donated, before;

	for (uint32_t i = 1; i < ctl->nr_groups; i++) {
		struct iolat_group *g = grp_at(ctl, i);

		if (!atomic_load_explicit(&g->used, memory_order_acquire))
			continue;
		fresh = measure(g, from, now, &since);
		if (atomic_load(&g->parent) == IOLAT_ROOT_IDX)
			total += counted_use(g, known, fresh, since, now);
	}
	/*
	 * What the budgets allowed: the device's total with each outermost
	 * budgeted group's use replaced by its budget (a donor's, one a served
	 * report snapped back, or one that was a donor the period before, by its
	 * use: its budget moved within the period or has just come back, and
	 * what it used is what it wanted; seen on the disk: a reader weighted
	 * 300 beside a writer, a donor whose rate rose by a tenth was given its
	 * whole part back, left most of it unused the next period, and that
	 * period read as a short device: the estimate fell to the total, each
	 * such pair of periods again, 2.0 -> 0.4 GB/s in ten seconds).
	 */
	for (uint32_t i = 1; i < ctl->nr_groups; i++) {
		struct iolat_group *g = grp_at(ctl, i);

		if (!atomic_load_explicit(&g->used, memory_order_acquire))
			continue;
		donated = atomic_load(&g->w.donor) || g->w.snapped;   /* a donor in this period */
		before = g->w.donor_before;
		g->w.donor_before = donated;
		if (!outermost_budget(g))
			continue;
		budgeted = true;
		bound_use += g->w.use_bps;
		bound_lim += donated || before ? g->w.use_bps : atomic_load(&g->w.budget_bps);
	}
	/* (a subtree's reports may lag its parent's by a round: never below 0) */
	allowed = total + bound_lim > bound_use ? total + bound_lim - bound_use : 0;
	ctl->weight_cap_bps = weight_cap_update(&ctl->weight_cap, total, budgeted, allowed);
	ctl->weight_total_bps = total;
	root->w.hweight = 1.0;
	root->w.share_bps = ctl->weight_cap_bps;
	root->w.use_bps = total;
	root->w.active = total != 0;
	divide_all(ctl, now);
}

/* Each parent's children divided, parents before their children. */
static void divide_all(struct iolat_ctl *ctl, uint64_t now)
{
	uint32_t maxdepth = 0;

	for (uint32_t d = 0; d <= maxdepth; d++) {
		for (uint32_t i = 0; i < ctl->nr_groups; i++) {
			struct iolat_group *p = grp_at(ctl, i);
			uint32_t pd;

			if (!atomic_load_explicit(&p->used, memory_order_acquire) ||
			    !atomic_load(&p->nr_children))
				continue;
			pd = depth_of(p);
			if (pd > maxdepth)
				maxdepth = pd;
			if (pd == d)
				divide_children(ctl, p, ctl->weight_cap_bps, now);
		}
	}
}

void iolat_weight_maybe_period(struct iolat_ctl *ctl, uint64_t now)
{
	uint64_t at;

	if (!ctl_weights_on(ctl))
		return;
	at = atomic_load_explicit(&ctl->weight_at, memory_order_relaxed);
	if (now <= at || now - at < WEIGHT_PERIOD_NS ||
	    !atomic_compare_exchange_strong(&ctl->weight_at, &at, now))
		return;
	iolat_spin_lock(&ctl->weight_lock);
	run_period(ctl, at, now);
	iolat_spin_unlock(&ctl->weight_lock);
}

/* ---- what users read ---- */

int iolat_group_share(const struct iolat_group *g, struct iolat_group_share *out)
{
	struct iolat_ctl *ctl;

	if (!g || !out)
		return -EINVAL;
	ctl = g->ctl;
	iolat_spin_lock(&ctl->weight_lock);
	*out = (struct iolat_group_share){
		.weight = grp_weight(g),
		.active = g->w.active,
		.hweight = g->idx == IOLAT_ROOT_IDX ? 1.0 : g->w.hweight,
		.share_bps = g->w.share_bps,
		.use_bps = g->w.use_bps,
		.donated_bps = g->w.donated_bps,
		.budget_bps = atomic_load(&g->w.budget_bps),
		.capacity_bps = ctl->weight_cap_bps,
	};
	iolat_spin_unlock(&ctl->weight_lock);
	if (!ctl_weights_on(ctl))
		out->hweight = 1.0;
	return 0;
}
