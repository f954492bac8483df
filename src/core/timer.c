/* SPDX-License-Identifier: MIT */
/*
 * timer.c - the once-a-second tick (docs/controller.md R13, and "Where we
 * differ from the kernel").
 *
 * I/O drives the controller: if the group that asked for throttling stops
 * doing I/O, no window of its closes and nothing would unclamp its siblings.
 * Default behaviour (the article's): at a tick, a parent whose asking group
 * completed no I/O since the previous tick is reset to the default cookie
 * and its children are unclamped at once. Otherwise, and always under
 * IOLAT_CTL_COMPAT_TIMER (the kernel's): a parent with no asking group climbs
 * one cookie step per tick; an asking group is forgotten 5 s after the last
 * scale event. Under the kernel's timer a tick does nothing unless I/O was
 * submitted since the previous one (the kernel arms its timer from submit).
 *
 * Context: any thread; one tick at a time (a concurrent one returns at once);
 * takes each throttled parent's child_lock; may call granted() callbacks.
 */
#include "core/ctl.h"
#include "core/scale.h"

/*
 * Did @g record a completion since the previous tick? A group is looked at
 * only while it is an asking group; when the last look was not at the
 * previous tick, it counts as active and this tick starts the comparison.
 */
static bool active_since_last_tick(struct iolat_ctl *ctl, struct iolat_group *g)
{
	struct iolat_win_stat s;
	bool active;

	iolat_grp_sum_slots(g, &s, NULL);
	active = atomic_load_explicit(&g->tick_seq, memory_order_relaxed) + 1 != ctl->tick_seq ||
		 s.nr != atomic_load_explicit(&g->tick_nr, memory_order_relaxed);
	atomic_store_explicit(&g->tick_nr, s.nr, memory_order_relaxed);
	atomic_store_explicit(&g->tick_seq, ctl->tick_seq, memory_order_relaxed);
	return active;
}

/* One parent's tick; returns true if its children must see a reset now. */
static bool tick_parent(struct iolat_group *p, uint64_t now, bool compat)
{
	struct iolat_ctl *ctl = p->ctl;
	uint32_t asker;
	uint64_t last;
	bool reset = false;

	iolat_spin_lock(&p->child_lock);
	last = atomic_load_explicit(&p->last_scale_event, memory_order_relaxed);
	if (last >= now)
		goto out;
	asker = atomic_load_explicit(&p->scale_grp, memory_order_relaxed);
	if (!compat && asker != IOLAT_NO_GROUP &&
	    !active_since_last_tick(ctl, grp_at(ctl, asker))) {
		/* The asking group went quiet: unclamp everybody under p. */
		iolat_child_lat_reset_locked(p);
		reset = true;
	} else if (asker == IOLAT_NO_GROUP) {
		/* Release: pairs with admit.c's acquire loads of the cookie. */
		atomic_store_explicit(&p->child_cookie,
			iolat_cookie_step(atomic_load(&p->child_cookie),
					  atomic_load(&ctl->qd), true),
			memory_order_release);
	} else if (now - last >= IOLAT_SCALE_GRP_EXPIRY_NS && !ctl_adaptive(ctl)) {
		/* (Adaptive keeps an active asker: its holds are decisions too.) */
		atomic_store_explicit(&p->scale_grp, IOLAT_NO_GROUP, memory_order_relaxed);
	}
out:
	iolat_spin_unlock(&p->child_lock);
	return reset;
}

void iolat_ctl_tick(struct iolat_ctl *ctl)
{
	bool compat = ctl_compat_timer(ctl);
	uint64_t now;

	if (!iolat_spin_trylock(&ctl->tick_lock))
		return; /* a tick is running */
	if (!atomic_exchange(&ctl->tick_armed, 0) && compat)
		goto out; /* the kernel's timer is not pending without submissions */
	ctl->tick_seq++;
	now = ctl_now(ctl);
	for (uint32_t i = 0; i < ctl->nr_groups; i++) {
		struct iolat_group *p = grp_at(ctl, i);

		/* Acquire: pairs with ctl.c's release stores of used (create,
		 * destroy): a record seen in use is initialised. */
		if (!atomic_load_explicit(&p->used, memory_order_acquire) ||
		    atomic_load(&p->child_cookie) >= IOLAT_DEFAULT_COOKIE)
			continue;
		if (tick_parent(p, now, compat))
			iolat_apply_to_children(p);
	}
out:
	iolat_spin_unlock(&ctl->tick_lock);
}
