/* SPDX-License-Identifier: MIT */
/*
 * eng_psync.c - the psync engine: a pool of worker threads doing pread(2)
 * and pwrite(2) (buffered or O_DIRECT), for files and systems where
 * io_uring is unavailable. queue() collects requests on the loop thread,
 * commit() hands the batch to the pool under one lock, workers push
 * completions (result and clock reading) on a done list that reap() drains,
 * waiting on a condition variable. Shutdown drops uncommitted requests, lets
 * the workers finish every request they were handed, then joins them.
 * With one thread (depth 1) there is no pool: commit() does the I/O itself
 * on the loop thread, as fio's psync does, which spares two thread hand-offs
 * per I/O (a wake-up each way), the whole cost at depth 1.
 * Context: queue/commit/reap/cleanup on the loop thread; wake from any
 * thread; the workers touch only the lists under the lock and the requests
 * they hold.
 */
#include "engine/engine.h"
#include "util/units.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PSYNC_THREADS_MAX 64u

struct req_list {
	struct iolat_eng_reqq q;
	unsigned n;
};

struct psync_priv {
	struct iolat_eng *e;          /* workers read files[] and the clock */
	pthread_mutex_t lock;         /* protects everything below but pending */
	pthread_cond_t work_cv;       /* workers: work arrived or stop */
	pthread_cond_t done_cv;       /* reaper: a completion or a wake */
	struct req_list work;         /* committed, not started */
	struct req_list done;         /* completed, not reaped */
	unsigned reaper_wants;        /* done.n the waiting reaper needs; 0: none waits */
	bool woken;                   /* iolat_eng_wake() since the last reap */
	bool stop;
	struct req_list pending;      /* loop thread only: queued, not committed */
	unsigned nr_threads;          /* 0: no pool, commit() does the I/O (depth 1) */
	pthread_t *threads;
};

static void list_push(struct req_list *l, struct iolat_eng_req *r)
{
	iolat_eng_reqq_push(&l->q, r);
	l->n++;
}

static struct iolat_eng_req *list_pop(struct req_list *l)
{
	struct iolat_eng_req *r = iolat_eng_reqq_pop(&l->q);

	if (r)
		l->n--;
	return r;
}

static void list_splice(struct req_list *dst, struct req_list *src)
{
	iolat_eng_reqq_splice(&dst->q, &src->q);
	dst->n += src->n;
	src->n = 0;
}

/* One request, retried on EINTR; the result is bytes or -errno. */
static int64_t do_io(int fd, const struct iolat_eng_req *req)
{
	ssize_t r;

	do {
		if (req->dir == IOLAT_ENG_READ)
			r = pread(fd, req->buf, req->len, (off_t)req->offset);
		else
			r = pwrite(fd, req->buf, req->len, (off_t)req->offset);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -(int64_t)errno : (int64_t)r;
}

static void *psync_worker(void *arg)
{
	struct psync_priv *p = arg;
	struct iolat_eng_req *req;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (iolat_eng_reqq_empty(&p->work.q) && !p->stop)
			pthread_cond_wait(&p->work_cv, &p->lock);
		req = list_pop(&p->work);
		if (!req)
			break;  /* stopping, and every handed request is done */
		pthread_mutex_unlock(&p->lock);

		req->result = do_io(p->e->files[req->file].fd, req);
		req->done_ns = iolat_eng_now(p->e);

		pthread_mutex_lock(&p->lock);
		list_push(&p->done, req);
		if (p->reaper_wants && p->done.n >= p->reaper_wants)
			pthread_cond_signal(&p->done_cv);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void psync_stop(struct psync_priv *p, unsigned started)
{
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(p->threads[i], NULL);
}

static int psync_init(struct iolat_eng *e, const struct iolat_eng_config *cfg,
		      const struct iolat_eng_spec *spec)
{
	struct psync_priv *p;
	pthread_condattr_t ca;
	unsigned n = cfg->nr_threads ? cfg->nr_threads : e->depth;
	int ret;

	if (n > PSYNC_THREADS_MAX)
		n = PSYNC_THREADS_MAX;
	if (n > e->depth)
		n = e->depth;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->threads = calloc(n, sizeof(*p->threads));
	if (!p->threads) {
		free(p);
		return -ENOMEM;
	}
	p->e = e;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work_cv, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	if (n == 1)
		n = 0;  /* the loop thread does the I/O */
	for (unsigned i = 0; i < n; i++) {
		ret = pthread_create(&p->threads[i], NULL, psync_worker, p);
		if (ret) {
			psync_stop(p, i);
			pthread_cond_destroy(&p->done_cv);
			pthread_cond_destroy(&p->work_cv);
			pthread_mutex_destroy(&p->lock);
			free(p->threads);
			free(p);
			return iolat_eng_set_errmsg(e, -ret, "psync: cannot start thread %u: %s",
						    i, strerror(ret));
		}
	}
	p->nr_threads = n;
	e->priv = p;
	return 0;
}

static int psync_queue(struct iolat_eng *e, struct iolat_eng_req *req)
{
	struct psync_priv *p = e->priv;

	list_push(&p->pending, req);
	return IOLAT_Q_QUEUED;
}

static int psync_commit(struct iolat_eng *e)
{
	struct psync_priv *p = e->priv;
	unsigned n = p->pending.n;

	if (!n)
		return 0;
	if (!p->nr_threads) {
		struct iolat_eng_req *req;

		while ((req = list_pop(&p->pending))) {
			req->result = do_io(e->files[req->file].fd, req);
			req->done_ns = iolat_eng_now(e);
			pthread_mutex_lock(&p->lock);
			list_push(&p->done, req);
			pthread_mutex_unlock(&p->lock);
		}
		return 0;
	}
	pthread_mutex_lock(&p->lock);
	list_splice(&p->work, &p->pending);
	if (n == 1)
		pthread_cond_signal(&p->work_cv);
	else
		pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static int psync_reap(struct iolat_eng *e, struct iolat_eng_req **out, unsigned max,
		      unsigned min, uint64_t timeout_ns)
{
	struct psync_priv *p = e->priv;
	struct timespec ts = { 0 };
	unsigned got = 0;
	bool timed = timeout_ns != IOLAT_ENG_WAIT_FOREVER;

	if (min && timed) {
		uint64_t dl;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		dl = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec + timeout_ns;
		ts.tv_sec = (time_t)(dl / NSEC_PER_SEC);
		ts.tv_nsec = (long)(dl % NSEC_PER_SEC);
	}
	pthread_mutex_lock(&p->lock);
	while (p->done.n < min && !p->woken) {
		int ret;

		p->reaper_wants = min;
		if (timed)
			ret = pthread_cond_timedwait(&p->done_cv, &p->lock, &ts);
		else
			ret = pthread_cond_wait(&p->done_cv, &p->lock);
		if (ret == ETIMEDOUT)
			break;
	}
	p->reaper_wants = 0;
	p->woken = false;
	while (got < max && !iolat_eng_reqq_empty(&p->done.q))
		out[got++] = list_pop(&p->done);
	pthread_mutex_unlock(&p->lock);
	return (int)got;
}

static void psync_wake(struct iolat_eng *e)
{
	struct psync_priv *p = e->priv;

	pthread_mutex_lock(&p->lock);
	p->woken = true;
	pthread_cond_signal(&p->done_cv);
	pthread_mutex_unlock(&p->lock);
}

static void psync_cleanup(struct iolat_eng *e)
{
	struct psync_priv *p = e->priv;

	if (!p)
		return;
	/* Requests never committed were never started: drop them. The workers
	 * finish every committed one, so no buffer is touched after we return. */
	p->pending = (struct req_list){ 0 };
	psync_stop(p, p->nr_threads);
	pthread_cond_destroy(&p->done_cv);
	pthread_cond_destroy(&p->work_cv);
	pthread_mutex_destroy(&p->lock);
	free(p->threads);
	free(p);
	e->priv = NULL;
}

const struct iolat_engine_ops iolat_eng_psync_ops = {
	.name = "psync",
	.flags = 0,
	.init = psync_init,
	.queue = psync_queue,
	.commit = psync_commit,
	.reap = psync_reap,
	.wake = psync_wake,
	.cleanup = psync_cleanup,
};
