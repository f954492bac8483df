/* SPDX-License-Identifier: MIT */
/*
 * memleak_int.h - what the parts of the leaking-service scenario share: the
 * run's state (struct ml) around the simulated machine's kernel side
 * (src/sim/mm.h: tasks, allocation, reclaim, kswapd, swap and refault I/O).
 * memleak_run.c: set-up, ticks, oomd, kills, metrics, over
 * memleak_report.c (the figures) and memleak_config.c (the configuration's
 * words and defaults). wl_hashd.c: the web server. wl_memhog.c: the leak
 * and the background service.
 * Context: one simulation thread per run.
 */
#ifndef IOLAT_SCEN_MEMLEAK_INT_H
#define IOLAT_SCEN_MEMLEAK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "iolatency.h"
#include "scen/memleak/memleak.h"
#include "sim/device.h"
#include "sim/event.h"
#include "sim/mm.h"
#include "sim/oomd.h"
#include "util/rng.h"

#define ML_NS_PER_S 1000000000ull
#define ML_NS_PER_MS 1000000ull

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
	struct iolat_mm mm;          /* the kernel side: memory, PSI, reclaim, swap I/O */
	struct iolat_oomd oomd;
	int mg_wl, mg_sys, mg_hog, mg_bg;
	struct iolat_group *g_wl, *g_sys, *g_hog, *g_bg; /* io.latency groups */
	bool memory_side;            /* congestion throttles faults (full mode) */
	uint64_t bg_off;             /* the background service's region, bytes */
	/* actors */
	struct ml_web *web;
	struct ml_hog *hog;
	struct ml_bg *bg;
	/* phases */
	uint64_t t0, hog_start;
	uint64_t kill_at;            /* 0: no kill yet */
	bool stopped;
	bool web_killed;             /* the web's group was killed: an outage */
	bool rebooted;               /* the stock health checker rebooted the machine */
	uint64_t low_rps_since;      /* stock health checker */
	/* counters for the result (the machine's own are in mm) */
	uint64_t swap_by[3], hog_swap_at_depth1, hog_swap_by_web, io_at_kill;
	size_t cap_samples;
};

/* memleak_run.c */
void ml_kill(struct ml *ml, int mg, const char *who, uint64_t now);

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

#endif /* IOLAT_SCEN_MEMLEAK_INT_H */
