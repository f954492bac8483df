/* SPDX-License-Identifier: MIT */
/*
 * timer.c - the once-a-second tick (docs/controller.md R13, and "Where we
 * differ from the kernel").
 *
 * I/O drives the controller: if the group that asked for throttling stops
 * doing I/O, no window of its closes and nothing would unclamp its siblings.
 * This file walks the throttled parents once a second; what a parent does
 * at a tick is its mode's (mode.h: tick_parent; the article's release, the
 * kernel's climb and expiry: mode_kernel.c). In a mode whose table says
 * tick_needs_submit (the kernel's timer) a tick does nothing unless I/O was
 * submitted since the previous one (the kernel arms its timer from submit).
 *
 * Context: any thread; one tick at a time (a concurrent one returns at once);
 * takes each throttled parent's child_lock; may call granted() callbacks.
 */
#include "core/ctl.h"

/* One parent's tick; returns true if its children must see a reset now. */
static bool tick_parent(struct iolat_group *p, uint64_t now)
{
	uint64_t last;
	bool reset = false;

	iolat_spin_lock(&p->child_lock);
	last = atomic_load_explicit(&p->last_scale_event, memory_order_relaxed);
	if (last < now)
		reset = p->ctl->mode->tick_parent(p, now);
	iolat_spin_unlock(&p->child_lock);
	return reset;
}

void iolat_ctl_tick(struct iolat_ctl *ctl)
{
	uint64_t now;

	iolat_weight_maybe_period(ctl, ctl_now(ctl)); /* weights: a period due (one load when off) */
	if (!iolat_spin_trylock(&ctl->tick_lock))
		return; /* a tick is running */
	if (!atomic_exchange(&ctl->tick_armed, 0) && ctl->mode->tick_needs_submit)
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
		if (tick_parent(p, now))
			iolat_apply_to_children(p);
	}
out:
	iolat_spin_unlock(&ctl->tick_lock);
}
