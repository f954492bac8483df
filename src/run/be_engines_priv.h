/* SPDX-License-Identifier: MIT */
/*
 * be_engines_priv.h - PRIVATE to the engines backend of the one runner (real
 * files through the I/O engines, in real time): its state and what its files
 * call of each other, which is one way only (docs/design.md, "No circles in
 * a folder"):
 *   be_engines.c (the backend's table, the run: threads, samples, progress,
 *     stop, teardown) calls the three below;
 *   be_engines_check.c (fault counts, the verify pass, invariant checks)
 *     calls set-up's facts (eng_diskless, eng_file_size);
 *   be_engines_setup.c (device facts, engines, files, slots) hands out
 *     the loop's waiter callback and slot release;
 *   be_engines_loop.c (one clone's event loop, its own thread) calls none of
 *     them: the clock and the stop flag it reads are inline here.
 * A header of no file of its own, so including it points at none of them.
 * Context: see run.h; each clone's state belongs to its thread, except the
 * grant list (its mutex), the progress counters (atomics) and the verify
 * map (its mutex).
 */
#ifndef IOLAT_RUN_BE_ENGINES_PRIV_H
#define IOLAT_RUN_BE_ENGINES_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>

#include "engine/engine.h"
#include "iolatency.h"
#include "run/fileprep.h"
#include "run/jobcg.h"
#include "run/preflight.h"
#include "run/run_priv.h"
#include "run/vmap.h"
#include "util/fifo.h"
#include "util/units.h"

#define ENG_MAX_WAIT_NS  (250ull * 1000000ull)  /* a loop looks at stop flags this often */
#define ENG_REAP_BATCH   64u
#define ENG_STOP_POLL_NS (100ull * 1000000ull)  /* the main loop sees a stop this fast */
#define ENG_ISSUE_BATCH  64u   /* issues per pass before the loop re-reads the clock */
#define ENG_DEF_SIZE     (1ull << 30)  /* region of a diskless job with no size= */

/* BUSY: taken from the free list, being admitted or completed at once. */
enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_WAITING, SLOT_INFLIGHT };

struct eclone;

/* One I/O of a clone: the engine's request and the controller's view of it. */
struct eslot {
	struct iolat_eng_req req;     /* the engine's request; req.user is this slot */
	struct iolat_io io;           /* the controller's view of the same I/O */
	struct iolat_waiter waiter;   /* its wait for a slot, when queued */
	struct eclone *j;
	struct eslot *next;           /* free list or grant list */
	uint64_t due_ns;              /* the report's latency counts from here: the
				       * I/O's intended start (workload.h's due_ns) */
	enum slot_state state;
	bool write;
	uint64_t vgen;                /* verify generation of this write */
	uint64_t vticket;             /* its verify-map ticket; 0: not tracked */
};

/* A clone's grants, in the order they came (util/fifo.h), through next. */
IOLAT_FIFO(eslotq, struct eslot, next)

struct erun;

/* One job clone: the runner's part, then its engine, slots and thread. */
struct eclone {
	struct run_clone c;           /* first: the runner's view (run_priv.h) */
	struct erun *e;
	struct iolat_eng *eng;
	unsigned fidx;
	bool verify;
	bool ready;                   /* glock initialised */
	struct eslot *slots;
	unsigned nr_slots;
	struct eslot *free_list;
	void *bufmem;
	struct iovec *iov;
	pthread_t thread;
	unsigned inflight, waiting;
	uint64_t delay_until;         /* serving charged delay: no issue before */
	uint64_t gen;                 /* verify generation of the last write */
	struct iolat_vmap *vmap;      /* its file's write tracking, or NULL */
	/* grants from any thread */
	pthread_mutex_t glock;
	struct eslotq granted;
	/* read by the main thread while running */
	_Atomic uint64_t ios, bytes, errors;
	/* the clone thread's, read after join */
	uint64_t submitted, completed, shorts, verify_failed;
	uint64_t admitted, cancelled; /* by the controller; cancelled while waiting */
	uint64_t double_done;         /* completions of a slot already free (never expected) */
	char first_error[IOLAT_RUN_NOTE_MAX];
};

/* A file whose writes are tracked for the verify pass. */
struct evfile {
	const char *path;
	struct iolat_vmap *map;
	uint64_t base, end;           /* the writers' regions, together */
	bool formatted;               /* laid out as verify blocks of generation 0 */
};

/* The backend's state of one run (run->be_state). */
struct erun {
	struct run *r;
	bool ready;                   /* prepare ran: lock and cv initialised */
	atomic_bool stop_all;
	pthread_mutex_t lock;         /* nr_finished */
	pthread_cond_t cv;
	unsigned nr_finished;
	bool fallback_noted;
	bool check;                   /* IOLAT_CHECK=1 or an IOLAT_DEBUG build */
	char check_err[IOLAT_RUN_NOTE_MAX]; /* the first invariant violation */
	struct evfile *vfiles;        /* files with verify= writers */
	unsigned nr_vfiles;
	struct iolat_preflight pf;    /* the checked plan of files */
	struct iolat_fileprep fp;     /* what the layout did, undone if no job ran */
	struct iolat_jobcg cg;        /* the jobs' kernel cgroups (cgroup=) */
	char cg_error[IOLAT_RUN_NOTE_MAX]; /* a thread that could not enter its cgroup (under lock) */
};

/* The @i-th clone of @e's run. */
static inline struct eclone *eng_clone(const struct erun *e, unsigned i)
{
	return (struct eclone *)run_clone_at(e->r, i);
}

/* The clock (CLOCK_MONOTONIC, ns). */
static inline uint64_t eng_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The stop flag every loop looks at (set by be_engines.c). */
static inline bool eng_stopping(const struct erun *e)
{
	return atomic_load_explicit(&e->stop_all, memory_order_relaxed);
}

/* be_engines_loop.c: a clone's thread, its waiter callback, freeing a slot. */
void *eng_clone_main(void *arg);
void eng_on_granted(struct iolat_waiter *w);
void eng_free_slot(struct eclone *j, struct eslot *s);

/* be_engines_setup.c: device facts; a clone's engine, file and slots;
 * whether a job does no file I/O; the size of a file or device. */
void eng_device_facts(struct erun *e);
int eng_setup_clone(struct run *r, struct run_clone *c, char *err, size_t errlen);
bool eng_diskless(const struct iolat_job *job);
int eng_file_size(const char *path, uint64_t *size);

/* be_engines_check.c: IOLAT_CHECK's checks, fault counts, the verify pass. */
bool eng_check_wanted(void);
void eng_check_now(struct erun *e, const char *when);
int eng_check_final(struct erun *e, char *err, size_t errlen);
void eng_collect_faults(struct erun *e);
int eng_setup_verify(struct run *r, char *err, size_t errlen);
int eng_verify_pass(struct erun *e, char *err, size_t errlen);

#endif /* IOLAT_RUN_BE_ENGINES_PRIV_H */
