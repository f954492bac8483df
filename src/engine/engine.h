/* SPDX-License-Identifier: MIT */
/*
 * engine.h - the I/O engine interface (fio's ioengines, our way): one ops
 * table per engine (uring, psync, null, faulty:<inner>), a static registry,
 * and the dispatch layer in engine.c, which is the only code that calls ops.
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

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <iolatency.h>

#include "engine/engopt.h"
#include "engine/engspec.h"
#include "util/fifo.h"

/* Alignment of the buffers we allocate (iolat_eng_buf_alloc()). */
#define IOLAT_ENG_BUF_ALIGN     4096u
/* O_DIRECT alignment used when the device's logical block size is unknown. */
#define IOLAT_ENG_DIO_ALIGN_DEF 4096u
/* Defaults. */
#define IOLAT_ENG_DEPTH_DEF     64u
#define IOLAT_ENG_DEPTH_MAX     4096u
#define IOLAT_ENG_MAX_FILES     64u
#define IOLAT_ENG_ERRMSG_MAX    256u
#define IOLAT_ENG_OPTIONS_MAX   1024u   /* iolat_eng_config.options, NUL included */
#define IOLAT_ENG_NAME_MAX      64u     /* "faulty:psync", NUL included */
/* iolat_eng_reap() timeout meaning "until @min completions or a wake". */
#define IOLAT_ENG_WAIT_FOREVER  UINT64_MAX

/* What queue() did with a request (fio's FIO_Q_*). */
enum iolat_q_status {
	IOLAT_Q_COMPLETED = 0,  /* done now: result and done_ns are set; no reap */
	IOLAT_Q_QUEUED    = 1,  /* accepted: comes back from reap exactly once */
	IOLAT_Q_BUSY      = 2,  /* no room: not accepted; commit, reap, retry */
};

enum iolat_eng_dir {
	IOLAT_ENG_READ  = 0,
	IOLAT_ENG_WRITE = 1,
};

/* Request states, for engine.c's exactly-once checks (nesting depth). */
#define IOLAT_ENG_REQ_IDLE 0u

/*
 * One I/O. The caller owns it; from a QUEUED return until reap hands it
 * back the engine owns it, and the caller must not touch it.
 */
struct iolat_eng_req {
	/* Set by the caller before iolat_eng_queue(). */
	unsigned file;                  /* index from iolat_eng_open() */
	enum iolat_eng_dir dir;
	uint64_t offset;                /* bytes from the start of the file */
	uint32_t len;                   /* bytes, > 0 */
	void *buf;                      /* len bytes; aligned for O_DIRECT files */
	int buf_index;                  /* registered buffer holding buf, or -1 */
	void *user;                     /* caller's; never touched by engines */
	uint64_t tag;                   /* caller's; never touched by engines */
	/* Set by the engine at completion. */
	int64_t result;                 /* bytes transferred (may be short), or -errno */
	uint64_t done_ns;               /* engine clock when the completion was seen */
	/* Private to engine.c and the engines. */
	struct iolat_eng_req *next_;    /* engine-internal lists */
	uint64_t priv_;                 /* one word for the engine (faulty: release time) */
	uint32_t saved_len_;            /* faulty: the length before a short injection */
	uint32_t state_;                /* engines holding it (nesting depth); 0: idle */
};

/* An engine's own queue of requests, linked through their next_ (util/fifo.h). */
IOLAT_FIFO(iolat_eng_reqq, struct iolat_eng_req, next_)

/* iolat_eng_open() flags. */
#define IOLAT_ENG_O_WRITE    (1u << 0)  /* open read-write (else read-only) */
#define IOLAT_ENG_O_CREATE   (1u << 1)  /* create when missing (implies WRITE) */
#define IOLAT_ENG_O_BUFFERED (1u << 2)  /* page cache; default is O_DIRECT */

/* iolat_eng_config flags. */
#define IOLAT_ENG_CFG_SQPOLL (1u << 0)  /* uring: kernel SQ polling thread */

struct iolat_eng_config {
	/* iolat_eng_create() reads these two into a spec (engspec.h);
	 * iolat_eng_create_spec() takes a spec instead and ignores them. */
	const char *name;            /* "uring", "psync", "null", "faulty:<inner>";
				      * NULL or "": uring when built, else psync */
	const char *options;         /* "key=val,key=val" for the engine (faulty); NULL */
	unsigned depth;              /* most requests in flight; 0 means 64 */
	unsigned nr_threads;         /* psync workers; 0 means min(depth, 64) */
	unsigned flags;              /* IOLAT_ENG_CFG_* */
	const struct iolat_clock *clock; /* NULL: CLOCK_MONOTONIC */
	const struct iovec *bufs;    /* buffers to register (uring fixed buffers) */
	unsigned nr_bufs;
};

/* Ops table flags. */
#define IOLAT_ENG_F_DISKLESS (1u << 0)  /* does no file I/O: files are not opened */
#define IOLAT_ENG_F_FAKEIO   (1u << 1)  /* moves no data: reads do not fill buffers */
#define IOLAT_ENG_F_WRAPPER  (1u << 2)  /* wraps the engine named after "name:" */
#define IOLAT_ENG_F_REAP_SUBMITS (1u << 3) /* reap() submits what was queued itself,
					    * in the same syscall as its wait */
#define IOLAT_ENG_F_NOT_BUILT (1u << 4) /* named, but not in this build: creating
					 * it fails with -ENOENT */

struct iolat_eng;

/*
 * An engine. Only engine.c calls these; every op but queue and reap is
 * optional (NULL: nothing to do). All run on the loop thread, except wake.
 */
struct iolat_engine_ops {
	const char *name;
	const char *alias;                          /* another name for it, or NULL */
	/* The engine a runner falls back to when this one cannot be created
	 * (the kernel refuses io_uring: psync); NULL: none. */
	const char *fallback;
	unsigned flags;                             /* IOLAT_ENG_F_* */
	/* Its options, as a table (engopt.h); NULL: it takes none. */
	const struct iolat_eng_opt *options;
	/* Set up e->priv from @spec: its options (this engine's, or a wrapper's),
	 * and for a wrapper the engine it wraps (spec->engine). */
	int (*init)(struct iolat_eng *e, const struct iolat_eng_config *cfg,
		    const struct iolat_eng_spec *spec);
	/* A file was added at index @idx (fd in e->files[idx], -1 when diskless). */
	int (*open)(struct iolat_eng *e, unsigned idx);
	/* Accept one validated request: QUEUED, COMPLETED (result set), BUSY, -errno. */
	int (*queue)(struct iolat_eng *e, struct iolat_eng_req *req);
	/* Start every request queued since the last commit. Return 0 or -errno. */
	int (*commit)(struct iolat_eng *e);
	/* Up to @max completions into @out, waiting for @min unless woken or
	 * @timeout_ns passes. Return the count or -errno. */
	int (*reap)(struct iolat_eng *e, struct iolat_eng_req **out, unsigned max,
		    unsigned min, uint64_t timeout_ns);
	/* Make a blocking reap return early. Any thread. */
	void (*wake)(struct iolat_eng *e);
	/* Tear down; in-flight requests are drained and dropped. */
	void (*cleanup)(struct iolat_eng *e);
};

struct iolat_eng_file {
	int fd;                 /* -1 when diskless */
	bool owned;             /* engine.c closes it */
	bool direct;            /* O_DIRECT: alignment is checked */
	bool writable;
	uint32_t align;         /* O_DIRECT alignment (offset, length, address) */
};

/*
 * An engine instance. The fields are for engine.c and the engines; callers
 * use the functions below.
 */
struct iolat_eng {
	const struct iolat_engine_ops *ops;
	unsigned flags;                     /* ops->flags; a wrapper adds its inner's */
	void *priv;                         /* the engine's state */
	struct iolat_eng_spec spec;         /* what it was created from */
	struct iolat_eng_config cfg;        /* name: the spec's name below; options: NULL */
	const struct iolat_clock *clock;
	unsigned depth;
	struct iolat_eng_file files[IOLAT_ENG_MAX_FILES];
	unsigned nr_files;
	unsigned inflight;                  /* queued, not yet reaped */
	unsigned uncommitted;               /* queued since the last commit */
	uint64_t nr_queued, nr_completed;   /* lifetime counters */
	char name[IOLAT_ENG_NAME_MAX];      /* full name, "faulty:uring" */
	char errmsg[IOLAT_ENG_ERRMSG_MAX];  /* last error, for the CLI */
};

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

/**
 * iolat_eng_create() - create an engine instance from @cfg's name and
 * options (read into a spec, then iolat_eng_create_spec()).
 * @cfg: configuration; NULL: every default.
 * Return: as iolat_eng_create_spec(); also -ENOENT for an unknown name and
 * -EINVAL for bad options.
 */
int iolat_eng_create(const struct iolat_eng_config *cfg, struct iolat_eng **out,
		     char *err, size_t errlen);

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

/*
 * The registry (engine.c): the one list of engine names. Entries are ops
 * tables; callers outside src/engine read only name, alias, flags and
 * options_help.
 */
/** iolat_eng_registry() - the @i-th engine, built or not; NULL past the end. */
const struct iolat_engine_ops *iolat_eng_registry(unsigned i);
/**
 * iolat_eng_lookup() - the engine called @name (its first @len bytes) or
 * aliased so ("io_uring"), built or not (IOLAT_ENG_F_NOT_BUILT); NULL if none.
 */
const struct iolat_engine_ops *iolat_eng_lookup(const char *name, size_t len);
/** iolat_eng_default_name() - the engine a config without a name gets. */
const char *iolat_eng_default_name(void);
/** iolat_eng_available() - @name (without options) is an engine of this build. */
bool iolat_eng_available(const char *name);
/** iolat_eng_options() - the option table of engine @name, NULL if it has none. */
const struct iolat_eng_opt *iolat_eng_options(const char *name);
/**
 * iolat_eng_options_help() - one line listing the options of engine @name,
 * made from its table (iolat_eng_opts_help()), for --help; NULL for an
 * unknown engine or one with none. Constant once made; any thread.
 */
const char *iolat_eng_options_help(const char *name);

/* ---- for engine implementations ---- */

/* The engines, listed in engine.c's registry (no constructors). */
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
