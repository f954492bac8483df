/* SPDX-License-Identifier: MIT */
/*
 * actuate.c - writing one cgroup's limits on one device and keeping the
 * administrator's (actuate.h).
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/actuate.h"

void iolatd_act_init(struct act *a, const char *cgdir, dev_t dev)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->cgdir, sizeof(a->cgdir), "%s", cgdir);
	a->dev = dev;
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

/* Every kind within an eighth of what is written, and none appearing or vanishing. */
static bool close_enough(const struct cg_limits *a, const struct cg_limits *b)
{
	for (int k = 0; k < CG_NR_LIMITS; k++) {
		uint64_t x = a->v[k], y = b->v[k], d = x > y ? x - y : y - x;

		if (!x != !y || d > y / 8)
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

int iolatd_act_apply(struct act *a, const struct cgfs_root *root, const struct cg_limits *want,
	      uint64_t now, bool dry_run, void (*before_write)(void *ctx), void *ctx)
{
	struct cg_limits next;
	int ret;

	if (all_zero(want))
		return a->active ? iolatd_act_release(a, root, now, dry_run) : 0;
	if (a->active && now - a->last_write_ns < ACT_MIN_INTERVAL_NS)
		return 0;
	if (!a->active) {
		if (!dry_run && (ret = iolatd_cgfs_read_limits(root, a->cgdir, a->dev, &a->admin)))
			return ret;
		if (dry_run)
			memset(&a->admin, 0, sizeof(a->admin));
		a->written = a->admin;
	} else {
		adopt_foreign(a, root, dry_run);
	}
	for (int k = 0; k < CG_NR_LIMITS; k++)
		next.v[k] = iolatd_act_min_limit(want->v[k], a->admin.v[k]);
	if (a->active && close_enough(&next, &a->written))
		return 0;
	if (!a->active) {
		a->active = true;
		a->active_since_ns = now;
	}
	{
		struct cg_limits keep = a->written;

		a->written = next; /* recorded before it goes out */
		if (before_write)
			before_write(ctx);
		a->written = keep;
	}
	return do_write(a, root, &next, now, dry_run);
}

int iolatd_act_release(struct act *a, const struct cgfs_root *root, uint64_t now, bool dry_run)
{
	int ret;

	if (!a->active)
		return 0;
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
