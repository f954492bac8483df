/* SPDX-License-Identifier: MIT */
/*
 * t_stress.c - the debug invariant checker and slot accounting of
 * t_stress.h, white-box over src/core/ctl.h. What it checks is what the
 * design makes invariant (src/core/admit.c), nothing more: bypass I/O may
 * exceed max_depth, a scale-down may leave inflight above the new depth, and
 * while an I/O of a child waits at its parent it holds the child's slot but
 * not the parent's, so "parent >= sum of children" holds only counting the
 * parent's waiters, and only with no core call in progress (t_check_holdings
 * checks the exact form).
 *
 * Context: see t_stress.h. The checker takes ctl->tree_lock, then one
 * group's child_lock or wq_lock at a time (the core's order: tree_lock before
 * child_lock; wq_lock is a leaf lock). t_dump_groups() takes no lock, so a
 * watchdog may call it while the controller is wedged.
 */
#include "t_stress.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ctl.h"

#define T_WRAP (1u << 30) /* a counter above this went "negative" */

struct t_inv {
	unsigned flags;
	int bad;
};

static void t_inv_fail(struct t_inv *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void t_inv_fail(struct t_inv *c, const char *fmt, ...)
{
	va_list ap;

	c->bad++;
	if (c->flags & T_INV_QUIET)
		return;
	fputs("invariant: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint32_t t_inv_nr_groups(const struct iolat_ctl *ctl)
{
	return ctl->nr_groups;
}

uint32_t t_inv_group_idx(const struct iolat_group *g)
{
	return g->idx;
}

bool t_inv_io_tracked(const struct iolat_io *io)
{
	return io->state_ & IO_TRACKED;
}

bool t_inv_io_waited(const struct iolat_io *io)
{
	return io->state_ & IO_QUEUED;
}

uint32_t t_inv_io_wait_level(const struct iolat_io *io)
{
	return atomic_load(&((struct iolat_io *)io)->wait_level_);
}

/* Is @anc on the path from @idx up to the root (both included)? */
static bool t_on_path(struct iolat_ctl *ctl, uint32_t idx, uint32_t anc)
{
	for (uint32_t steps = 0; idx != IOLAT_NO_GROUP && idx < ctl->nr_groups &&
	     steps <= ctl->nr_groups; steps++) {
		if (idx == anc)
			return true;
		idx = atomic_load(&grp_at(ctl, idx)->parent);
	}
	return false;
}

/* The tree: parents used and acyclic, nr_children, enable_cnt. Under tree_lock. */
static void t_check_tree(struct iolat_ctl *ctl, struct t_inv *c)
{
	uint32_t n = ctl->nr_groups, enabled = 0;
	uint32_t *nch = calloc(n, sizeof(*nch));

	if (!nch) {
		t_inv_fail(c, "out of memory");
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct iolat_group *g = grp_at(ctl, i);
		uint32_t p = atomic_load(&g->parent);

		if (!atomic_load(&g->used))
			continue;
		if (atomic_load(&g->target_ns))
			enabled++;
		if (i == IOLAT_ROOT_IDX) {
			if (p != IOLAT_NO_GROUP)
				t_inv_fail(c, "root has parent %u", p);
			if (atomic_load(&g->target_ns))
				t_inv_fail(c, "root has a target");
			continue;
		}
		if (p >= n || p == i || !atomic_load(&grp_at(ctl, p)->used)) {
			t_inv_fail(c, "group %u (%s): bad parent %u", i, g->name, p);
			continue;
		}
		if (!t_on_path(ctl, i, IOLAT_ROOT_IDX))
			t_inv_fail(c, "group %u (%s): not under the root (cycle?)", i, g->name);
		nch[p]++;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct iolat_group *g = grp_at(ctl, i);

		if (atomic_load(&g->used) && atomic_load(&g->nr_children) != nch[i])
			t_inv_fail(c, "group %u (%s): nr_children %u, counted %u", i, g->name,
				   atomic_load(&g->nr_children), nch[i]);
	}
	if ((uint32_t)atomic_load(&ctl->enable_cnt) != enabled)
		t_inv_fail(c, "enable_cnt %d but %u groups have a target",
			   atomic_load(&ctl->enable_cnt), enabled);
	free(nch);
}

/* The wait queue of @g against nwait, under its lock. */
static void t_check_queue(struct iolat_ctl *ctl, struct iolat_group *g, struct t_inv *c)
{
	struct iolat_waiter *w, *last = NULL;
	uint32_t nwait, cnt = 0;

	iolat_spin_lock(&g->wq_lock);
	nwait = atomic_load(&g->nwait);
	for (w = g->wq.head; w; w = w->next_) {
		struct iolat_io *io = w->io_;

		if (++cnt > nwait) {
			t_inv_fail(c, "group %u (%s): queue longer than nwait %u", g->idx, g->name,
				   nwait);
			break;
		}
		last = w;
		if (!io || io->waiter_ != w || io->ctl_ != ctl) {
			t_inv_fail(c, "group %u (%s): waiter %p has io %p (waiter %p)", g->idx,
				   g->name, (void *)w, (void *)io, io ? (void *)io->waiter_ : NULL);
			continue;
		}
		if (atomic_load(&io->wait_level_) != g->idx)
			t_inv_fail(c, "group %u (%s): queued io has wait_level %u", g->idx, g->name,
				   atomic_load(&io->wait_level_));
		if (!(io->state_ & IO_TRACKED))
			t_inv_fail(c, "group %u (%s): queued io not tracked", g->idx, g->name);
		if (io->group_ >= ctl->nr_groups || !t_on_path(ctl, io->group_, g->idx))
			t_inv_fail(c, "group %u (%s): queued io of group %u, not in its subtree",
				   g->idx, g->name, io->group_);
	}
	if (cnt < nwait && !w)
		t_inv_fail(c, "group %u (%s): nwait %u but %u queued", g->idx, g->name, nwait, cnt);
	if (!w && g->wq.tail != last)
		t_inv_fail(c, "group %u (%s): wq_tail %p, last %p", g->idx, g->name,
			   (void *)g->wq.tail, (void *)last);
	iolat_spin_unlock(&g->wq_lock);
}

static void t_check_group(struct iolat_ctl *ctl, struct iolat_group *g, uint32_t qd,
			  struct t_inv *c)
{
	/* The in-flight count is inflight plus the per-thread locals: exact. */
	uint32_t inflight = iolat_inflight_exact(g), nwait = atomic_load(&g->nwait);
	uint32_t depth = atomic_load(&g->max_depth);
	/* The cookie never goes more than 2 qd below the default (scale.c). */
	uint32_t floor = 2ull * qd >= IOLAT_DEFAULT_COOKIE ? 0 : IOLAT_DEFAULT_COOKIE - 2 * qd;
	uint32_t cc, sc, sg;
	bool fixed = c->flags & T_INV_FIXED_QD;

	if (inflight >= T_WRAP)
		t_inv_fail(c, "group %u (%s): inflight %u (wrapped)", g->idx, g->name, inflight);
	if (nwait >= T_WRAP)
		t_inv_fail(c, "group %u (%s): nwait %u (wrapped)", g->idx, g->name, nwait);
	if ((c->flags & T_INV_IDLE) && (inflight || nwait))
		t_inv_fail(c, "group %u (%s): idle but inflight %u nwait %u", g->idx, g->name,
			   inflight, nwait);
	if (g->idx == IOLAT_ROOT_IDX && (inflight || nwait || depth != IOLAT_DEPTH_MAX))
		t_inv_fail(c, "root: inflight %u nwait %u depth %u (the root never throttles)",
			   inflight, nwait, depth);
	if (depth == 0 || (fixed && depth != IOLAT_DEPTH_MAX && depth > qd))
		t_inv_fail(c, "group %u (%s): max_depth %u (qd %u)", g->idx, g->name, depth, qd);

	cc = atomic_load(&g->child_cookie);
	sc = atomic_load(&g->scale_cookie);
	if (cc > IOLAT_DEFAULT_COOKIE || (fixed && cc < floor))
		t_inv_fail(c, "group %u (%s): child_cookie %u out of [%u, %u]", g->idx, g->name,
			   cc, floor, IOLAT_DEFAULT_COOKIE);
	if (sc > IOLAT_DEFAULT_COOKIE || (fixed && sc < floor))
		t_inv_fail(c, "group %u (%s): scale_cookie %u out of [%u, %u]", g->idx, g->name,
			   sc, floor, IOLAT_DEFAULT_COOKIE);
	if (g->idx == IOLAT_ROOT_IDX && sc != IOLAT_DEFAULT_COOKIE)
		t_inv_fail(c, "root: scale_cookie %u", sc);
	if (atomic_load(&g->use_delay) < 0)
		t_inv_fail(c, "group %u (%s): use_delay %d", g->idx, g->name,
			   atomic_load(&g->use_delay));
	if (atomic_load(&g->delay_nsec) >= (1ull << 62))
		t_inv_fail(c, "group %u (%s): delay_nsec %llu (wrapped)", g->idx, g->name,
			   (unsigned long long)atomic_load(&g->delay_nsec));

	iolat_spin_lock(&g->child_lock);
	sg = atomic_load(&g->scale_grp);
	if (sg != IOLAT_NO_GROUP &&
	    (sg >= ctl->nr_groups || !atomic_load(&grp_at(ctl, sg)->used) ||
	     atomic_load(&grp_at(ctl, sg)->parent) != g->idx))
		t_inv_fail(c, "group %u (%s): scale_grp %u is not a child", g->idx, g->name, sg);
	iolat_spin_unlock(&g->child_lock);

	t_check_queue(ctl, g, c);
	if ((c->flags & T_INV_IDLE) && (g->wq.head || g->wq.tail))
		t_inv_fail(c, "group %u (%s): idle but the wait queue is not empty", g->idx,
			   g->name);
}

int t_check_invariants_ex(struct iolat_ctl *ctl, unsigned flags)
{
	struct t_inv c = { .flags = flags };
	uint32_t qd = atomic_load(&ctl->qd);

	iolat_spin_lock(&ctl->tree_lock);
	t_check_tree(ctl, &c);
	for (uint32_t i = 0; i < ctl->nr_groups; i++) {
		struct iolat_group *g = grp_at(ctl, i);

		if (atomic_load_explicit(&g->used, memory_order_acquire))
			t_check_group(ctl, g, qd, &c);
	}
	iolat_spin_unlock(&ctl->tree_lock);
	return c.bad;
}

int t_check_invariants(struct iolat_ctl *ctl)
{
	return t_check_invariants_ex(ctl, 0);
}

int t_check_idle(struct iolat_ctl *ctl)
{
	return t_check_invariants_ex(ctl, T_INV_IDLE);
}

bool t_inv_io_account(const struct iolat_io *io, uint32_t *inflight, uint32_t *nwait)
{
	struct iolat_ctl *ctl = io->ctl_;
	struct iolat_group *lvl;
	uint32_t wl;

	if (!(io->state_ & IO_TRACKED))
		return true;
	wl = atomic_load(&((struct iolat_io *)io)->wait_level_);
	for (lvl = grp_at(ctl, io->group_); lvl && lvl->idx != IOLAT_ROOT_IDX;
	     lvl = grp_parent(lvl)) {
		if (lvl->idx == wl) {
			nwait[wl]++;
			return true;
		}
		inflight[lvl->idx]++;
	}
	return wl == IOLAT_NO_GROUP;
}

int t_check_holdings(struct iolat_ctl *ctl, const uint32_t *inflight, const uint32_t *nwait)
{
	int bad = 0;

	for (uint32_t i = 0; i < ctl->nr_groups; i++) {
		struct iolat_group *g = grp_at(ctl, i);
		uint32_t fl, nw;

		if (!atomic_load(&g->used))
			continue;
		fl = iolat_inflight_exact(g);
		nw = atomic_load(&g->nwait);
		if (fl != inflight[i] || nw != nwait[i]) {
			fprintf(stderr, "holdings: group %u (%s): inflight %u nwait %u, "
				"but the live I/Os hold %u and wait %u\n",
				i, g->name, fl, nw, inflight[i], nwait[i]);
			bad++;
		}
	}
	return bad;
}

static void t_path(struct iolat_ctl *ctl, uint32_t idx, char *buf, size_t len)
{
	uint32_t chain[32], n = 0;
	size_t pos = 0;

	buf[0] = '\0';
	while (idx != IOLAT_ROOT_IDX && idx < ctl->nr_groups && n < 32) {
		chain[n++] = idx;
		idx = atomic_load(&grp_at(ctl, idx)->parent);
	}
	while (n-- && pos + 1 < len) {
		int w = snprintf(buf + pos, len - pos, "%s%s", pos ? "/" : "",
				 grp_at(ctl, chain[n])->name);
		if (w < 0)
			break;
		pos += (size_t)w;
	}
}

void t_dump_groups(struct iolat_ctl *ctl, FILE *f)
{
	for (uint32_t i = 0; i < ctl->nr_groups; i++) {
		struct iolat_group *g = grp_at(ctl, i);
		uint32_t depth = atomic_load(&g->max_depth);
		char path[160], dbuf[16];

		if (!atomic_load(&g->used))
			continue;
		t_path(ctl, i, path, sizeof(path));
		if (depth == IOLAT_DEPTH_MAX)
			snprintf(dbuf, sizeof(dbuf), "max");
		else
			snprintf(dbuf, sizeof(dbuf), "%u", depth);
		fprintf(f, "  [%u] %s target_ns=%llu depth=%s inflight=%u nwait=%u cookie=%u "
			   "child_cookie=%u scale_grp=%d use_delay=%d scale_downs=%llu "
			   "scale_ups=%llu throttled_ms=%.1f\n",
			i, i ? path : "(root)", (unsigned long long)atomic_load(&g->target_ns),
			dbuf, iolat_inflight_sum(g), atomic_load(&g->nwait),
			atomic_load(&g->scale_cookie), atomic_load(&g->child_cookie),
			(int)atomic_load(&g->scale_grp), atomic_load(&g->use_delay),
			(unsigned long long)atomic_load(&g->scale_downs),
			(unsigned long long)atomic_load(&g->scale_ups),
			(double)atomic_load(&g->throttled_ns) / 1e6);
	}
	fflush(f);
}

uint64_t t_stress_env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return def;
	if (*end == 'k' || *end == 'K')
		v *= 1000, end++;
	else if (*end == 'm' || *end == 'M')
		v *= 1000000, end++;
	return *end || !v ? def : v;
}

bool t_stress_env_flag(const char *name)
{
	const char *s = getenv(name);

	return s && !strcmp(s, "1");
}

#if defined(__SANITIZE_THREAD__)
#define T_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define T_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif

bool t_stress_under_tsan(void)
{
#ifdef T_TSAN
	return true;
#else
	return false;
#endif
}

bool t_stress_under_asan(void)
{
#ifdef T_ASAN
	return true;
#else
	return false;
#endif
}

uint64_t t_stress_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
