/* SPDX-License-Identifier: MIT */
/*
 * engine.c - the dispatch layer: the only code that calls an engine's ops;
 * the engines call it (their helpers, and a wrapper its inner engine), never
 * the registry that lists them (registry.c). It owns what every engine shares: the file table
 * (open, O_DIRECT alignment), request validation before submission, the
 * depth limit (BUSY), exactly-once bookkeeping (req->state_), error messages.
 * Context: every function runs on the engine's loop thread, except
 * iolat_eng_wake() (any thread) and the helpers at the end (any thread).
 */
#include "engine/engine.h"
#include "util/units.h"
#include "engine/devinfo.h"
#include "util/errmsg.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t iolat_eng_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t iolat_eng_now(const struct iolat_eng *e)
{
	if (e->clock && e->clock->now_ns)
		return e->clock->now_ns(e->clock->ctx);
	return iolat_eng_mono_ns();
}

int iolat_eng_set_errmsg(struct iolat_eng *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->errmsg, sizeof(e->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

const char *iolat_eng_errmsg(const struct iolat_eng *e)
{
	return e->errmsg;
}

int iolat_eng_create_spec(const struct iolat_eng_spec *spec, const struct iolat_eng_config *cfg,
			  struct iolat_eng **out, char *err, size_t errlen)
{
	static const struct iolat_eng_config defcfg;
	struct iolat_eng *e;
	int ret;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!cfg)
		cfg = &defcfg;
	if (spec->engine->flags & IOLAT_ENG_F_NOT_BUILT)
		return iolat_errf(err, errlen, -ENOENT, "I/O engine '%s' is not in this build",
				  spec->engine->name);
	if (cfg->depth > IOLAT_ENG_DEPTH_MAX)
		return iolat_errf(err, errlen, -EINVAL, "depth %u is above the limit %u", cfg->depth,
				  IOLAT_ENG_DEPTH_MAX);
	if (cfg->nr_bufs && !cfg->bufs)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->ops = iolat_eng_spec_outer(spec);
	e->flags = e->ops->flags;
	e->spec = *spec;
	iolat_eng_spec_name(spec, e->name, sizeof(e->name));
	e->cfg = *cfg;
	e->cfg.name = e->name;
	e->cfg.options = NULL;
	e->clock = cfg->clock;
	e->depth = cfg->depth ? cfg->depth : IOLAT_ENG_DEPTH_DEF;
	e->cfg.depth = e->depth;
	ret = e->ops->init ? e->ops->init(e, &e->cfg, &e->spec) : 0;
	if (ret < 0) {
		iolat_errf(err, errlen, ret, "%s", e->errmsg[0] ? e->errmsg : strerror(-ret));
		free(e);
		return ret;
	}
	*out = e;
	return 0;
}

void iolat_eng_destroy(struct iolat_eng *e)
{
	if (!e)
		return;
	if (e->ops->cleanup)
		e->ops->cleanup(e);
	for (unsigned i = 0; i < e->nr_files; i++)
		if (e->files[i].owned && e->files[i].fd >= 0)
			close(e->files[i].fd);
	free(e);
}

/* Add a file entry and tell the engine; 0 or -errno. */
static int add_file(struct iolat_eng *e, const struct iolat_eng_file *f, unsigned *idx)
{
	unsigned i = e->nr_files;
	int ret;

	if (i >= IOLAT_ENG_MAX_FILES)
		return iolat_eng_set_errmsg(e, -EMFILE, "more than %u files on one engine",
					    IOLAT_ENG_MAX_FILES);
	e->files[i] = *f;
	e->nr_files = i + 1;
	ret = e->ops->open ? e->ops->open(e, i) : 0;
	if (ret < 0) {
		e->nr_files = i;
		return ret;
	}
	*idx = i;
	return 0;
}

int iolat_eng_open(struct iolat_eng *e, const char *path, unsigned flags, unsigned *idx)
{
	struct iolat_eng_file f = { .fd = -1 };
	struct iolat_eng_devinfo di;
	int oflags = O_CLOEXEC, ret;
	bool direct = !(flags & IOLAT_ENG_O_BUFFERED);

	if (flags & IOLAT_ENG_O_CREATE)
		flags |= IOLAT_ENG_O_WRITE;
	f.writable = flags & IOLAT_ENG_O_WRITE;
	if (e->flags & IOLAT_ENG_F_DISKLESS)
		return add_file(e, &f, idx);

	oflags |= f.writable ? O_RDWR : O_RDONLY;
	if (flags & IOLAT_ENG_O_CREATE)
		oflags |= O_CREAT;
	if (direct)
		oflags |= O_DIRECT;
	f.fd = open(path, oflags, 0644);
	if (f.fd < 0) {
		ret = -errno;
		if (direct && ret == -EINVAL)
			return iolat_eng_set_errmsg(e, ret,
				"%s: the filesystem refuses O_DIRECT (use buffered I/O, direct=0)",
				path);
		return iolat_eng_set_errmsg(e, ret, "%s: open: %s", path, strerror(-ret));
	}
	f.owned = true;
	f.direct = direct;
	if (direct) {
		iolat_eng_devinfo_fd(f.fd, &di);
		f.align = di.logical_block_size ? di.logical_block_size
						: IOLAT_ENG_DIO_ALIGN_DEF;
	}
	ret = add_file(e, &f, idx);
	if (ret < 0)
		close(f.fd);
	return ret;
}

int iolat_eng_adopt_fd(struct iolat_eng *e, int fd, bool writable, uint32_t align,
		       unsigned *idx)
{
	struct iolat_eng_file f = {
		.fd = fd, .owned = false, .direct = align != 0, .writable = writable,
		.align = align,
	};

	if (align & (align - 1))
		return -EINVAL;
	return add_file(e, &f, idx);
}

/* The checks every engine relies on; 0 or -EINVAL/-EBADF with a message. */
static int validate(struct iolat_eng *e, const struct iolat_eng_req *req)
{
	const struct iolat_eng_file *f;
	uintptr_t a;

	if (req->state_ != IOLAT_ENG_REQ_IDLE)
		return iolat_eng_set_errmsg(e, -EINVAL,
			"request tag %llu queued again before it completed",
			(unsigned long long)req->tag);
	if (req->file >= e->nr_files)
		return iolat_eng_set_errmsg(e, -EINVAL, "bad file index %u", req->file);
	if (!req->len || !req->buf)
		return iolat_eng_set_errmsg(e, -EINVAL, "empty request (length %u)", req->len);
	if (req->dir != IOLAT_ENG_READ && req->dir != IOLAT_ENG_WRITE)
		return iolat_eng_set_errmsg(e, -EINVAL, "bad direction %d", (int)req->dir);
	f = &e->files[req->file];
	if (req->dir == IOLAT_ENG_WRITE && !f->writable)
		return iolat_eng_set_errmsg(e, -EBADF, "write to a file opened read-only");
	if (f->direct) {
		a = f->align - 1;
		if (req->offset & a)
			return iolat_eng_set_errmsg(e, -EINVAL,
				"O_DIRECT: offset %llu is not a multiple of %u",
				(unsigned long long)req->offset, f->align);
		if (req->len & a)
			return iolat_eng_set_errmsg(e, -EINVAL,
				"O_DIRECT: length %u is not a multiple of %u", req->len, f->align);
		if ((uintptr_t)req->buf & a)
			return iolat_eng_set_errmsg(e, -EINVAL,
				"O_DIRECT: buffer %p is not aligned to %u", req->buf, f->align);
	}
	if (req->buf_index >= 0) {
		const struct iovec *iov;

		if ((unsigned)req->buf_index >= e->cfg.nr_bufs)
			return iolat_eng_set_errmsg(e, -EINVAL, "bad buffer index %d",
						    req->buf_index);
		iov = &e->cfg.bufs[req->buf_index];
		if ((char *)req->buf < (char *)iov->iov_base ||
		    (char *)req->buf + req->len > (char *)iov->iov_base + iov->iov_len)
			return iolat_eng_set_errmsg(e, -EINVAL,
				"buffer is outside registered buffer %d", req->buf_index);
	}
	return 0;
}

int iolat_eng_queue(struct iolat_eng *e, struct iolat_eng_req *req)
{
	int ret = validate(e, req);

	if (ret < 0)
		return ret;
	if (e->inflight >= e->depth)
		return IOLAT_Q_BUSY;
	ret = e->ops->queue(e, req);
	switch (ret) {
	case IOLAT_Q_QUEUED:
		req->state_++;
		e->inflight++;
		e->uncommitted++;
		e->nr_queued++;
		break;
	case IOLAT_Q_COMPLETED:
		e->nr_queued++;
		e->nr_completed++;
		break;
	default:
		break;  /* BUSY or -errno: nothing was queued */
	}
	return ret;
}

int iolat_eng_commit(struct iolat_eng *e)
{
	int ret = 0;

	if (!e->uncommitted)
		return 0;
	if (e->ops->commit)
		ret = e->ops->commit(e);
	if (ret >= 0) {
		e->uncommitted = 0;
		ret = 0;
	}
	return ret;
}

int iolat_eng_reap(struct iolat_eng *e, struct iolat_eng_req **out, unsigned max,
		   unsigned min, uint64_t timeout_ns)
{
	int ret;

	if (!max)
		return 0;
	if (e->ops->flags & IOLAT_ENG_F_REAP_SUBMITS) {
		e->uncommitted = 0; /* the op submits them, with its wait */
	} else {
		ret = iolat_eng_commit(e);
		if (ret < 0)
			return ret;
	}
	if (min > max)
		min = max;
	/* Never wait for more than can come; with nothing in flight, a
	 * waiting caller waits for a wake or the timeout. */
	if (e->inflight && min > e->inflight)
		min = e->inflight;
	else if (!e->inflight && min)
		min = 1;
	ret = e->ops->reap(e, out, max, min, timeout_ns);
	if (ret < 0)
		return ret;
	for (int i = 0; i < ret; i++) {
		/* An engine handing back what it does not hold is a bug. */
		assert(out[i]->state_ > 0);
		out[i]->state_--;
	}
	assert((unsigned)ret <= e->inflight);
	e->inflight -= (unsigned)ret;
	e->nr_completed += (unsigned)ret;
	return ret;
}

void iolat_eng_wake(struct iolat_eng *e)
{
	if (e->ops->wake)
		e->ops->wake(e);
}

unsigned iolat_eng_inflight(const struct iolat_eng *e)
{
	return e->inflight;
}

const char *iolat_eng_name(const struct iolat_eng *e)
{
	return e->name;
}

const struct iolat_eng_spec *iolat_eng_spec_of(const struct iolat_eng *e)
{
	return &e->spec;
}

unsigned iolat_eng_flags(const struct iolat_eng *e)
{
	return e->flags;
}

uint32_t iolat_eng_file_align(const struct iolat_eng *e, unsigned idx)
{
	return idx < e->nr_files && e->files[idx].direct ? e->files[idx].align : 0;
}

void *iolat_eng_buf_alloc(size_t len)
{
	void *p = NULL;

	if (!len)
		len = IOLAT_ENG_BUF_ALIGN;
	if (posix_memalign(&p, IOLAT_ENG_BUF_ALIGN, len))
		return NULL;
	return p;
}

void iolat_eng_buf_free(void *p)
{
	free(p);
}
