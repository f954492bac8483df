/* SPDX-License-Identifier: MIT */
/*
 * be_engines_loop.c - one job clone's event loop, on its own thread: take the
 * workload's due I/Os, admit each through the controller, queue, commit,
 * reap, complete; grants arrive from any thread through the waiter callback.
 * Context: see run.h and be_engines_priv.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/verify.h"
#include "iolatency.h"
#include "run/be_engines_priv.h"
#include "run/vmap.h"
#include "run/workload.h"

/* The job whose loop runs on this thread (grants from it need no wake). */
static _Thread_local struct eclone *tl_job;

/* ---- one job's event loop (its own thread) ---- */

/* The waiter callback: any thread, possibly inside another job's iolat_done_at(). */
void eng_on_granted(struct iolat_waiter *w)
{
	struct eslot *s = (struct eslot *)((char *)w - offsetof(struct eslot, waiter));
	struct eclone *j = s->j;

	pthread_mutex_lock(&j->glock);
	eslotq_push(&j->granted, s);
	pthread_mutex_unlock(&j->glock);
	if (tl_job != j)
		iolat_eng_wake(j->eng);
}

void eng_free_slot(struct eclone *j, struct eslot *s)
{
	s->state = SLOT_FREE;
	s->next = j->free_list;
	j->free_list = s;
}

static void record_error(struct eclone *j, struct eslot *s, const char *what)
{
	if (j->first_error[0])
		return;
	snprintf(j->first_error, sizeof(j->first_error), "job '%s'%s: %s at offset %" PRIu64
		 " (%u bytes): %s", j->c.job->name, j->c.clone ? " (clone)" : "",
		 s->write ? "write" : "read", s->req.offset, s->req.len, what);
}

/* An I/O is over (completed by the engine, or refused before submission). */
static void finish_io(struct eclone *j, struct eslot *s, uint64_t done_ns, bool issued)
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
	if (j->c.g) {
		if (issued)
			iolat_done_at(&s->io, done_ns);
		else
			iolat_done_unissued(&s->io);
	}
	if (issued)
		j->completed++;
	iolat_report_add_io(j->c.r->rep, j->c.job_index, s->write, req->len,
			    done_ns > s->due_ns ? done_ns - s->due_ns : 0, err);
	atomic_fetch_add_explicit(&j->ios, 1, memory_order_relaxed);
	if (err)
		atomic_fetch_add_explicit(&j->errors, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&j->bytes, req->len, memory_order_relaxed);
	iolat_workload_completed(&j->c.wl, done_ns);
	if (!j->free_list)   /* every slot was taken until now: an arrival due waited */
		iolat_workload_hold(&j->c.wl, done_ns);
	eng_free_slot(j, s);
}

/* Hand an admitted I/O to the engine. */
static void submit(struct eclone *j, struct eslot *s, uint64_t now)
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
static void take_grants(struct eclone *j, uint64_t now, bool done)
{
	struct eslotq got;
	struct eslot *s;

	pthread_mutex_lock(&j->glock);
	got = j->granted;
	eslotq_init(&j->granted);
	pthread_mutex_unlock(&j->glock);
	while ((s = eslotq_pop(&got))) {
		j->waiting--;
		if (done) {
			iolat_done_unissued(&s->io);
			eng_free_slot(j, s);
		} else {
			submit(j, s, now);
		}
	}
}

/*
 * Start every I/O the workload has due at @now that a free slot can take, at
 * most ENG_ISSUE_BATCH of them: an engine that completes synchronously
 * (null, a faulty engine failing every I/O) frees the slot at once, so
 * without the bound this loop would never see the clock move, the runtime
 * end or a stop request. The caller's loop re-reads the clock after each pass.
 */
static void issue_due(struct eclone *j, uint64_t now)
{
	struct iolat_wl_io wio;
	unsigned issued = 0;

	if (now < j->delay_until)
		return;
	if (j->c.g) {
		uint64_t due = iolat_group_delay_due(j->c.g);

		if (due) {
			/* The kernel's return-to-user sleep: issue nothing meanwhile. */
			j->delay_until = now + due;
			iolat_workload_hold(&j->c.wl, j->delay_until);
			iolat_group_note_slept(j->c.g, due);
			return;
		}
	}
	while (j->free_list && issued++ < ENG_ISSUE_BATCH &&
	       iolat_workload_next_time(&j->c.wl, now) <= now) {
		struct eslot *s = j->free_list;
		struct iolat_eng_req *req = &s->req;
		int ret;

		if (j->c.g && !(j->c.job->ioflags & (IOLAT_IO_META | IOLAT_IO_SWAP))) {
			/* The adaptive mode's pace gate: wait, then ask again. */
			uint64_t pace = iolat_group_pace_due(j->c.g, j->c.job->bs, now);

			if (pace) {
				j->delay_until = now + pace;
				iolat_workload_hold(&j->c.wl, j->delay_until);
				break;
			}
		}
		if (iolat_workload_next(&j->c.wl, now, &wio))
			break;
		j->free_list = s->next;
		s->next = NULL;
		s->state = SLOT_BUSY;
		s->write = wio.write;
		s->due_ns = wio.due_ns;
		req->dir = wio.write ? IOLAT_ENG_WRITE : IOLAT_ENG_READ;
		req->offset = wio.offset;
		req->len = wio.len;
		req->result = 0;
		if (wio.write && j->verify) {
			/* Unique per write, never 0 (the laid-out generation): job, clone, count. */
			s->vgen = ((uint64_t)(j->c.job_index + 1) << 48) |
				  ((uint64_t)(j->c.clone & 0xffff) << 32) | (++j->gen & 0xffffffffu);
			iolat_eng_verify_fill(req->buf, req->len, req->offset, s->vgen);
		}
		if (j->c.g) {
			ret = iolat_throttle_async_at(j->c.g, wio.flags, &s->io, &s->waiter, now);
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
				iolat_report_add_io(j->c.r->rep, j->c.job_index, s->write, req->len, 0, ret);
				atomic_fetch_add_explicit(&j->errors, 1, memory_order_relaxed);
				eng_free_slot(j, s);
				continue;
			}
		}
		submit(j, s, now);
	}
}

/* Withdraw admissions still waiting; granted ones arrive as grants. */
static void cancel_waiting(struct eclone *j)
{
	for (unsigned i = 0; i < j->nr_slots; i++) {
		struct eslot *s = &j->slots[i];

		if (s->state == SLOT_WAITING && iolat_throttle_cancel(&s->io) == 0) {
			j->waiting--;
			j->cancelled++;
			eng_free_slot(j, s);
		}
	}
}

/* The job's cgroup= (v1: this thread moves itself in). Return: 0, or -errno with the run stopped. */
static int enter_cgroup(struct eclone *j)
{
	struct erun *e = j->e;
	char why[IOLAT_RUN_NOTE_MAX];
	int ret = iolat_jobcg_enter_thread(&e->cg, j->c.job->cgroup, why, sizeof(why));

	if (!ret)
		return 0;
	pthread_mutex_lock(&e->lock);
	if (!e->cg_error[0])
		snprintf(e->cg_error, sizeof(e->cg_error), "job '%.60s': %.240s", j->c.job->name, why);
	pthread_mutex_unlock(&e->lock);
	atomic_store(&e->stop_all, true);
	return ret;
}

void *eng_clone_main(void *arg)
{
	struct eclone *j = arg;
	struct erun *e = j->e;
	struct iolat_eng_req *out[ENG_REAP_BATCH];
	bool cancelled = false;

	tl_job = j;
	if (enter_cgroup(j))
		goto out;
	for (;;) {
		uint64_t now = eng_mono_ns(), next, wait;
		bool done = eng_stopping(e) || iolat_workload_done(&j->c.wl, now);
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
		next = now + ENG_MAX_WAIT_NS;
		if (!done && j->free_list) {
			uint64_t t = iolat_workload_next_time(&j->c.wl, now);

			if (t < j->delay_until)
				t = j->delay_until;
			if (t < next)
				next = t;
		}
		if (!done && j->free_list && j->delay_until > now && j->delay_until < next)
			next = j->delay_until;
		wait = next > now ? next - now : 0;
		min = wait ? 1 : 0;
		n = iolat_eng_reap(j->eng, out, ENG_REAP_BATCH, min, wait);
		if (n < 0) {
			/* The engine failed as a whole: end this job. */
			if (!j->first_error[0])
				snprintf(j->first_error, sizeof(j->first_error),
					 "job '%s': engine %s: %s", j->c.job->name,
					 iolat_eng_name(j->eng), strerror(-n));
			atomic_store(&e->stop_all, true);
			continue;
		}
		for (int i = 0; i < n; i++) {
			struct eslot *s = (struct eslot *)out[i]->user;

			j->inflight--;
			finish_io(j, s, out[i]->done_ns, true);
		}
	}
	iolat_jobcg_leave_thread(&e->cg);
out:
	pthread_mutex_lock(&e->lock);
	e->nr_finished++;
	pthread_cond_signal(&e->cv);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}
