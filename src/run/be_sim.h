/* SPDX-License-Identifier: MIT */
/*
 * be_sim.h - PRIVATE to the simulator backend of the one runner (a job
 * file on a simulated device, in virtual time): be_sim.c (the submitters,
 * the tick, sampling, the end of the run and the drain) and be_sim_setup.c
 * (the event queue and the device, the clones, the backend's table). Its
 * state and what the two files call of each other: be_sim_setup.c calls
 * be_sim.c, never the other way. run_sim.c hands it the result it fills
 * (run_execute()'s be_out; sim_result.h), and is the only file of the
 * three that names the backend's table.
 * Context: one thread per run; all state is local to the run.
 */
#ifndef IOLAT_RUN_BE_SIM_H
#define IOLAT_RUN_BE_SIM_H

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

/* be_sim.c: the device's callbacks of an I/O; the run. */
void sim_io_granted(struct iolat_waiter *w);
void sim_io_complete(struct iolat_sim_req *r, uint64_t now);
int sim_drive(struct run *r, char *err, size_t errlen);

/* be_sim_throttle.c: the kernel-throttle plant. Does @jf ask for it; can it
 * run (-EINVAL and one line if not); its state after the rows have their
 * groups; its first round; how long an I/O of @bytes of row @row waits at
 * @now (0: it went and is charged; @bypass: never waits); its teardown. */
bool sim_thr_wanted(const struct iolat_jobfile *jf);
int sim_thr_check(const struct iolat_jobfile *jf, char *err, size_t errlen);
int sim_thr_setup(struct sim *s);
void sim_thr_start(struct sim *s);
uint64_t sim_thr_due(struct sim *s, unsigned row, uint64_t bytes, bool bypass, uint64_t now);
uint64_t sim_thr_bps(const struct sim *s, unsigned row);
void sim_thr_free(struct sim *s);

#endif /* IOLAT_RUN_BE_SIM_H */
