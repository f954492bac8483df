/* SPDX-License-Identifier: MIT */
/*
 * eng_uring.c - the io_uring engine (liburing): one ring per engine, sized
 * for the depth plus one entry for the wake poll. queue() fills SQEs (fixed
 * buffers when the request names a registered one), commit() submits them
 * with one io_uring_submit(), reap() peeks CQEs in batches and reads the
 * clock once per batch. Short transfers are reported as they come.
 * iolat_eng_wake() writes an eventfd the ring polls, so a blocking reap
 * returns. Context: the engine's loop thread; wake from any thread.
 * Built only with CONFIG_HAVE_LIBURING; without it, only its name is
 * registered (IOLAT_ENG_F_NOT_BUILT).
 */
#include "engine/engine.h"

/* Its names, with or without liburing (fio calls it io_uring), and what a
 * runner uses when the kernel (or the build) has no io_uring. */
#define URING_NAMES .name = "uring", .alias = "io_uring", .fallback = "psync"

#ifdef CONFIG_HAVE_LIBURING

#include "util/units.h"

#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* user_data of the wake poll; requests are pointers, never 1. */
#define URING_WAKE_TAG 1ull
/* CQEs peeked per batch. */
#define URING_BATCH 64u

struct uring_priv {
	struct io_uring ring;
	int wake_fd;             /* eventfd polled by the ring */
	bool wake_armed;         /* a poll on wake_fd is in the ring */
	bool fixed_bufs;         /* cfg->bufs registered */
	unsigned inflight;       /* request SQEs submitted or pending, not reaped */
};

static const char *init_hint(int err)
{
	switch (err) {
	case -ENOSYS:
		return " (this kernel has no io_uring)";
	case -EPERM:
		return " (io_uring is disabled here: kernel.io_uring_disabled, seccomp or a container policy)";
	case -ENOMEM:
		return " (locked-memory limit too low: ulimit -l)";
	default:
		return "";
	}
}

/* Put the wake poll in the SQ ring (submitted with the next submit). */
static int arm_wake(struct uring_priv *p)
{
	struct io_uring_sqe *sqe;

	if (p->wake_armed)
		return 0;
	sqe = io_uring_get_sqe(&p->ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_add(sqe, p->wake_fd, POLLIN);
	io_uring_sqe_set_data64(sqe, URING_WAKE_TAG);
	p->wake_armed = true;
	return 0;
}

static int uring_init(struct iolat_eng *e, const struct iolat_eng_config *cfg,
		      const struct iolat_eng_spec *spec)
{
	struct io_uring_params params = { 0 };
	struct uring_priv *p;
	unsigned entries = 1;
	int ret;

	while (entries < e->depth + 1)
		entries <<= 1;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->wake_fd = -1;
	if (cfg->flags & IOLAT_ENG_CFG_SQPOLL) {
		params.flags |= IORING_SETUP_SQPOLL;
		params.sq_thread_idle = 100;   /* ms */
	}
	ret = io_uring_queue_init_params(entries, &p->ring, &params);
	if (ret < 0) {
		free(p);
		return iolat_eng_set_errmsg(e, ret, "io_uring_queue_init: %s%s",
					    strerror(-ret), init_hint(ret));
	}
	p->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (p->wake_fd < 0) {
		ret = -errno;
		goto fail;
	}
	if (cfg->nr_bufs) {
		/* Best effort: without registration requests use plain reads. */
		p->fixed_bufs = io_uring_register_buffers(&p->ring, cfg->bufs, cfg->nr_bufs) == 0;
	}
	ret = arm_wake(p);
	if (ret == 0)
		ret = io_uring_submit(&p->ring);
	if (ret < 0)
		goto fail;
	e->priv = p;
	return 0;
fail:
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	io_uring_queue_exit(&p->ring);
	free(p);
	return iolat_eng_set_errmsg(e, ret, "io_uring setup: %s", strerror(-ret));
}

static int uring_queue(struct iolat_eng *e, struct iolat_eng_req *req)
{
	struct uring_priv *p = e->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
	int fd = e->files[req->file].fd;

	if (!sqe)
		return IOLAT_Q_BUSY;
	if (p->fixed_bufs && req->buf_index >= 0) {
		if (req->dir == IOLAT_ENG_READ)
			io_uring_prep_read_fixed(sqe, fd, req->buf, req->len, req->offset,
						 req->buf_index);
		else
			io_uring_prep_write_fixed(sqe, fd, req->buf, req->len, req->offset,
						  req->buf_index);
	} else if (req->dir == IOLAT_ENG_READ) {
		io_uring_prep_read(sqe, fd, req->buf, req->len, req->offset);
	} else {
		io_uring_prep_write(sqe, fd, req->buf, req->len, req->offset);
	}
	io_uring_sqe_set_data(sqe, req);
	p->inflight++;
	return IOLAT_Q_QUEUED;
}

static int uring_commit(struct iolat_eng *e)
{
	struct uring_priv *p = e->priv;
	int ret;

	do
		ret = io_uring_submit(&p->ring);
	while (ret == -EINTR);
	/* -EAGAIN/-EBUSY: the kernel is short of resources; the SQEs stay in
	 * the ring and the next submit (commit or reap) tries again. */
	if (ret == -EAGAIN || ret == -EBUSY)
		return 0;
	return ret < 0 ? ret : 0;
}

/* The wake poll fired: clear the eventfd and poll again. */
static void rearm_wake(struct uring_priv *p)
{
	uint64_t v;

	p->wake_armed = false;
	if (read(p->wake_fd, &v, sizeof(v)) < 0) {
		/* Nothing to clear: a spurious wake. */
	}
	if (arm_wake(p) == 0)
		io_uring_submit(&p->ring);
}

/* Submit the queued SQEs (if any) and wait for @nr completions, one syscall. */
static int submit_and_wait(struct uring_priv *p, struct io_uring_cqe **cqe, unsigned nr,
			   struct __kernel_timespec *ts)
{
	if (!io_uring_sq_ready(&p->ring))
		return io_uring_wait_cqes(&p->ring, cqe, nr, ts, NULL);
	return io_uring_submit_and_wait_timeout(&p->ring, cqe, nr, ts, NULL);
}

static int uring_reap(struct iolat_eng *e, struct iolat_eng_req **out, unsigned max,
		      unsigned min, uint64_t timeout_ns)
{
	struct uring_priv *p = e->priv;
	struct io_uring_cqe *cqes[URING_BATCH], *cqe;
	uint64_t deadline = 0, now;
	unsigned got = 0, n, want;
	bool woken = false;
	int ret;

	if (timeout_ns != IOLAT_ENG_WAIT_FOREVER)
		deadline = iolat_eng_now(e) + timeout_ns;
	for (;;) {
		want = max - got < URING_BATCH ? max - got : URING_BATCH;
		n = io_uring_peek_batch_cqe(&p->ring, cqes, want);
		if (n) {
			now = iolat_eng_now(e);
			for (unsigned i = 0; i < n; i++) {
				if (io_uring_cqe_get_data64(cqes[i]) == URING_WAKE_TAG) {
					woken = true;
					continue;
				}
				struct iolat_eng_req *req = io_uring_cqe_get_data(cqes[i]);

				req->result = cqes[i]->res;
				req->done_ns = now;
				out[got++] = req;
				p->inflight--;
			}
			io_uring_cq_advance(&p->ring, n);
			if (woken)
				rearm_wake(p);
		}
		if (got >= min || got == max || woken)
			break;
		if (n)
			continue;
		/* Nothing more to peek: submit what is queued and wait for the
		 * rest, a wake or the timeout, in one io_uring_enter. */
		if (timeout_ns == IOLAT_ENG_WAIT_FOREVER) {
			ret = submit_and_wait(p, &cqe, min - got, NULL);
		} else {
			now = iolat_eng_now(e);
			if (now >= deadline)
				break;
			struct __kernel_timespec ts = {
				.tv_sec = (long long)((deadline - now) / NSEC_PER_SEC),
				.tv_nsec = (long long)((deadline - now) % NSEC_PER_SEC),
			};
			ret = submit_and_wait(p, &cqe, min - got, &ts);
		}
		if (ret == -ETIME)
			break;
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			return got ? (int)got : ret;
	}
	/* Returning without waiting: what was queued still has to start. */
	if (io_uring_sq_ready(&p->ring)) {
		ret = uring_commit(e);
		if (ret < 0 && !got)
			return ret;
	}
	return (int)got;
}

static void uring_wake(struct iolat_eng *e)
{
	struct uring_priv *p = e->priv;
	uint64_t one = 1;

	if (write(p->wake_fd, &one, sizeof(one)) < 0) {
		/* The counter is saturated: a wake is pending anyway. */
	}
}

static void uring_cleanup(struct iolat_eng *e)
{
	struct uring_priv *p = e->priv;
	struct io_uring_cqe *cqe;

	if (!p)
		return;
	/* Drain: the kernel may still DMA into the callers' buffers. */
	io_uring_submit(&p->ring);
	while (p->inflight) {
		if (io_uring_wait_cqe(&p->ring, &cqe) < 0)
			break;
		if (io_uring_cqe_get_data64(cqe) != URING_WAKE_TAG)
			p->inflight--;
		io_uring_cqe_seen(&p->ring, cqe);
	}
	io_uring_queue_exit(&p->ring);
	close(p->wake_fd);
	free(p);
	e->priv = NULL;
}

const struct iolat_engine_ops iolat_eng_uring_ops = {
	URING_NAMES,
	.flags = IOLAT_ENG_F_REAP_SUBMITS,
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.reap = uring_reap,
	.wake = uring_wake,
	.cleanup = uring_cleanup,
};

#else /* !CONFIG_HAVE_LIBURING */

const struct iolat_engine_ops iolat_eng_uring_ops = {
	URING_NAMES,
	.flags = IOLAT_ENG_F_NOT_BUILT,
};

#endif /* CONFIG_HAVE_LIBURING */
