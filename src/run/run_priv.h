/* SPDX-License-Identifier: MIT */
/*
 * run_priv.h - PRIVATE to src/run: the one runner's state (struct run), a
 * job clone as the runner sets it up (struct run_clone), and the backend
 * interface (struct iolat_run_backend) the engines (be_eng*.c) and the
 * simulator (be_sim*.c) implement; plus what run.c offers them: the stop
 * request, the report's clock, a clone by index.
 * Context: see run.h; the runner's state belongs to the calling thread,
 * except what a backend says it shares with its own threads.
 */
#ifndef IOLAT_RUN_RUN_PRIV_H
#define IOLAT_RUN_RUN_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"
#include "job/jobfile.h"
#include "report/report.h"
#include "run/run.h"
#include "run/workload.h"

struct run;

/* One clone of a job (numjobs): the first member of a backend's own clone. */
struct run_clone {
	struct run *r;
	const struct iolat_job *job;
	unsigned job_index, clone;
	unsigned row;                 /* its group's report row (the root row: jf->nr_groups) */
	struct iolat_group *g;        /* NULL without the controller */
	struct iolat_workload wl;
};

/*
 * A backend: what differs between a run on real engines and one on a
 * simulated device. run.c calls these in this order; each failing one
 * returns a negative errno with one line in @err, and teardown follows.
 */
struct iolat_run_backend {
	const char *name;
	size_t clone_size;            /* its clone struct, which starts with a struct run_clone */
	size_t state_size;            /* its state (run->be_state, zeroed, freed by run.c) */
	uint64_t default_sample_ns;   /* the sample step when no group has a target */
	bool virtual_time;
	/* Its state (zeroed), every check before a side effect; then the
	 * device: r->res's device,
	 * device_known, nr_requests and rotational, and r->clock (NULL: real). */
	int (*prepare)(struct run *r, char *err, size_t errlen);
	/* After the controller: what must exist before the jobs (the files). */
	int (*lay_out)(struct run *r, char *err, size_t errlen);
	/* The report label's device part ("device vda", "sim ssd, seed 1"). */
	void (*label)(const struct run *r, char *buf, size_t len);
	/* The time the run starts at (the workloads' start). */
	uint64_t (*now)(const struct run *r);
	/* The bytes each clone of @job works on when it gives no size=. */
	int (*region)(struct run *r, const struct iolat_job *job, uint64_t *size,
		      char *err, size_t errlen);
	/* The workload of @job refused its region (iolat_workload_init()). */
	int (*bad_region)(const struct run *r, const struct iolat_job *job, int ret,
			  char *err, size_t errlen);
	/* One clone's own part, its struct run_clone set up. */
	int (*setup_clone)(struct run *r, struct run_clone *c, char *err, size_t errlen);
	/* After every clone (NULL: nothing). */
	int (*setup_done)(struct run *r, char *err, size_t errlen);
	/* The run itself: from iolat_report_start() at r->start_ns, until every
	 * job is done or a stop (run_stop_requested()), then run_finish(). */
	int (*drive)(struct run *r, char *err, size_t errlen);
	/* After the run and the idle check (NULL: nothing): the backend's checks. */
	int (*after)(struct run *r, char *err, size_t errlen);
	/* Free what the backend set up (also after a failure at any step;
	 * its state itself is freed by run.c). */
	void (*teardown)(struct run *r, bool failed);
	const char *fail_what;        /* "simulation failed: " in a message without one */
};

struct run {
	const struct iolat_jobfile *jf;
	const struct iolat_run_backend *be;
	struct iolat_run_opts o;
	struct iolat_run_result *res;
	void *be_state;               /* the backend's own, be->state_size bytes */
	void *be_out;                 /* what the caller asked of the backend (run_execute) */
	const struct iolat_clock *clock; /* the controller's; NULL: the real one */
	struct iolat_ctl *ctl;        /* NULL without control */
	struct iolat_group **groups;  /* by job-file group index */
	struct iolat_report *rep;
	void *clones;                 /* nr_clones of be->clone_size bytes */
	unsigned nr_clones;
	uint64_t start_ns;            /* the workloads' start, time 0 of the report */
	uint64_t end_ns;              /* the latest clone's end; UINT64_MAX: some has none */
	int mode;                     /* enum iolat_ctl_mode asked (run only with control) */
	bool jobs_started;            /* drive began: a layout stays */
};

/* The @i-th clone. */
static inline struct run_clone *run_clone_at(const struct run *r, unsigned i)
{
	return (struct run_clone *)((char *)r->clones + (size_t)i * r->be->clone_size);
}

/* The stop flag of the options is set (a signal): the backend ends the run. */
bool run_stop_requested(const struct run *r);
/* The run was cut short by a stop: said in the result and the report. */
void run_mark_interrupted(struct run *r);
/* The measured run ends at @now: its duration, the report finished. Return: 0 or -ENOMEM. */
int run_finish(struct run *r, uint64_t now);
/* A note for the user (opts->note), printf-style. */
void run_note(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * run_execute() - iolat_run() with @be_out handed to the backend (the
 * simulator fills its series there), and with @check_only: every set-up
 * step up to the run, nothing run (iolat sim --parse-only).
 */
int run_execute(const struct iolat_jobfile *jf, const struct iolat_run_backend *be,
		const struct iolat_run_opts *opts, bool check_only, void *be_out,
		struct iolat_run_result **out, char *err, size_t errlen);

#endif /* IOLAT_RUN_RUN_PRIV_H */
