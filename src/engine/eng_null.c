/* SPDX-License-Identifier: MIT */
/*
 * eng_null.c - the null engine (fio's "null"): every I/O completes at once
 * with its full length and moves no data, so a run measures the per-I/O CPU
 * cost of the runner and the controller. With depth 1, queue() completes
 * the request itself (IOLAT_Q_COMPLETED); otherwise requests come back from
 * the next reap(). Files are not opened (diskless).
 * Context: the loop thread; wake from any thread.
 */
#include "engine/engine.h"
#include "util/monocond.h"
#include "util/units.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct null_priv {
	struct iolat_eng_reqq done;         /* loop thread: queued, complete */
	pthread_mutex_t lock;               /* for waiting only */
	pthread_cond_t cv;
	bool woken;                         /* under lock */
};

static int null_init(struct iolat_eng *e, const struct iolat_eng_config *cfg,
		     const struct iolat_eng_spec *spec)
{
	struct null_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	iolat_monocond_init(&p->lock, &p->cv);
	e->priv = p;
	return 0;
}

static int null_queue(struct iolat_eng *e, struct iolat_eng_req *req)
{
	struct null_priv *p = e->priv;

	req->result = req->len;
	if (e->depth == 1) {
		req->done_ns = iolat_eng_now(e);
		return IOLAT_Q_COMPLETED;
	}
	iolat_eng_reqq_push(&p->done, req);
	return IOLAT_Q_QUEUED;
}

/* Nothing in flight: sleep until a wake or the timeout. */
static void null_wait(struct null_priv *p, uint64_t timeout_ns)
{
	struct timespec ts;
	uint64_t dl;

	pthread_mutex_lock(&p->lock);
	if (timeout_ns == IOLAT_ENG_WAIT_FOREVER) {
		while (!p->woken)
			pthread_cond_wait(&p->cv, &p->lock);
	} else {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		dl = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec + timeout_ns;
		ts.tv_sec = (time_t)(dl / NSEC_PER_SEC);
		ts.tv_nsec = (long)(dl % NSEC_PER_SEC);
		while (!p->woken)
			if (pthread_cond_timedwait(&p->cv, &p->lock, &ts) == ETIMEDOUT)
				break;
	}
	p->woken = false;
	pthread_mutex_unlock(&p->lock);
}

static int null_reap(struct iolat_eng *e, struct iolat_eng_req **out, unsigned max,
		     unsigned min, uint64_t timeout_ns)
{
	struct null_priv *p = e->priv;
	unsigned got = 0;
	uint64_t now;

	if (iolat_eng_reqq_empty(&p->done)) {
		if (min)
			null_wait(p, timeout_ns);
		return 0;
	}
	now = iolat_eng_now(e);
	while (got < max && !iolat_eng_reqq_empty(&p->done)) {
		struct iolat_eng_req *req = iolat_eng_reqq_pop(&p->done);

		req->done_ns = now;
		out[got++] = req;
	}
	return (int)got;
}

static void null_wake(struct iolat_eng *e)
{
	struct null_priv *p = e->priv;

	pthread_mutex_lock(&p->lock);
	p->woken = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->lock);
}

static void null_cleanup(struct iolat_eng *e)
{
	struct null_priv *p = e->priv;

	if (!p)
		return;
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->lock);
	free(p);
	e->priv = NULL;
}

const struct iolat_engine_ops iolat_eng_null_ops = {
	.name = "null",
	.flags = IOLAT_ENG_F_DISKLESS | IOLAT_ENG_F_FAKEIO,
	.init = null_init,
	.queue = null_queue,
	.reap = null_reap,
	.wake = null_wake,
	.cleanup = null_cleanup,
};
