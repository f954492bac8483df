/* SPDX-License-Identifier: MIT */
/*
 * delay.c - induced delay for a group pushed below depth 1 (docs/controller.md
 * R11): the use_delay counter, the charged delay_nsec and its
 * time-based decay, the decision of how long a caller should sleep, and the
 * congestion signal. Sleeping itself is src/sync's (iolat_maybe_throttle).
 *
 * Context: any thread, lock-free; the decay step is taken by the single
 * winner of a CAS on delay_start.
 */
#include "core/ctl.h"

void iolat_delay_use(struct iolat_group *g)
{
	int old = atomic_load(&g->use_delay);

	/* Negative values are another policy's fixed mode; never used here. */
	while (old >= 0 && !atomic_compare_exchange_weak(&g->use_delay, &old, old + 1))
		;
}

bool iolat_delay_unuse(struct iolat_group *g)
{
	int old = atomic_load(&g->use_delay);

	while (old > 0) {
		if (atomic_compare_exchange_weak(&g->use_delay, &old, old - 1))
			return true;
	}
	return false;
}

void iolat_delay_clear(struct iolat_group *g)
{
	int old = atomic_load(&g->use_delay);

	while (old != 0 && !atomic_compare_exchange_weak(&g->use_delay, &old, 0))
		;
}

/*
 * Decay, at most once per second: subtract what was charged in the period
 * before last (delay added in one period only starts to decay in the next),
 * at least half of it when use_delay dropped meanwhile (un-throttling
 * forgives faster). Sleeping does not pay delay off.
 */
void iolat_delay_scale(struct iolat_group *g, uint64_t now)
{
	uint64_t old = atomic_load(&g->delay_start);
	uint64_t last_delay, cur, sub;
	int cur_use;

	if (atomic_load(&g->use_delay) < 0)
		return;
	if (now <= old + NSEC_PER_SEC)
		return; /* decays only more than 1 s after delay_start (docs/controller.md R11) */
	if (!atomic_compare_exchange_strong(&g->delay_start, &old, now))
		return; /* another thread decays this period */
	last_delay = atomic_load_explicit(&g->last_delay, memory_order_relaxed);
	cur = atomic_load(&g->delay_nsec);
	cur_use = atomic_load(&g->use_delay);
	sub = last_delay < now - old ? last_delay : now - old;
	if (cur_use < atomic_load_explicit(&g->last_use, memory_order_relaxed) &&
	    sub < last_delay / 2)
		sub = last_delay / 2;
	if (cur < sub) {
		atomic_store(&g->delay_nsec, 0);
		atomic_store_explicit(&g->last_delay, 0, memory_order_relaxed);
	} else {
		atomic_fetch_sub(&g->delay_nsec, sub);
		atomic_store_explicit(&g->last_delay, cur - sub, memory_order_relaxed);
	}
	atomic_store_explicit(&g->last_use, cur_use, memory_order_relaxed);
}

void iolat_delay_add(struct iolat_group *g, uint64_t now, uint64_t delta)
{
	if (atomic_load(&g->use_delay) < 0)
		return;
	iolat_delay_scale(g, now);
	atomic_fetch_add(&g->delay_nsec, delta);
}

uint64_t iolat_group_delay_due(struct iolat_group *g)
{
	struct iolat_ctl *ctl = g->ctl;
	uint64_t now = 0, max = 0;
	bool have_now = false, cap = false;

	/* The group and its ancestors, the root excluded: the largest delay. */
	for (; g && g->idx != IOLAT_ROOT_IDX; g = grp_parent(g)) {
		int use = atomic_load(&g->use_delay);
		uint64_t d;

		if (!use)
			continue;
		if (!have_now) {
			now = ctl_now(ctl);
			have_now = true;
		}
		iolat_delay_scale(g, now);
		d = atomic_load(&g->delay_nsec);
		if (d > max) {
			max = d;
			cap = use > 0;
		}
	}
	if (cap && max > ctl->delay_cap_ns)
		max = ctl->delay_cap_ns;
	return max;
}

void iolat_group_note_slept(struct iolat_group *g, uint64_t ns)
{
	atomic_fetch_add_explicit(&g->slept_ns, ns, memory_order_relaxed);
}

bool iolat_group_congested(const struct iolat_group *g)
{
	for (; g; g = grp_parent(g))
		if (atomic_load_explicit(&g->use_delay, memory_order_relaxed) != 0)
			return true;
	return false;
}
