/* SPDX-License-Identifier: MIT */
/*
 * runner_priv.h - PRIVATE to the real-time runner's files: runner.c (the run:
 * orchestration, progress, teardown), runner_loop.c (one job's event loop,
 * its own thread), runner_setup.c (controller, engines, files, jobs) and
 * runner_check.c (fault counts, the verify pass, invariant checks). The
 * run's state and what the files call of each other.
 * Context: see runner.h.
 */
#ifndef IOLAT_RUN_RUNNER_PRIV_H
#define IOLAT_RUN_RUNNER_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "engine/engine.h"
#include "iolatency.h"
#include "run/fileprep.h"
#include "run/preflight.h"
#include "run/runner.h"
#include "run/vmap.h"
#include "run/workload.h"
#include "util/units.h"

#define RUNNER_MAX_WAIT_NS  (250ull * 1000000ull)  /* a loop looks at stop flags this often */
#define RUNNER_REAP_BATCH   64u
#define RUNNER_STOP_POLL_NS (100ull * 1000000ull)  /* the main loop sees a stop this fast */
#define RUNNER_ISSUE_BATCH  64u   /* issues per pass before the loop re-reads the clock */
#define RUNNER_DEF_SIZE     (1ull << 30)  /* region of a diskless job with no size= */
#define RUNNER_DEF_SAMPLE_NS NSEC_PER_SEC  /* sample interval when no group has a target */

/* BUSY: taken from the free list, being admitted or completed at once. */
enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_WAITING, SLOT_INFLIGHT };

struct rjob;

struct rslot {
	struct iolat_eng_req req;     /* the engine's request; req.user is this slot */
	struct iolat_io io;           /* the controller's view of the same I/O */
	struct iolat_waiter waiter;   /* its wait for a slot, when queued */
	struct rjob *j;
	struct rslot *next;           /* free list or grant list */
	uint64_t admit_ns;            /* latency is measured from here */
	enum slot_state state;
	bool write;
	uint64_t vgen;                /* verify generation of this write */
	uint64_t vticket;             /* its verify-map ticket; 0: not tracked */
};

struct runner;

struct rjob {
	struct runner *r;
	const struct iolat_job *job;
	unsigned job_index, clone;
	struct iolat_group *g;        /* NULL without the controller */
	struct iolat_workload wl;
	struct iolat_eng *eng;
	unsigned fidx;
	bool verify;
	struct rslot *slots;
	unsigned nr_slots;
	struct rslot *free_list;
	void *bufmem;
	struct iovec *iov;
	pthread_t thread;
	bool started;
	unsigned inflight, waiting;
	uint64_t delay_until;         /* serving charged delay: no issue before */
	uint64_t gen;                 /* verify generation of the last write */
	struct iolat_vmap *vmap;      /* its file's write tracking, or NULL */
	/* grants from any thread */
	pthread_mutex_t glock;
	struct rslot *granted_head, *granted_tail;
	/* read by the main thread while running */
	_Atomic uint64_t ios, bytes, errors;
	/* the job thread's, read after join */
	uint64_t submitted, completed, shorts, verify_failed;
	uint64_t admitted, cancelled; /* by the controller; cancelled while waiting */
	uint64_t double_done;         /* completions of a slot already free (never expected) */
	char first_error[IOLAT_RUNNER_NOTE_MAX];
};

struct runner {
	const struct iolat_jobfile *jf;
	struct iolat_runner_opts o;
	struct iolat_runner_result *res;
	struct iolat_ctl *ctl;
	struct iolat_group **groups;  /* by jobfile group index */
	struct iolat_report *rep;
	struct rjob *jobs;
	unsigned nr_jobs;
	atomic_bool stop_all;
	pthread_mutex_t lock;         /* nr_finished */
	pthread_cond_t cv;
	unsigned nr_finished;
	bool fallback_noted;
	bool check;                   /* IOLAT_CHECK=1 or an IOLAT_DEBUG build */
	char check_err[IOLAT_RUNNER_NOTE_MAX]; /* the first invariant violation */
	struct rvfile *vfiles;        /* files with verify= writers */
	unsigned nr_vfiles;
	struct iolat_preflight pf;    /* the checked plan of files */
	struct iolat_fileprep fp;     /* what the layout did, undone if no job ran */
	bool jobs_ran;                /* the job threads started: keep the files */
};

/* A file whose writes are tracked for the verify pass. */
struct rvfile {
	const char *path;
	struct iolat_vmap *map;
	uint64_t base, end;           /* the writers' regions, together */
	bool formatted;               /* laid out as verify blocks of generation 0 */
};

/* runner.c: the clock, messages, the stop flag, the end-of-run check. */
uint64_t rn_mono_ns(void);
int rn_set_err(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void rn_note(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool rn_stopping(const struct runner *r);
int rn_check_idle(struct runner *r, char *err, size_t errlen);

/* runner_loop.c: a job clone's thread, its waiter callback, freeing a slot. */
void *rn_job_main(void *arg);
void rn_on_granted(struct iolat_waiter *w);
void rn_free_slot(struct rjob *j, struct rslot *s);

/* runner_setup.c: the controller, device facts, the jobs (engines, files, slots). */
int rn_setup_controller(struct runner *r, unsigned flags, char *err, size_t errlen);
void rn_device_facts(struct runner *r);
int rn_setup_jobs(struct runner *r, uint64_t start, char *err, size_t errlen);
bool rn_diskless(const struct iolat_job *job);
int rn_file_size(const char *path, uint64_t *size);

/* runner_check.c: IOLAT_CHECK's checks, fault counts, the verify pass. */
bool rn_check_wanted(void);
void rn_check_now(struct runner *r, const char *when);
int rn_check_final(struct runner *r, char *err, size_t errlen);
void rn_collect_faults(struct runner *r);
int rn_setup_verify(struct runner *r, char *err, size_t errlen);
int rn_verify_pass(struct runner *r, char *err, size_t errlen);

#endif /* IOLAT_RUN_RUNNER_PRIV_H */
