/* SPDX-License-Identifier: MIT */
/*
 * ctl_driver.c - replays bytes as controller calls and checks invariants
 * against a model (see ctl_driver.h). Owns nothing but its own state; reads
 * the core's internals (core/ctl.h) only to check them: the wait queues,
 * the level an I/O waits at. One thread; granted() callbacks run on it,
 * nested in whichever call freed the slot.
 *
 * Input: 4 header bytes (qd, flags, max groups, start time), then ops, each
 * an opcode byte (enum ctl_driver_op, modulo CD_NR_OPS) and its argument
 * bytes; missing argument bytes read as 0. The flags byte: bit 0 rotational,
 * 1 COMPAT_B1, 2 COMPAT_TIMER, 3-4 stat slots, 5-6 delay cap, 7 ADAPTIVE
 * (then without COMPAT_TIMER; submits also ask the pace gate, size from the
 * submit byte's bits 6-7). At the end every admitted I/O is
 * completed, which must grant every queued one, and every group is destroyed.
 *
 * The model: an I/O that is admitted while some group has a target holds a
 * slot at every level from its group up to (not including) the root; while
 * queued, at the levels below the one it waits at. Checked after each step:
 * each level's inflight, waiters, children and target; each wait queue's
 * contents (each queued I/O exactly once, at its wait level); no waiter
 * queued at a level with a free slot; granted() exactly once per queued I/O,
 * never after cancel returned 0, never for an I/O admitted at once; the
 * return value of every call.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "core/ctl.h"
#include "ctl_driver.h"

#define CD_MAX_GROUPS 16
#define CD_MAX_IOS    256
#define CD_MAX_LEVEL  3
#define CD_MAX_SUBMITS 4096 /* per run: bounds the time one input takes */
#define CD_ROOT       (-1)
#define CD_NONE       (-2)

enum cd_io_state { CDI_FREE, CDI_SUBMITTING, CDI_QUEUED, CDI_ADMITTED };

static const char *const state_names[] = { "free", "submitting", "queued", "admitted" };

static const char *const op_names[CD_NR_OPS] = {
	"create", "destroy", "set_target", "submit", "done", "done_unissued",
	"cancel", "tick", "advance", "set_nr_requests", "delay", "stat",
	"done_again", "burst", "round",
};

struct cd;

struct cd_io {
	struct iolat_io io;
	struct iolat_waiter w;
	struct cd *d;
	int state;          /* enum cd_io_state */
	int grp;            /* model group, CD_ROOT for the root */
	bool tracked;       /* holds slots (admitted while enabled, not on the root) */
	bool used;          /* the library has written io at least once */
	bool cancelled;     /* cancel returned 0 for the current use */
	unsigned flags;     /* IOLAT_IO_* */
	unsigned grants;    /* granted() calls for the current use */
};

struct cd_group {
	struct iolat_group *g;
	int parent;         /* model index or CD_ROOT */
	int level;          /* 1 for a child of the root */
	bool live;
	uint64_t target;
	char name[8];
};

struct cd {
	struct iolat_ctl *ctl;
	struct iolat_clock clock;
	uint64_t now;
	uint32_t max_groups;
	uint64_t delay_cap;
	const uint8_t *p, *end;
	unsigned flags;
	bool failed;
	char *msg;
	size_t msglen;
	unsigned step;
	int op;
	int nr_io;          /* entries of io[] ever used: the loops stop there */
	unsigned submits;
	struct cd_group grp[CD_MAX_GROUPS];
	struct cd_io io[CD_MAX_IOS];
	/* Scratch for the invariant check. */
	uint32_t exp_inflight[CD_MAX_GROUPS];
	uint32_t exp_waiters[CD_MAX_GROUPS];
	uint32_t children[CD_MAX_GROUPS];
};

/* ---- failures and tracing ---- */

static void cd_fail(struct cd *d, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cd_fail(struct cd *d, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (d->failed)
		return; /* keep the first */
	d->failed = true;
	if (!d->msg || !d->msglen)
		return;
	n = snprintf(d->msg, d->msglen, "step %u (%s), ctl_driver.c:%d: ", d->step,
		     d->op >= 0 && d->op < CD_NR_OPS ? op_names[d->op] : "end", line);
	if (n >= 0 && (size_t)n < d->msglen) {
		va_start(ap, fmt);
		vsnprintf(d->msg + n, d->msglen - (size_t)n, fmt, ap);
		va_end(ap);
	}
}

#define CHECK(cond, ...) do { if (!(cond)) cd_fail(d, __LINE__, __VA_ARGS__); } while (0)

static void trace(struct cd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void trace(struct cd *d, const char *fmt, ...)
{
	va_list ap;

	if (!(d->flags & CTL_DRIVER_TRACE))
		return;
	fprintf(stderr, "[%u t=%" PRIu64 "] ", d->step, d->now);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- input ---- */

static bool have_byte(const struct cd *d)
{
	return d->p < d->end;
}

static uint8_t arg(struct cd *d)
{
	return d->p < d->end ? *d->p++ : 0;
}

/* ---- the clock ---- */

static uint64_t cd_now(void *ctx)
{
	return ((struct cd *)ctx)->now;
}

/* ---- model helpers ---- */

static struct cd_io *io_of_waiter(struct cd *d, struct iolat_waiter *w)
{
	uintptr_t base = (uintptr_t)&d->io[0], a = (uintptr_t)w;
	size_t i;

	if (a < base)
		return NULL;
	i = (a - base) / sizeof(struct cd_io);
	if (i >= CD_MAX_IOS || &d->io[i].w != w)
		return NULL;
	return &d->io[i];
}

static int model_of_idx(const struct cd *d, uint32_t idx)
{
	if (idx == IOLAT_ROOT_IDX)
		return CD_ROOT;
	for (int i = 0; i < CD_MAX_GROUPS; i++)
		if (d->grp[i].live && d->grp[i].g->idx == idx)
			return i;
	return CD_NONE;
}

static struct iolat_group *gptr(struct cd *d, int m)
{
	return m == CD_ROOT ? iolat_ctl_root(d->ctl) : d->grp[m].g;
}

static bool model_enabled(const struct cd *d)
{
	for (int i = 0; i < CD_MAX_GROUPS; i++)
		if (d->grp[i].live && d->grp[i].target)
			return true;
	return false;
}

static int nr_live(const struct cd *d)
{
	int n = 0;

	for (int i = 0; i < CD_MAX_GROUPS; i++)
		n += d->grp[i].live;
	return n;
}

/* A live group chosen by @b, or CD_NONE when there is none. */
static int pick_group(const struct cd *d, uint8_t b)
{
	for (int k = 0; k < CD_MAX_GROUPS; k++) {
		int i = (b + k) % CD_MAX_GROUPS;

		if (d->grp[i].live)
			return i;
	}
	return CD_NONE;
}

/* An I/O in @state chosen by @b, or -1. */
static int pick_io(const struct cd *d, uint8_t b, int state)
{
	for (int k = 0; k < d->nr_io; k++) {
		int i = (b + k) % d->nr_io;

		if (d->io[i].state == state)
			return i;
	}
	return -1;
}

/* The lowest free entry, so that the loops over io[] stay short. */
static int free_io(struct cd *d)
{
	for (int i = 0; i < d->nr_io; i++)
		if (d->io[i].state == CDI_FREE)
			return i;
	return d->nr_io < CD_MAX_IOS ? d->nr_io++ : -1;
}

/* ---- granted() ---- */

static void cd_granted(struct iolat_waiter *w)
{
	struct cd_io *c = (struct cd_io *)((char *)w - offsetof(struct cd_io, w));
	struct cd *d = c->d;
	int i = (int)(c - d->io);

	c->grants++;
	trace(d, "  granted io %d (group %d)", i, c->grp);
	CHECK(c->state == CDI_QUEUED, "granted() on io %d in state %s%s", i,
	      state_names[c->state], c->cancelled ? " after cancel returned 0" : "");
	CHECK(c->grants == 1, "granted() %u times on io %d", c->grants, i);
	CHECK(atomic_load(&c->io.wait_level_) == IOLAT_NO_GROUP,
	      "io %d granted while still waiting at arena index %u", i,
	      atomic_load(&c->io.wait_level_));
	if (c->state == CDI_QUEUED)
		c->state = CDI_ADMITTED;
}

/* ---- invariants ---- */

static void check_queue(struct cd *d, int m, uint32_t nwait, unsigned *seen)
{
	struct iolat_group *g = d->grp[m].g;
	uint32_t n = 0;

	for (struct iolat_waiter *w = g->wq.head; w; w = w->next_) {
		struct cd_io *c = io_of_waiter(d, w);

		if (++n > CD_MAX_IOS) {
			CHECK(0, "group %d: wait queue longer than %d (a cycle?)", m, CD_MAX_IOS);
			return;
		}
		if (!c) {
			CHECK(0, "group %d: foreign waiter %p in its queue", m, (void *)w);
			return;
		}
		CHECK(c->state == CDI_QUEUED, "group %d: io %d queued but in state %s%s", m,
		      (int)(c - d->io), state_names[c->state],
		      c->cancelled ? " (cancelled)" : "");
		CHECK(atomic_load(&c->io.wait_level_) == g->idx,
		      "group %d: io %d in its queue waits at arena index %u", m,
		      (int)(c - d->io), atomic_load(&c->io.wait_level_));
		seen[c - d->io]++;
		if (!w->next_)
			CHECK(g->wq.tail == w, "group %d: wq_tail is not the last waiter", m);
	}
	if (!g->wq.head)
		CHECK(g->wq.tail == NULL, "group %d: empty queue with a tail", m);
	CHECK(n == nwait, "group %d: %u waiters in the queue, nwait %u", m, n, nwait);
}

/* The model's expectations: each group's children, and from every I/O's
 * state the slots it holds and the queue it waits in. */
static void model_expect(struct cd *d)
{
	memset(d->exp_inflight, 0, sizeof(d->exp_inflight));
	memset(d->exp_waiters, 0, sizeof(d->exp_waiters));
	memset(d->children, 0, sizeof(d->children));
	for (int i = 0; i < CD_MAX_GROUPS; i++)
		if (d->grp[i].live && d->grp[i].parent != CD_ROOT)
			d->children[d->grp[i].parent]++;

	for (int i = 0; i < d->nr_io && !d->failed; i++) {
		struct cd_io *c = &d->io[i];
		uint32_t wl = atomic_load(&c->io.wait_level_);
		int m;

		if (c->state == CDI_ADMITTED) {
			CHECK(wl == IOLAT_NO_GROUP, "admitted io %d waits at arena index %u", i, wl);
			if (!c->tracked)
				continue;
			for (m = c->grp; m != CD_ROOT; m = d->grp[m].parent) {
				CHECK(d->grp[m].live, "io %d holds a slot in dead group %d", i, m);
				d->exp_inflight[m]++;
			}
		} else if (c->state == CDI_QUEUED) {
			int wm = model_of_idx(d, wl);

			CHECK(wl != IOLAT_NO_GROUP, "queued io %d waits nowhere", i);
			CHECK(wm >= 0, "queued io %d waits at arena index %u: not a live group",
			      i, wl);
			if (d->failed)
				break;
			for (m = c->grp; m != wm && m != CD_ROOT; m = d->grp[m].parent)
				d->exp_inflight[m]++;
			CHECK(m == wm, "queued io %d of group %d waits at group %d, not on its path",
			      i, c->grp, wm);
			d->exp_waiters[wm]++;
		} else {
			CHECK(c->state == CDI_FREE, "io %d left in state %s", i,
			      state_names[c->state]);
		}
	}
}

/* Live group @m as the controller sees it against the model; its queue. */
static void check_group(struct cd *d, int m, unsigned *seen)
{
	const struct cd_group *cg = &d->grp[m];
	struct iolat_group_stat st;

	iolat_group_stat(cg->g, &st);
	CHECK(st.inflight == d->exp_inflight[m], "group %d: inflight %u, model %u", m,
	      st.inflight, d->exp_inflight[m]);
	CHECK(st.waiters == d->exp_waiters[m], "group %d: waiters %u, model %u", m,
	      st.waiters, d->exp_waiters[m]);
	CHECK(st.nr_children == d->children[m], "group %d: %u children, model %u", m,
	      st.nr_children, d->children[m]);
	CHECK(st.target_ns == cg->target, "group %d: target %" PRIu64 ", model %" PRIu64,
	      m, st.target_ns, cg->target);
	CHECK(iolat_group_parent(cg->g) == gptr(d, cg->parent),
	      "group %d: wrong parent", m);
	CHECK(st.depth >= 1, "group %d: depth 0", m);
	/* A waiter must not sit at a level with a free slot: nobody would wake it. */
	CHECK(!st.waiters || st.inflight >= st.depth,
	      "group %d: %u waiters but inflight %u < depth %u (stranded)", m,
	      st.waiters, st.inflight, st.depth);
	CHECK(st.child_cookie <= IOLAT_DEFAULT_COOKIE,
	      "group %d: child cookie %u above the default", m, st.child_cookie);
	check_queue(d, m, st.waiters, seen);
}

/* The root: nothing in flight or waiting, its children, its cookie; enabled. */
static void check_root(struct cd *d)
{
	struct iolat_group_stat st;
	uint32_t top = 0;

	iolat_group_stat(iolat_ctl_root(d->ctl), &st);
	CHECK(st.inflight == 0 && st.waiters == 0, "root: inflight %u waiters %u", st.inflight,
	      st.waiters);
	for (int m = 0; m < CD_MAX_GROUPS; m++)
		top += d->grp[m].live && d->grp[m].parent == CD_ROOT;
	CHECK(st.nr_children == top, "root: %u children, model %u", st.nr_children, top);
	CHECK(st.child_cookie <= IOLAT_DEFAULT_COOKIE, "root: child cookie %u above the default",
	      st.child_cookie);
	CHECK(iolat_ctl_enabled(d->ctl) == model_enabled(d), "enabled %d, model %d",
	      iolat_ctl_enabled(d->ctl), model_enabled(d));
}

static void check_invariants(struct cd *d)
{
	unsigned seen[CD_MAX_IOS];

	memset(seen, 0, sizeof(seen));
	model_expect(d);
	if (d->failed)
		return;
	for (int m = 0; m < CD_MAX_GROUPS && !d->failed; m++)
		if (d->grp[m].live)
			check_group(d, m, seen);
	if (d->failed)
		return;
	for (int i = 0; i < d->nr_io; i++)
		CHECK(seen[i] == (d->io[i].state == CDI_QUEUED),
		      "io %d (%s) appears %u times in wait queues", i,
		      state_names[d->io[i].state], seen[i]);
	check_root(d);
}

/* ---- operations ---- */

static uint64_t target_of(uint8_t v, uint8_t sc)
{
	static const uint64_t scale[] = { 1000, 20000, 1000000, 50000000 };

	return v ? v * scale[sc & 3] : 0;
}

static uint64_t amount_of(uint8_t b)
{
	static const uint64_t scale[] = { 1000, 100000, 10000000, 250000000 };

	return scale[b & 3] * (uint64_t)((b >> 2) + 1);
}

static void do_create(struct cd *d, uint8_t pb, uint8_t nb)
{
	int parent = pb % 4 == 0 ? CD_ROOT : pick_group(d, pb);
	int level, slot = -1, ret, expect = 0;
	struct iolat_group *g = NULL;
	char name[8];

	if (parent == CD_NONE)
		parent = CD_ROOT;
	level = parent == CD_ROOT ? 1 : d->grp[parent].level + 1;
	if (level > CD_MAX_LEVEL)
		return;
	snprintf(name, sizeof(name), "n%u", nb % 6u);
	for (int i = 0; i < CD_MAX_GROUPS; i++) {
		if (d->grp[i].live && d->grp[i].parent == parent && !strcmp(d->grp[i].name, name))
			expect = -EEXIST;
		if (!d->grp[i].live && slot < 0)
			slot = i;
	}
	if (!expect && (uint32_t)nr_live(d) >= d->max_groups)
		expect = -ENOSPC;
	if (slot < 0)
		return; /* cannot happen: max_groups <= CD_MAX_GROUPS */
	ret = iolat_group_create(d->ctl, gptr(d, parent), name, &g);
	trace(d, "create %s under %d -> %d (slot %d)", name, parent, ret, slot);
	CHECK(ret == expect, "create %s under group %d: %d, expected %d", name, parent, ret,
	      expect);
	if (ret)
		return;
	d->grp[slot] = (struct cd_group){ .g = g, .parent = parent, .level = level, .live = true };
	memcpy(d->grp[slot].name, name, sizeof(name));
}

static void do_destroy(struct cd *d, uint8_t b)
{
	int m = pick_group(d, b), ret, expect;

	if (m == CD_NONE)
		return;
	/* exp_* are fresh: the previous step ended with check_invariants(). */
	expect = d->exp_inflight[m] || d->exp_waiters[m] || d->children[m] ? -EBUSY : 0;
	ret = iolat_group_destroy(d->grp[m].g);
	trace(d, "destroy %d (inflight %u waiters %u children %u) -> %d", m,
	      d->exp_inflight[m], d->exp_waiters[m], d->children[m], ret);
	CHECK(ret == expect, "destroy group %d: %d, expected %d", m, ret, expect);
	if (!ret)
		d->grp[m].live = false;
}

static void do_set_target(struct cd *d, uint8_t b, uint8_t v, uint8_t sc)
{
	int m = pick_group(d, b), ret;
	uint64_t t = target_of(v, sc);

	if (m == CD_NONE) {
		CHECK(iolat_group_set_target(iolat_ctl_root(d->ctl), t) == -EINVAL,
		      "set_target on the root accepted");
		return;
	}
	ret = iolat_group_set_target(d->grp[m].g, t);
	trace(d, "set_target %d %" PRIu64 " -> %d", m, t, ret);
	CHECK(ret == 0, "set_target group %d: %d", m, ret);
	d->grp[m].target = t;
	CHECK(iolat_group_target(d->grp[m].g) == t, "group %d: target reads back wrong", m);
}

static void do_submit(struct cd *d, int m, uint8_t fb)
{
	unsigned flags = fb & 0x0fu;
	bool no_waiter = fb & 0x10, at = fb & 0x20;
	bool bypass = flags & (IOLAT_IO_SWAP | IOLAT_IO_META | IOLAT_IO_ROOT);
	bool may_wait = !no_waiter && !(flags & IOLAT_IO_NOWAIT);
	int i = free_io(d), ret;
	struct iolat_group *g;
	struct cd_io *c;

	if (i < 0 || m == CD_NONE || d->submits >= CD_MAX_SUBMITS)
		return;
	d->submits++;
	c = &d->io[i];
	g = gptr(d, m);
	c->state = CDI_SUBMITTING;
	c->grp = m;
	c->flags = flags;
	c->grants = 0;
	c->cancelled = false;
	c->used = true;
	c->tracked = model_enabled(d) && m != CD_ROOT;
	c->w.granted = cd_granted;
	/* The adaptive mode's pace gate, as the runner asks it (its answer is
	 * not obeyed here: the ops decide the timing). */
	if (!bypass)
		(void)iolat_group_pace_due(g, 4096u << (fb >> 6), d->now);
	if (at)
		ret = iolat_throttle_async_at(g, flags, &c->io, no_waiter ? NULL : &c->w, d->now);
	else
		ret = iolat_throttle_async(g, flags, &c->io, no_waiter ? NULL : &c->w);
	trace(d, "submit io %d group %d flags %#x%s%s -> %d", i, m, flags,
	      no_waiter ? " no-waiter" : "", at ? " at" : "", ret);
	CHECK(c->grants == 0, "io %d granted during its own submit (ret %d)", i, ret);
	if (ret == 0 || ret == IOLAT_QUEUED)
		CHECK(!!(c->io.state_ & IO_TRACKED) == c->tracked,
		      "io %d tracked %d, model %d", i, !!(c->io.state_ & IO_TRACKED), c->tracked);
	if (ret == 0) {
		c->state = CDI_ADMITTED;
	} else if (ret == IOLAT_QUEUED) {
		CHECK(c->tracked && !bypass && may_wait,
		      "io %d queued (tracked %d bypass %d may_wait %d)", i, c->tracked, bypass,
		      may_wait);
		c->state = CDI_QUEUED;
	} else if (ret == -EAGAIN) {
		CHECK(c->tracked && !bypass && !may_wait,
		      "io %d -EAGAIN (tracked %d bypass %d may_wait %d)", i, c->tracked, bypass,
		      may_wait);
		c->state = CDI_FREE;
	} else {
		CHECK(0, "submit io %d: unexpected %d", i, ret);
		c->state = CDI_FREE;
	}
}

/* kind: 0 iolat_done, 1 iolat_done_at, 2 iolat_done_unissued */
static void complete_io(struct cd *d, int i, int kind)
{
	struct cd_io *c = &d->io[i];

	c->state = CDI_FREE; /* before the call: a grant of this I/O inside it is a bug */
	trace(d, "%s io %d (group %d)", kind == 2 ? "done_unissued" : kind ? "done_at" : "done",
	      i, c->grp);
	if (kind == 2)
		iolat_done_unissued(&c->io);
	else if (kind == 1)
		iolat_done_at(&c->io, d->now);
	else
		iolat_done(&c->io);
}

static void do_done(struct cd *d, uint8_t b, bool unissued)
{
	int i = pick_io(d, b, CDI_ADMITTED);

	if (i >= 0)
		complete_io(d, i, unissued ? 2 : (b & 0x80) ? 1 : 0);
}

static void do_cancel(struct cd *d, uint8_t b)
{
	bool admitted = b & 0x80;
	int i = pick_io(d, b & 0x7f, admitted ? CDI_ADMITTED : CDI_QUEUED), ret;
	struct cd_io *c;

	if (i < 0)
		return;
	c = &d->io[i];
	ret = iolat_throttle_cancel(&c->io);
	trace(d, "cancel io %d (%s) -> %d", i, state_names[c->state], ret);
	CHECK(ret == (admitted ? -EALREADY : 0), "cancel io %d (%s): %d", i,
	      state_names[c->state], ret);
	if (ret == 0) {
		c->state = CDI_FREE;
		c->cancelled = true;
	}
}

static void do_set_nr_requests(struct cd *d, uint8_t b)
{
	uint32_t v = b < 224 ? b : 1u << (b - 224);
	uint32_t old = iolat_ctl_nr_requests(d->ctl);
	int ret = iolat_ctl_set_nr_requests(d->ctl, v);

	trace(d, "set_nr_requests %u -> %d", v, ret);
	if (!v) {
		CHECK(ret == -EINVAL, "set_nr_requests(0): %d", ret);
		CHECK(iolat_ctl_nr_requests(d->ctl) == old, "set_nr_requests(0) changed qd");
	} else {
		CHECK(ret == 0, "set_nr_requests(%u): %d", v, ret);
		CHECK(iolat_ctl_nr_requests(d->ctl) == v, "qd reads back %u, set %u",
		      iolat_ctl_nr_requests(d->ctl), v);
	}
}

static void do_delay(struct cd *d, uint8_t b, uint8_t slept)
{
	int m = b == 0xff ? CD_ROOT : pick_group(d, b);
	struct iolat_group *g;
	struct iolat_group_stat st;
	bool any_use = false;
	uint64_t due;

	if (m == CD_NONE)
		return;
	g = gptr(d, m);
	due = iolat_group_delay_due(g);
	for (int k = m; ; k = d->grp[k].parent) {
		iolat_group_stat(gptr(d, k), &st);
		any_use |= st.use_delay != 0;
		CHECK(st.use_delay >= 0, "group %d: use_delay %d", k, st.use_delay);
		if (k == CD_ROOT)
			break;
	}
	trace(d, "delay_due %d -> %" PRIu64, m, due);
	CHECK(iolat_group_congested(g) == any_use, "group %d: congested %d, use_delay %d", m,
	      iolat_group_congested(g), any_use);
	CHECK(due <= d->delay_cap, "group %d: delay due %" PRIu64 " above the cap %" PRIu64, m,
	      due, d->delay_cap);
	CHECK(!due || any_use, "group %d: delay due without use_delay", m);
	if (slept & 1)
		iolat_group_note_slept(g, due);
}

static void do_stat(struct cd *d, uint8_t b, uint8_t len)
{
	int m = b == 0xff ? CD_ROOT : pick_group(d, b);
	char full[512], small[256 + 16];
	int r, r2;

	if (m == CD_NONE)
		m = CD_ROOT;
	memset(small, 0xa5, sizeof(small));
	r = iolat_group_format_stat(gptr(d, m), small, len);
	r2 = iolat_group_format_stat(gptr(d, m), full, sizeof(full));
	CHECK(r > 0 && r == r2 && (size_t)r2 == strlen(full),
	      "format_stat: %d with %u bytes, %d with %zu (strlen %zu)", r, len, r2,
	      sizeof(full), strlen(full));
	for (size_t k = len; k < sizeof(small); k++)
		if ((unsigned char)small[k] != 0xa5) {
			CHECK(0, "format_stat wrote byte %zu of a %u-byte buffer", k, len);
			break;
		}
	if (len && r > 0) {
		size_t want = (size_t)r < len ? (size_t)r : len - 1u;

		CHECK(memchr(small, 0, len) && strlen(small) == want &&
		      !memcmp(small, full, want),
		      "format_stat with %u bytes: not the NUL-terminated prefix", len);
	}
}

static void do_done_again(struct cd *d, uint8_t b)
{
	for (int k = 0; k < d->nr_io; k++) {
		int i = (b + k) % d->nr_io;

		if (d->io[i].state == CDI_FREE && d->io[i].used) {
			trace(d, "done again io %d", i);
			if (b & 0x80)
				iolat_done_unissued(&d->io[i].io);
			else
				iolat_done(&d->io[i].io);
			return;
		}
	}
}

static void do_round(struct cd *d, uint8_t ga, uint8_t gb, uint8_t n, uint8_t adv)
{
	int a = pick_group(d, ga), b = pick_group(d, gb);
	int list[CD_MAX_IOS], nr = 0;

	for (int k = 0; k < n % 16 + 1; k++) {
		do_submit(d, a, 0);
		do_submit(d, b, 0);
	}
	d->now += amount_of(adv);
	for (int i = 0; i < d->nr_io; i++)
		if (d->io[i].state == CDI_ADMITTED)
			list[nr++] = i;
	for (int k = 0; k < nr && !d->failed; k++)
		if (d->io[list[k]].state == CDI_ADMITTED)
			complete_io(d, list[k], 0);
}

static void run_op(struct cd *d)
{
	switch (d->op) {
	case CD_CREATE: {
		uint8_t pb = arg(d);

		do_create(d, pb, arg(d));
		break;
	}
	case CD_DESTROY:
		do_destroy(d, arg(d));
		break;
	case CD_SET_TARGET: {
		uint8_t b = arg(d), v = arg(d);

		do_set_target(d, b, v, arg(d));
		break;
	}
	case CD_SUBMIT: {
		uint8_t b = arg(d);

		do_submit(d, b == 0xff ? CD_ROOT : pick_group(d, b), arg(d));
		break;
	}
	case CD_DONE:
		do_done(d, arg(d), false);
		break;
	case CD_DONE_UNISSUED:
		do_done(d, arg(d), true);
		break;
	case CD_CANCEL:
		do_cancel(d, arg(d));
		break;
	case CD_TICK:
		trace(d, "tick");
		iolat_ctl_tick(d->ctl);
		break;
	case CD_ADVANCE:
		d->now += amount_of(arg(d));
		break;
	case CD_SET_NR_REQ:
		do_set_nr_requests(d, arg(d));
		break;
	case CD_DELAY: {
		uint8_t b = arg(d);

		do_delay(d, b, arg(d));
		break;
	}
	case CD_STAT: {
		uint8_t b = arg(d);

		do_stat(d, b, arg(d));
		break;
	}
	case CD_DONE_AGAIN:
		do_done_again(d, arg(d));
		break;
	case CD_BURST: {
		uint8_t b = arg(d), n = arg(d);
		int m = pick_group(d, b);

		for (int k = 0; k < n % 32 + 1; k++)
			do_submit(d, m, 0);
		break;
	}
	case CD_ROUND: {
		uint8_t ga = arg(d), gb = arg(d), n = arg(d);

		do_round(d, ga, gb, n, arg(d));
		break;
	}
	default:
		break;
	}
}

/* Complete everything (which must grant every queued I/O), then remove every group. */
static void finish(struct cd *d)
{
	for (int pass = 0; pass < CD_MAX_IOS + 1 && !d->failed; pass++) {
		int list[CD_MAX_IOS], nr = 0;

		for (int i = 0; i < d->nr_io; i++)
			if (d->io[i].state == CDI_ADMITTED)
				list[nr++] = i;
		if (!nr)
			break;
		d->now += 1000;
		for (int k = 0; k < nr && !d->failed; k++)
			complete_io(d, list[k], 0);
		check_invariants(d);
	}
	for (int i = 0; i < d->nr_io && !d->failed; i++)
		CHECK(d->io[i].state == CDI_FREE, "at the end io %d is still %s (never granted)",
		      i, state_names[d->io[i].state]);
	check_invariants(d);
	while (!d->failed && nr_live(d)) {
		for (int m = 0; m < CD_MAX_GROUPS && !d->failed; m++) {
			bool leaf = d->grp[m].live;
			int ret;

			for (int k = 0; k < CD_MAX_GROUPS && leaf; k++)
				if (d->grp[k].live && d->grp[k].parent == m)
					leaf = false;
			if (!leaf)
				continue;
			ret = iolat_group_destroy(d->grp[m].g);
			CHECK(ret == 0, "at the end: destroy idle group %d: %d", m, ret);
			d->grp[m].live = false;
		}
	}
	if (!d->failed)
		check_invariants(d);
}

int ctl_driver_run(const uint8_t *data, size_t size, unsigned flags,
		   char *msg, size_t msglen)
{
	static const uint64_t caps[] = { 0, 1000000, 10000000, 1000000000ull };
	struct iolat_ctl_config cfg = { 0 };
	struct cd *d = calloc(1, sizeof(*d));
	uint8_t h0, h1, h2, h3;
	bool failed;
	int ret;

	if (msg && msglen)
		msg[0] = '\0';
	if (!d) {
		if (msg && msglen)
			snprintf(msg, msglen, "out of memory");
		return -1;
	}
	d->p = data;
	d->end = data + size;
	d->flags = flags;
	d->msg = msg;
	d->msglen = msglen;
	d->op = -1;
	h0 = arg(d);
	h1 = arg(d);
	h2 = arg(d);
	h3 = arg(d);
	d->now = (uint64_t)h3 * 10000000ull;
	d->clock = (struct iolat_clock){ .now_ns = cd_now, .ctx = d };
	d->max_groups = 1u + h2 % CD_MAX_GROUPS;
	d->delay_cap = caps[(h1 >> 5) & 3] ? caps[(h1 >> 5) & 3] : IOLAT_DELAY_CAP_NS;
	cfg.nr_requests = h0;                   /* 0: the default, 64 */
	cfg.rotational = h1 & 1;
	cfg.flags = (h1 & 2 ? IOLAT_CTL_COMPAT_B1 : 0) | (h1 & 4 ? IOLAT_CTL_COMPAT_TIMER : 0);
	if (h1 & 0x80)  /* the adaptive mode (which has no kernel timer) */
		cfg.flags = (cfg.flags & ~IOLAT_CTL_COMPAT_TIMER) | IOLAT_CTL_ADAPTIVE;
	cfg.nr_stat_slots = 1u << ((h1 >> 3) & 3);
	cfg.max_groups = d->max_groups;
	cfg.delay_cap_ns = caps[(h1 >> 5) & 3];
	cfg.clock = &d->clock;
	for (int i = 0; i < CD_MAX_IOS; i++) {
		d->io[i].d = d;
		atomic_init(&d->io[i].io.wait_level_, IOLAT_NO_GROUP);
	}
	ret = iolat_ctl_create(&cfg, &d->ctl);
	trace(d, "ctl qd %u rot %d flags %#x slots %u groups %u cap %" PRIu64, h0,
	      cfg.rotational, cfg.flags, cfg.nr_stat_slots, cfg.max_groups, d->delay_cap);
	if (ret) {
		CHECK(0, "iolat_ctl_create: %d", ret);
		free(d);
		return -1;
	}
	CHECK(iolat_ctl_nr_requests(d->ctl) == (h0 ? h0 : 64u), "nr_requests %u",
	      iolat_ctl_nr_requests(d->ctl));
	check_invariants(d);
	while (!d->failed && have_byte(d)) {
		d->op = arg(d) % CD_NR_OPS;
		d->step++;
		run_op(d);
		if (!d->failed)
			check_invariants(d);
	}
	d->op = -1;
	if (!d->failed)
		finish(d);
	iolat_ctl_destroy(d->ctl);
	failed = d->failed;
	free(d);
	return failed ? -1 : 0;
}
