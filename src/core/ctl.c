/* SPDX-License-Identifier: MIT */
/*
 * ctl.c - the controller and its group tree: arena layout, group create and
 * destroy, latency targets, queue depth.
 *
 * How io.latency works (after block/blk-iolatency.c; our code, our words):
 *
 *   root
 *    |-- a                  A group with a latency target watches its own
 *    |   |-- fast (1 ms)    completions over a window (16 x target, clamped
 *    |   `-- slow (none)    to 100 ms..1 s). When a window misses (HDD: mean
 *    `-- unrelated          above target; SSD: 10% or more at or above it),
 *                           it lowers its parent's scale cookie. Each sibling
 *   sees the new cookie at its next submit and, if its target is looser (or
 *   absent) and it did more than 5% of the parent's I/O, halves its queue
 *   depth; at depth 1 it is given induced delay instead (use_delay), served
 *   by its tasks at a safe point. `unrelated` shares no parent with `fast`
 *   and is never touched; neither is `a` (a group is judged against its
 *   siblings only). When the asking group's windows are good again it raises
 *   the cookie step by step and the siblings grow back by qd/16 per step,
 *   to unlimited once the cookie is back at its default. Scale events under
 *   one parent are at least 500 ms apart. A 1 s tick (timer.c) releases
 *   throttling whose asking group went quiet.
 *
 * The per-I/O path is admit.c, the window's end window.c, delay delay.c,
 * the tick timer.c, snapshots stat.c. See docs/design.md.
 *
 * Context: group create/destroy/set_target serialise on the tree lock and may
 * run concurrently with I/O on other groups; they may call granted()
 * callbacks (after dropping every lock).
 */
#include <errno.h>
#include <string.h>

#include "core/ctl.h"
#include "core/scale.h"

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static uint32_t cfg_max_groups(const struct iolat_ctl_config *cfg)
{
	return cfg && cfg->max_groups ? cfg->max_groups : 1024;
}

static uint32_t cfg_slots(const struct iolat_ctl_config *cfg)
{
	return cfg && cfg->nr_stat_slots ? cfg->nr_stat_slots : 16;
}

int iolat_core_ctl_check(const struct iolat_ctl_config *cfg)
{
	uint32_t slots = cfg_slots(cfg);

	if (slots & (slots - 1) || slots > 4096)
		return -EINVAL;
	if (cfg_max_groups(cfg) > (1u << 24))
		return -EINVAL;
	if (cfg && (cfg->flags & IOLAT_CTL_ADAPTIVE) && (cfg->flags & IOLAT_CTL_COMPAT_TIMER))
		return -EINVAL; /* adaptive releases the article's way */
	return 0;
}

size_t iolat_core_ctl_size(const struct iolat_ctl_config *cfg)
{
	size_t n = (size_t)cfg_max_groups(cfg) + 1;
	size_t sz = align_up(sizeof(struct iolat_ctl), IOLAT_CACHELINE);

	sz += align_up(n * sizeof(struct iolat_group), IOLAT_CACHELINE);
	sz += n * cfg_slots(cfg) * sizeof(struct iolat_slot);
	return sz;
}

/*
 * (Re)initialise a group record. A freed record may still be looked at by a
 * concurrent tick or sibling scan (they walk the arena without the tree
 * lock), so every field is stored atomically or under the lock that guards
 * it, and the record's spinlocks are never re-initialised: they were set up
 * once by iolat_core_ctl_init() and are left unlocked by every user.
 */
static void group_init(struct iolat_ctl *ctl, struct iolat_group *g, uint32_t parent,
		       const char *name, uint64_t now)
{
	const memory_order rlx = memory_order_relaxed;
	struct iolat_slot *s = grp_slots(g);

	atomic_store_explicit(&g->parent, parent, rlx);
	atomic_store_explicit(&g->parent_off, parent == IOLAT_NO_GROUP ? 0 :
			      (int64_t)((char *)grp_at(ctl, parent) - (char *)g), rlx);
	atomic_store_explicit(&g->nr_children, 0, rlx);
	memset(g->name, 0, sizeof(g->name));
	strncpy(g->name, name, IOLAT_NAME_MAX - 1);

	atomic_store_explicit(&g->inflight, 0, rlx);
	atomic_store_explicit(&g->max_depth, IOLAT_DEPTH_MAX, rlx);
	atomic_store_explicit(&g->mode, IOLAT_MODE_DIST, rlx); /* unlimited: distributed */
	atomic_store_explicit(&g->scale_cookie, parent == IOLAT_NO_GROUP ? IOLAT_DEFAULT_COOKIE :
			      atomic_load(&grp_at(ctl, parent)->child_cookie), rlx);
	iolat_spin_lock(&g->wq_lock);
	iolat_waitq_init(&g->wq);
	atomic_store_explicit(&g->nwait, 0, rlx);
	iolat_spin_unlock(&g->wq_lock);

	atomic_store_explicit(&g->target_ns, 0, rlx);
	atomic_store_explicit(&g->win_ns, IOLAT_MIN_WIN_NS, rlx);
	atomic_store_explicit(&g->window_start, now, rlx);
	atomic_store_explicit(&g->snap_nr, 0, rlx);
	atomic_store_explicit(&g->snap_sum, 0, rlx);
	atomic_store_explicit(&g->snap_missed, 0, rlx);
	atomic_store_explicit(&g->snap_late, 0, rlx);
	atomic_store_explicit(&g->lat_avg_ns, 0, rlx);
	atomic_store_explicit(&g->last_mean_ns, 0, rlx);
	atomic_store_explicit(&g->windows_ok, 0, rlx);
	atomic_store_explicit(&g->windows_missed, 0, rlx);
	atomic_store_explicit(&g->obs_nr, 0, rlx);
	atomic_store_explicit(&g->obs_bytes, 0, rlx);
	atomic_store_explicit(&g->obs_inflight, 0, rlx);
	atomic_store_explicit(&g->obs_inflight_fed, 0, rlx);
	atomic_store_explicit(&g->stall_since, 0, rlx);
	atomic_store_explicit(&g->stall_done, 0, rlx);
	atomic_store_explicit(&g->stalled_windows, 0, rlx);
	g->cur_stat.nr = g->cur_stat.sum_ns = g->cur_stat.missed = g->cur_stat.late_ns = 0;
	atomic_store_explicit(&g->nr_samples, 0, rlx);
	atomic_store_explicit(&g->bypass_throttled, 0, rlx);
	g->bypass_seen = g->bypass_carried = 0;

	atomic_store_explicit(&g->use_delay, 0, rlx);
	atomic_store_explicit(&g->delay_nsec, 0, rlx);
	atomic_store_explicit(&g->delay_start, 0, rlx);
	atomic_store_explicit(&g->last_delay, 0, rlx);
	atomic_store_explicit(&g->last_use, 0, rlx);

	atomic_store_explicit(&g->nr_bypass, 0, rlx);
	atomic_store_explicit(&g->throttled_ns, 0, rlx);
	atomic_store_explicit(&g->slept_ns, 0, rlx);
	atomic_store_explicit(&g->scale_downs, 0, rlx);
	atomic_store_explicit(&g->scale_ups, 0, rlx);
	atomic_store_explicit(&g->tick_nr, 0, rlx);
	atomic_store_explicit(&g->tick_seq, 0, rlx);

	iolat_spin_lock(&g->child_lock);
	atomic_store_explicit(&g->child_cookie, IOLAT_DEFAULT_COOKIE, rlx);
	atomic_store_explicit(&g->scale_grp, IOLAT_NO_GROUP, rlx);
	atomic_store_explicit(&g->scale_lat, 0, rlx);
	atomic_store_explicit(&g->last_scale_event, 0, rlx);
	atomic_store_explicit(&g->child_nr_samples, 0, rlx);
	iolat_spin_unlock(&g->child_lock);

	for (uint32_t i = 0; i < ctl->nr_slots; i++) {
		atomic_store_explicit(&s[i].nr, 0, rlx);
		atomic_store_explicit(&s[i].sum_ns, 0, rlx);
		atomic_store_explicit(&s[i].missed, 0, rlx);
		atomic_store_explicit(&s[i].late_ns, 0, rlx);
		atomic_store_explicit(&s[i].done, 0, rlx);
		atomic_store_explicit(&s[i].local, 0, rlx); /* seq: the root's, never reset */
	}
	iolat_weight_group_init(g);
	ctl->mode->group_init(g, now);
}

struct iolat_ctl *iolat_core_ctl_init(void *mem, const struct iolat_ctl_config *cfg,
				      const struct iolat_clock *clock)
{
	struct iolat_ctl *ctl = mem;
	uint32_t n = cfg_max_groups(cfg) + 1;
	char *p = mem;

	memset(mem, 0, iolat_core_ctl_size(cfg));
	ctl->clock = *clock;
	atomic_init(&ctl->qd, cfg && cfg->nr_requests ? cfg->nr_requests : 64);
	ctl->rotational = cfg ? cfg->rotational != 0 : 0;
	ctl->flags = cfg ? cfg->flags : 0;
	ctl->mode = iolat_mode_for_flags(ctl->flags);
	ctl->rule = ctl->mode->rule[ctl->rotational];
	ctl->delay_cap_ns = cfg && cfg->delay_cap_ns ? cfg->delay_cap_ns : IOLAT_DELAY_CAP_NS;
	ctl->nr_groups = n;
	ctl->nr_slots = cfg_slots(cfg);
	iolat_spin_init(&ctl->tree_lock);
	iolat_spin_init(&ctl->tick_lock);
	iolat_spin_init(&ctl->weight_lock);
	p += align_up(sizeof(*ctl), IOLAT_CACHELINE);
	ctl->groups = (struct iolat_group *)p;
	p += align_up(n * sizeof(struct iolat_group), IOLAT_CACHELINE);
	ctl->slots = (struct iolat_slot *)p;
	/* Constant parts of every record; free list of 1..n-1; 0 is the root. */
	for (uint32_t i = 0; i < n; i++) {
		struct iolat_group *g = &ctl->groups[i];

		g->ctl = ctl;
		g->idx = i;
		g->slots_off = (char *)grp_slots(g) - (char *)g;
		g->last_slot = ctl->nr_slots - 1;
		iolat_spin_init(&g->wq_lock);
		iolat_spin_init(&g->depth_lock);
		iolat_spin_init(&g->child_lock);
		g->next_free = i + 1 < n ? i + 1 : IOLAT_NO_GROUP;
	}
	ctl->free_head = n > 1 ? 1 : IOLAT_NO_GROUP;
	group_init(ctl, &ctl->groups[0], IOLAT_NO_GROUP, "", ctl_now(ctl));
	atomic_store(&ctl->groups[0].used, 1);
	return ctl;
}

struct iolat_group *iolat_ctl_root(struct iolat_ctl *ctl)
{
	return grp_at(ctl, IOLAT_ROOT_IDX);
}

uint64_t iolat_ctl_now(const struct iolat_ctl *ctl)
{
	return ctl_now(ctl);
}

bool iolat_ctl_enabled(const struct iolat_ctl *ctl)
{
	return atomic_load_explicit(&ctl->enable_cnt, memory_order_relaxed) != 0;
}

int iolat_ctl_set_nr_requests(struct iolat_ctl *ctl, uint32_t nr_requests)
{
	if (!nr_requests)
		return -EINVAL;
	atomic_store(&ctl->qd, nr_requests);
	return 0;
}

uint32_t iolat_ctl_nr_requests(const struct iolat_ctl *ctl)
{
	return atomic_load(&ctl->qd);
}

static bool name_taken(struct iolat_ctl *ctl, uint32_t parent, const char *name)
{
	for (uint32_t i = 1; i < ctl->nr_groups; i++) {
		struct iolat_group *g = grp_at(ctl, i);

		if (atomic_load(&g->used) && atomic_load(&g->parent) == parent &&
		    !strcmp(g->name, name))
			return true;
	}
	return false;
}

int iolat_group_create(struct iolat_ctl *ctl, struct iolat_group *parent,
		       const char *name, struct iolat_group **out)
{
	struct iolat_group *g;
	uint32_t pidx, idx;
	size_t len;

	if (!ctl || !name || !out)
		return -EINVAL;
	len = strlen(name);
	if (len == 0 || len >= IOLAT_NAME_MAX || strchr(name, '/'))
		return -EINVAL;
	if (parent && parent->ctl != ctl)
		return -EINVAL;
	pidx = parent ? parent->idx : IOLAT_ROOT_IDX;
	iolat_spin_lock(&ctl->tree_lock);
	if (!atomic_load(&grp_at(ctl, pidx)->used)) {
		iolat_spin_unlock(&ctl->tree_lock);
		return -EINVAL;
	}
	if (name_taken(ctl, pidx, name)) {
		iolat_spin_unlock(&ctl->tree_lock);
		return -EEXIST;
	}
	idx = ctl->free_head;
	if (idx == IOLAT_NO_GROUP) {
		iolat_spin_unlock(&ctl->tree_lock);
		return -ENOSPC;
	}
	g = grp_at(ctl, idx);
	ctl->free_head = g->next_free;
	group_init(ctl, g, pidx, name, ctl_now(ctl));
	atomic_fetch_add(&grp_at(ctl, pidx)->nr_children, 1);
	/* Release: group_init()'s fields before "in use"; pairs with the acquire
	 * loads of used in iolat_apply_to_children, timer.c and check.c. */
	atomic_store_explicit(&g->used, 1, memory_order_release);
	iolat_spin_unlock(&ctl->tree_lock);
	*out = g;
	return 0;
}

/* A parent forgets its throttling: cookie to default, no asker (docs/controller.md R14). */
void iolat_child_lat_reset_locked(struct iolat_group *p)
{
	/* Release: pairs with admit.c's acquire loads of the cookie. */
	atomic_store_explicit(&p->child_cookie, IOLAT_DEFAULT_COOKIE, memory_order_release);
	atomic_store_explicit(&p->last_scale_event, 0, memory_order_relaxed);
	atomic_store_explicit(&p->scale_grp, IOLAT_NO_GROUP, memory_order_relaxed);
	atomic_store_explicit(&p->scale_lat, 0, memory_order_relaxed);
	p->ctl->mode->parent_reset(p);
}

/*
 * Let @p's children act on its cookie now rather than at their next submit,
 * so that waiters of a released group are granted at once.
 */
void iolat_apply_to_children(struct iolat_group *p)
{
	struct iolat_ctl *ctl = p->ctl;

	if (!atomic_load(&p->nr_children))
		return;
	for (uint32_t i = 1; i < ctl->nr_groups; i++) {
		struct iolat_group *c = grp_at(ctl, i);

		/* Acquire: pairs with the release stores of used (create, destroy). */
		if (atomic_load_explicit(&c->used, memory_order_acquire) &&
		    atomic_load(&c->parent) == p->idx)
			iolat_check_scale_change(c);
	}
}

/* Store a target; returns whether it changed. Caller holds tree_lock. */
static bool set_target_locked(struct iolat_group *g, uint64_t target_ns)
{
	struct iolat_ctl *ctl = g->ctl;
	uint64_t old = atomic_load(&g->target_ns);

	atomic_store(&g->win_ns, iolat_window_ns(target_ns));
	atomic_store(&g->target_ns, target_ns);
	if (!old && target_ns) {
		atomic_fetch_add(&ctl->enable_cnt, 1);
	} else if (old && !target_ns) {
		iolat_delay_clear(g);
		atomic_fetch_sub(&ctl->enable_cnt, 1);
	}
	return old != target_ns;
}

int iolat_group_set_target(struct iolat_group *g, uint64_t target_ns)
{
	struct iolat_ctl *ctl;
	struct iolat_group *p;
	bool changed;

	if (!g || g->idx == IOLAT_ROOT_IDX)
		return -EINVAL;
	ctl = g->ctl;
	p = grp_parent(g);
	iolat_spin_lock(&ctl->tree_lock);
	changed = set_target_locked(g, target_ns);
	if (changed) {
		iolat_spin_lock(&p->child_lock);
		iolat_child_lat_reset_locked(p);
		iolat_spin_unlock(&p->child_lock);
	}
	iolat_spin_unlock(&ctl->tree_lock);
	if (changed)
		iolat_apply_to_children(p);
	return 0;
}

uint64_t iolat_group_target(const struct iolat_group *g)
{
	return atomic_load(&g->target_ns);
}

int iolat_group_destroy(struct iolat_group *g)
{
	struct iolat_ctl *ctl;
	struct iolat_group *p;
	bool changed;

	if (!g || g->idx == IOLAT_ROOT_IDX)
		return -EINVAL;
	ctl = g->ctl;
	p = grp_parent(g);
	iolat_spin_lock(&ctl->tree_lock);
	if (iolat_inflight_exact(g) || atomic_load(&g->nwait) ||
	    atomic_load(&g->nr_children)) {
		iolat_spin_unlock(&ctl->tree_lock);
		return -EBUSY;
	}
	/* Removal = writing "max", then the parent's reset (docs/controller.md R14). */
	changed = set_target_locked(g, 0);
	iolat_delay_clear(g);
	iolat_spin_lock(&p->child_lock);
	atomic_store(&p->child_nr_samples, atomic_load(&p->child_nr_samples) -
		     atomic_load(&g->nr_samples));
	if (changed || atomic_load(&p->scale_grp) == g->idx)
		iolat_child_lat_reset_locked(p);
	iolat_spin_unlock(&p->child_lock);
	/* Release: pairs with the acquire loads of used; readers that see 0 stop
	 * looking at the record before it goes back on the free list. */
	atomic_store(&g->used, 0);
	/* The mode lets go after "unused" (sequentially consistent): the
	 * adaptive mode's parent that saw the record in use has watched it
	 * before this, and sees it unwatched after. */
	ctl->mode->group_unused(g);
	atomic_fetch_sub(&p->nr_children, 1);
	g->next_free = ctl->free_head;
	ctl->free_head = g->idx;
	iolat_spin_unlock(&ctl->tree_lock);
	if (changed)
		iolat_apply_to_children(p);
	return 0;
}

struct iolat_group *iolat_group_parent(const struct iolat_group *g)
{
	return grp_parent(g);
}

const char *iolat_group_name(const struct iolat_group *g)
{
	return g->name;
}

struct iolat_ctl *iolat_group_ctl(const struct iolat_group *g)
{
	return g->ctl;
}

struct iolat_group *iolat_group_scale_grp(const struct iolat_group *g)
{
	uint32_t i = atomic_load(&g->scale_grp);

	return i == IOLAT_NO_GROUP ? NULL : grp_at(g->ctl, i);
}
