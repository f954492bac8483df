/* SPDX-License-Identifier: MIT */
/*
 * ctl.h - the controller's state, shared by the core's files (never by users).
 *
 * Everything lives in one arena laid out by iolat_core_ctl_init(): the
 * controller header, then max_groups+1 group records (index 0 is the root),
 * then nr_stat_slots padded stat slots per group. Groups refer to each other
 * by index, never by pointer, so a later version can map the arena into
 * several processes. (struct iolat_group handles given to users are pointers
 * into the arena; the waiter list links are process-local by nature.)
 *
 * Field comments say who writes each field. "CAS winner" means the single
 * thread that won the compare-and-swap guarding that step.
 */
#ifndef IOLAT_CORE_CTL_H
#define IOLAT_CORE_CTL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"
#include "iolatency_internal.h"
#include "core/knee.h"
#include "core/mode.h"
#include "core/spin.h"
#include "core/weight.h"
#include "util/fifo.h"
#include "util/units.h"

/* A level's wait queue: the waiters linked through their next_ (util/fifo.h). */
IOLAT_FIFO(iolat_waitq, struct iolat_waiter, next_)

#define IOLAT_NO_GROUP UINT32_MAX
#define IOLAT_ROOT_IDX 0u
#define IOLAT_NAME_MAX 64
#define IOLAT_CACHELINE 64

/* Private io->state_ bits. */
#define IO_TRACKED  (1u << 0)  /* took slots: iolat_done must release them */
#define IO_QUEUED   (1u << 1)  /* waited for a slot at some level */
#define IO_UNISSUED (1u << 2)  /* completing without being issued */

/*
 * One stat slot: cumulative counters, written by the thread that owns the
 * slot (plain load+store) or, for shared slots, with atomic adds. Never
 * reset: the window closer subtracts its last snapshot.
 *
 * The two last fields serve the distributed in-flight count (inflight.c):
 * local is the owner's share of its group's in-flight count while the group
 * counts distributed (admissions minus completions by this thread; may be
 * negative); seq is used in the root's slots only (the root counts nothing):
 * the owner thread's sequence, odd while it updates a local anywhere.
 */
struct iolat_slot {
	alignas(IOLAT_CACHELINE) _Atomic uint64_t nr; /* latencies recorded */
	_Atomic uint64_t sum_ns;  /* their sum (mean rule) */
	_Atomic uint64_t missed;  /* how many were >= target (p90 rule) */
	_Atomic uint64_t late_ns; /* their latencies summed (the adaptive mode's "queued") */
	_Atomic uint64_t done;    /* completions of I/O issued by this group */
	_Atomic int64_t local;    /* owner; zeroed by a fold (inflight.c) */
	_Atomic uint64_t seq;     /* root's slots: owner's sequence (inflight.c) */
};

/* Window statistics: one window's delta, or the carried cur_stat. */
struct iolat_win_stat {
	uint64_t nr, sum_ns, missed;
	uint64_t late_ns; /* of sum_ns: the missed ones' */
	uint64_t stalled; /* of nr: I/O still outstanding when a stall closed the window (stall.c) */
};

/*
 * A throttled child's adaptive state (adaptive.c, pace.c). pace_watch is 1
 * while the parent counts this group's I/O (an episode of the adaptive mode:
 * the gate counts it, and paces it when it has a rate); the parent writes
 * want_* and pace_watch under its child_lock, the child copies want_* into
 * pace_* when it applies the parent's cookie; the gate reads them anywhere.
 */
struct iolat_adapt_child {
	alignas(IOLAT_CACHELINE) _Atomic uint32_t pace_watch;
	_Atomic uint32_t last_step;    /* enum iolat_step */
	_Atomic uint64_t pace_bps, pace_iops; /* in force; 0: not paced */
	_Atomic uint64_t next_issue;   /* the pace gate's virtual time, ns */
	_Atomic uint64_t cal_bytes, cal_ios;  /* let through the gate while watched */
	_Atomic uint64_t paced_ios, paced_ns; /* told to wait, and for how long */
	_Atomic uint64_t want_bps, want_iops; /* the parent's share for us */
	/* A caller acting for the controller (observe.c): the rate in force
	 * since applied_at, and what was served; fed says which it ever told. */
	_Atomic uint64_t applied_bps, applied_iops, applied_at;
	_Atomic uint64_t served_bytes, served_ios;
	_Atomic uint32_t fed;          /* IOLAT_FED_* */
	/* Under the parent's child_lock: the counts at its last look. */
	uint64_t snap_bytes, snap_ios, snap_waits;
	uint64_t snap_served_bytes, snap_served_ios;
	uint64_t split_bytes, split_waits;
};

/* A parent's knee seeker (knee.h), under its child_lock. */
#define IOLAT_FED_APPLIED 1u /* iolat_group_observe_applied() was called */
#define IOLAT_FED_SERVED  2u /* iolat_group_observe_served() was called */

struct iolat_adapt_parent {
	struct iolat_knee knee;
	uint64_t split_at;             /* the children's shares were last set */
};

/*
 * A group's weight (weight_ctl.c, docs/weights.md). The counters are added to
 * lock-free by the gate and observed completions at every level from the
 * group up; the last period's figures are written under ctl->weight_lock
 * (the period's CAS winner) and read under it.
 */
struct iolat_weight_grp {
	alignas(IOLAT_CACHELINE) _Atomic uint32_t weight; /* 0: never set (the default) */
	_Atomic uint32_t donor;        /* donating: the gate may snap it back */
	_Atomic uint64_t bytes, ios;   /* counted (gate, observed completions) */
	_Atomic uint64_t waits;        /* I/Os the weight gate told to wait */
	_Atomic uint64_t budget_bps;   /* in force; UINT64_MAX: none */
	_Atomic uint64_t fair_bps;     /* a donor's part before donation (snap-back) */
	_Atomic uint64_t next_issue;   /* the weight gate's virtual time */
	_Atomic uint64_t snapbacks;    /* donations ended by the gate */
	_Atomic uint32_t idle;         /* not active: its next I/O activates it (mirrors !active) */
	_Atomic uint64_t served_at;    /* the last served report (iolat_group_observe_served) */
	_Atomic uint32_t served_snap;  /* a served report snapped it back this period */
	_Atomic uint64_t io_at;        /* the last served report with bytes in it */
	/* Under ctl->weight_lock: */
	uint64_t snap_bytes, snap_ios, snap_waits, snap_served, snap_served_ios;
	uint64_t active_at;            /* activated then (between periods; 0: at a period's end) */
	uint64_t stopped_at;           /* deactivated early then, not active since (0: not) */
	uint64_t rate_bps;             /* its use over the period, or since activated: divided by */
	bool active, busy;
	bool snapped;                  /* snapped back by a served report in the last period */
	bool donor_before;             /* a donor (or snapped back) in the last period */
	double hweight;
	uint64_t share_bps, use_bps, donated_bps;
};

struct iolat_group {
	/* Identity and tree: written under ctl->tree_lock at create/destroy. */
	struct iolat_ctl *ctl;
	uint32_t idx;
	_Atomic uint32_t parent;       /* IOLAT_NO_GROUP for the root */
	_Atomic uint32_t used;         /* 1 while allocated (release/acquire) */
	_Atomic uint32_t nr_children;
	uint32_t next_free;
	char name[IOLAT_NAME_MAX];
	/* For the fast paths, relative so that the arena can move: */
	_Atomic int64_t parent_off;    /* bytes to the parent's record (0: root); with parent */
	int64_t slots_off;             /* bytes to this record's stat slots; set once */
	uint32_t last_slot;            /* nr_slots - 1, the shared slot; set once */

	/*
	 * Admission: the fast path. The in-flight count is inflight plus the
	 * locals of the owned stat slots (inflight.c); inflight alone is exact
	 * while mode is not IOLAT_MODE_DIST. This line is written on the fast
	 * path only in exact mode (inflight), when it moves between cores anyway.
	 */
	alignas(IOLAT_CACHELINE) _Atomic uint32_t inflight;
	_Atomic uint32_t max_depth;    /* written under depth_lock (inflight.c) */
	_Atomic uint32_t scale_cookie; /* parent's cookie acted on; CAS winner */
	_Atomic uint32_t nwait;        /* waiters queued; changed under wq_lock */
	_Atomic uint32_t mode;         /* IOLAT_MODE_*; written under depth_lock */
	struct iolat_spin depth_lock;  /* max_depth and mode changes; a leaf lock */
	struct iolat_spin wq_lock;     /* guards wq */
	struct iolat_waitq wq;         /* the waiters, in FIFO order */

	/* Target and window. */
	_Atomic uint64_t target_ns;    /* set_target, under tree_lock */
	_Atomic uint64_t win_ns;
	_Atomic uint64_t window_start; /* CAS winner closes the window */
	/* Window closer (CAS winner on window_start): */
	_Atomic uint64_t snap_nr, snap_sum, snap_missed, snap_late;
	_Atomic uint64_t lat_avg_ns;   /* EMA of window means (HDD) */
	_Atomic uint64_t last_mean_ns;
	_Atomic uint64_t windows_ok, windows_missed;
	/* Under the parent's child lock: */
	struct iolat_win_stat cur_stat;
	_Atomic uint64_t nr_samples;   /* samples contributed at last summation */
	uint64_t bypass_seen, bypass_carried; /* bypass_throttled at the last carry, and
					       * since cur_stat began (IOLAT_CTL_BYPASS_SHARE) */

	/* Delay (docs/controller.md R11). */
	_Atomic int use_delay;
	_Atomic uint64_t delay_nsec;
	_Atomic uint64_t delay_start;
	_Atomic uint64_t last_delay;   /* decay CAS winner */
	_Atomic int last_use;          /* decay CAS winner */

	/* Counters. */
	_Atomic uint64_t nr_bypass, throttled_ns, slept_ns;
	_Atomic uint64_t bypass_throttled; /* bypass I/Os completed here while it was throttled */
	_Atomic uint64_t scale_downs, scale_ups;
	_Atomic uint64_t tick_nr;      /* recorded samples when a tick last looked; tick_lock */
	_Atomic uint64_t tick_seq;     /* which tick that was; tick_lock */
	_Atomic uint64_t obs_nr, obs_bytes; /* completions observed elsewhere (observe.c) */
	/* stall.c: I/O outstanding as a caller reports it (fed: it ever did),
	 * the stall's record (its time, the completions then), windows closed
	 * by a stall. */
	_Atomic uint32_t obs_inflight, obs_inflight_fed;
	_Atomic uint64_t stall_since, stall_done, stalled_windows;

	/* This group as a parent: its cookie and asking group (docs/controller.md, Words). */
	alignas(IOLAT_CACHELINE) _Atomic uint32_t child_cookie; /* written under child_lock */
	struct iolat_spin child_lock;
	_Atomic uint32_t scale_grp;    /* child index that asked, or IOLAT_NO_GROUP */
	_Atomic uint64_t scale_lat;    /* lowest target that asked */
	_Atomic uint64_t last_scale_event;
	_Atomic uint64_t child_nr_samples;

	/* Adaptive mode (adaptive.c, pace.c); untouched in the other modes. */
	struct iolat_adapt_child ad;   /* as a throttled child */
	struct iolat_adapt_parent ap;  /* as a parent: under child_lock */

	struct iolat_weight_grp w;     /* weights (weight_ctl.c) */
};

struct iolat_ctl {
	struct iolat_clock clock;
	_Atomic uint32_t qd;           /* nr_requests, read at every scale step */
	int rotational;
	unsigned flags;
	const struct iolat_mode_ops *mode; /* the mode's policy (mode.h); set once */
	enum iolat_window_rule rule;   /* the mode's window rule on this device; set once */
	uint64_t delay_cap_ns;
	uint32_t nr_groups;            /* capacity including the root */
	uint32_t nr_slots;             /* power of two */
	_Atomic int enable_cnt;        /* groups with a target */
	_Atomic uint32_t tick_armed;   /* a submit since the last tick */
	_Atomic uint32_t pace_watchers;/* adaptive: groups watched (pace.c's fast exit) */
	_Atomic uint32_t weights_on;   /* a weight was set: shares are divided */
	_Atomic uint64_t weight_at;    /* the current period began; CAS winner runs it */
	struct iolat_spin weight_lock; /* the period's division and its figures */
	struct weight_cap weight_cap;  /* the capacity estimate; weight_lock */
	uint64_t weight_cap_bps;       /* its value at the last period; weight_lock */
	uint64_t weight_total_bps;     /* the device's total over the last period */
	struct weight_node weight_nodes[WEIGHT_SPLIT_MAX]; /* one parent's division; weight_lock */
	uint32_t weight_idx[WEIGHT_SPLIT_MAX];
	struct iolat_spin tree_lock;   /* group create/destroy/set_target */
	struct iolat_spin tick_lock;   /* one tick at a time */
	uint64_t tick_seq;             /* ticks run; tick_lock */
	uint32_t free_head;            /* free list of group records; tree_lock */
	struct iolat_group *groups;
	struct iolat_slot *slots;
	void *sync_priv;               /* owned by src/sync (the timer thread) */
};

static inline struct iolat_group *grp_at(const struct iolat_ctl *ctl, uint32_t idx)
{
	return &ctl->groups[idx];
}

static inline struct iolat_group *grp_parent(const struct iolat_group *g)
{
	uint32_t p = atomic_load_explicit(&g->parent, memory_order_relaxed);

	return p == IOLAT_NO_GROUP ? NULL : grp_at(g->ctl, p);
}

/* The parent of a group that is not the root, without the arena's base. */
static inline struct iolat_group *grp_parent_nonroot(const struct iolat_group *g)
{
	return (struct iolat_group *)((uintptr_t)g +
				      atomic_load_explicit(&g->parent_off, memory_order_relaxed));
}

static inline struct iolat_slot *grp_slots(const struct iolat_group *g)
{
	return &g->ctl->slots[(size_t)g->idx * g->ctl->nr_slots];
}

static inline uint64_t ctl_now(const struct iolat_ctl *ctl)
{
	return ctl->clock.now_ns(ctl->clock.ctx);
}

static inline bool ctl_compat_b1(const struct iolat_ctl *ctl)
{
	return ctl->flags & IOLAT_CTL_COMPAT_B1;
}

static inline bool ctl_adaptive(const struct iolat_ctl *ctl)
{
	return ctl->flags & IOLAT_CTL_ADAPTIVE;
}

/* Arena set-up (ctl.c), used by src/sync to place the arena. */
size_t iolat_core_ctl_size(const struct iolat_ctl_config *cfg);
int iolat_core_ctl_check(const struct iolat_ctl_config *cfg);
struct iolat_ctl *iolat_core_ctl_init(void *mem, const struct iolat_ctl_config *cfg,
				      const struct iolat_clock *clock);

/*
 * inflight.c: the in-flight count, distributed while a level is unlimited.
 * Modes: DIST (owned-slot threads count in their slot's local, inside their
 * odd sequence), SWITCH (a fold in progress) and EXACT (everybody uses
 * inflight). Every store of max_depth but the initial one goes through
 * iolat_depth_set() / iolat_depth_store_locked().
 */
#define IOLAT_MODE_DIST   0u
#define IOLAT_MODE_SWITCH 1u
#define IOLAT_MODE_EXACT  2u

/*
 * thread_id.c: the calling thread's id (its stat slot in every group),
 * UINT32_MAX until iolat_thread_id_assign() gives it one. Initial-exec TLS:
 * one %fs-relative load on the fast path, no __tls_get_addr call.
 */
extern _Thread_local uint32_t iolat_my_thread_id __attribute__((tls_model("initial-exec")));
/* Give the calling thread the smallest free id (and call the hook). */
uint32_t iolat_thread_id_assign(void);
/* @id's thread is exiting (or gives it up): the id may be given out again. */
void iolat_thread_id_release(uint32_t id);
/* @hook(id) runs on each thread given an id, e.g. to learn of its exit. */
void iolat_thread_id_set_hook(void (*hook)(uint32_t id));

/* The thread's sequence word: the root's stat slot @tid (tid < last_slot). */
static inline _Atomic uint64_t *thread_seq(const struct iolat_ctl *ctl, uint32_t tid)
{
	return &ctl->slots[tid].seq;
}

void iolat_depth_lock(struct iolat_group *g);
void iolat_depth_unlock(struct iolat_group *g);
/* Under depth_lock: store @depth; below unlimited, switch to exact first. */
void iolat_depth_store_locked(struct iolat_group *g, uint32_t depth);
void iolat_depth_set(struct iolat_group *g, uint32_t depth);
/* Back to distributed if unlimited with nobody waiting (after the wake-up). */
void iolat_inflight_relax(struct iolat_group *g);
/* The count, exact: folds the locals (takes depth_lock; never on a thread
 * inside its own odd sequence, i.e. never from the fast path). */
uint32_t iolat_inflight_exact(struct iolat_group *g);
/* The count as a snapshot under depth_lock (no fold meanwhile, no wait for
 * the fast path): exact when no I/O of @g is in progress, else it may be off
 * by the operations racing with it (never below 0). */
uint32_t iolat_inflight_sum(const struct iolat_group *g);

/* Sums of a group's slots (stat.c). */
void iolat_grp_sum_slots(const struct iolat_group *g, struct iolat_win_stat *sum,
			 uint64_t *done);

/* admit.c */
void iolat_check_scale_change(struct iolat_group *g);
void iolat_wake(struct iolat_group *g, bool all);

/* window.c: the slow path at a window's end (@extra: I/O not completed,
 * counted in the window's verdict; stall.c). */
void iolat_check_latencies(struct iolat_group *g, uint64_t now);
void iolat_check_latencies_with(struct iolat_group *g, uint64_t now,
				const struct iolat_win_stat *extra);
/* window.c: forget @g's open window unjudged, a new one starting at @now
 * (the adaptive mode, for a protected group gone quiet: the completions left
 * from its last busy spell would dilute the first window of its next). */
void iolat_window_drop(struct iolat_group *g, uint64_t now);

/* stall.c: has @g (a protected group) I/O outstanding at @now, i.e. is it
 * stalled rather than idle? With @close, a window overdue whose stalled I/O
 * is older than the target closes as missed (not under the parent's
 * child_lock). Adaptive mode only. */
bool iolat_stall_busy(struct iolat_group *g, uint64_t now, bool close);

/* delay.c */
void iolat_delay_use(struct iolat_group *g);
bool iolat_delay_unuse(struct iolat_group *g);
void iolat_delay_clear(struct iolat_group *g);
void iolat_delay_add(struct iolat_group *g, uint64_t now, uint64_t delta);
void iolat_delay_scale(struct iolat_group *g, uint64_t now);

/* check.c: iolat_ctl_check_invariants(), declared in iolatency_internal.h. */

/* pace.c: is @g limited by a rate of the adaptive mode (for delay charging)? */
static inline bool grp_paced(const struct iolat_group *g)
{
	return atomic_load_explicit(&g->ad.pace_watch, memory_order_relaxed) &&
	       (atomic_load_explicit(&g->ad.pace_bps, memory_order_relaxed) ||
		atomic_load_explicit(&g->ad.pace_iops, memory_order_relaxed));
}
/* adaptive.c: stop watching @g (its count of watchers kept right). */
void iolat_adapt_unwatch(struct iolat_group *g);
/* pace.c: count an observed completion at @g's watched levels; the rate in
 * force for @g at @now (0, 0 while not paced or its protected group idles). */
void iolat_pace_observed(struct iolat_group *g, uint64_t bytes);
void iolat_pace_in_force(const struct iolat_group *g, uint64_t now, uint64_t *bps,
			 uint64_t *iops);

/* weight_ctl.c: weights (docs/weights.md). */
static inline bool ctl_weights_on(const struct iolat_ctl *ctl)
{
	return atomic_load_explicit(&ctl->weights_on, memory_order_relaxed) != 0;
}
void iolat_weight_group_init(struct iolat_group *g);
/* A period is due at @now: run it (one caller wins). Any thread, no lock. */
void iolat_weight_maybe_period(struct iolat_ctl *ctl, uint64_t now);
/* Count @bytes of @g (and one I/O) at every level from @g up at @now; a
 * level that was idle is activated (below). */
void iolat_weight_count(struct iolat_group *g, uint64_t bytes, uint64_t now);
/* @g (or a level above it) was idle and did I/O: active from now on, the
 * shares divided again at once (lock-free check, weight_lock when due). */
void iolat_weight_maybe_activate(struct iolat_group *g, uint64_t now);
/* A served report of @bytes at @now: a donor served at >= WEIGHT_BUSY_PM of
 * its reduced budget since the last report gets its part back at once. */
void iolat_weight_served(struct iolat_group *g, uint64_t bytes, uint64_t now);
/* The weight gate: the ns to wait at @now (0: may go; counts a wait). */
uint64_t iolat_weight_wait(struct iolat_group *g, uint64_t bytes, uint64_t now);
/* ... the I/O goes: count it and charge every budgeted level. */
void iolat_weight_charge(struct iolat_group *g, uint64_t bytes, uint64_t now);
/* The weight a group divides by (the default until set). */
static inline uint32_t grp_weight(const struct iolat_group *g)
{
	uint32_t w = atomic_load_explicit(&g->w.weight, memory_order_relaxed);

	return w ? w : IOLAT_WEIGHT_DEFAULT;
}

/* ctl.c: reset a parent's throttling state and let its children see it. */
void iolat_child_lat_reset_locked(struct iolat_group *p);
void iolat_apply_to_children(struct iolat_group *p);

#endif
