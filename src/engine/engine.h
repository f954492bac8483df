/* SPDX-License-Identifier: MIT */
/*
 * engine.h - the I/O engine interface (fio's ioengines, our way): one ops
 * table per engine (uring, psync, null, faulty:<inner>; their types in
 * engtypes.h) and the dispatch layer in engine.c, which is the only code
 * that calls ops. The engines by name (the registry, a name read into a
 * spec, an engine created by name) are registry.h's.
 * A request knows nothing of the controller: a caller that also admits the
 * I/O through it keeps the controller's records beside the request and finds
 * them again through the request's opaque user pointer.
 *
 * Context: an engine instance belongs to one thread, its "loop thread", which
 * calls open/queue/commit/reap/destroy. Only iolat_eng_wake() may be called
 * from other threads. Engines may run threads of their own inside (psync's
 * pool); those never call back out.
 */
#ifndef IOLAT_ENGINE_ENGINE_H
#define IOLAT_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engtypes.h"

/* ---- the dispatch layer (engine.c) ---- */

/**
 * iolat_eng_create_spec() - create an engine instance from @spec (engspec.h).
 * @cfg: the rest of the configuration (its name and options are not read);
 * NULL: every default.
 * @out: the engine.
 * Return: 0; -ENOENT for an engine not in this build; -EINVAL for a bad
 * configuration; an engine's own error (uring: -ENOSYS, -EPERM... when
 * io_uring is unavailable) with a one-line reason in @err (may be NULL).
 * Context: any thread; the engine then belongs to that thread.
 */
int iolat_eng_create_spec(const struct iolat_eng_spec *spec, const struct iolat_eng_config *cfg,
			  struct iolat_eng **out, char *err, size_t errlen);

/** iolat_eng_destroy() - drain and free; closes files it opened. NULL is fine. */
void iolat_eng_destroy(struct iolat_eng *e);

/**
 * iolat_eng_open() - open @path for this engine.
 * @flags: IOLAT_ENG_O_*; without O_BUFFERED the file is opened O_DIRECT.
 * @idx: the file index for requests.
 * Return: 0; -errno from open(2); -EINVAL with a message when the filesystem
 * refuses O_DIRECT; -EMFILE past IOLAT_ENG_MAX_FILES.
 */
int iolat_eng_open(struct iolat_eng *e, const char *path, unsigned flags, unsigned *idx);

/**
 * iolat_eng_adopt_fd() - use an fd the caller (or a wrapper) owns as a file.
 * @align: O_DIRECT alignment, 0 for buffered.
 */
int iolat_eng_adopt_fd(struct iolat_eng *e, int fd, bool writable, uint32_t align,
		       unsigned *idx);

/**
 * iolat_eng_queue() - hand one request to the engine.
 * Return: IOLAT_Q_QUEUED (comes back from iolat_eng_reap() exactly once),
 * IOLAT_Q_COMPLETED (done now: result and done_ns set), IOLAT_Q_BUSY (depth
 * reached or the engine is full: commit and reap first), or -EINVAL before
 * submission for a bad request (unaligned O_DIRECT offset, length or buffer;
 * bad file or buffer index; a request already queued), with a message in
 * iolat_eng_errmsg(). Nothing is queued on -errno or BUSY.
 */
int iolat_eng_queue(struct iolat_eng *e, struct iolat_eng_req *req);

/** iolat_eng_commit() - submit every queued request (one syscall for uring). */
int iolat_eng_commit(struct iolat_eng *e);

/**
 * iolat_eng_reap() - collect completions (commits pending requests first).
 * @out: room for @max request pointers.
 * @min: wait until this many are available (0: do not wait); capped by the
 * number in flight, so it never waits for what cannot come, except when
 * nothing is in flight: then it waits for a wake or the timeout.
 * @timeout_ns: longest wait; IOLAT_ENG_WAIT_FOREVER: until @min or a wake.
 * Return: the number of completions (result and done_ns set), or -errno.
 */
int iolat_eng_reap(struct iolat_eng *e, struct iolat_eng_req **out, unsigned max,
		   unsigned min, uint64_t timeout_ns);

/**
 * iolat_eng_wake() - make a current or next blocking iolat_eng_reap() return
 * early (it may return 0). Context: any thread.
 */
void iolat_eng_wake(struct iolat_eng *e);

/** iolat_eng_inflight() - requests queued and not yet reaped. Loop thread. */
unsigned iolat_eng_inflight(const struct iolat_eng *e);
const char *iolat_eng_name(const struct iolat_eng *e);
/** iolat_eng_spec_of() - what @e was created from: its engines and options. */
const struct iolat_eng_spec *iolat_eng_spec_of(const struct iolat_eng *e);
unsigned iolat_eng_flags(const struct iolat_eng *e);     /* IOLAT_ENG_F_*, inner's included */
uint32_t iolat_eng_file_align(const struct iolat_eng *e, unsigned idx); /* 0: buffered */
/** iolat_eng_errmsg() - the last error's one-line reason, "" if none. Loop thread. */
const char *iolat_eng_errmsg(const struct iolat_eng *e);
/** iolat_eng_now() - the engine's clock (the controller's, when shared). */
uint64_t iolat_eng_now(const struct iolat_eng *e);

/* ---- for engine implementations ---- */

/* The engines, each defined by its eng_*.c and listed only by registry.c's
 * table (no constructors). */
extern const struct iolat_engine_ops iolat_eng_uring_ops;   /* NOT_BUILT without liburing */
extern const struct iolat_engine_ops iolat_eng_psync_ops;
extern const struct iolat_engine_ops iolat_eng_null_ops;
extern const struct iolat_engine_ops iolat_eng_faulty_ops;

/* Record a one-line reason for the error being returned; returns @err. */
int iolat_eng_set_errmsg(struct iolat_eng *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The real CLOCK_MONOTONIC, in ns. */
uint64_t iolat_eng_mono_ns(void);

/* ---- helpers ---- */

/** iolat_eng_buf_alloc() - @len bytes aligned to IOLAT_ENG_BUF_ALIGN, or NULL. */
void *iolat_eng_buf_alloc(size_t len);
void iolat_eng_buf_free(void *p);

#endif /* IOLAT_ENGINE_ENGINE_H */
