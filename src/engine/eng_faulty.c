/* SPDX-License-Identifier: MIT */
/*
 * eng_faulty.c - "faulty:<inner>": wraps any engine and injects faults
 * (EIO, ENOSPC, short transfers, latency spikes, stalls) chosen by a seeded
 * PRNG behind a countdown, transient or persistent, in the manner of
 * SQLite's test_vfs.c. Injected requests are counted (eng_faulty.h).
 * Completions pass through one "out" list: each carries a release time
 * (0: now); nothing leaves it while a stall lasts.
 * Context: the loop thread, as the inner engine; wake from any thread.
 */
#include "engine/eng_faulty.h"
#include "engine/engopt.h"
#include "util/rng.h"
#include "util/units.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>


enum fault_dir { FDIR_ANY, FDIR_READ, FDIR_WRITE };

/* The options, as the table below fills them. */
struct faulty_opts {
	unsigned kinds;             /* IOLAT_FAULT_* */
	double rate;
	uint64_t after, count;
	uint64_t persist;           /* 0 or 1 */
	uint64_t hold_ns;           /* ms option */
	unsigned dir;               /* enum fault_dir */
	uint64_t seed;
};

struct faulty_priv {
	struct iolat_eng *inner;
	struct faulty_opts o;
	uint64_t rng;               /* splitmix64 state, from o.seed */
	/* state */
	uint64_t countdown;
	uint64_t injected;
	uint64_t stall_until;       /* clock ns; 0: none */
	struct iolat_eng_reqq out;  /* completions held until their release time (priv_) */
	struct iolat_eng_req **tmp; /* depth pointers for inner reaps */
	atomic_bool woken;
	struct iolat_eng_fault_stats st;
};

static const struct iolat_eng_opt_choice kind_names[] = {
	{ "eio", IOLAT_FAULT_EIO }, { "enospc", IOLAT_FAULT_ENOSPC },
	{ "short", IOLAT_FAULT_SHORT }, { "spike", IOLAT_FAULT_SPIKE },
	{ "stall", IOLAT_FAULT_STALL }, { "none", 0 }, { NULL, 0 },
};

static const struct iolat_eng_opt_choice dir_names[] = {
	{ "read", FDIR_READ }, { "write", FDIR_WRITE }, { "any", FDIR_ANY }, { NULL, 0 },
};

#define FOPT(f) .off = offsetof(struct faulty_opts, f)

/* The options (eng_faulty.h has what each does); their order is the help's. */
static const struct iolat_eng_opt faulty_opts_table[] = {
	{ .name = "kind", .type = IOLAT_EOPT_FLAGS, FOPT(kinds), .choices = kind_names,
	  .def = "none", .help = "faults to inject" },
	{ .name = "rate", .type = IOLAT_EOPT_DOUBLE, FOPT(rate), .dmin = 0.0, .dmax = 1.0,
	  .def = "1", .value_word = "P", .help = "chance an eligible I/O past the countdown faults" },
	{ .name = "after", .type = IOLAT_EOPT_U64, FOPT(after), .max = UINT64_MAX, .def = "0",
	  .help = "countdown: the first N eligible I/Os pass" },
	{ .name = "persist", .type = IOLAT_EOPT_U64, FOPT(persist), .max = 1, .def = "1",
	  .value_word = "0|1", .help = "1: keep injecting; 0: transient (count defaults to 1)" },
	{ .name = "count", .type = IOLAT_EOPT_U64, FOPT(count), .max = UINT64_MAX, .def = "0",
	  .help = "stop after N injections (0: no limit)" },
	{ .name = "ms", .type = IOLAT_EOPT_U64, FOPT(hold_ns), .max = 3600000,
	  .scale = NSEC_PER_MSEC, .def = "100",
	  .help = "spike: hold the completion N ms; stall: no completion for N ms" },
	{ .name = "dir", .type = IOLAT_EOPT_CHOICE, FOPT(dir), .choices = dir_names,
	  .def = "any", .help = "which I/Os are eligible" },
	{ .name = "seed", .type = IOLAT_EOPT_U64, FOPT(seed), .max = UINT64_MAX, .def = "1",
	  .help = "the PRNG seed" },
	{ .name = NULL },
};
#define FAULTY_OPT_COUNT 4   /* index of "count" in the table */

/* The fault picker draws from a plain splitmix64 stream (util/rng.h). */
static double rng_unit(uint64_t *s)
{
	return iolat_u64_to_unit(iolat_splitmix64(s));
}

/* The options the spec gives, over the table's defaults (read and checked
 * once, when the spec was made: engspec.h). */
static int take_options(struct faulty_priv *p, const struct iolat_eng_optset *os)
{
	if (iolat_eng_optset_fill(faulty_opts_table, os, &p->o))
		return -EINVAL;
	if (!p->o.persist && !(os->set & (1ull << FAULTY_OPT_COUNT)))
		p->o.count = 1;
	p->rng = p->o.seed;
	p->countdown = p->o.after;
	return 0;
}

static int faulty_init(struct iolat_eng *e, const struct iolat_eng_config *cfg,
		       const struct iolat_eng_spec *spec)
{
	struct iolat_eng_spec inner = { .engine = spec->engine };
	struct faulty_priv *p;
	char msg[IOLAT_ENG_ERRMSG_MAX];
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tmp = calloc(e->depth, sizeof(*p->tmp));
	if (!p->tmp) {
		free(p);
		return -ENOMEM;
	}
	ret = take_options(p, &spec->opts);
	if (ret < 0)
		goto fail;
	ret = iolat_eng_create_spec(&inner, cfg, &p->inner, msg, sizeof(msg));
	if (ret < 0) {
		iolat_eng_set_errmsg(e, ret, "%s", msg);
		goto fail;
	}
	e->flags |= iolat_eng_flags(p->inner) & (IOLAT_ENG_F_DISKLESS | IOLAT_ENG_F_FAKEIO);
	atomic_init(&p->woken, false);
	e->priv = p;
	return 0;
fail:
	free(p->tmp);
	free(p);
	return ret;
}

static int faulty_open(struct iolat_eng *e, unsigned idx)
{
	struct faulty_priv *p = e->priv;
	const struct iolat_eng_file *f = &e->files[idx];
	unsigned iidx;
	int ret;

	ret = iolat_eng_adopt_fd(p->inner, f->fd, f->writable, f->direct ? f->align : 0, &iidx);
	if (ret < 0)
		return iolat_eng_set_errmsg(e, ret, "%s", iolat_eng_errmsg(p->inner));
	return iidx == idx ? 0 : -EINVAL;
}

static void out_push(struct faulty_priv *p, struct iolat_eng_req *req, uint64_t release)
{
	req->priv_ = release;
	iolat_eng_reqq_push(&p->out, req);
}

/* Half the length, kept aligned; 0 when it cannot be shortened. */
static uint32_t short_len(const struct iolat_eng *e, const struct iolat_eng_req *req)
{
	uint32_t a = iolat_eng_file_align(e, req->file);
	uint32_t half = req->len / 2;

	if (a > 1)
		half &= ~(a - 1);
	return half;
}

/* Which fault (one IOLAT_FAULT_* bit) this request gets, or 0. */
static unsigned choose_fault(struct iolat_eng *e, struct faulty_priv *p,
			     const struct iolat_eng_req *req)
{
	unsigned cand = p->o.kinds, n = 0, pick;

	if ((p->o.dir == FDIR_READ && req->dir != IOLAT_ENG_READ) ||
	    (p->o.dir == FDIR_WRITE && req->dir != IOLAT_ENG_WRITE))
		return 0;
	if (req->dir != IOLAT_ENG_WRITE)
		cand &= ~IOLAT_FAULT_ENOSPC;
	if ((cand & IOLAT_FAULT_SHORT) && !short_len(e, req))
		cand &= ~IOLAT_FAULT_SHORT;
	if ((cand & IOLAT_FAULT_STALL) && p->stall_until &&
	    iolat_eng_now(e) < p->stall_until)
		cand &= ~IOLAT_FAULT_STALL;   /* one stall at a time */
	if (!cand)
		return 0;
	p->st.eligible++;
	if (p->countdown) {
		p->countdown--;
		return 0;
	}
	if (p->o.count && p->injected >= p->o.count)
		return 0;
	if (p->o.rate < 1.0 && rng_unit(&p->rng) >= p->o.rate)
		return 0;
	for (unsigned b = cand; b; b &= b - 1)
		n++;
	pick = (unsigned)(iolat_splitmix64(&p->rng) % n);
	for (unsigned b = cand; b; b &= b - 1)
		if (pick-- == 0)
			return b & -b;
	return 0;
}

/* A completion from the inner engine (or at once): undo, hold or pass on. */
static void inner_done(struct iolat_eng *e, struct faulty_priv *p, struct iolat_eng_req *req)
{
	unsigned fault = (unsigned)req->priv_;
	uint64_t release = 0;

	if (fault == IOLAT_FAULT_SHORT)
		req->len = req->saved_len_;
	if (fault == IOLAT_FAULT_SPIKE) {
		release = req->done_ns + p->o.hold_ns;
		p->st.held++;
	}
	if (p->stall_until && req->done_ns < p->stall_until) {
		if (p->stall_until > release)
			release = p->stall_until;
		if (fault != IOLAT_FAULT_SPIKE)
			p->st.held++;
	}
	out_push(p, req, release);
}

static int faulty_queue(struct iolat_eng *e, struct iolat_eng_req *req)
{
	struct faulty_priv *p = e->priv;
	unsigned fault;
	int ret;

	p->st.seen++;
	fault = p->o.kinds ? choose_fault(e, p, req) : 0;
	switch (fault) {
	case IOLAT_FAULT_EIO:
	case IOLAT_FAULT_ENOSPC:
		p->injected++;
		if (fault == IOLAT_FAULT_EIO)
			p->st.eio++;
		else
			p->st.enospc++;
		req->result = fault == IOLAT_FAULT_EIO ? -EIO : -ENOSPC;
		req->done_ns = iolat_eng_now(e);
		req->priv_ = 0;
		inner_done(e, p, req);
		return IOLAT_Q_QUEUED;
	case IOLAT_FAULT_SHORT:
		req->saved_len_ = req->len;
		req->len = short_len(e, req);
		break;
	case IOLAT_FAULT_STALL:
		p->stall_until = iolat_eng_now(e) + p->o.hold_ns;
		/* Completions already waiting are held too. */
		for (struct iolat_eng_req *r = iolat_eng_reqq_peek(&p->out); r; r = r->next_) {
			if (r->priv_ < p->stall_until) {
				if (!r->priv_)
					p->st.held++;
				r->priv_ = p->stall_until;
			}
		}
		break;
	default:
		break;
	}
	req->priv_ = fault;
	ret = iolat_eng_queue(p->inner, req);
	if (ret < 0 || ret == IOLAT_Q_BUSY) {
		if (fault == IOLAT_FAULT_SHORT)
			req->len = req->saved_len_;
		if (ret < 0)
			iolat_eng_set_errmsg(e, ret, "%s", iolat_eng_errmsg(p->inner));
		return ret;   /* not queued: nothing injected */
	}
	if (fault) {
		p->injected++;
		if (fault == IOLAT_FAULT_SHORT)
			p->st.short_io++;
		else if (fault == IOLAT_FAULT_SPIKE)
			p->st.spikes++;
		else if (fault == IOLAT_FAULT_STALL)
			p->st.stalls++;
	}
	if (ret == IOLAT_Q_COMPLETED) {
		if (!fault && !(p->stall_until && req->done_ns < p->stall_until))
			return IOLAT_Q_COMPLETED;
		inner_done(e, p, req);   /* held: it comes back from reap */
	}
	return IOLAT_Q_QUEUED;
}

static int faulty_commit(struct iolat_eng *e)
{
	struct faulty_priv *p = e->priv;

	return iolat_eng_commit(p->inner);
}

/* Move released completions to @out, in order; *next: the earliest
 * release time still pending (UINT64_MAX: none). */
static unsigned release_out(struct faulty_priv *p, struct iolat_eng_req **out,
			    unsigned max, uint64_t now, uint64_t *next)
{
	struct iolat_eng_reqq keep; /* those still held, in order */
	struct iolat_eng_req *r;
	unsigned got = 0;

	*next = UINT64_MAX;
	if (p->stall_until && now < p->stall_until) {
		*next = p->stall_until;
		return 0;
	}
	iolat_eng_reqq_init(&keep);
	while ((r = iolat_eng_reqq_pop(&p->out))) {
		if (got < max && r->priv_ <= now) {
			if (r->priv_)
				r->done_ns = now;   /* the application sees it now */
			r->priv_ = 0;
			out[got++] = r;
			continue;
		}
		if (r->priv_ < *next)
			*next = r->priv_;
		iolat_eng_reqq_push(&keep, r);
	}
	p->out = keep;
	return got;
}

static int pull_inner(struct iolat_eng *e, struct faulty_priv *p, unsigned min,
		      uint64_t timeout_ns)
{
	int n = iolat_eng_reap(p->inner, p->tmp, e->depth, min, timeout_ns);

	for (int i = 0; i < n; i++)
		inner_done(e, p, p->tmp[i]);
	return n;
}

static int faulty_reap(struct iolat_eng *e, struct iolat_eng_req **out, unsigned max,
		       unsigned min, uint64_t timeout_ns)
{
	struct faulty_priv *p = e->priv;
	uint64_t now, next, deadline, wait;
	unsigned got = 0;
	int n;

	now = iolat_eng_now(e);
	deadline = timeout_ns == IOLAT_ENG_WAIT_FOREVER ? UINT64_MAX : now + timeout_ns;
	for (;;) {
		n = pull_inner(e, p, 0, 0);
		if (n < 0)
			return got ? (int)got : n;
		now = iolat_eng_now(e);
		got += release_out(p, out + got, max - got, now, &next);
		if (got >= min || got == max)
			break;
		if (atomic_exchange(&p->woken, false))
			break;
		if (now >= deadline)
			break;
		/* Wait for the inner engine, a release, a wake or the deadline. */
		if (next < deadline)
			wait = next > now ? next - now : 0;
		else
			wait = deadline == UINT64_MAX ? IOLAT_ENG_WAIT_FOREVER : deadline - now;
		if (wait == 0)
			continue;
		n = pull_inner(e, p, 1, wait);
		if (n < 0)
			return got ? (int)got : n;
	}
	/* Old stalls are over once nothing waits on them. */
	if (p->stall_until && now >= p->stall_until)
		p->stall_until = 0;
	return (int)got;
}

static void faulty_wake(struct iolat_eng *e)
{
	struct faulty_priv *p = e->priv;

	atomic_store(&p->woken, true);
	iolat_eng_wake(p->inner);
}

static void faulty_cleanup(struct iolat_eng *e)
{
	struct faulty_priv *p = e->priv;

	if (!p)
		return;
	iolat_eng_destroy(p->inner);
	free(p->tmp);
	free(p);
	e->priv = NULL;
}

int iolat_eng_faulty_stats(const struct iolat_eng *e, struct iolat_eng_fault_stats *st)
{
	const struct faulty_priv *p;

	if (!e || e->ops != &iolat_eng_faulty_ops)
		return -EINVAL;
	p = e->priv;
	*st = p->st;
	return 0;
}

const struct iolat_engine_ops iolat_eng_faulty_ops = {
	.name = "faulty",
	.flags = IOLAT_ENG_F_WRAPPER,
	.options = faulty_opts_table,
	.init = faulty_init,
	.open = faulty_open,
	.queue = faulty_queue,
	.commit = faulty_commit,
	.reap = faulty_reap,
	.wake = faulty_wake,
	.cleanup = faulty_cleanup,
};
