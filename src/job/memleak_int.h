/* SPDX-License-Identifier: MIT */
/*
 * memleak_int.h - what the parts of the leaking-service scenario share: the
 * run's state (struct ml), tasks with their PSI state, and one I/O.
 * memleak_run.c: set-up, ticks, oomd, kills, metrics. memleak_mm.c: the
 * kernel side (allocation, direct reclaim, kswapd, swap and refault I/O
 * through the controller). wl_hashd.c: the web server. wl_memhog.c: the
 * leak and the background service.
 * Context: one simulation thread per run.
 */
#ifndef IOLAT_JOB_MEMLEAK_INT_H
#define IOLAT_JOB_MEMLEAK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "iolatency.h"
#include "job/hist.h"
#include "job/memleak.h"
#include "sim/device.h"
#include "sim/event.h"
#include "sim/mem.h"
#include "sim/oomd.h"
#include "sim/psi.h"
#include "sim/reclaim.h"
#include "util/rng.h"

#define ML_NS_PER_S 1000000000ull
#define ML_NS_PER_MS 1000000ull

enum ml_task_state { ML_T_IDLE = 0, ML_T_RUN, ML_T_IOWAIT, ML_T_MEMSTALL };

struct ml;
struct ml_task;

/* Called when a task that blocked in ml_alloc() holds its frame. */
typedef void (*ml_frame_fn)(struct ml_task *t, uint64_t now);

struct ml_task {
	struct ml *ml;
	int mg;                      /* mem (and PSI) group */
	struct iolat_group *iog;     /* io.latency group */
	enum ml_task_state state;
	bool dead;
	ml_frame_fn on_frame;        /* continuation of a blocked allocation */
	struct ml_task *next_waiter; /* on the frame wait list */
	uint64_t stall_ns, stall_since; /* memstall time, own */
};

enum ml_io_kind { ML_IO_SWAPOUT, ML_IO_READ, ML_IO_BG };

struct ml_io {
	struct iolat_io io;
	struct iolat_waiter w;
	struct iolat_sim_req req;
	struct ml *ml;
	enum ml_io_kind kind;
	uint32_t unit;
	struct ml_task *task;        /* resumed at completion; NULL for kswapd */
	void (*done)(struct ml_io *io, uint64_t now);  /* internal completion */
	void (*cont)(struct ml_io *io, uint64_t now);  /* the task's continuation */
	uint64_t submit_ns;
	struct ml_io *next_free;
};

struct ml_web;
struct ml_hog;
struct ml_bg;

struct ml {
	struct iolat_ml_config c;
	struct iolat_ml_result *res;
	struct iolat_sim_evq q;
	struct iolat_clock clk;
	struct iolat_sim_dev *dev;
	struct iolat_ctl *ctl;
	struct iolat_mem mem;
	struct iolat_reclaim_cfg rcfg;
	struct iolat_psi psi[IOLAT_MEM_MAX_GROUPS];
	struct iolat_oomd oomd;
	struct iolat_rng rng_reclaim;
	int mg_wl, mg_sys, mg_hog, mg_bg;
	struct iolat_group *g_wl, *g_sys, *g_hog, *g_bg; /* io.latency groups */
	bool memory_side;            /* congestion throttles faults (full mode) */
	bool swap_bypass;            /* swap writes carry IOLAT_IO_SWAP */
	uint64_t data_off, bg_off, swap_off;   /* disk layout, bytes */
	/* kernel side */
	struct ml_task *frame_waiters;
	uint32_t kswapd_inflight;
	bool kswapd_queued;
	struct ml_io *io_free, **io_chunks;
	size_t nr_io_chunks;
	/* actors */
	struct ml_web *web;
	struct ml_hog *hog;
	struct ml_bg *bg;
	/* phases */
	uint64_t t0, hog_start;
	uint64_t kill_at;            /* 0: no kill yet */
	bool stopped;
	uint64_t low_rps_since;      /* stock health checker */
	int error;
	/* counters for the result */
	uint64_t swap_writes, swap_by[3], hog_swap_at_depth1, swap_waited, hog_swap_by_web;
	uint64_t swap_after_kill, io_at_kill, nr_submits;
	/* per sample */
	struct iolat_hist read_lat;
	size_t cap_samples;
};

/* memleak_mm.c */
void ml_task_init(struct ml *ml, struct ml_task *t, int mg, struct iolat_group *iog);
void ml_task_set(struct ml_task *t, enum ml_task_state st, uint64_t now);
void ml_task_kill(struct ml_task *t, uint64_t now);
/* Take a frame for @t: true at once; false when @t blocked (direct reclaim
 * or waiting for writeback): @t->on_frame runs later holding the frame. */
bool ml_alloc(struct ml_task *t, uint64_t now);
/* Read unit @u into a frame @t holds; @done runs at completion. */
void ml_read_unit(struct ml_task *t, uint32_t u, void (*done)(struct ml_io *, uint64_t), uint64_t now);
/* Plain I/O of @t (bg service): @done at completion (the I/O is freed after). */
void ml_submit_plain(struct ml_task *t, uint64_t off, uint32_t len, bool write,
		     void (*done)(struct ml_io *, uint64_t), uint64_t now);
void ml_io_put(struct ml *ml, struct ml_io *io);
void ml_kswapd_wake(struct ml *ml);
void ml_frames_freed(struct ml *ml, uint64_t now);
void ml_io_pool_free(struct ml *ml);

/* memleak_run.c */
void ml_kill(struct ml *ml, int mg, const char *who, uint64_t now);
void ml_record_read(struct ml *ml, uint64_t lat_ns);

/* memleak_report.c */
void ml_finish_result(struct ml *ml);

/* wl_hashd.c */
int ml_web_create(struct ml *ml);
void ml_web_start(struct ml *ml, uint64_t now);
void ml_web_destroy(struct ml *ml);
void ml_web_kill(struct ml *ml, uint64_t now);
/* Take this sample's figures: completions, p95 (ns), refused requests. */
void ml_web_sample(struct ml *ml, uint64_t *done, uint64_t *p95_ns, uint64_t *lost);
uint64_t ml_web_p95_all(struct ml *ml);   /* p95 since the last reset */
void ml_web_reset_all(struct ml *ml);

/* wl_memhog.c */
int ml_hog_create(struct ml *ml);
void ml_hog_start(struct ml *ml, uint64_t now);
void ml_hog_destroy(struct ml *ml);
void ml_hog_kill(struct ml *ml, uint64_t now);
void ml_hog_stats(struct ml *ml, double *alloc_units, double *loss_units, uint64_t *slept_ns,
		  uint64_t *stall_ns, uint64_t *max_sleep_ns);
int ml_bg_create(struct ml *ml);
void ml_bg_start(struct ml *ml, uint64_t now);
void ml_bg_destroy(struct ml *ml);
void ml_bg_kill(struct ml *ml, uint64_t now);

#endif /* IOLAT_JOB_MEMLEAK_INT_H */
