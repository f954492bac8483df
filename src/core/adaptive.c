/* SPDX-License-Identifier: MIT */
/*
 * adaptive.c - the rules of IOLAT_CTL_ADAPTIVE (docs/controller-adaptive.md)
 * on top of the kernel's signals:
 *
 *  - A throttled child maps each cookie change to one step, as the kernel
 *    does (down: halve the depth; up: + qd/16), plus a ladder of pace rungs
 *    below depth 1 (a down step at depth 1 lowers the byte rate the pace gate
 *    allows by 2^(-1/4); the first rung's rate is measured from what the group
 *    got through at depth 1), and an undo: a down change back to the cookie
 *    it had before its last up step restores the depth and rung of then.
 *  - A parent remembers the cookie at which its children last hurt (the
 *    ceiling). An up step that would reach the ceiling is held until a hold
 *    time has passed since the last miss; then it is a probe. A miss within
 *    PROBE_FAIL_NS of a probe reverts the cookie to where the probe started,
 *    at once (not 500 ms later), and doubles the hold; a probe followed by a
 *    good period moves the ceiling one step up (the next step is a probe
 *    too) and halves the hold. A probe's depth step is half the kernel's.
 *
 * Context: iolat_adapt_child_step() from iolat_check_scale_change() (any
 * thread, the winner of the group's cookie CAS), under the group's adapt
 * lock; the parent functions under the parent's child_lock, from the window
 * close (window.c) or a reset (ctl.c). Nothing here runs on the fast path.
 */
#include "core/ctl.h"
#include "core/mode.h"
#include "core/scale.h"

#define ADAPT_HOLD_MIN_NS   (2 * NSEC_PER_SEC)   /* first hold after a miss, at least */
#define ADAPT_HOLD_WINDOWS  20                   /* ... and at least this many windows */
#define ADAPT_HOLD_MAX_NS   (32 * NSEC_PER_SEC)  /* hold doubles up to this */
#define ADAPT_PROBE_FAIL_NS (2 * NSEC_PER_SEC)   /* a miss this soon fails a probe */
#define ADAPT_RUNG_MAX      24u                  /* floor: base x 2^-6 */
#define ADAPT_MIN_CAL_NS    (10 * NSEC_PER_MSEC) /* shortest period to measure */

static const char *const step_names[IOLAT_STEP_COUNT] = {
	[IOLAT_STEP_NONE] = "none",
	[IOLAT_STEP_HALVE] = "halve",
	[IOLAT_STEP_GROW] = "grow",
	[IOLAT_STEP_RUNG_DOWN] = "rung_down",
	[IOLAT_STEP_RUNG_UP] = "rung_up",
	[IOLAT_STEP_DELAY_UP] = "delay_up",
	[IOLAT_STEP_UNDO] = "undo",
	[IOLAT_STEP_RELEASE] = "release",
	[IOLAT_STEP_MISS] = "miss",
	[IOLAT_STEP_UP] = "up",
	[IOLAT_STEP_HOLD] = "hold",
	[IOLAT_STEP_PROBE] = "probe",
	[IOLAT_STEP_PROBE_FAIL] = "probe_fail",
	[IOLAT_STEP_PROBE_OK] = "probe_ok",
	[IOLAT_STEP_RESET] = "reset",
};

const char *iolat_step_name(unsigned step)
{
	return step < IOLAT_STEP_COUNT ? step_names[step] : "?";
}

void iolat_adapt_init(struct iolat_group *g, uint64_t now)
{
	const memory_order rlx = memory_order_relaxed;
	struct iolat_adapt_child *a = &g->ad;
	struct iolat_adapt_parent *ap = &g->ap;

	iolat_spin_lock(&a->lock);
	if (atomic_exchange(&a->pace_watch, 0))
		atomic_fetch_sub(&g->ctl->pace_watchers, 1); /* a recycled record */
	atomic_store_explicit(&a->rung, 0, rlx);
	atomic_store_explicit(&a->pace_bps, 0, rlx);
	atomic_store_explicit(&a->next_issue, 0, rlx);
	atomic_store_explicit(&a->cal_bytes, 0, rlx);
	atomic_store_explicit(&a->paced_ios, 0, rlx);
	atomic_store_explicit(&a->paced_ns, 0, rlx);
	a->cal_snap_bytes = 0;
	a->cal_snap_ns = now;
	atomic_store_explicit(&a->pace_base_bps, 0, rlx);
	a->undo_cookie = 0;
	a->undo_depth = a->undo_rung = 0;
	atomic_store_explicit(&a->last_step, IOLAT_STEP_NONE, rlx);
	atomic_store_explicit(&a->undos, 0, rlx);
	iolat_spin_unlock(&a->lock);

	iolat_spin_lock(&g->child_lock);
	iolat_adapt_parent_reset(g);
	atomic_store_explicit(&ap->last_decision, IOLAT_STEP_NONE, rlx);
	atomic_store_explicit(&ap->probes, 0, rlx);
	atomic_store_explicit(&ap->probe_fails, 0, rlx);
	atomic_store_explicit(&ap->holds, 0, rlx);
	iolat_spin_unlock(&g->child_lock);
}

/* ---- the child: depth and rung ---- */

/* Bytes per second the group got through the gate since the last step. */
static uint64_t measured_rate(struct iolat_adapt_child *a, uint64_t now)
{
	uint64_t bytes = atomic_load_explicit(&a->cal_bytes, memory_order_relaxed) - a->cal_snap_bytes;
	uint64_t dt_us = (now - a->cal_snap_ns) / 1000;

	if (now < a->cal_snap_ns + ADAPT_MIN_CAL_NS || !bytes || bytes > UINT64_MAX / 1000000)
		return 0;
	return bytes * 1000000 / dt_us;
}

static void set_rung(struct iolat_group *g, uint32_t rung, uint64_t now)
{
	struct iolat_adapt_child *a = &g->ad;
	uint64_t base = atomic_load_explicit(&a->pace_base_bps, memory_order_relaxed);

	if (rung && !atomic_load(&a->rung))
		atomic_store(&a->next_issue, now); /* a fresh budget, no credit */
	atomic_store(&a->pace_bps, rung ? iolat_pace_rate(base, rung) : 0);
	atomic_store(&a->rung, rung);
}

static void set_depth(struct iolat_group *g, uint32_t depth)
{
	uint32_t watch = depth == 1;

	iolat_depth_set(g, depth); /* a limit: the in-flight count made exact first */
	if (atomic_exchange(&g->ad.pace_watch, watch) != watch) {
		if (watch)
			atomic_fetch_add(&g->ctl->pace_watchers, 1);
		else
			atomic_fetch_sub(&g->ctl->pace_watchers, 1);
	}
}

static unsigned child_release(struct iolat_group *g, uint64_t now)
{
	bool was = atomic_load(&g->max_depth) != IOLAT_DEPTH_MAX ||
		   atomic_load(&g->use_delay) != 0;

	iolat_delay_clear(g);
	set_rung(g, 0, now);
	set_depth(g, IOLAT_DEPTH_MAX);
	g->ad.undo_cookie = 0;
	if (was)
		atomic_fetch_add_explicit(&g->scale_ups, 1, memory_order_relaxed);
	return IOLAT_STEP_RELEASE;
}

static unsigned child_up(struct iolat_group *g, uint32_t depth, uint32_t qd, uint64_t now)
{
	uint32_t rung = atomic_load(&g->ad.rung), new;

	atomic_fetch_add_explicit(&g->scale_ups, 1, memory_order_relaxed);
	if (rung) {
		iolat_delay_unuse(g);
		set_rung(g, rung - 1, now);
		return IOLAT_STEP_RUNG_UP;
	}
	if ((depth < qd ? depth : qd) == 1 && iolat_delay_unuse(g))
		return IOLAT_STEP_DELAY_UP;
	new = iolat_depth_step(depth, qd, true);
	/* Into the parent's known-bad zone: half the kernel's step (BBR-like
	 * small probe gain), so that the last good depth is found more finely. */
	if (grp_parent(g) && atomic_load(&grp_parent(g)->ap.probing) && new > depth + 1 &&
	    depth < qd)
		new = depth + (new - depth) / 2;
	if (new == depth)
		atomic_fetch_sub_explicit(&g->scale_ups, 1, memory_order_relaxed);
	set_depth(g, new);
	return IOLAT_STEP_GROW;
}

static unsigned child_down(struct iolat_group *g, uint32_t depth, uint32_t qd, uint32_t cur,
			   uint64_t now)
{
	struct iolat_adapt_child *a = &g->ad;
	uint32_t rung = atomic_load(&a->rung);

	atomic_fetch_add_explicit(&g->scale_downs, 1, memory_order_relaxed);
	if (a->undo_cookie && cur == a->undo_cookie) {
		/* The parent reverted a failed probe: back to where we were. */
		if (a->undo_rung > rung)
			iolat_delay_use(g);
		set_depth(g, a->undo_depth);
		set_rung(g, a->undo_rung, now);
		atomic_fetch_add_explicit(&a->undos, 1, memory_order_relaxed);
		return IOLAT_STEP_UNDO;
	}
	if ((depth < qd ? depth : qd) > 1) {
		set_depth(g, iolat_depth_step(depth, qd, false));
		return IOLAT_STEP_HALVE;
	}
	/* At depth 1: the kernel's use_delay, and one pace rung lower. */
	iolat_delay_use(g);
	if (depth != 1)
		set_depth(g, 1);
	if (rung >= ADAPT_RUNG_MAX)
		return IOLAT_STEP_RUNG_DOWN;
	if (!rung) {
		uint64_t base = measured_rate(a, now);

		if (!base)
			return IOLAT_STEP_RUNG_DOWN; /* nothing went through: nothing to pace */
		atomic_store_explicit(&a->pace_base_bps, base, memory_order_relaxed);
	}
	set_rung(g, rung + 1, now);
	return IOLAT_STEP_RUNG_DOWN;
}

void iolat_adapt_child_step(struct iolat_group *g, uint32_t mine, uint32_t cur)
{
	struct iolat_adapt_child *a = &g->ad;
	uint32_t qd = atomic_load_explicit(&g->ctl->qd, memory_order_relaxed);
	uint64_t now = ctl_now(g->ctl);
	uint32_t depth;
	unsigned step;
	bool wake = true;

	iolat_spin_lock(&a->lock);
	depth = atomic_load(&g->max_depth);
	/* A reset to the default applied meanwhile by another thread wins. */
	if (cur == IOLAT_DEFAULT_COOKIE ||
	    atomic_load(&g->scale_cookie) == IOLAT_DEFAULT_COOKIE) {
		step = child_release(g, now);
	} else if (cur > mine) {
		a->undo_cookie = mine;
		a->undo_depth = depth;
		a->undo_rung = atomic_load(&a->rung);
		step = child_up(g, depth, qd, now);
	} else {
		step = child_down(g, depth, qd, cur, now);
		a->undo_cookie = 0;
		wake = false;
	}
	a->cal_snap_bytes = atomic_load_explicit(&a->cal_bytes, memory_order_relaxed);
	a->cal_snap_ns = now;
	atomic_store_explicit(&a->last_step, step, memory_order_relaxed);
	iolat_spin_unlock(&a->lock);
	if (wake)
		iolat_wake(g, true);
	iolat_inflight_relax(g); /* if unlimited again: distributed */
}

/* ---- the parent: ceiling, hold, probes ---- */

void iolat_adapt_parent_reset(struct iolat_group *p)
{
	struct iolat_adapt_parent *ap = &p->ap;

	atomic_store_explicit(&ap->ceiling, 0, memory_order_relaxed);
	ap->probing = false;
	ap->probe_from = 0;
	ap->probe_at = ap->last_down_at = 0;
	ap->hold_min_ns = ADAPT_HOLD_MIN_NS;
	atomic_store_explicit(&ap->hold_ns, ADAPT_HOLD_MIN_NS, memory_order_relaxed);
	atomic_store_explicit(&ap->last_decision, IOLAT_STEP_RESET, memory_order_relaxed);
}

static bool probe_live(const struct iolat_adapt_parent *ap, uint64_t now)
{
	return ap->probing && now - ap->probe_at <= ADAPT_PROBE_FAIL_NS;
}

bool iolat_adapt_early_revert(struct iolat_group *p, uint64_t now)
{
	return probe_live(&p->ap, now);
}

/*
 * The shortest hold for an asker with windows of @win_ns: a failed probe
 * costs one or two of its windows, so the first probe after a miss costs at
 * most ~10 % of them (2 s on an SSD target's 100 ms windows, 9.6 s at 480 ms).
 */
static uint64_t hold_min(uint64_t win_ns)
{
	uint64_t h = ADAPT_HOLD_WINDOWS * win_ns;

	return h > ADAPT_HOLD_MIN_NS ? h : ADAPT_HOLD_MIN_NS;
}

uint32_t iolat_adapt_down(struct iolat_group *p, uint32_t old, uint32_t kernel_new, uint64_t now,
			  uint64_t win_ns)
{
	struct iolat_adapt_parent *ap = &p->ap;
	uint32_t ceiling = atomic_load_explicit(&ap->ceiling, memory_order_relaxed);
	uint64_t hold = atomic_load_explicit(&ap->hold_ns, memory_order_relaxed);
	uint64_t lo = hold_min(win_ns), hi = lo > ADAPT_HOLD_MAX_NS ? lo : ADAPT_HOLD_MAX_NS;
	uint32_t new = kernel_new;

	ap->hold_min_ns = lo;
	if (hold < lo)
		atomic_store_explicit(&ap->hold_ns, hold = lo, memory_order_relaxed);
	if (probe_live(ap, now)) {
		/* The probe hurt: straight back to where it started, wait longer. */
		new = ap->probe_from;
		hold = hold * 2 < hi ? hold * 2 : hi;
		atomic_store_explicit(&ap->hold_ns, hold, memory_order_relaxed);
		atomic_fetch_add_explicit(&ap->probe_fails, 1, memory_order_relaxed);
		if (!ceiling || old < ceiling)
			atomic_store_explicit(&ap->ceiling, old, memory_order_relaxed);
		atomic_store_explicit(&ap->last_decision, IOLAT_STEP_PROBE_FAIL, memory_order_relaxed);
	} else {
		atomic_store_explicit(&ap->ceiling, old, memory_order_relaxed);
		atomic_store_explicit(&ap->last_decision, IOLAT_STEP_MISS, memory_order_relaxed);
	}
	ap->probing = false;
	ap->last_down_at = now;
	return new;
}

bool iolat_adapt_up(struct iolat_group *p, uint32_t old, uint32_t *new, uint64_t now)
{
	struct iolat_adapt_parent *ap = &p->ap;
	uint32_t ceiling;
	unsigned decision = IOLAT_STEP_UP;

	if (ap->probing) {
		/* A good period at the ceiling: it was not (or no longer) harmful.
		 * The next step up is a probe again (one step at a time). */
		uint64_t hold = atomic_load_explicit(&ap->hold_ns, memory_order_relaxed) / 2;

		ap->probing = false;
		atomic_store_explicit(&ap->ceiling, *new > old ? *new : 0, memory_order_relaxed);
		atomic_store_explicit(&ap->hold_ns, hold > ap->hold_min_ns ? hold : ap->hold_min_ns,
				      memory_order_relaxed);
		decision = IOLAT_STEP_PROBE_OK;
	}
	ceiling = atomic_load_explicit(&ap->ceiling, memory_order_relaxed);
	if (ceiling && *new >= ceiling) {
		if (now - ap->last_down_at < atomic_load_explicit(&ap->hold_ns, memory_order_relaxed)) {
			atomic_fetch_add_explicit(&ap->holds, 1, memory_order_relaxed);
			atomic_store_explicit(&ap->last_decision, IOLAT_STEP_HOLD, memory_order_relaxed);
			return false;
		}
		ap->probing = true;
		ap->probe_at = now;
		ap->probe_from = old;
		atomic_fetch_add_explicit(&ap->probes, 1, memory_order_relaxed);
		decision = IOLAT_STEP_PROBE;
	}
	atomic_store_explicit(&ap->last_decision, decision, memory_order_relaxed);
	return true;
}

/* ---- what users read ---- */

/* The adaptive mode's figures (this file, pace.c). */
void iolat_adapt_stat(const struct iolat_group *g, struct iolat_group_stat *st)
{
	const struct iolat_adapt_child *a = &g->ad;
	const struct iolat_adapt_parent *ap = &g->ap;

	st->rung = atomic_load(&a->rung);
	st->last_step = atomic_load(&a->last_step);
	st->pace_bps = atomic_load(&a->pace_bps);
	st->pace_base_bps = atomic_load(&a->pace_base_bps);
	st->paced_ios = atomic_load(&a->paced_ios);
	st->paced_ns = atomic_load(&a->paced_ns);
	st->undos = atomic_load(&a->undos);
	st->probe_ceiling = atomic_load(&ap->ceiling);
	st->last_decision = atomic_load(&ap->last_decision);
	st->probe_hold_ns = atomic_load(&ap->hold_ns);
	st->probes = atomic_load(&ap->probes);
	st->probe_fails = atomic_load(&ap->probe_fails);
	st->holds = atomic_load(&ap->holds);
}

/* ---- the mode table ---- */

static void adaptive_child_apply(struct iolat_group *g, uint32_t mine, uint32_t cur)
{
	if (cur < mine && iolat_child_spared(g, grp_parent(g)))
		return;
	iolat_adapt_child_step(g, mine, cur);
}

/* The article's release; an active asker is kept (its holds are decisions too). */
static bool adaptive_tick_parent(struct iolat_group *p, uint64_t now)
{
	uint32_t asker = atomic_load_explicit(&p->scale_grp, memory_order_relaxed);

	(void)now;
	if (asker == IOLAT_NO_GROUP) {
		atomic_store_explicit(&p->child_cookie,
				      iolat_cookie_step(atomic_load(&p->child_cookie),
							atomic_load(&p->ctl->qd), true),
				      memory_order_release);
	} else if (!iolat_active_since_last_tick(grp_at(p->ctl, asker))) {
		iolat_child_lat_reset_locked(p);
		return true;
	}
	return false;
}

const struct iolat_mode_ops iolat_mode_adaptive = {
	.name = "adaptive",
	.group_init = iolat_adapt_init,
	.child_apply = adaptive_child_apply,
	.window_ok = iolat_kernel_window_ok,
	.window_decide = iolat_kernel_window_decide,
	.tick_parent = adaptive_tick_parent,
	.parent_reset = iolat_adapt_parent_reset,
	.stat = iolat_adapt_stat,
};
