/* SPDX-License-Identifier: MIT */
/*
 * mm.h - the kernel's memory-management side of a simulated machine, in
 * virtual time: tasks and their PSI state, page allocation with the
 * min/low/high watermarks, direct reclaim by the allocating task, kswapd,
 * swap-out writes charged to the page's owner and refault/swap-in reads
 * charged to the faulting task, all through the controller's public API
 * (include/iolatency.h) on a simulated device (device.h). The bookkeeping is
 * mem.c's, the victim choice reclaim.c's, the pressure psi.c's. A scenario
 * (src/scen) owns the tasks, gives each memory group its io.latency group,
 * and says what the kernel's OOM killer does to a group (struct
 * iolat_mm_ops).
 *
 * An allocation takes a free frame while more than wmark_min are free (and
 * wakes kswapd below wmark_low). Otherwise the task reclaims one unit itself
 * (memory stall): a file unit is dropped and its frame is the task's at once;
 * an anonymous unit gets a swap slot and is written there, flag SWAP (unless
 * swap_bypass is off, the ablation), in the io group of the unit's OWNER,
 * whoever the reclaimer is; the task waits for that write and takes the
 * frame it frees. When nothing is reclaimable but writes are in flight, the
 * task waits for a frame; when nothing is reclaimable at all, the kernel's
 * OOM killer picks the leaf group with the most memory + swap. kswapd (a
 * kernel thread: no PSI, never throttled) keeps up to 32 writes in flight
 * until free frames reach wmark_high.
 * Context: one simulation thread per machine; nothing here locks.
 */
#ifndef IOLAT_SIM_MM_H
#define IOLAT_SIM_MM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"
#include "sim/device.h"
#include "sim/event.h"
#include "sim/mem.h"
#include "sim/psi.h"
#include "sim/reclaim.h"
#include "util/hist.h"
#include "util/rng.h"

enum iolat_mm_state { IOLAT_MM_IDLE = 0, IOLAT_MM_RUN, IOLAT_MM_IOWAIT, IOLAT_MM_MEMSTALL };

struct iolat_mm;
struct iolat_mm_task;

/* Called when a task that blocked in iolat_mm_alloc() holds its frame. */
typedef void (*iolat_mm_frame_fn)(struct iolat_mm_task *t, uint64_t now);

/* A task: embed it first in the scenario's own task struct. */
struct iolat_mm_task {
	struct iolat_mm *mm;
	int mg;                      /* mem (and PSI) group */
	struct iolat_group *iog;     /* io.latency group */
	enum iolat_mm_state state;
	bool dead;
	iolat_mm_frame_fn on_frame;  /* continuation of a blocked allocation */
	struct iolat_mm_task *next_waiter; /* on the frame wait list */
	uint64_t stall_ns, stall_since; /* memstall time, own */
};

enum iolat_mm_io_kind { IOLAT_MM_IO_SWAPOUT, IOLAT_MM_IO_READ, IOLAT_MM_IO_PLAIN };

/* One I/O through the controller to the device. */
struct iolat_mm_io {
	struct iolat_io io;
	struct iolat_waiter w;
	struct iolat_sim_req req;
	struct iolat_mm *mm;
	enum iolat_mm_io_kind kind;
	uint32_t unit;
	struct iolat_mm_task *task;  /* resumed at completion; NULL for kswapd */
	void (*done)(struct iolat_mm_io *io, uint64_t now);  /* internal completion */
	void (*cont)(struct iolat_mm_io *io, uint64_t now);  /* the task's continuation */
	uint64_t submit_ns;
	struct iolat_mm_io *next_free;
};

/* What the scenario decides. */
struct iolat_mm_ops {
	/* The kernel's OOM killer chose group @mg: kill it (its tasks,
	 * iolat_mem_kill_group(), then iolat_mm_frames_freed()). */
	void (*oom_kill)(struct iolat_mm *mm, int mg, uint64_t now);
	/* A swap-out of unit @u is being issued by @t (NULL: kswapd), before
	 * its submission: for the scenario's counters. May be NULL. */
	void (*swapout)(struct iolat_mm *mm, uint32_t u, const struct iolat_mm_task *t);
};

struct iolat_mm_config {
	uint64_t frames;             /* usable frames (memory minus the reserve) */
	uint32_t slots;              /* swap slots */
	uint32_t cap_units;          /* room for this many units */
	uint64_t wmark_min, wmark_low, wmark_high;   /* frames */
	uint32_t ncpu;               /* for PSI */
	struct iolat_reclaim_cfg reclaim;
	uint64_t seed;               /* the reclaim choice's random stream */
	bool swap_bypass;            /* swap writes carry IOLAT_IO_SWAP */
	uint64_t data_off, swap_off; /* disk layout: file data and swap, bytes */
};

struct iolat_mm {
	struct iolat_sim_evq *q;
	struct iolat_sim_dev *dev;
	const struct iolat_mm_ops *ops;
	void *owner;                 /* the scenario's, for ops */
	struct iolat_mm_config c;
	struct iolat_mem mem;
	struct iolat_psi psi[IOLAT_MEM_MAX_GROUPS];
	struct iolat_group *iog[IOLAT_MEM_MAX_GROUPS];  /* charged for each group's pages */
	struct iolat_rng rng_reclaim;
	bool stopped;                /* the run is over: kswapd no longer wakes */
	int error;                   /* the first failure (-ENOMEM, ...); the run stops */
	/* kernel state */
	struct iolat_mm_task *frame_waiters;
	uint32_t kswapd_inflight;
	bool kswapd_queued;
	struct iolat_mm_io *io_free, **io_chunks;
	size_t nr_io_chunks;
	/* counters */
	uint64_t swap_writes;        /* swap-outs issued (any owner, any issuer) */
	uint64_t swap_waited;        /* swap-outs that waited for a slot (0 with the bypass) */
	uint64_t swap_after_kill;    /* swap-outs of a killed group's pages issued after its kill */
	uint64_t nr_submits;         /* I/Os submitted to the controller */
	struct iolat_hist read_lat;  /* unit reads (refaults, swap-ins); the owner resets it */
};

/**
 * iolat_mm_init() - a machine with @c's memory on @dev, events on @q, no
 * group yet. Return: 0 or -ENOMEM.
 */
int iolat_mm_init(struct iolat_mm *mm, const struct iolat_mm_config *c, struct iolat_sim_evq *q,
		  struct iolat_sim_dev *dev, const struct iolat_mm_ops *ops, void *owner);
/** iolat_mm_destroy() - free the I/O objects and the memory. */
void iolat_mm_destroy(struct iolat_mm *mm);

/**
 * iolat_mm_add_group() - a memory group (with its PSI) under @parent (-1:
 * top level), memory.low @low_units, its pages' I/O charged to @iog.
 * Return: its index or -ENOSPC.
 */
int iolat_mm_add_group(struct iolat_mm *mm, const char *name, int parent, uint64_t low_units,
		       struct iolat_group *iog, uint64_t now);

void iolat_mm_task_init(struct iolat_mm *mm, struct iolat_mm_task *t, int mg,
			struct iolat_group *iog);
/** iolat_mm_task_set() - @t's state from @now on (moves its groups' PSI counts). */
void iolat_mm_task_set(struct iolat_mm_task *t, enum iolat_mm_state st, uint64_t now);
/** iolat_mm_task_kill() - @t is idle and dead: its pending continuations do nothing. */
void iolat_mm_task_kill(struct iolat_mm_task *t, uint64_t now);

/**
 * iolat_mm_alloc() - take a frame for @t: true at once; false when @t
 * blocked (direct reclaim or waiting for writeback): @t->on_frame runs
 * later holding the frame.
 */
bool iolat_mm_alloc(struct iolat_mm_task *t, uint64_t now);
/** iolat_mm_read_unit() - read unit @u into a frame @t holds; @done runs at completion. */
void iolat_mm_read_unit(struct iolat_mm_task *t, uint32_t u,
			void (*done)(struct iolat_mm_io *, uint64_t), uint64_t now);
/** iolat_mm_submit_plain() - plain I/O of @t; @done at completion (the I/O is freed after). */
void iolat_mm_submit_plain(struct iolat_mm_task *t, uint64_t off, uint32_t len, bool write,
			   void (*done)(struct iolat_mm_io *, uint64_t), uint64_t now);
/** iolat_mm_kswapd_wake() - kswapd runs at the current time (once, however often woken). */
void iolat_mm_kswapd_wake(struct iolat_mm *mm);
/** iolat_mm_frames_freed() - free frames go to the tasks waiting for one, in order. */
void iolat_mm_frames_freed(struct iolat_mm *mm, uint64_t now);

#endif /* IOLAT_SIM_MM_H */
