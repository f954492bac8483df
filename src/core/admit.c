/* SPDX-License-Identifier: MIT */
/*
 * admit.c - the per-I/O fast path: admission (slots at every level, FIFO
 * waiters with the kernel's hand-off protocol), completion (latency
 * recording, slot release, wake-ups, window expiry) and cancellation.
 *
 * Costs, uncontended, for one group: at submit one cookie compare and, while
 * the group is unlimited (distributed, inflight.c), an add to the thread's
 * own local count inside its sequence (one locked add on a private line);
 * while limited one CAS on inflight. At completion the same add (or one
 * atomic decrement) and a per-thread stat update with plain loads and stores.
 * Locks are taken only when a level's wait queue is non-empty (or becomes so)
 * and once per window, to close it. That common case is inlined into the
 * entry points and makes no call (but the clock's): the rest (waiting, scale
 * changes, bypass, a window to close, waiters to wake, a shared stat slot)
 * is handed to out-of-line functions by tail calls, from the level where it
 * shows, before that level's work, and always with the thread's sequence
 * closed (even): out-of-line code counts on inflight only.
 *
 * Lost wake-ups (kernel bug B6) are excluded by a Dekker pair: a waiter
 * publishes nwait before re-trying its slot; a completer releases its slot
 * before reading nwait. Both are sequentially consistent, so at least one of
 * them sees the other. A release on a local (distributed mode) needs no such
 * pair: nobody waits at an unlimited level, and a limit is set only after a
 * fold that includes the release (inflight.c).
 *
 * Context: every function may run on any thread, concurrently with any other
 * except iolat_ctl_destroy(). granted() callbacks run with no lock held.
 */
#include <errno.h>

#include "core/ctl.h"
#include "core/scale.h"

#define BYPASS_FLAGS (IOLAT_IO_SWAP | IOLAT_IO_META | IOLAT_IO_ROOT)

/* ---- per-thread stat slots ---- */

/* The thread's id (thread_id.c); a new thread gets one here. */
static inline uint32_t thread_id(void)
{
	uint32_t id = iolat_my_thread_id;

	if (__builtin_expect(id == UINT32_MAX, 0))
		id = iolat_thread_id_assign();
	return id;
}

/* Add to a slot counter: plain load+store when this thread owns the slot. */
static inline void slot_add(_Atomic uint64_t *c, uint64_t v, bool own)
{
	if (own)
		atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
				      memory_order_relaxed);
	else
		atomic_fetch_add_explicit(c, v, memory_order_relaxed);
}

/* Slot @i of @g (the same index at every level: slots are per controller). */
static inline struct iolat_slot *slot_at(const struct iolat_group *g, uint32_t i)
{
	return (struct iolat_slot *)((uintptr_t)g + (uintptr_t)g->slots_off) + i;
}

/*
 * Threads 0..n-2 own a slot each; every later thread shares the last slot,
 * with atomic adds. (Mapping later threads onto an owned slot would let the
 * owner's plain load+store lose their adds.)
 */
static inline struct iolat_slot *my_slot(const struct iolat_group *g, bool *own)
{
	uint32_t tid = thread_id();

	*own = tid < g->last_slot;
	return slot_at(g, *own ? tid : g->last_slot);
}

/* ---- slots and wait queues (docs/controller.md R3, R4) ---- */

/*
 * Take a slot on inflight if the count is below max_depth (unlimited: always).
 * The limit is loaded first, sequentially consistent: if it is a new limit,
 * the fold stored before it (inflight.c) is seen by the load of inflight
 * that follows, which is then the exact count. (While unlimited, inflight
 * alone may have wrapped: it is not compared.) The loads and the CAS are
 * sequentially consistent for the wake-up pairs: see top.
 */
static inline bool slot_try_get(struct iolat_group *g)
{
	for (;;) {
		uint32_t lim = atomic_load(&g->max_depth);
		uint32_t cur = atomic_load(&g->inflight);

		if (lim != IOLAT_DEPTH_MAX && cur >= lim)
			return false;
		if (atomic_compare_exchange_weak(&g->inflight, &cur, cur + 1))
			return true;
	}
}

/*
 * The thread's sequence (inflight.c): odd while it may update a local.
 * Opening: a sequentially consistent RMW, the thread's half of the Dekker
 * pair with the fold (the mode loads that follow are sequentially
 * consistent too). Closing: a release store, paired with the fold's acquire
 * load in wait_seq(). Only the owner writes its sequence.
 */
static inline void seq_open(_Atomic uint64_t *seq)
{
	atomic_fetch_add(seq, 1);
}

static inline void seq_close(_Atomic uint64_t *seq)
{
	atomic_store_explicit(seq, atomic_load_explicit(seq, memory_order_relaxed) + 1,
			      memory_order_release);
}

/* Add @v to the thread's own local at a level (owner only: load+store). */
static inline void local_add(struct iolat_slot *s, int64_t v)
{
	atomic_store_explicit(&s->local, atomic_load_explicit(&s->local, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

/* Sequentially consistent: the Dekker pair with the fold (see seq_open). */
static inline bool level_distributed(const struct iolat_group *g)
{
	return atomic_load(&g->mode) == IOLAT_MODE_DIST;
}

static int admit_from(struct iolat_io *io, struct iolat_group *lvl);

/*
 * The common case inline: the parent's cookie is the one we acted on.
 * Acquire: pairs with the release stores that move a parent's cookie
 * (window.c scale_up/scale_down, timer.c tick_parent, ctl.c
 * iolat_child_lat_reset_locked), so the scale_lat and child_nr_samples
 * written before the move are seen with it (docs/controller.md, Memory ordering).
 */
static inline void check_scale_fast(struct iolat_group *g)
{
	struct iolat_group *p = grp_parent(g);

	if (p && atomic_load_explicit(&p->child_cookie, memory_order_acquire) !=
		 atomic_load_explicit(&g->scale_cookie, memory_order_relaxed))
		iolat_check_scale_change(g);
}

/* A waiter now holds its slot at @lvl: go on up, then tell the owner. */
static void continue_admission(struct iolat_io *io, struct iolat_group *lvl)
{
	struct iolat_ctl *ctl = io->ctl_;
	struct iolat_waiter *w = io->waiter_;
	uint64_t now;

	if (admit_from(io, grp_parent(lvl)) == IOLAT_QUEUED)
		return; /* queued higher up; that level's waker continues */
	now = ctl_now(ctl);
	if (now > io->issue_ns_)
		atomic_fetch_add_explicit(&grp_at(ctl, io->group_)->throttled_ns,
					  now - io->issue_ns_, memory_order_relaxed);
	w->granted(w);
}

/*
 * Hand slots of @g to its waiters in FIFO order: one (after a completion) or
 * as many as fit (after the depth was raised). The waker takes each slot on
 * the waiter's behalf, so a waiter never has to race for it.
 */
void iolat_wake(struct iolat_group *g, bool all)
{
	struct iolat_waitq list; /* granted here, continued after the unlock */
	struct iolat_waiter *w;

	if (!atomic_load(&g->nwait))
		return;
	iolat_waitq_init(&list);
	iolat_spin_lock(&g->wq_lock);
	while (!iolat_waitq_empty(&g->wq) && slot_try_get(g)) {
		w = iolat_waitq_pop(&g->wq);
		atomic_fetch_sub(&g->nwait, 1);
		atomic_store(&w->io_->wait_level_, IOLAT_NO_GROUP);
		iolat_waitq_push(&list, w);
		if (!all)
			break;
	}
	iolat_spin_unlock(&g->wq_lock);
	/* pop reads the link before the waiter may be reused */
	while ((w = iolat_waitq_pop(&list)))
		continue_admission(w->io_, g);
}

/* Queue @io at @lvl, unless (first in line) the slot freed meanwhile. */
static bool enqueue(struct iolat_group *lvl, struct iolat_io *io)
{
	struct iolat_waiter *w = io->waiter_;

	iolat_spin_lock(&lvl->wq_lock);
	atomic_fetch_add(&lvl->nwait, 1); /* publish, then re-check: see top */
	if (iolat_waitq_empty(&lvl->wq) && slot_try_get(lvl)) {
		atomic_fetch_sub(&lvl->nwait, 1);
		iolat_spin_unlock(&lvl->wq_lock);
		return false;
	}
	w->io_ = io;
	iolat_waitq_push(&lvl->wq, w);
	io->state_ |= IO_QUEUED;
	atomic_store(&io->wait_level_, lvl->idx);
	iolat_spin_unlock(&lvl->wq_lock);
	return true;
}

/* The completer's half of the Dekker pair (see top): release the slot, then
 * read nwait, both sequentially consistent; enqueue() is the other half. */
static inline void release_level(struct iolat_group *lvl)
{
	atomic_fetch_sub(&lvl->inflight, 1);
	if (atomic_load(&lvl->nwait))
		iolat_wake(lvl, false);
}

/* Release the slots @io holds below @upto (from its own group up). */
static void release_below(struct iolat_io *io, struct iolat_group *upto)
{
	struct iolat_group *lvl = grp_at(io->ctl_, io->group_), *next;

	for (; lvl != upto; lvl = next) {
		next = grp_parent(lvl); /* before the release: see complete() */
		release_level(lvl);
	}
}

/* Take a slot at @lvl and every level above it, the root excluded. */
static int admit_from(struct iolat_io *io, struct iolat_group *lvl)
{
	bool bypass = io->flags_ & BYPASS_FLAGS;

	for (; lvl && lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl)) {
		check_scale_fast(lvl);
		if (bypass) {
			/* Bypass takes its slot even past max_depth (docs/controller.md R3). */
			atomic_fetch_add(&lvl->inflight, 1);
			continue;
		}
		if (!atomic_load(&lvl->nwait) && slot_try_get(lvl))
			continue;
		if ((io->flags_ & IOLAT_IO_NOWAIT) || !io->waiter_) {
			release_below(io, lvl);
			io->state_ = 0;
			return -EAGAIN;
		}
		if (enqueue(lvl, io))
			return IOLAT_QUEUED;
	}
	return 0;
}

/* Bypass I/O (counted, then takes its slots past max_depth), or a thread
 * sharing the last stat slot (no local count: inflight at every level). */
static __attribute__((noinline)) int admit_slow(struct iolat_io *io, struct iolat_group *g)
{
	(void)thread_id(); /* a new thread's id: its next admissions are inline */
	if (io->flags_ & BYPASS_FLAGS)
		atomic_fetch_add_explicit(&g->nr_bypass, 1, memory_order_relaxed);
	return admit_from(io, g);
}

/*
 * Inlined into both entry points, so that the one given the time makes no
 * call in the common case: a thread with its own stat slot, a free slot at
 * every level (or an unlimited level: a local count), nobody waiting, no
 * scale change to apply. Anything else goes on in admit_from() from the
 * level where it showed (a tail call, with the sequence closed: it re-checks
 * that level itself).
 */
static inline __attribute__((always_inline)) int admit(struct iolat_group *g, unsigned flags,
						       struct iolat_io *io, struct iolat_waiter *w,
						       uint64_t now, bool have_now)
{
	struct iolat_ctl *ctl = g->ctl;
	struct iolat_group *lvl = g, *p;
	_Atomic uint64_t *seq;
	uint32_t tid, idx = g->idx; /* once: the stores through io may alias it */

	/* (Not ctl_ and waiter_ side by side: GCC would pack the two pointers
	 * into one vector store, four instructions instead of two.) */
	io->ctl_ = ctl;
	io->group_ = idx;
	io->flags_ = flags;
	atomic_store_explicit(&io->wait_level_, IOLAT_NO_GROUP, memory_order_relaxed);
	io->waiter_ = w;
	if (w)
		w->io_ = io;
	/* Disabled (no target anywhere) or the root: nothing taken, nothing to release. */
	if (__builtin_expect(!atomic_load_explicit(&ctl->enable_cnt, memory_order_relaxed), 0) ||
	    idx == IOLAT_ROOT_IDX) {
		io->state_ = 0;
		return 0;
	}
	io->state_ = IO_TRACKED;
	io->issue_ns_ = have_now ? now : ctl_now(ctl);
	if (!atomic_load_explicit(&ctl->tick_armed, memory_order_relaxed))
		atomic_store_explicit(&ctl->tick_armed, 1, memory_order_relaxed);
	tid = iolat_my_thread_id;
	if ((flags & BYPASS_FLAGS) || tid >= g->last_slot)
		return admit_slow(io, g);
	seq = thread_seq(ctl, tid);
	seq_open(seq);
	for (;;) {
		p = grp_parent_nonroot(lvl);
		/* Acquire: pairs with the cookie's release stores (check_scale_fast). */
		if (atomic_load_explicit(&p->child_cookie, memory_order_acquire) !=
		    atomic_load_explicit(&lvl->scale_cookie, memory_order_relaxed))
			break;
		/* Distributed: unlimited, nobody waits (inflight.c). */
		if (level_distributed(lvl))
			local_add(slot_at(lvl, tid), 1);
		else if (atomic_load(&lvl->nwait) || !slot_try_get(lvl))
			break;
		if (p->idx == IOLAT_ROOT_IDX) {
			seq_close(seq);
			return 0;
		}
		lvl = p;
	}
	seq_close(seq);
	return admit_from(io, lvl);
}

int iolat_throttle_async(struct iolat_group *g, unsigned io_flags,
			 struct iolat_io *io, struct iolat_waiter *w)
{
	if (!g || !io)
		return -EINVAL;
	return admit(g, io_flags, io, w, 0, false);
}

int iolat_throttle_async_at(struct iolat_group *g, unsigned io_flags,
			    struct iolat_io *io, struct iolat_waiter *w, uint64_t now_ns)
{
	if (!g || !io)
		return -EINVAL;
	return admit(g, io_flags, io, w, now_ns, true);
}

int iolat_throttle_cancel(struct iolat_io *io)
{
	struct iolat_ctl *ctl = io->ctl_;

	for (;;) {
		uint32_t idx = atomic_load(&io->wait_level_);
		struct iolat_group *lvl;

		if (idx == IOLAT_NO_GROUP)
			return -EALREADY; /* granted, or moving up between levels */
		lvl = grp_at(ctl, idx);
		iolat_spin_lock(&lvl->wq_lock);
		if (atomic_load(&io->wait_level_) != idx) {
			iolat_spin_unlock(&lvl->wq_lock);
			continue; /* a waker moved it meanwhile */
		}
		iolat_waitq_remove(&lvl->wq, io->waiter_);
		atomic_fetch_sub(&lvl->nwait, 1);
		atomic_store(&io->wait_level_, IOLAT_NO_GROUP);
		iolat_spin_unlock(&lvl->wq_lock);
		release_below(io, lvl);
		io->state_ = 0;
		return 0;
	}
}

/* ---- scale changes seen at submit (docs/controller.md R5, R6) ---- */

/*
 * The mechanism of the cookie: whoever moves a child's copy of its parent's
 * cookie applies the change, once, however many steps it missed; what the
 * change means is the mode's (mode.h: child_apply).
 */
void iolat_check_scale_change(struct iolat_group *g)
{
	struct iolat_group *p = grp_parent(g);
	uint32_t cur, mine;

	if (!p)
		return;
	/* Acquire: pairs with the cookie's release stores (see check_scale_fast):
	 * the scale_lat and child_nr_samples the mode reads are at least as new. */
	cur = atomic_load_explicit(&p->child_cookie, memory_order_acquire);
	mine = atomic_load_explicit(&g->scale_cookie, memory_order_relaxed);
	if (cur == mine)
		return;
	if (!atomic_compare_exchange_strong(&g->scale_cookie, &mine, cur))
		return; /* another thread applied this change */
	g->ctl->mode->child_apply(g, mine, cur);
}

/* ---- completion (docs/controller.md R8, R9) ---- */

static inline __attribute__((always_inline)) void record_latency(struct iolat_slot *s, bool own,
								   uint64_t lat, uint64_t target)
{
	slot_add(&s->nr, 1, own);
	slot_add(&s->sum_ns, lat, own);
	if (lat >= target) {
		slot_add(&s->missed, 1, own);
		slot_add(&s->late_ns, lat, own);
	}
}

/*
 * A completion's work from @lvl up, every case: bypass I/O, unissued I/O,
 * a shared stat slot, a window to close, waiters to wake.
 */
static void complete_levels(struct iolat_io *io, struct iolat_group *lvl, uint64_t now,
			    uint64_t lat, bool record)
{
	bool as_root = io->flags_ & BYPASS_FLAGS, own;
	struct iolat_group *next;

	/*
	 * Each level's work is done while this I/O still holds its slot there:
	 * once the slot is released, iolat_group_destroy() on another thread may
	 * see the level idle and recycle its record (even under another parent).
	 * So the parent is read first, and only the wake-up check follows the
	 * release.
	 */
	for (; lvl->idx != IOLAT_ROOT_IDX; lvl = next) {
		uint64_t target, start;

		next = grp_parent(lvl);
		target = atomic_load_explicit(&lvl->target_ns, memory_order_relaxed);
		if (target && record) {
			if (as_root && (atomic_load_explicit(&lvl->max_depth, memory_order_relaxed) !=
						IOLAT_DEPTH_MAX || grp_paced(lvl))) {
				/* Free work while throttled: charge it as delay, do not record.
				 * A latency of 0 is skipped here too (docs/controller.md R8). */
				if (lat > 0 && lat < target)
					iolat_delay_add(lvl, now, target - lat);
				atomic_fetch_add_explicit(&lvl->bypass_throttled, 1,
							  memory_order_relaxed);
			} else if (lat > 0) {
				struct iolat_slot *s = my_slot(lvl, &own);

				record_latency(s, own, lat, target);
			}
			start = atomic_load_explicit(&lvl->window_start, memory_order_relaxed);
			if (now > start &&
			    now - start >= atomic_load_explicit(&lvl->win_ns, memory_order_relaxed) &&
			    atomic_compare_exchange_strong(&lvl->window_start, &start, now))
				iolat_check_latencies(lvl, now); /* we alone close this window */
		}
		/* The Dekker pair's completer side, as release_level(): seq_cst. */
		atomic_fetch_sub(&lvl->inflight, 1);
		if (atomic_load(&lvl->nwait))
			iolat_wake(lvl, false);
	}
}

/* @lvl has waiters: wake one, then go on up from @next. */
static __attribute__((noinline)) void wake_and_continue(struct iolat_io *io,
							struct iolat_group *lvl,
							struct iolat_group *next,
							uint64_t now, uint64_t lat)
{
	iolat_wake(lvl, false);
	complete_levels(io, next, now, lat, true);
}

/* A whole completion, every case (after the caller's IO_TRACKED check). */
static __attribute__((noinline)) void complete_all(struct iolat_io *io, uint64_t now,
						   bool have_now)
{
	struct iolat_ctl *ctl = io->ctl_;
	struct iolat_group *lvl = grp_at(ctl, io->group_);
	bool record = !(io->state_ & IO_UNISSUED), own;
	struct iolat_slot *s = my_slot(lvl, &own);
	uint64_t lat;

	io->state_ = 0; /* a second completion of the same I/O is a no-op */
	if (record && !have_now)
		now = ctl_now(ctl);
	lat = now > io->issue_ns_ ? now - io->issue_ns_ : 0;
	slot_add(&s->done, 1, own);
	complete_levels(io, lvl, now, lat, record);
}

/*
 * Inlined into iolat_done() and iolat_done_at() (after their IO_TRACKED
 * check). The common case makes no call but the clock's: an issued,
 * non-bypass I/O with a latency, completed by a thread owning its stat slot,
 * at levels whose windows are open and that have nobody waiting. Anything
 * else goes to complete_all() before any work, or on in complete_levels()
 * from the level where it showed, before that level's work was done
 * (wake_and_continue(): after it).
 */
static inline __attribute__((always_inline)) void complete(struct iolat_io *io, uint64_t now,
							   bool have_now)
{
	struct iolat_group *lvl = grp_at(io->ctl_, io->group_), *next;
	uint32_t tid = iolat_my_thread_id; /* UINT32_MAX (new thread): out of line */
	_Atomic uint64_t *seq;
	struct iolat_slot *s;
	uint64_t lat;

	if ((io->state_ & IO_UNISSUED) || (io->flags_ & BYPASS_FLAGS) || tid >= lvl->last_slot) {
		complete_all(io, now, have_now);
		return;
	}
	if (!have_now)
		now = ctl_now(io->ctl_);
	if (now <= io->issue_ns_) {
		complete_all(io, now, true);
		return;
	}
	lat = now - io->issue_ns_;
	io->state_ = 0; /* a second completion of the same I/O is a no-op */
	s = slot_at(lvl, tid);
	slot_add(&s->done, 1, true);
	seq = thread_seq(io->ctl_, tid);
	seq_open(seq);
	for (;;) {
		uint64_t target = atomic_load_explicit(&lvl->target_ns, memory_order_relaxed);

		next = grp_parent_nonroot(lvl); /* before the release: see complete_levels() */
		if (target) {
			uint64_t start = atomic_load_explicit(&lvl->window_start,
							      memory_order_relaxed);

			if (now > start &&
			    now - start >= atomic_load_explicit(&lvl->win_ns, memory_order_relaxed)) {
				seq_close(seq);
				complete_levels(io, lvl, now, lat, true);
				return;
			}
			record_latency(s, true, lat, target);
		}
		if (level_distributed(lvl)) {
			/* Nobody waits at an unlimited level: no wake-up (see top). */
			local_add(s, -1);
		} else {
			atomic_fetch_sub(&lvl->inflight, 1);
			if (atomic_load(&lvl->nwait)) {
				seq_close(seq);
				wake_and_continue(io, lvl, next, now, lat);
				return;
			}
		}
		if (next->idx == IOLAT_ROOT_IDX)
			break;
		lvl = next;
		s = slot_at(lvl, tid);
	}
	seq_close(seq);
}

void iolat_done(struct iolat_io *io)
{
	if (io->state_ & IO_TRACKED)
		complete(io, 0, false);
}

void iolat_done_at(struct iolat_io *io, uint64_t now_ns)
{
	if (io->state_ & IO_TRACKED)
		complete(io, now_ns, true);
}

void iolat_done_unissued(struct iolat_io *io)
{
	if (!(io->state_ & IO_TRACKED))
		return; /* admitted while disabled, or already completed */
	io->state_ |= IO_UNISSUED;
	complete(io, 0, true);
}
