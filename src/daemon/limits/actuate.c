/* SPDX-License-Identifier: MIT */
/*
 * actuate.c - writing one cgroup's limits on one device and keeping the
 * administrator's (actuate.h).
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/limits/actuate.h"

void iolatd_act_init(struct act *a, const char *cgdir, dev_t dev)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->cgdir, sizeof(a->cgdir), "%s", cgdir);
	a->dev = dev;
	a->staged = true;
}

uint64_t iolatd_act_min_limit(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

uint64_t iolatd_act_limited_ns(const struct act *a, uint64_t now)
{
	return a->limited_ns + (a->active && now > a->active_since_ns ? now - a->active_since_ns : 0);
}

static bool all_zero(const struct cg_limits *l)
{
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (l->v[k])
			return false;
	return true;
}

/* Every kind within the dead band of what is written, and none appearing or vanishing. */
static bool close_enough(const struct cg_limits *a, const struct cg_limits *b, uint32_t band_pm)
{
	uint32_t band = band_pm ? band_pm : ACT_BAND_PM;

	for (int k = 0; k < CG_NR_LIMITS; k++) {
		uint64_t x = a->v[k], y = b->v[k], d = x > y ? x - y : y - x;

		if (!x != !y || d > y / 1000 * band + y % 1000 * band / 1000)
			return false;
	}
	return true;
}

/*
 * The file no longer holds what we wrote for a kind: someone else (the
 * administrator) set it. Their value becomes the administrator's.
 */
static void adopt_foreign(struct act *a, const struct cgfs_root *root, bool dry_run)
{
	struct cg_limits cur;

	if (dry_run || iolatd_cgfs_read_limits(root, a->cgdir, a->dev, &cur))
		return;
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (cur.v[k] != a->written.v[k])
			a->admin.v[k] = a->written.v[k] = cur.v[k];
}

static int do_write(struct act *a, const struct cgfs_root *root, const struct cg_limits *l,
		    uint64_t now, bool dry_run)
{
	int err = dry_run ? 0 : iolatd_cgfs_write_limits(root, a->cgdir, a->dev, l, NULL);

	a->last_write_ns = now;
	/*
	 * Even after a failure: a v1 write is four files, some may have taken.
	 * The kinds that did not then read as foreign and keep the
	 * administrator's value (adopt_foreign), which is what they hold.
	 */
	a->written = *l;
	if (err) {
		a->write_errors++;
		a->last_error = err;
		return err;
	}
	a->writes++;
	return 1;
}

/* Does @next lower a kind that @cur limits? */
static bool lowers(const struct cg_limits *next, const struct cg_limits *cur)
{
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (cur->v[k] && next->v[k] && next->v[k] < cur->v[k])
			return true;
	return false;
}

/* Does @next limit a kind that @cur does not? */
static bool opens(const struct cg_limits *next, const struct cg_limits *cur)
{
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (!cur->v[k] && next->v[k])
			return true;
	return false;
}

/* No kind lowered below half its value in force in one write (kept a multiple of ACT_ROUND). */
static void clamp_step(struct cg_limits *next, const struct cg_limits *cur)
{
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (cur->v[k] && next->v[k] && next->v[k] < cur->v[k] / 2)
			next->v[k] = (cur->v[k] / 2 + ACT_ROUND - 1) / ACT_ROUND * ACT_ROUND;
}

/* Write @l without changing what is recorded as ours (the same values, or values binding nothing). */
static int write_staged(struct act *a, const struct cgfs_root *root, const struct cg_limits *l,
			enum act_pending pending, uint64_t now, bool dry_run, void (*before_write)(void *ctx),
			void *ctx)
{
	struct cg_limits keep = a->written;
	int ret;

	if (pending == ACT_FOLD) { /* recorded first: a crash must not leave the opening behind */
		a->before = keep;
		a->written = *l;
		if (before_write)
			before_write(ctx);
		a->written = keep;
		memset(&a->before, 0, sizeof(a->before));
	}
	if ((ret = do_write(a, root, l, now, dry_run)) < 0)
		return ret;
	a->pending = pending;
	a->primed_ns = now;
	if (pending == ACT_FOLD)
		a->opens++;
	else
		a->primes++;
	return ret;
}

/* The values in force written again: the throttle starts a new slice now. */
static int prime(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run)
{
	struct cg_limits same = a->written;

	return write_staged(a, root, &same, ACT_LOWER, now, dry_run, NULL, NULL);
}

/* The kinds @next adds get values that bind nothing; the others stay as they are. */
static int open_kinds(struct act *a, const struct cgfs_root *root, const struct cg_limits *next,
		      uint64_t now, bool dry_run, void (*before_write)(void *ctx), void *ctx)
{
	struct cg_limits open = a->written;

	a->opened = 0;
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (!a->written.v[k] && next->v[k]) {
			open.v[k] = k == CG_RBPS || k == CG_WBPS ? ACT_OPEN_BPS : ACT_OPEN_IOPS;
			a->opened |= 1u << k;
		}
	return write_staged(a, root, &open, ACT_FOLD, now, dry_run, before_write, ctx);
}

/* Write @next now, recorded first. */
static int write_now(struct act *a, const struct cgfs_root *root, const struct cg_limits *next,
		     uint64_t now, bool dry_run, void (*before_write)(void *ctx), void *ctx)
{
	struct cg_limits keep = a->written;

	a->pending = ACT_NONE;
	a->before = keep;   /* recorded before it goes out, with what it replaces */
	a->written = *next;
	if (before_write)
		before_write(ctx);
	a->written = keep;
	memset(&a->before, 0, sizeof(a->before));
	return do_write(a, root, next, now, dry_run);
}

/* Read the administrator's limits at the first write, their changes after. */
static int learn_admin(struct act *a, const struct cgfs_root *root, bool dry_run)
{
	int ret;

	if (a->active) {
		adopt_foreign(a, root, dry_run);
		return 0;
	}
	if (!dry_run && (ret = iolatd_cgfs_read_limits(root, a->cgdir, a->dev, &a->admin)))
		return ret;
	if (dry_run)
		memset(&a->admin, 0, sizeof(a->admin));
	a->written = a->admin;
	return 0;
}

/* Ours rounded up to a multiple of ACT_ROUND, under the administrator's. */
static void next_values(const struct act *a, const struct cg_limits *want, struct cg_limits *next)
{
	for (int k = 0; k < CG_NR_LIMITS; k++) {
		uint64_t v = want->v[k] ? (want->v[k] + ACT_ROUND - 1) / ACT_ROUND * ACT_ROUND : 0;

		next->v[k] = iolatd_act_min_limit(v, a->admin.v[k]);
	}
}

int iolatd_act_apply(struct act *a, const struct cgfs_root *root, const struct cg_limits *want,
	      uint64_t now, bool dry_run, void (*before_write)(void *ctx), void *ctx)
{
	struct cg_limits next;
	int ret;

	if (all_zero(want))
		return a->active ? iolatd_act_release(a, root, now, dry_run) : 0;
	if (a->active && now - a->last_write_ns < ACT_MIN_INTERVAL_NS)
		return 0;
	if ((ret = learn_admin(a, root, dry_run)))
		return ret;
	next_values(a, want, &next);
	if (a->pending == ACT_FOLD) { /* the opened kinds get the latest want */
		a->next = next;
		return 0;
	}
	if (a->active && close_enough(&next, &a->written, a->band_pm)) {
		a->pending = ACT_NONE; /* a lowering no longer wanted */
		return 0;
	}
	if (!a->active) {
		a->active = true;
		a->active_since_ns = now;
	}
	a->next = next;
	if (!a->staged)
		return write_now(a, root, &next, now, dry_run, before_write, ctx);
	if (opens(&next, &a->written))
		return open_kinds(a, root, &next, now, dry_run, before_write, ctx);
	if (!lowers(&next, &a->written))
		return write_now(a, root, &next, now, dry_run, before_write, ctx);
	return a->pending == ACT_LOWER ? 0 : prime(a, root, now, dry_run);
}

/* The opened kinds get their values; the others are not lowered at this moment. */
static int commit_fold(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run,
		       void (*before_write)(void *ctx), void *ctx)
{
	struct cg_limits next = a->next;

	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (!(a->opened & (1u << k)) && a->written.v[k] && next.v[k] && next.v[k] < a->written.v[k])
			next.v[k] = a->written.v[k];
	return write_now(a, root, &next, now, dry_run, before_write, ctx);
}

int iolatd_act_commit_due(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run,
		   void (*before_write)(void *ctx), void *ctx)
{
	uint64_t since = now - a->primed_ns;
	struct cg_limits next;
	int ret;

	if (a->pending == ACT_NONE || !a->active)
		return 0;
	adopt_foreign(a, root, dry_run);
	for (int k = 0; k < CG_NR_LIMITS; k++)
		a->next.v[k] = iolatd_act_min_limit(a->next.v[k], a->admin.v[k]);
	if (a->pending == ACT_FOLD)
		return since < ACT_FOLD_NS ? 0 : commit_fold(a, root, now, dry_run, before_write, ctx);
	if (since < ACT_PRIME_NS)
		return 0;
	if (since > ACT_PRIME_LATE_NS) { /* past the slice's end: the carry is unknown again */
		ret = prime(a, root, now, dry_run);
		return ret < 0 ? ret : 0;
	}
	next = a->next;
	clamp_step(&next, &a->written);
	if (!memcmp(&next, &a->next, sizeof(next)))
		return write_now(a, root, &next, now, dry_run, before_write, ctx);
	/* A half step: it starts a slice too, so the next half follows as after a prime. */
	ret = write_now(a, root, &next, now, dry_run, before_write, ctx);
	if (ret > 0) {
		a->pending = ACT_LOWER;
		a->primed_ns = now;
	}
	return ret;
}

int iolatd_act_release(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run)
{
	int ret;

	if (!a->active)
		return 0;
	a->pending = ACT_NONE;
	adopt_foreign(a, root, dry_run);
	ret = do_write(a, root, &a->admin, now, dry_run);
	if (ret == -ENOENT || ret == -ENODEV)
		ret = 0; /* the cgroup (or device) is gone, and its limits with it */
	else if (ret < 0)
		return ret; /* still ours: tried again at the next release */
	a->limited_ns += now > a->active_since_ns ? now - a->active_since_ns : 0;
	a->active = false;
	memset(&a->written, 0, sizeof(a->written));
	return ret;
}
