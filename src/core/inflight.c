/* SPDX-License-Identifier: MIT */
/*
 * inflight.c - a level's in-flight count, counted per thread while nothing
 * can limit it, and every change of max_depth after a group's set-up (the
 * count must be exact before a limit is set). See docs/fastpath.md.
 *
 * The count of a level is always inflight plus the locals of its owned stat
 * slots, modulo 2^32 (while distributed, inflight alone may wrap below zero:
 * an I/O admitted on a local may be completed on the shared counter).
 *
 * Modes (g->mode, written under depth_lock):
 *  DIST   max_depth is unlimited. The fast path of a thread owning a stat
 *         slot (admit.c) opens its sequence (odd), loads the mode, adds +-1 to
 *         its local, and closes the sequence (even). Everyone else (threads
 *         sharing the last slot, out-of-line paths, bypass I/O) uses inflight.
 *  SWITCH a fold is in progress; as EXACT for the fast path.
 *  EXACT  everybody uses inflight; the locals are 0.
 * A level is DIST only while max_depth is unlimited: iolat_depth_store_locked()
 * folds before it stores a limit; iolat_inflight_relax() goes back to DIST
 * once the depth is unlimited again and nobody waits.
 *
 * The fold: store SWITCH; for each owned slot, load the owner's sequence and,
 * if it is odd, wait until it moves; then add the locals into inflight and
 * zero them. Nothing is lost or counted twice: the owner's sequence increment
 * and its mode load, and our mode store and sequence load, are sequentially
 * consistent (a Dekker pair), so either the owner's load saw SWITCH (it uses
 * inflight) or we see its odd sequence and wait for the closing store
 * (release, paired with our acquire load), after which its local is visible
 * and it will not touch the local again in this operation. A later operation
 * of the owner increments the sequence past the value we read, so it comes
 * after our load in the total order and its mode load sees SWITCH (or later).
 *
 * Context: any thread, off the fast path, and never on a thread inside its
 * own odd sequence (it would wait for itself): admit.c closes the sequence
 * before any out-of-line call. Lock order: tree_lock before
 * depth_lock before wq_lock. The wait under depth_lock is for fast paths,
 * which never block inside their sequence.
 */
#include "core/ctl.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

void iolat_depth_lock(struct iolat_group *g)
{
	iolat_spin_lock(&g->depth_lock);
}

void iolat_depth_unlock(struct iolat_group *g)
{
	iolat_spin_unlock(&g->depth_lock);
}

/* Wait until the owner of @seq is outside the operation it may be in. */
static void wait_seq(_Atomic uint64_t *seq)
{
	/* Sequentially consistent: our half of the Dekker pair (see top), and an
	 * acquire that pairs with the closing release store in admit.c. */
	uint64_t s = atomic_load(seq);

	if (!(s & 1))
		return;
	while (atomic_load(seq) == s)
		cpu_relax();
}

/* Add the locals into inflight and zero them. depth_lock held, mode SWITCH. */
static void fold_locked(struct iolat_group *g)
{
	struct iolat_ctl *ctl = g->ctl;
	struct iolat_slot *s = grp_slots(g);
	uint32_t sum = 0;

	for (uint32_t i = 0; i < g->last_slot; i++)
		wait_seq(thread_seq(ctl, i));
	/* Relaxed: every writer's last update is ordered before us by wait_seq(),
	 * and no owner writes a local again until mode is DIST again, a store
	 * made under depth_lock after our release of it. */
	for (uint32_t i = 0; i < g->last_slot; i++) {
		sum += (uint32_t)atomic_load_explicit(&s[i].local, memory_order_relaxed);
		atomic_store_explicit(&s[i].local, 0, memory_order_relaxed);
	}
	/* Sequentially consistent RMW, before the max_depth store that may
	 * follow: a thread that sees the new limit (slot_try_get loads the limit
	 * first, acquire) sees the folded count. */
	atomic_fetch_add(&g->inflight, sum);
}

/* DIST -> SWITCH -> fold -> @to. Caller holds depth_lock. */
static void fold_to_locked(struct iolat_group *g, uint32_t to)
{
	/* Sequentially consistent: the store half of the Dekker pair (see top). */
	atomic_store(&g->mode, IOLAT_MODE_SWITCH);
	fold_locked(g);
	/* Sequentially consistent (at least release): a fast path that loads
	 * DIST again sees the zeroed locals. */
	atomic_store(&g->mode, to);
}

void iolat_depth_store_locked(struct iolat_group *g, uint32_t depth)
{
	if (depth != IOLAT_DEPTH_MAX &&
	    atomic_load_explicit(&g->mode, memory_order_relaxed) == IOLAT_MODE_DIST)
		fold_to_locked(g, IOLAT_MODE_EXACT);
	/* Sequentially consistent: a raise is the first half of the Dekker pair
	 * with enqueue() (depth, then nwait in iolat_wake()); a limit is
	 * published after the fold (release; slot_try_get's load acquires). */
	atomic_store(&g->max_depth, depth);
}

void iolat_depth_set(struct iolat_group *g, uint32_t depth)
{
	iolat_depth_lock(g);
	iolat_depth_store_locked(g, depth);
	iolat_depth_unlock(g);
}

void iolat_inflight_relax(struct iolat_group *g)
{
	if (atomic_load_explicit(&g->mode, memory_order_relaxed) == IOLAT_MODE_DIST ||
	    atomic_load_explicit(&g->max_depth, memory_order_relaxed) != IOLAT_DEPTH_MAX)
		return; /* nothing to do, or not unlimited: cheap exits off the lock */
	iolat_depth_lock(g);
	/* The queue under its lock: an enqueue in progress has nwait raised. */
	iolat_spin_lock(&g->wq_lock);
	if (atomic_load(&g->max_depth) == IOLAT_DEPTH_MAX && iolat_waitq_empty(&g->wq) &&
	    !atomic_load(&g->nwait))
		/* Sequentially consistent (at least release): the locals were
		 * zeroed by the fold, under this lock, before. */
		atomic_store(&g->mode, IOLAT_MODE_DIST);
	iolat_spin_unlock(&g->wq_lock);
	iolat_depth_unlock(g);
}

uint32_t iolat_inflight_exact(struct iolat_group *g)
{
	uint32_t n;

	iolat_depth_lock(g);
	if (atomic_load_explicit(&g->mode, memory_order_relaxed) == IOLAT_MODE_DIST)
		fold_to_locked(g, IOLAT_MODE_SWITCH); /* stays SWITCH while we read */
	/* Every local is 0 and stays 0 while we hold the lock: inflight is the
	 * count. */
	n = atomic_load(&g->inflight);
	if (atomic_load_explicit(&g->mode, memory_order_relaxed) == IOLAT_MODE_SWITCH)
		atomic_store(&g->mode, IOLAT_MODE_DIST);
	iolat_depth_unlock(g);
	return n;
}

uint32_t iolat_inflight_sum(const struct iolat_group *g)
{
	/* The lock is not part of the group's value: taking it on a const
	 * group changes nothing a reader can see. */
	struct iolat_spin *lock = (struct iolat_spin *)&g->depth_lock;
	const struct iolat_slot *s = grp_slots(g);
	uint32_t n;

	/*
	 * Under depth_lock, so that no fold runs while we add: a fold moves a
	 * count from the locals to inflight, and a read of inflight before the
	 * move and of the locals after it would lose the count (or see it twice
	 * the other way round), even with no I/O of the group under way.
	 */
	iolat_spin_lock(lock);
	n = atomic_load_explicit(&g->inflight, memory_order_relaxed);
	for (uint32_t i = 0; i < g->last_slot; i++)
		n += (uint32_t)atomic_load_explicit(&s[i].local, memory_order_relaxed);
	iolat_spin_unlock(lock);
	/* A racing admission seen without the completion before it, on another
	 * thread's slot, can make the snapshot "negative": report 0. */
	return (int32_t)n < 0 ? 0 : n;
}
