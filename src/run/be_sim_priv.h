/* SPDX-License-Identifier: MIT */
/*
 * be_sim_priv.h - PRIVATE to the simulator backend: the state of one run
 * (struct sim, its submitters and groups), shared by be_sim.c,
 * be_sim_setup.c and the kernel-throttle plant be_sim_throttle.c. A header
 * of no file: each of them includes it and points at none of the others
 * through it (docs/design.md, "No circles in a folder"); what they call of
 * each other is in be_sim.h and be_sim_throttle.h.
 * Context: one thread per run; all state is local to the run.
 */
#ifndef IOLAT_RUN_BE_SIM_PRIV_H
#define IOLAT_RUN_BE_SIM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"
#include "run/run_priv.h"
#include "run/sim_result.h"
#include "sim/device.h"
#include "sim/event.h"
#include "util/hist.h"
#include "util/units.h"

/* Without a group with a target, sample every 100 ms. */
#define SIM_DEF_SAMPLE_NS (100ull * NSEC_PER_MSEC)
#define SIM_TICK_NS NSEC_PER_SEC
#define SIM_POLL_EVENTS 16384u  /* events between looks at the stop request */
/* I/O still in flight this long after the end means a wedged run. */
#define SIM_MAX_DRAIN_NS (3600ull * NSEC_PER_SEC)

struct sim;
struct sim_job;

/* One I/O slot of a submitter: lives from issue to completion. */
struct sim_io {
	struct iolat_io io;
	struct iolat_waiter w;
	struct iolat_sim_req req;
	struct iolat_wl_io wl;
	struct sim_job *job;
	uint64_t issue_ns;
	struct sim_io *next_free;
};

/* One job clone: a submitter. */
struct sim_job {
	struct run_clone c;        /* first: the runner's view (run_priv.h) */
	struct sim *sim;
	struct sim_io *ios, *free;
	uint32_t depth, inflight;
	uint64_t pump_at;          /* earliest pending pump event; UINT64_MAX: none */
	uint64_t sleep_until;      /* serving delay until then */
	bool just_woke;            /* the round after a sleep is not checked again */
	bool done;
};

/* Per row (job-file group, then the root row): measurement state. */
struct sim_row {
	int parent;                /* row of the parent group, -1 at top level */
	struct iolat_group *g;
	struct iolat_hist hs;      /* this sample interval */
	uint64_t s_bytes;
	struct iolat_hist hw;      /* this latency window */
	uint64_t w_idx;
	size_t cap_samples, cap_windows;
};

/* The kernel-throttle plant's state of one row (be_sim_throttle.c). */
struct sim_thr {
	uint64_t static_bps;       /* throttle_bps= (0: none) */
	uint64_t ctl_bps;          /* the controller's rate, in force (0: none) */
	uint64_t written_bps;      /* ... as the actuator wrote it last */
	uint64_t slice_start;      /* the current slice's start */
	int64_t used;              /* bytes charged in it (< 0: carried from the last) */
	uint64_t next_issue;       /* throttle_slice=0: the smooth limit's virtual time */
	uint64_t served_bytes, served_ios; /* since the last round */
	uint64_t sent_bytes;       /* since the last sample */
	uint64_t *pend;            /* written limits not yet in force: a ring */
	unsigned pend_cap, pend_head, pend_n;
};

/* The backend's state of one run (run->be_state). */
struct sim {
	struct run *r;
	struct iolat_sim_result *res; /* the series: the caller's (be_out) or our own */
	bool own_res;
	struct iolat_sim_evq q;
	struct iolat_clock clk;
	struct iolat_sim_dev *dev;
	unsigned active;           /* submitters not done */
	struct sim_row *rows;
	unsigned nr_rows, root_row;
	uint64_t last_sample;
	uint64_t inflight;         /* I/O issued and not completed */
	bool stopped;              /* the measured run is over */
	bool thr_on;               /* the kernel-throttle plant replaces the pace gate */
	struct sim_thr *thr;       /* per row, when thr_on */
	int error;                 /* first internal error (-ENOMEM) */
};

/* The @i-th submitter of @s's run. */
static inline struct sim_job *sim_job_at(const struct sim *s, unsigned i)
{
	return (struct sim_job *)run_clone_at(s->r, i);
}

#endif /* IOLAT_RUN_BE_SIM_PRIV_H */
