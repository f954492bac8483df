/* SPDX-License-Identifier: MIT */
/*
 * runner_loop.c - one job clone's event loop, on its own thread: take the
 * workload's due I/Os, admit each through the controller, queue, commit,
 * reap, complete; grants arrive from any thread through the waiter callback.
 * Context: see runner.h and runner_priv.h.
 */
#include "run/runner.h"
#include "run/runner_priv.h"

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
#include "run/run_setup.h"
#include "run/fileprep.h"
#include "run/preflight.h"
#include "run/vmap.h"
#include "run/workload.h"
#include "util/units.h"

/* The job whose loop runs on this thread (grants from it need no wake). */
static _Thread_local struct rjob *tl_job;

/* ---- one job's event loop (its own thread) ---- */

/* The waiter callback: any thread, possibly inside another job's iolat_done_at(). */
void rn_on_granted(struct iolat_waiter *w)
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

void rn_free_slot(struct rjob *j, struct rslot *s)
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
	rn_free_slot(j, s);
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

/* Take the grants that arrived; issue them, or release them when rn_stopping. */
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
			rn_free_slot(j, s);
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
				rn_free_slot(j, s);
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
			rn_free_slot(j, s);
		}
	}
}

void *rn_job_main(void *arg)
{
	struct rjob *j = arg;
	struct runner *r = j->r;
	struct iolat_eng_req *out[RUNNER_REAP_BATCH];
	bool cancelled = false;

	tl_job = j;
	for (;;) {
		uint64_t now = rn_mono_ns(), next, wait;
		bool done = rn_stopping(r) || iolat_workload_done(&j->wl, now);
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
