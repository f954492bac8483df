/* SPDX-License-Identifier: MIT */
/*
 * runner.c - the real-I/O runner (runner.h). Setup on the calling thread:
 * controller and groups from the job file (device facts from sysfs), files
 * laid out, one engine per job clone. Then one thread per job clone runs an
 * event loop: take the workload's due I/Os at one clock reading, admit each
 * through the controller (iolat_throttle_async_at), queue the admitted ones
 * on the engine, commit once, reap a batch, and complete each I/O with
 * iolat_done_at() at the engine's clock reading. Grants for queued
 * admissions arrive through the waiter callback, from any thread: they go on
 * the job's grant list and wake its engine. Charged delay is served by not
 * issuing (iolat_group_delay_due). The calling thread samples the report,
 * reports progress, and forwards a stop request.
 * Reliability (docs/reliability.md): with IOLAT_CHECK=1 in the environment
 * (always in -DIOLAT_DEBUG builds) the controller's invariants are checked at
 * every sample and at the end, with the exact per-group accounting (every
 * admitted I/O completed once). Writes to files with verify= jobs are tracked
 * per block (the verify map below); after the run every block whose last
 * write was reported successful is read back and must carry that write.
 * Context: see runner.h; each job's state belongs to its thread, except the
 * grant list (its mutex), the progress counters (atomics) and the verify
 * map (its mutex).
 */
#include "job/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/devinfo.h"
#include "engine/eng_faulty.h"
#include "engine/engine.h"
#include "engine/verify.h"
#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_ctl_check_invariants() */
#include "job/engines.h"
#include "job/run_setup.h"
#include "job/fileprep.h"
#include "job/preflight.h"
#include "job/vmap.h"
#include "job/workload.h"
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

/* The job whose loop runs on this thread (grants from it need no wake). */
static _Thread_local struct rjob *tl_job;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static int set_err(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_err(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static void note(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct runner *r, const char *fmt, ...)
{
	char line[IOLAT_RUNNER_NOTE_MAX];
	va_list ap;

	if (!r->o.note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->o.note(r->o.ctx, line);
}

static bool stopping(const struct runner *r)
{
	return atomic_load_explicit(&r->stop_all, memory_order_relaxed);
}

/* ---- one job's event loop (its own thread) ---- */

/* The waiter callback: any thread, possibly inside another job's iolat_done_at(). */
static void on_granted(struct iolat_waiter *w)
{
	struct rslot *s = (struct rslot *)((char *)w - offsetof(struct rslot, waiter));
	struct rjob *j = s->j;

	s->next = NULL;
	pthread_mutex_lock(&j->glock);
	if (j->granted_tail)
		j->granted_tail->next = s;
	else
		j->granted_head = s;
	j->granted_tail = s;
	pthread_mutex_unlock(&j->glock);
	if (tl_job != j)
		iolat_eng_wake(j->eng);
}

static void free_slot(struct rjob *j, struct rslot *s)
{
	s->state = SLOT_FREE;
	s->next = j->free_list;
	j->free_list = s;
}

static void record_error(struct rjob *j, struct rslot *s, const char *what)
{
	if (j->first_error[0])
		return;
	snprintf(j->first_error, sizeof(j->first_error), "job '%s'%s: %s at offset %" PRIu64
		 " (%u bytes): %s", j->job->name, j->clone ? " (clone)" : "",
		 s->write ? "write" : "read", s->req.offset, s->req.len, what);
}

/* An I/O is over (completed by the engine, or refused before submission). */
static void finish_io(struct rjob *j, struct rslot *s, uint64_t done_ns, bool issued)
{
	struct iolat_eng_req *req = &s->req;
	struct iolat_eng_verify_err verr;
	char msg[200];
	int err = 0;

	if (s->state == SLOT_FREE) {
		/* Completed twice (an engine or runner bug): count it, touch nothing. */
		j->double_done++;
		return;
	}
	if (req->result < 0) {
		err = (int)req->result;
		record_error(j, s, issued ? strerror(-err) : iolat_eng_errmsg(j->eng));
	} else if (req->result < req->len) {
		err = -EIO;
		j->shorts++;
		snprintf(msg, sizeof(msg), "short transfer (%" PRId64 " of %u bytes)",
			 req->result, req->len);
		record_error(j, s, msg);
	} else if (j->verify && !s->write && !(iolat_eng_flags(j->eng) & IOLAT_ENG_F_FAKEIO) &&
		   iolat_eng_verify_check(req->buf, req->len, req->offset,
					  IOLAT_ENG_VERIFY_ANY_GEN, NULL, &verr)) {
		err = -EILSEQ;
		j->verify_failed++;
		iolat_eng_verify_format(&verr, msg, sizeof(msg));
		record_error(j, s, msg);
	}
	if (s->vticket) {
		/* Only a whole, successful, verify-formatted write says what the blocks hold. */
		iolat_vmap_write_end(j->vmap, req->offset, req->len, s->vticket, s->vgen,
				     issued && !err && j->verify);
		s->vticket = 0;
	}
	if (j->g) {
		if (issued)
			iolat_done_at(&s->io, done_ns);
		else
			iolat_done_unissued(&s->io);
	}
	if (issued)
		j->completed++;
	iolat_report_add_io(j->r->rep, j->job_index, s->write, req->len,
			    done_ns > s->admit_ns ? done_ns - s->admit_ns : 0, err);
	atomic_fetch_add_explicit(&j->ios, 1, memory_order_relaxed);
	if (err)
		atomic_fetch_add_explicit(&j->errors, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&j->bytes, req->len, memory_order_relaxed);
	iolat_workload_completed(&j->wl, done_ns);
	free_slot(j, s);
}

/* Hand an admitted I/O to the engine. */
static void submit(struct rjob *j, struct rslot *s, uint64_t now)
{
	int ret;

	s->state = SLOT_BUSY;
	if (s->write && j->vmap)
		s->vticket = iolat_vmap_write_begin(j->vmap, s->req.offset, s->req.len);
	ret = iolat_eng_queue(j->eng, &s->req);

	switch (ret) {
	case IOLAT_Q_QUEUED:
		s->state = SLOT_INFLIGHT;
		j->inflight++;
		j->submitted++;
		break;
	case IOLAT_Q_COMPLETED:
		j->submitted++;
		finish_io(j, s, s->req.done_ns, true);
		break;
	case IOLAT_Q_BUSY:
		/* Cannot happen: the engine's depth is the job's slots. */
		s->req.result = -EBUSY;
		finish_io(j, s, now, false);
		break;
	default:
		s->req.result = ret;   /* refused before submission (alignment...) */
		finish_io(j, s, now, false);
		break;
	}
}

/* Take the grants that arrived; issue them, or release them when stopping. */
static void take_grants(struct rjob *j, uint64_t now, bool done)
{
	struct rslot *s;

	pthread_mutex_lock(&j->glock);
	s = j->granted_head;
	j->granted_head = j->granted_tail = NULL;
	pthread_mutex_unlock(&j->glock);
	while (s) {
		struct rslot *next = s->next;

		j->waiting--;
		if (done) {
			iolat_done_unissued(&s->io);
			free_slot(j, s);
		} else {
			submit(j, s, now);
		}
		s = next;
	}
}

/*
 * Start every I/O the workload has due at @now that a free slot can take, at
 * most RUNNER_ISSUE_BATCH of them: an engine that completes synchronously
 * (null, a faulty engine failing every I/O) frees the slot at once, so
 * without the bound this loop would never see the clock move, the runtime
 * end or a stop request. The caller's loop re-reads the clock after each pass.
 */
static void issue_due(struct rjob *j, uint64_t now)
{
	struct iolat_wl_io wio;
	unsigned issued = 0;

	if (now < j->delay_until)
		return;
	if (j->g) {
		uint64_t due = iolat_group_delay_due(j->g);

		if (due) {
			/* The kernel's return-to-user sleep: issue nothing meanwhile. */
			j->delay_until = now + due;
			iolat_group_note_slept(j->g, due);
			return;
		}
	}
	while (j->free_list && issued++ < RUNNER_ISSUE_BATCH &&
	       iolat_workload_next_time(&j->wl, now) <= now) {
		struct rslot *s = j->free_list;
		struct iolat_eng_req *req = &s->req;
		int ret;

		if (j->g && !(j->job->ioflags & (IOLAT_IO_META | IOLAT_IO_SWAP))) {
			/* The adaptive mode's pace gate: wait, then ask again. */
			uint64_t pace = iolat_group_pace_due(j->g, j->job->bs, now);

			if (pace) {
				j->delay_until = now + pace;
				break;
			}
		}
		if (iolat_workload_next(&j->wl, now, &wio))
			break;
		j->free_list = s->next;
		s->next = NULL;
		s->state = SLOT_BUSY;
		s->write = wio.write;
		s->admit_ns = now;
		req->dir = wio.write ? IOLAT_ENG_WRITE : IOLAT_ENG_READ;
		req->offset = wio.offset;
		req->len = wio.len;
		req->result = 0;
		if (wio.write && j->verify) {
			/* Unique per write, never 0 (the laid-out generation): job, clone, count. */
			s->vgen = ((uint64_t)(j->job_index + 1) << 48) |
				  ((uint64_t)(j->clone & 0xffff) << 32) | (++j->gen & 0xffffffffu);
			iolat_eng_verify_fill(req->buf, req->len, req->offset, s->vgen);
		}
		if (j->g) {
			ret = iolat_throttle_async_at(j->g, wio.flags, &s->io, &s->waiter, now);
			if (ret >= 0)
				j->admitted++;
			if (ret == IOLAT_QUEUED) {
				s->state = SLOT_WAITING;
				j->waiting++;
				continue;
			}
			if (ret < 0) {
				req->result = ret;
				record_error(j, s, strerror(-ret));
				iolat_report_add_io(j->r->rep, j->job_index, s->write, req->len, 0, ret);
				atomic_fetch_add_explicit(&j->errors, 1, memory_order_relaxed);
				free_slot(j, s);
				continue;
			}
		}
		submit(j, s, now);
	}
}

/* Withdraw admissions still waiting; granted ones arrive as grants. */
static void cancel_waiting(struct rjob *j)
{
	for (unsigned i = 0; i < j->nr_slots; i++) {
		struct rslot *s = &j->slots[i];

		if (s->state == SLOT_WAITING && iolat_throttle_cancel(&s->io) == 0) {
			j->waiting--;
			j->cancelled++;
			free_slot(j, s);
		}
	}
}

static void *job_main(void *arg)
{
	struct rjob *j = arg;
	struct runner *r = j->r;
	struct iolat_eng_req *out[RUNNER_REAP_BATCH];
	bool cancelled = false;

	tl_job = j;
	for (;;) {
		uint64_t now = mono_ns(), next, wait;
		bool done = stopping(r) || iolat_workload_done(&j->wl, now);
		unsigned min;
		int n;

		take_grants(j, now, done);
		if (!done)
			issue_due(j, now);
		else if (j->waiting && !cancelled) {
			cancel_waiting(j);
			cancelled = true;
		}
		if (done && !j->inflight && !j->waiting)
			break;
		/* No commit here: the reap below submits what was queued (for
		 * io_uring in the same io_uring_enter as its wait). */

		/* Sleep until a completion, a grant (wake), the next due I/O, or a while. */
		next = now + RUNNER_MAX_WAIT_NS;
		if (!done && j->free_list) {
			uint64_t t = iolat_workload_next_time(&j->wl, now);

			if (t < j->delay_until)
				t = j->delay_until;
			if (t < next)
				next = t;
		}
		if (!done && j->free_list && j->delay_until > now && j->delay_until < next)
			next = j->delay_until;
		wait = next > now ? next - now : 0;
		min = wait ? 1 : 0;
		n = iolat_eng_reap(j->eng, out, RUNNER_REAP_BATCH, min, wait);
		if (n < 0) {
			/* The engine failed as a whole: end this job. */
			if (!j->first_error[0])
				snprintf(j->first_error, sizeof(j->first_error),
					 "job '%s': engine %s: %s", j->job->name,
					 iolat_eng_name(j->eng), strerror(-n));
			atomic_store(&r->stop_all, true);
			continue;
		}
		for (int i = 0; i < n; i++) {
			struct rslot *s = (struct rslot *)out[i]->user;

			j->inflight--;
			finish_io(j, s, out[i]->done_ns, true);
		}
	}
	pthread_mutex_lock(&r->lock);
	r->nr_finished++;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* ---- setup ---- */

static int setup_controller(struct runner *r, unsigned flags, char *err, size_t errlen)
{
	struct iolat_ctl_config cfg = {
		.nr_requests = r->res->nr_requests,
		.rotational = r->res->rotational,
		.flags = flags,
	};

	r->groups = calloc(r->jf->nr_groups + 1, sizeof(*r->groups));
	if (!r->groups)
		return -ENOMEM;
	return iolat_job_setup_controller(r->jf, cfg, &r->ctl, r->groups, err, errlen);
}

static bool diskless(const struct iolat_job *job)
{
	return iolat_job_engine_diskless(job->engine);
}

/* The engine name for a job ("faulty:psync"...); -EINVAL for sim's. */
static int engine_name(const struct iolat_job *job, char *buf, size_t len)
{
	const char *inner = job->engine ? job->engine : iolat_job_engine_default();

	if (!strcmp(inner, IOLAT_JOB_ENGINE_SIM))
		return -EINVAL;
	if (job->engine_wrapper)
		snprintf(buf, len, "%s:%s", job->engine_wrapper, inner);
	else
		snprintf(buf, len, "%s", inner);
	return 0;
}

static int create_engine(struct runner *r, struct rjob *j, char *err, size_t errlen)
{
	const struct iolat_job *job = j->job;
	struct iolat_eng_config cfg = {
		.depth = j->nr_slots, .bufs = j->iov, .nr_bufs = j->nr_slots,
		.options = job->engine_wrapper ? r->o.fault_options : NULL,
	};
	const char *inner = job->engine ? job->engine : iolat_job_engine_default();
	const char *fallback, *label = NULL;
	char name[64], msg[IOLAT_ENG_ERRMSG_MAX];
	int ret;

	if (engine_name(job, name, sizeof(name)))
		return set_err(err, errlen, -EINVAL,
			       "%s:%u: key 'ioengine': '%s' runs only in iolat sim",
			       r->jf->file, iolat_job_key_line(job, "ioengine"), job->ioengine);
	cfg.name = name;
	ret = iolat_eng_create(&cfg, &j->eng, msg, sizeof(msg));
	fallback = iolat_job_engine_fallback(inner, &label);
	if (ret < 0 && fallback && ret != -EINVAL) {
		/* Refused (io_uring: ENOSYS, EPERM in containers...): its fallback instead. */
		if (!r->fallback_noted)
			note(r, "%s unavailable (%s); using %s", label, msg, fallback);
		r->fallback_noted = true;
		snprintf(name, sizeof(name), "%s%s%s", job->engine_wrapper ? job->engine_wrapper : "",
			 job->engine_wrapper ? ":" : "", fallback);
		ret = iolat_eng_create(&cfg, &j->eng, msg, sizeof(msg));
	}
	if (ret == -EINVAL)
		return set_err(err, errlen, ret, "%s:%u: key 'ioengine': %s", r->jf->file,
			       iolat_job_key_line(job, "ioengine"), msg);
	if (ret < 0)
		return set_err(err, errlen, ret, "job '%s': engine %s: %s", job->name, name, msg);
	return 0;
}

static int open_file(struct runner *r, struct rjob *j, char *err, size_t errlen)
{
	const struct iolat_job *job = j->job;
	unsigned flags = job->direct ? 0 : IOLAT_ENG_O_BUFFERED;
	int ret;

	if (iolat_rw_has_write(job->rw))
		flags |= IOLAT_ENG_O_WRITE;
	ret = iolat_eng_open(j->eng, job->filename ? job->filename : "", flags, &j->fidx);
	if (ret == -EINVAL && job->direct)
		return set_err(err, errlen, ret, "%s:%u: key 'direct': %s", r->jf->file,
			       iolat_job_key_line(job, "direct"), iolat_eng_errmsg(j->eng));
	if (ret < 0)
		return set_err(err, errlen, ret, "job '%s': %s", job->name,
			       iolat_eng_errmsg(j->eng));
	return 0;
}

/* O_DIRECT: refuse a job whose every I/O the engine would refuse. */
static int check_alignment(struct runner *r, struct rjob *j, char *err, size_t errlen)
{
	const struct iolat_job *job = j->job;
	uint32_t a = iolat_eng_file_align(j->eng, j->fidx);

	if (!a)
		return 0;
	if (job->bs % a)
		return set_err(err, errlen, -EINVAL,
			       "%s:%u: key 'bs': %u is not a multiple of %u, as O_DIRECT needs "
			       "(direct=1 on %s)", r->jf->file, iolat_job_key_line(job, "bs"), job->bs, a,
			       job->filename);
	if (job->offset % a)
		return set_err(err, errlen, -EINVAL,
			       "%s:%u: key 'offset': %" PRIu64 " is not a multiple of %u, as "
			       "O_DIRECT needs", r->jf->file, iolat_job_key_line(job, "offset"), job->offset, a);
	return 0;
}

/* The size of @path as a file or block device; 0 when it does not exist. */
static int file_size(const char *path, uint64_t *size)
{
	struct stat st;

	*size = 0;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode)) {
		FILE *f = fopen(path, "rb");

		if (!f)
			return -errno;
		if (fseeko(f, 0, SEEK_END) == 0)
			*size = (uint64_t)ftello(f);
		fclose(f);
	}
	return 0;
}

static int setup_jobs(struct runner *r, uint64_t start, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = r->jf;
	unsigned n = 0;
	int ret;

	for (unsigned i = 0; i < jf->nr_jobs; i++)
		n += jf->jobs[i].numjobs ? jf->jobs[i].numjobs : 1;
	r->jobs = calloc(n ? n : 1, sizeof(*r->jobs));
	if (!r->jobs)
		return -ENOMEM;
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *job = &jf->jobs[i];
		unsigned clones = job->numjobs ? job->numjobs : 1;
		uint64_t region = 0;

		if (!diskless(job)) {
			ret = file_size(job->filename, &region);
			if (ret)
				return set_err(err, errlen, ret, "%s: %s", job->filename,
					       strerror(-ret));
			region = region > job->offset ? region - job->offset : 0;
		} else if (!job->size) {
			region = RUNNER_DEF_SIZE;
		}
		for (unsigned c = 0; c < clones; c++) {
			struct rjob *j = &r->jobs[r->nr_jobs];
			struct iolat_wl_params wp = {
				.seed = jf->global.seed, .job_index = i, .clone = c,
				.size = region, .start_ns = start, .ramp_ns = jf->global.ramp_ns,
			};
			size_t bs = job->bs;

			r->nr_jobs++;
			j->r = r;
			j->job = job;
			j->job_index = i;
			j->clone = c;
			j->verify = job->verify != IOLAT_VERIFY_NONE;
			pthread_mutex_init(&j->glock, NULL);
			ret = iolat_workload_init(&j->wl, job, &wp);
			if (ret)
				return set_err(err, errlen, ret,
					       "%s:%u: key 'size': job '%s': the region is smaller than bs",
					       jf->file, iolat_job_key_line(job, "size"), job->name);
			if (j->verify && (job->bs % IOLAT_ENG_VERIFY_BLOCK ||
					  job->offset % IOLAT_ENG_VERIFY_BLOCK))
				return set_err(err, errlen, -EINVAL,
					       "%s:%u: key 'verify': needs bs and offset in multiples of %u",
					       jf->file, iolat_job_key_line(job, "verify"),
					       IOLAT_ENG_VERIFY_BLOCK);
			j->g = !r->ctl ? NULL : job->group < 0 ? iolat_ctl_root(r->ctl)
							       : r->groups[job->group];
			j->nr_slots = job->iodepth ? job->iodepth : 1;
			j->slots = calloc(j->nr_slots, sizeof(*j->slots));
			j->iov = calloc(j->nr_slots, sizeof(*j->iov));
			bs = (bs + IOLAT_ENG_BUF_ALIGN - 1) & ~(size_t)(IOLAT_ENG_BUF_ALIGN - 1);
			j->bufmem = iolat_eng_buf_alloc(bs * j->nr_slots);
			if (!j->slots || !j->iov || !j->bufmem)
				return -ENOMEM;
			/* Writes carry data, not zeros. */
			for (size_t k = 0; k < bs * j->nr_slots; k++)
				((unsigned char *)j->bufmem)[k] = (unsigned char)(k * 131 + 7);
			for (unsigned k = j->nr_slots; k-- > 0;) {
				struct rslot *s = &j->slots[k];

				j->iov[k].iov_base = (char *)j->bufmem + bs * k;
				j->iov[k].iov_len = bs;
				s->j = j;
				s->req.buf = j->iov[k].iov_base;
				s->req.buf_index = (int)k;
				s->req.user = s;
				s->waiter.granted = on_granted;
				free_slot(j, s);
			}
			ret = create_engine(r, j, err, errlen);
			if (!ret)
				ret = open_file(r, j, err, errlen);
			if (ret)
				return ret;
			ret = check_alignment(r, j, err, errlen);
			if (ret)
				return ret;
			for (unsigned k = 0; k < j->nr_slots; k++)
				j->slots[k].req.file = j->fidx;
		}
	}
	return 0;
}

/*
 * The controller's qd when the job file does not set nr_requests: the
 * device's queue depth, but never more than the jobs can have in flight
 * together. The kernel's qd is the depth its requests can really reach; in
 * user space only our own jobs queue there, so a device reporting 256 slots
 * to a 33-deep workload would make each scale-up step (qd/16) far too coarse.
 */
static uint32_t user_space_qd(const struct iolat_jobfile *jf, uint32_t device_qd)
{
	uint64_t total = 0;

	for (unsigned i = 0; i < jf->nr_jobs; i++)
		total += (uint64_t)jf->jobs[i].iodepth * jf->jobs[i].numjobs;
	if (total == 0 || total >= device_qd)
		return device_qd;
	return (uint32_t)total;
}

static void device_facts(struct runner *r)
{
	const struct iolat_jobfile *jf = r->jf;
	struct iolat_runner_result *res = r->res;
	struct iolat_eng_devinfo di;
	const char *path = NULL;

	for (unsigned i = 0; i < jf->nr_jobs && !path; i++)
		if (!diskless(&jf->jobs[i]) && jf->jobs[i].filename)
			path = jf->jobs[i].filename;
	res->device_known = path && iolat_eng_devinfo_path(path, &di) == 0;
	if (!path)
		iolat_eng_devinfo_dev(NULL, 0, 0, &di);   /* the fallbacks */
	snprintf(res->disk, sizeof(res->disk), "%s", di.disk);
	res->nr_requests = jf->global.nr_requests ? jf->global.nr_requests :
			   user_space_qd(jf, di.nr_requests);
	res->rotational = jf->global.rotational >= 0 ? jf->global.rotational : di.rotational;
}

/* ---- reliability: fault counts, the verify pass, invariant checks ---- */

/* IOLAT_CHECK=1 in the environment, or always in an IOLAT_DEBUG build. */
static bool check_wanted(void)
{
#ifdef IOLAT_DEBUG
	return true;
#else
	const char *v = getenv("IOLAT_CHECK");

	return v && !strcmp(v, "1");
#endif
}

/* The controller's invariants at any moment; keeps the first violation. */
static void check_now(struct runner *r, const char *when)
{
	char why[IOLAT_RUNNER_NOTE_MAX - 48];

	if (!r->check || !r->ctl || r->check_err[0])
		return;
	if (iolat_ctl_check_invariants(r->ctl, why, sizeof(why)))
		snprintf(r->check_err, sizeof(r->check_err), "invariant broken %s: %s", when, why);
}

/*
 * After the run, with every job thread joined: nothing completed twice, every
 * submitted I/O completed, and per group the controller's completions equal
 * the admissions the jobs made (less the ones cancelled while waiting):
 * admitted = completed + in flight, with in flight 0 (check_idle).
 */
static int check_final(struct runner *r, char *err, size_t errlen)
{
	struct iolat_group_stat st;

	check_now(r, "after the run");
	if (r->check_err[0])
		return set_err(err, errlen, -EUCLEAN, "%s", r->check_err);
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		const struct rjob *j = &r->jobs[i];

		if (j->double_done)
			return set_err(err, errlen, -EUCLEAN, "job '%s': %" PRIu64
				       " I/Os completed twice", j->job->name, j->double_done);
		if (j->submitted != j->completed)
			return set_err(err, errlen, -EUCLEAN, "job '%s': %" PRIu64 " I/Os submitted, %"
				       PRIu64 " completed", j->job->name, j->submitted, j->completed);
	}
	if (!r->ctl || !iolat_ctl_enabled(r->ctl))
		return 0;   /* without a target nothing is tracked */
	for (unsigned gi = 0; gi < r->jf->nr_groups; gi++) {
		uint64_t want = 0;

		for (unsigned i = 0; i < r->nr_jobs; i++)
			if (r->jobs[i].job->group == (int)gi)
				want += r->jobs[i].admitted - r->jobs[i].cancelled;
		if (iolat_group_stat(r->groups[gi], &st) == 0 && st.nr_done != want)
			return set_err(err, errlen, -EUCLEAN, "group '%s': %" PRIu64 " I/Os admitted, "
				       "%" PRIu64 " completed in the controller", r->jf->groups[gi].path,
				       want, st.nr_done);
	}
	return 0;
}

/* What each faulty:<engine> job injected: into the report and the result. */
static void collect_faults(struct runner *r)
{
	struct iolat_runner_result *res = r->res;

	for (unsigned i = 0; i < r->nr_jobs; i++) {
		struct iolat_eng_fault_stats st;
		struct iolat_report_faults f;

		if (!r->jobs[i].eng || iolat_eng_faulty_stats(r->jobs[i].eng, &st))
			continue;
		f = (struct iolat_report_faults){
			.eio = st.eio, .enospc = st.enospc, .short_io = st.short_io,
			.spikes = st.spikes, .stalls = st.stalls, .held = st.held,
		};
		iolat_report_add_faults(r->rep, r->jobs[i].job_index, &f);
		res->inj_eio += st.eio;
		res->inj_enospc += st.enospc;
		res->inj_short += st.short_io;
		res->inj_spikes += st.spikes;
		res->inj_stalls += st.stalls;
	}
}

static bool writes_file(const struct iolat_job *job, const char *path)
{
	return !diskless(job) && job->filename && !strcmp(job->filename, path) &&
	       iolat_rw_has_write(job->rw);
}

/*
 * A verify map for every file that a verify= job writes, over the writers'
 * regions together, in blocks of the largest power of two (512..4096) that
 * divides every writer's bs and offset. Every writer of the file is tracked;
 * a write without verify= leaves its blocks unspecified.
 */
static int setup_verify(struct runner *r, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = r->jf;

	for (unsigned i = 0; i < r->nr_jobs; i++) {
		const struct iolat_job *job = r->jobs[i].job;
		struct rvfile *vf = NULL, *n;
		uint64_t fsize, base = UINT64_MAX, end = 0;
		uint32_t block = 4096;
		struct stat st;
		int ret;

		if (!writes_file(job, job->filename ? job->filename : "") ||
		    job->verify == IOLAT_VERIFY_NONE)
			continue;
		for (unsigned k = 0; k < r->nr_vfiles && !vf; k++)
			if (!strcmp(r->vfiles[k].path, job->filename))
				vf = &r->vfiles[k];
		if (vf)
			continue;
		ret = file_size(job->filename, &fsize);
		if (ret)
			return set_err(err, errlen, ret, "%s: %s", job->filename, strerror(-ret));
		for (unsigned k = 0; k < jf->nr_jobs; k++) {
			const struct iolat_job *o = &jf->jobs[k];
			uint64_t e;

			if (!writes_file(o, job->filename))
				continue;
			while (block > IOLAT_ENG_VERIFY_BLOCK && (o->bs % block || o->offset % block))
				block /= 2;
			e = o->size ? o->offset + o->size : fsize;
			if (o->offset < base)
				base = o->offset;
			if (e > end)
				end = e;
		}
		if (end > fsize)
			end = fsize;
		base -= base % block;
		end -= end % block;
		if (end <= base)
			continue;
		n = realloc(r->vfiles, (r->nr_vfiles + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		r->vfiles = n;
		vf = &r->vfiles[r->nr_vfiles];
		memset(vf, 0, sizeof(*vf));
		vf->path = job->filename;
		vf->base = base;
		vf->end = end;
		/* The layout (fileprep.c) wrote a regular file as verify blocks of generation 0. */
		vf->formatted = stat(job->filename, &st) == 0 && S_ISREG(st.st_mode);
		ret = iolat_vmap_create(base, end - base, block, vf->formatted, &vf->map);
		if (ret)
			return ret;
		r->nr_vfiles++;
	}
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		struct rjob *j = &r->jobs[i];

		for (unsigned k = 0; k < r->nr_vfiles; k++)
			if (writes_file(j->job, r->vfiles[k].path))
				j->vmap = r->vfiles[k].map;
	}
	return 0;
}

/*
 * The read-back: every tracked block of every verify file, outside the
 * engines and the controller (pread), after the data was synced and dropped
 * from the page cache so that it comes from the device.
 */
static int verify_pass(struct runner *r, char *err, size_t errlen)
{
	struct iolat_runner_result *res = r->res;
	struct iolat_report_verify rv = { 0 };

	for (unsigned k = 0; k < r->nr_vfiles; k++) {
		struct rvfile *vf = &r->vfiles[k];
		struct iolat_vmap_stats st;
		int fd = open(vf->path, O_RDONLY | O_CLOEXEC), ret;

		if (fd < 0)
			return set_err(err, errlen, -errno, "verify: %s: %s", vf->path,
				       strerror(errno));
		fsync(fd);
		posix_fadvise(fd, (off_t)vf->base, (off_t)(vf->end - vf->base), POSIX_FADV_DONTNEED);
		ret = iolat_vmap_check(vf->map, fd, &st);
		close(fd);
		if (ret)
			return set_err(err, errlen, ret, "verify: %s: %s", vf->path,
				       ret == -ENOMEM ? "out of memory tracking the writes" :
				       strerror(-ret));
		res->verify_ran = true;
		res->verify_checked += st.blocks_checked;
		res->verify_written += st.blocks_written;
		res->verify_bad += st.blocks_bad;
		res->verify_unspecified += st.blocks_unspecified;
		if (!res->verify_block || st.block_size < res->verify_block)
			res->verify_block = st.block_size;
		if (!res->verify_first_bad[0] && st.first_bad[0])
			snprintf(res->verify_first_bad, sizeof(res->verify_first_bad), "%.80s: %.200s",
				 vf->path, st.first_bad);
	}
	if (!res->verify_ran)
		return 0;
	rv.checked = res->verify_checked;
	rv.written = res->verify_written;
	rv.bad = res->verify_bad;
	rv.unspecified = res->verify_unspecified;
	rv.block = res->verify_block;
	rv.first_bad = res->verify_first_bad;
	iolat_report_set_verify(r->rep, &rv);
	return 0;
}

/* ---- the run ---- */

static void progress(struct runner *r, uint64_t start, uint64_t now, uint64_t total,
		     uint64_t *last_ios, uint64_t *last_bytes, uint64_t *last_ns)
{
	struct iolat_runner_progress p = {
		.elapsed_ns = now - start, .total_ns = total,
	};
	double dt = (double)(now - *last_ns) / 1e9;

	for (unsigned i = 0; i < r->nr_jobs; i++) {
		p.ios += atomic_load_explicit(&r->jobs[i].ios, memory_order_relaxed);
		p.bytes += atomic_load_explicit(&r->jobs[i].bytes, memory_order_relaxed);
		p.errors += atomic_load_explicit(&r->jobs[i].errors, memory_order_relaxed);
	}
	pthread_mutex_lock(&r->lock);
	p.jobs_running = r->nr_jobs - r->nr_finished;
	pthread_mutex_unlock(&r->lock);
	if (dt > 0) {
		p.iops = (double)(p.ios - *last_ios) / dt;
		p.mib_s = (double)(p.bytes - *last_bytes) / dt / 1048576.0;
	}
	*last_ios = p.ios;
	*last_bytes = p.bytes;
	*last_ns = now;
	r->o.progress(r->o.ctx, &p);
}

static void wait_until(struct runner *r, uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / NSEC_PER_SEC), .tv_nsec = (long)(t % NSEC_PER_SEC),
	};

	pthread_mutex_lock(&r->lock);
	if (r->nr_finished < r->nr_jobs)
		pthread_cond_timedwait(&r->cv, &r->lock, &ts);
	pthread_mutex_unlock(&r->lock);
}

/* One thread per job clone; on failure the started ones are stopped and joined. */
static int start_threads(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		int ret = pthread_create(&r->jobs[i].thread, NULL, job_main, &r->jobs[i]);

		if (ret) {
			atomic_store(&r->stop_all, true);
			for (unsigned k = 0; k < i; k++)
				iolat_eng_wake(r->jobs[k].eng);
			for (unsigned k = 0; k < i; k++)
				pthread_join(r->jobs[k].thread, NULL);
			return set_err(err, errlen, -ret, "cannot start a job thread: %s",
				       strerror(ret));
		}
		r->jobs[i].started = true;
	}
	return 0;
}

/* A stop was requested (a signal): end every job, and say the run was cut short. */
static void forward_stop(struct runner *r)
{
	if (!r->o.stop || !atomic_load(r->o.stop) || stopping(r))
		return;
	pthread_mutex_lock(&r->lock);
	r->res->interrupted = r->nr_finished < r->nr_jobs;
	pthread_mutex_unlock(&r->lock);
	atomic_store(&r->stop_all, true);
	for (unsigned i = 0; i < r->nr_jobs; i++)
		iolat_eng_wake(r->jobs[i].eng);
}

static int run_jobs(struct runner *r, uint64_t start, char *err, size_t errlen)
{
	struct iolat_runner_result *res = r->res;
	uint64_t sample_ns = r->o.sample_ns ? r->o.sample_ns
					    : iolat_job_default_sample_ns(r->jf, RUNNER_DEF_SAMPLE_NS);
	uint64_t prog_ns = r->o.progress_ns ? r->o.progress_ns : NSEC_PER_SEC;
	uint64_t ramp_end = r->jf->global.ramp_ns ? start + r->jf->global.ramp_ns : 0;
	uint64_t next_sample = (ramp_end ? ramp_end : start) + sample_ns, next_prog = start + prog_ns;
	uint64_t total = 0, last_ios = 0, last_bytes = 0, last_ns = start, now;
	bool all_done = false;
	int ret;

	for (unsigned i = 0; i < r->nr_jobs; i++) {
		uint64_t end = iolat_workload_end_ns(&r->jobs[i].wl);

		if (end == UINT64_MAX) {
			total = 0;
			break;
		}
		if (end - start > total)
			total = end - start;
	}
	ret = start_threads(r, err, errlen);
	if (ret)
		return ret;
	while (!all_done) {
		uint64_t wake = next_sample < next_prog || !r->o.progress ? next_sample : next_prog;

		if (ramp_end && ramp_end < wake)
			wake = ramp_end;

		/* Look at the stop request at least every RUNNER_STOP_POLL_NS. */
		now = mono_ns();
		wait_until(r, wake < now + RUNNER_STOP_POLL_NS ? wake : now + RUNNER_STOP_POLL_NS);
		now = mono_ns();
		forward_stop(r);
		pthread_mutex_lock(&r->lock);
		all_done = r->nr_finished == r->nr_jobs;
		pthread_mutex_unlock(&r->lock);
		if (ramp_end && now >= ramp_end && !all_done) {
			/* ramp_time is over: the report starts from here. */
			iolat_report_end_ramp(r->rep, now);
			ramp_end = 0;
			next_sample = now + sample_ns;
		}
		if (now >= next_sample && !all_done) {
			iolat_report_sample(r->rep, now);
			check_now(r, "during the run");
			while (next_sample <= now)
				next_sample += sample_ns;
		}
		if (r->o.progress && now >= next_prog && !all_done) {
			progress(r, start, now, total, &last_ios, &last_bytes, &last_ns);
			while (next_prog <= now)
				next_prog += prog_ns;
		}
	}
	for (unsigned i = 0; i < r->nr_jobs; i++)
		pthread_join(r->jobs[i].thread, NULL);
	collect_faults(r);
	now = mono_ns();
	res->duration_ns = now - start;
	ret = iolat_report_finish(r->rep, now);
	iolat_report_set_interrupted(r->rep, res->interrupted);
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		struct rjob *j = &r->jobs[i];

		res->nr_submitted += j->submitted;
		res->nr_completed += j->completed;
		res->nr_errors += atomic_load(&j->errors);
		res->nr_short += j->shorts;
		res->nr_verify_failed += j->verify_failed;
		if (!res->first_error[0] && j->first_error[0])
			snprintf(res->first_error, sizeof(res->first_error), "%s", j->first_error);
	}
	return ret;
}

static void teardown(struct runner *r)
{
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		struct rjob *j = &r->jobs[i];

		iolat_eng_destroy(j->eng);
		iolat_eng_buf_free(j->bufmem);
		free(j->iov);
		free(j->slots);
		pthread_mutex_destroy(&j->glock);
	}
	free(r->jobs);
	for (unsigned k = 0; k < r->nr_vfiles; k++)
		iolat_vmap_destroy(r->vfiles[k].map);
	free(r->vfiles);
	if (r->ctl)
		iolat_ctl_destroy(r->ctl);
	free(r->groups);
	iolat_preflight_free(&r->pf);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->lock);
}

/* Every admitted I/O was completed: nothing in flight in the controller. */
static int check_idle(struct runner *r, char *err, size_t errlen)
{
	struct iolat_group_stat st;

	for (unsigned i = 0; r->ctl && i < r->jf->nr_groups; i++) {
		if (iolat_group_stat(r->groups[i], &st) == 0 && (st.inflight || st.waiters))
			return set_err(err, errlen, -EIO,
				       "group '%s': %u I/Os in flight and %u waiting after the run",
				       r->jf->groups[i].path, st.inflight, st.waiters);
	}
	return 0;
}

int iolat_runner_run(const struct iolat_jobfile *jf, const struct iolat_runner_opts *opts,
		     struct iolat_runner_result **out, char *err, size_t errlen)
{
	static const struct iolat_runner_opts defaults = { .control = -1, .kernel_compat = -1 };
	struct runner r = { .jf = jf };
	struct iolat_report_cfg rcfg = { .jf = jf };
	pthread_condattr_t ca;
	char label[160];
	bool control, compat;
	uint64_t start;
	int ret, mode;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!jf)
		return -EINVAL;
	r.o = opts ? *opts : defaults;
	r.res = calloc(1, sizeof(*r.res));
	if (!r.res)
		return -ENOMEM;
	pthread_mutex_init(&r.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r.cv, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&r.stop_all, false);

	r.check = check_wanted();
	r.res->checked = r.check;
	control = r.o.control >= 0 ? r.o.control : jf->global.control;
	mode = iolat_mode_pick(jf, r.o.mode, r.o.kernel_compat, r.o.default_mode);
	if (r.o.kernel_compat == 0 && !r.o.mode && mode == IOLAT_MODE_KERNEL)
		mode = IOLAT_MODE_ARTICLE; /* an explicit kernel_compat = 0 */
	compat = mode == IOLAT_MODE_KERNEL;
	r.res->control = control;
	r.res->kernel_compat = control && compat;
	/* Every check before the first side effect (preflight.h). */
	ret = iolat_preflight_check(jf, r.o.fault_options, &r.pf, err, errlen);
	if (ret)
		goto fail;
	r.res->mode = control ? mode : IOLAT_MODE_UNSET;
	device_facts(&r);
	if (control) {
		ret = setup_controller(&r, iolat_mode_flags(mode), err, errlen);
		if (ret)
			goto fail;
	}
	ret = iolat_fileprep_layout(&r.fp, &r.pf, r.o.stop, r.o.note, r.o.ctx, err, errlen);
	if (ret)
		goto fail;
	if (r.o.label)
		snprintf(label, sizeof(label), "%s", r.o.label);
	else
		snprintf(label, sizeof(label), "%s%s%s: %s", r.res->disk[0] ? "device " : "",
			 r.res->disk, r.res->disk[0] ? "" : "real I/O",
			 !control ? "no control" : compat ? "io.latency (kernel compat)" :
			 mode == IOLAT_MODE_ADAPTIVE ? "io.latency (adaptive)" : "io.latency");
	rcfg.label = label;
	rcfg.no_control = !control;
	rcfg.adaptive = mode == IOLAT_MODE_ADAPTIVE;
	rcfg.sample_interval_ns = r.o.sample_ns ? r.o.sample_ns
				  : iolat_job_default_sample_ns(jf, RUNNER_DEF_SAMPLE_NS);
	rcfg.nr_requests = r.res->nr_requests;
	ret = iolat_report_create(&rcfg, &r.rep);
	if (ret)
		goto fail;
	start = mono_ns();
	ret = setup_jobs(&r, start, err, errlen);
	if (!ret)
		ret = setup_verify(&r, err, errlen);
	if (ret)
		goto fail;
	if (r.ctl) {
		bool root_used = false;

		for (unsigned i = 0; i < jf->nr_groups; i++)
			iolat_report_bind_group(r.rep, i, r.groups[i]);
		for (unsigned i = 0; i < jf->nr_jobs; i++)
			root_used |= jf->jobs[i].group < 0;
		if (root_used)
			iolat_report_bind_group(r.rep, iolat_report_root_index(r.rep),
						iolat_ctl_root(r.ctl));
		ret = iolat_ctl_start_timer(r.ctl);
		if (ret) {
			set_err(err, errlen, ret, "cannot start the controller's timer: %s",
				strerror(-ret));
			goto fail;
		}
	}
	if (r.o.stop && atomic_load(r.o.stop)) {
		ret = set_err(err, errlen, -EINTR, "interrupted before the jobs started");
		goto fail;
	}
	/* The workloads were set up to start at @start: start the clock now. */
	iolat_report_start(r.rep, start);
	r.jobs_ran = true;
	ret = run_jobs(&r, start, err, errlen);
	if (ret)
		goto fail;
	ret = check_idle(&r, err, errlen);
	if (ret) {
		r.ctl = NULL;   /* not idle: leak it rather than destroy it under I/O */
		goto fail;
	}
	if (r.check) {
		ret = check_final(&r, err, errlen);
		if (ret)
			goto fail;
	}
	ret = verify_pass(&r, err, errlen);
	if (ret)
		goto fail;
	r.res->report = r.rep;
	teardown(&r);
	iolat_fileprep_free(&r.fp);
	*out = r.res;
	return 0;
fail:
	if (ret == -ENOMEM && err && errlen && !err[0])
		set_err(err, errlen, ret, "out of memory");
	else if (err && errlen && !err[0])
		set_err(err, errlen, ret, "%s: %s", jf->file, strerror(-ret));
	teardown(&r);
	if (!r.jobs_ran)
		iolat_fileprep_undo(&r.fp, r.o.note, r.o.ctx);   /* nothing ran: leave nothing */
	iolat_fileprep_free(&r.fp);
	iolat_report_destroy(r.rep);
	free(r.res);
	return ret;
}

void iolat_runner_result_free(struct iolat_runner_result *res)
{
	if (!res)
		return;
	iolat_report_destroy(res->report);
	free(res);
}
