/* SPDX-License-Identifier: MIT */
/*
 * check.c - the debug invariant check, iolat_ctl_check_invariants(): walks
 * every group in use and checks what the design makes invariant at every
 * moment, even while I/O, ticks and reconfiguration run (src/core/admit.c):
 *
 *  - no counter wrapped ("negative"): the in-flight count (inflight plus the
 *    per-thread locals, folded exactly: inflight.c), nwait below 2^30, delay
 *    below 2^62;
 *  - nwait equals the wait queue's length (under wq_lock), wq.tail is its last
 *    waiter, and each queued waiter belongs to a tracked I/O of this controller
 *    that waits at this level and was issued in this group's subtree;
 *  - the root never holds a slot, has no waiter, is never clamped;
 *  - max_depth >= 1; a level counting distributed is unlimited; cookies never
 *    above the default; use_delay >= 0;
 *  - the tree: parents in use and acyclic, nr_children counts the children in
 *    use (exactly for arenas up to 4096 records, else as a sum over all),
 *    enable_cnt counts the groups with a target; scale_grp is a child.
 *
 * What it does NOT check, because it is not invariant under load: a level with
 * waiters is full (a completion releases its slot before it wakes the next
 * waiter; a scale-up raises the depth before it grants), inflight <= max_depth
 * (bypass I/O and scale-downs exceed it), parent inflight >= sum of children's
 * (an I/O waiting at the parent holds the child's slot only, and admission
 * takes child then parent). Those are exact only on a quiescent controller,
 * where the caller can read iolat_group_stat() (inflight and waiters 0).
 *
 * No stdio in the core: the reason is assembled by hand.
 * Context: any thread, concurrently with any other call except
 * iolat_ctl_destroy(). Takes tree_lock, then one group's depth_lock,
 * child_lock or wq_lock at a time (the core's order); O(groups^2) for the
 * children count. Reading a distributed level's exact count folds it: a
 * short wait for threads inside their fast path (inflight.c).
 */
#include <errno.h>
#include <string.h>

#include "core/ctl.h"

#define CHECK_WRAP (1u << 30)          /* a 32-bit counter above this went "negative" */
#define CHECK_DELAY_WRAP (1ull << 62)
#define CHECK_EXACT_CHILDREN 4096u     /* arenas up to this size get the exact count */

struct check {
	struct iolat_ctl *ctl;
	char *why;
	size_t len, pos;
	bool bad;
};

static void put_str(struct check *c, const char *s)
{
	for (; *s; s++) {
		if (c->why && c->pos + 1 < c->len)
			c->why[c->pos] = *s;
		c->pos++;
	}
	if (c->why && c->len)
		c->why[c->pos < c->len ? c->pos : c->len - 1] = '\0';
}

static void put_u64(struct check *c, uint64_t v)
{
	char d[24];
	int i = (int)sizeof(d) - 1;

	d[i] = '\0';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_str(c, &d[i]);
}

/*
 * Record the first violation: "group IDX (NAME): WHAT[ VALUE]". Returns
 * true so that callers can write "return fail(...)".
 */
static bool fail(struct check *c, const struct iolat_group *g, const char *what,
		 bool with_value, uint64_t value)
{
	if (c->bad)
		return true;
	c->bad = true;
	if (g) {
		put_str(c, "group ");
		put_u64(c, g->idx);
		put_str(c, g->idx == IOLAT_ROOT_IDX ? " (root)" : " (");
		if (g->idx != IOLAT_ROOT_IDX) {
			put_str(c, g->name);
			put_str(c, ")");
		}
		put_str(c, ": ");
	}
	put_str(c, what);
	if (with_value) {
		put_str(c, " ");
		put_u64(c, value);
	}
	return true;
}

/* Is @anc on the path from @idx up to the root (both included)? */
static bool on_path(const struct iolat_ctl *ctl, uint32_t idx, uint32_t anc)
{
	for (uint32_t steps = 0; idx < ctl->nr_groups && steps <= ctl->nr_groups; steps++) {
		if (idx == anc)
			return true;
		idx = atomic_load(&grp_at(ctl, idx)->parent);
	}
	return false;
}

static bool used(const struct iolat_group *g)
{
	/* Acquire: pairs with ctl.c's release stores of used (create, destroy). */
	return atomic_load_explicit(&g->used, memory_order_acquire) != 0;
}

/*
 * The tree and enable_cnt. Caller holds tree_lock. Parents first, so that a
 * broken parent link is named rather than the child count it upsets.
 */
static void check_tree(struct check *c)
{
	struct iolat_ctl *ctl = c->ctl;
	uint32_t n = ctl->nr_groups, enabled = 0;
	uint64_t nonroot = 0, sum_children = 0;

	for (uint32_t i = 0; i < n && !c->bad; i++) {
		struct iolat_group *g = grp_at(ctl, i);
		uint32_t p = atomic_load(&g->parent);

		if (!used(g))
			continue;
		if (atomic_load(&g->target_ns))
			enabled++;
		if (i == IOLAT_ROOT_IDX) {
			if (p != IOLAT_NO_GROUP)
				fail(c, g, "the root has a parent", true, p);
			else if (atomic_load(&g->target_ns))
				fail(c, g, "the root has a target", false, 0);
			continue;
		}
		nonroot++;
		if (p >= n || p == i || !used(grp_at(ctl, p)))
			fail(c, g, "bad parent", true, p);
		else if (!on_path(ctl, i, IOLAT_ROOT_IDX))
			fail(c, g, "not under the root (a cycle)", false, 0);
	}
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		struct iolat_group *g = grp_at(ctl, i);
		uint32_t nch = 0;

		if (!used(g))
			continue;
		sum_children += atomic_load(&g->nr_children);
		if (n > CHECK_EXACT_CHILDREN)
			continue;   /* the sum below only: no O(n^2) walk of a huge arena */
		for (uint32_t k = 1; k < n; k++)
			if (k != i && used(grp_at(ctl, k)) && atomic_load(&grp_at(ctl, k)->parent) == i)
				nch++;
		if (atomic_load(&g->nr_children) != nch)
			fail(c, g, "nr_children differs from the children in use, counted", true, nch);
	}
	if (!c->bad && sum_children != nonroot)
		fail(c, NULL, "the groups' nr_children add up to", true, sum_children);
	if (!c->bad && (uint32_t)atomic_load(&ctl->enable_cnt) != enabled)
		fail(c, NULL, "enable_cnt differs from the groups with a target, counted", true,
		     enabled);
}

/* @g's wait queue against nwait, under its lock. */
static void check_queue(struct check *c, struct iolat_group *g)
{
	struct iolat_ctl *ctl = c->ctl;
	struct iolat_waiter *w, *last = NULL;
	uint32_t nwait, cnt = 0;

	iolat_spin_lock(&g->wq_lock);
	nwait = atomic_load(&g->nwait);
	for (w = iolat_waitq_peek(&g->wq); w && !c->bad; w = w->next_) {
		const struct iolat_io *io = w->io_;

		if (++cnt > nwait) {
			fail(c, g, "wait queue longer than nwait", true, nwait);
			break;
		}
		last = w;
		if (!io || io->waiter_ != w || io->ctl_ != ctl)
			fail(c, g, "a queued waiter does not belong to its I/O", false, 0);
		else if (atomic_load(&((struct iolat_io *)io)->wait_level_) != g->idx)
			fail(c, g, "a queued I/O names another wait level:", true,
			     atomic_load(&((struct iolat_io *)io)->wait_level_));
		else if (!(io->state_ & IO_TRACKED))
			fail(c, g, "a queued I/O is not tracked", false, 0);
		else if (io->group_ >= ctl->nr_groups || !on_path(ctl, io->group_, g->idx))
			fail(c, g, "a queued I/O comes from outside the subtree, group", true,
			     io->group_);
	}
	if (!c->bad && !w && cnt != nwait)
		fail(c, g, "nwait differs from the wait queue's length", true, cnt);
	if (!c->bad && !w && g->wq.tail != last)
		fail(c, g, "wq_tail is not the last waiter", false, 0);
	iolat_spin_unlock(&g->wq_lock);
}

static void check_group(struct check *c, struct iolat_group *g)
{
	struct iolat_ctl *ctl = c->ctl;
	uint32_t inflight = iolat_inflight_exact(g), nwait = atomic_load(&g->nwait);
	uint32_t depth = atomic_load(&g->max_depth), sg;
	bool root = g->idx == IOLAT_ROOT_IDX;

	if (inflight >= CHECK_WRAP)
		fail(c, g, "inflight wrapped:", true, inflight);
	else if (nwait >= CHECK_WRAP)
		fail(c, g, "nwait wrapped:", true, nwait);
	else if (root && (inflight || nwait))
		fail(c, g, "the root holds slots or waiters, inflight", true, inflight);
	else if (root && depth != IOLAT_DEPTH_MAX)
		fail(c, g, "the root is clamped, depth", true, depth);
	else if (depth == 0)
		fail(c, g, "max_depth is 0", false, 0);
	else if (atomic_load(&g->mode) == IOLAT_MODE_DIST && depth != IOLAT_DEPTH_MAX)
		fail(c, g, "counts distributed (per thread) but is clamped, depth", true, depth);
	else if (atomic_load(&g->child_cookie) > IOLAT_DEFAULT_COOKIE)
		fail(c, g, "child_cookie above the default:", true, atomic_load(&g->child_cookie));
	else if (atomic_load(&g->scale_cookie) > IOLAT_DEFAULT_COOKIE)
		fail(c, g, "scale_cookie above the default:", true, atomic_load(&g->scale_cookie));
	else if (root && atomic_load(&g->scale_cookie) != IOLAT_DEFAULT_COOKIE)
		fail(c, g, "the root's scale_cookie moved:", true, atomic_load(&g->scale_cookie));
	else if (atomic_load(&g->use_delay) < 0)
		fail(c, g, "use_delay is negative", false, 0);
	else if (atomic_load(&g->delay_nsec) >= CHECK_DELAY_WRAP)
		fail(c, g, "delay_nsec wrapped:", true, atomic_load(&g->delay_nsec));
	if (c->bad)
		return;

	iolat_spin_lock(&g->child_lock);
	sg = atomic_load(&g->scale_grp);
	if (sg != IOLAT_NO_GROUP &&
	    (sg >= ctl->nr_groups || !used(grp_at(ctl, sg)) ||
	     atomic_load(&grp_at(ctl, sg)->parent) != g->idx))
		fail(c, g, "scale_grp is not a child in use:", true, sg);
	iolat_spin_unlock(&g->child_lock);
	if (!c->bad)
		check_queue(c, g);
}

int iolat_ctl_check_invariants(struct iolat_ctl *ctl, char *err, size_t errlen)
{
	struct check c = { .ctl = ctl, .why = err, .len = errlen };

	if (err && errlen)
		err[0] = '\0';
	if (!ctl)
		return -EINVAL;
	iolat_spin_lock(&ctl->tree_lock);
	check_tree(&c);
	for (uint32_t i = 0; i < ctl->nr_groups && !c.bad; i++) {
		struct iolat_group *g = grp_at(ctl, i);

		if (used(g))
			check_group(&c, g);
	}
	iolat_spin_unlock(&ctl->tree_lock);
	return c.bad ? -EUCLEAN : 0;
}
