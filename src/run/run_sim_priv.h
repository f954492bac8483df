/* SPDX-License-Identifier: MIT */
/*
 * run_sim_priv.h - PRIVATE to run_sim.c and run_sim_setup.c: the state of
 * one virtual-time run (run_sim.h) and what the two files call of each other.
 * Context: one thread per run; all state is local to the run.
 */
#ifndef IOLAT_RUN_RUN_SIM_PRIV_H
#define IOLAT_RUN_RUN_SIM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"
#include "util/hist.h"
#include "report/report.h"
#include "run/run_sim.h"
#include "run/workload.h"
#include "sim/device.h"
#include "sim/event.h"
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
	struct sim *sim;
	const struct iolat_job *job;
	unsigned job_index;
	unsigned row;              /* its group's row (subtree accounting starts here) */
	struct iolat_group *g;     /* NULL without control */
	struct iolat_workload wl;
	struct sim_io *ios, *free;
	uint32_t depth, inflight;
	uint64_t pump_at;          /* earliest pending pump event; UINT64_MAX: none */
	uint64_t sleep_until;      /* serving delay until then */
	bool just_woke;            /* the round after a sleep is not checked again */
	bool done;
};

/* Per row (jobfile group, then the root row): measurement state. */
struct sim_row {
	int parent;                /* row of the parent group, -1 at top level */
	struct iolat_group *g;
	struct iolat_hist hs;      /* this sample interval */
	uint64_t s_bytes;
	struct iolat_hist hw;      /* this latency window */
	uint64_t w_idx;
	size_t cap_samples, cap_windows;
};

struct sim {
	const struct iolat_jobfile *jf;
	struct iolat_sim_result *res;
	struct iolat_sim_evq q;
	struct iolat_clock clk;
	struct iolat_sim_dev *dev;
	struct iolat_ctl *ctl;
	struct iolat_report *rep;
	struct sim_job *jobs;
	unsigned nr_jobs, active;
	struct sim_row *rows;
	unsigned nr_rows, root_row;
	uint64_t t0, t_end;        /* t_end: UINT64_MAX until known */
	uint64_t last_sample;
	uint64_t inflight;         /* I/O issued and not completed */
	bool stopped;              /* the measured run is over */
	int error;                 /* first internal error (-ENOMEM) */
};

/* run_sim.c: printf-style error line; the device's callbacks of an I/O. */
void sim_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sim_io_granted(struct iolat_waiter *w);
void sim_io_complete(struct iolat_sim_req *r, uint64_t now);

/* run_sim_setup.c: the device, the controller and groups, the submitters,
 * the report; each returns 0 or a negative errno with @err set. */
int sim_setup_device(struct sim *s, char *err, size_t errlen);
int sim_setup_controller(struct sim *s, unsigned flags, char *err, size_t errlen);
int sim_setup_jobs(struct sim *s, char *err, size_t errlen);
int sim_setup_report(struct sim *s, bool control, int mode, const char *label);

#endif /* IOLAT_RUN_RUN_SIM_PRIV_H */
