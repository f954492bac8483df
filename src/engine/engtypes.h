/* SPDX-License-Identifier: MIT */
/*
 * engtypes.h - what the engines, the dispatch layer (engine.c), the specs
 * (engspec.c) and the registry (registry.c) share: the limits, a request,
 * the ops table an engine is, an instance. Types and constants only, no
 * function of any file: a header of no file of its own, so including it
 * points at none of them (docs/design.md, "No circles in a folder"). Callers
 * include engine.h, which includes this.
 * Context: see engine.h.
 */
#ifndef IOLAT_ENGINE_ENGTYPES_H
#define IOLAT_ENGINE_ENGTYPES_H

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

#endif /* IOLAT_ENGINE_ENGTYPES_H */
