/* SPDX-License-Identifier: MIT */
/*
 * usage.c - per-cgroup, per-disk I/O figures (usage.h): an open-addressing
 * table keyed by (cgroup id, device), linear probing, deletion by moving
 * the following entries back (no tombstones).
 * Context: the daemon's one thread.
 */
#include <string.h>

#include "daemon/round/usage.h"

#define MASK (USAGE_SLOTS - 1)

static unsigned home(uint64_t ino, unsigned dev)
{
	uint64_t h = (ino ^ ((uint64_t)dev << 56)) * 0x9e3779b97f4a7c15ull;

	return (unsigned)(h >> 40) & MASK;
}

struct usage_ent *iolatd_usage_find(struct usage *u, uint64_t ino, unsigned dev)
{
	for (unsigned i = home(ino, dev), n = 0; n < USAGE_SLOTS; i = (i + 1) & MASK, n++) {
		struct usage_ent *e = &u->slot[i];

		if (!e->ino)
			return NULL;
		if (e->ino == ino && e->dev == dev)
			return e;
	}
	return NULL;
}

static struct usage_ent *get(struct usage *u, uint64_t ino, unsigned dev)
{
	unsigned i = home(ino, dev);

	for (unsigned n = 0; n < USAGE_SLOTS; i = (i + 1) & MASK, n++) {
		struct usage_ent *e = &u->slot[i];

		if (e->ino == ino && e->dev == dev)
			return e;
		if (!e->ino)
			break;
	}
	if (!ino || u->used >= USAGE_SLOTS * 3 / 4)
		return NULL; /* full enough: such a cgroup is not followed */
	memset(&u->slot[i], 0, sizeof(u->slot[i]));
	u->slot[i].ino = ino;
	u->slot[i].dev = dev;
	u->used++;
	return &u->slot[i];
}

void iolatd_usage_add(struct usage *u, uint64_t ino, unsigned dev, bool write, uint64_t bytes, uint64_t now)
{
	struct usage_ent *e = get(u, ino, dev);

	if (!e)
		return;
	e->cur_bytes[write] += bytes;
	e->cur_ios[write]++;
	e->last_io_ns[write] = now;
}

/* Free slot @i, moving back the entries of the same run that belong before it. */
static void remove_at(struct usage *u, unsigned i)
{
	unsigned j = i;

	for (;;) {
		unsigned h;

		j = (j + 1) & MASK;
		if (!u->slot[j].ino)
			break;
		h = home(u->slot[j].ino, u->slot[j].dev);
		/* Entry j may move to i only if its home is not in (i, j]. */
		if ((i <= j) ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		u->slot[i] = u->slot[j];
		i = j;
	}
	memset(&u->slot[i], 0, sizeof(u->slot[i]));
	u->used--;
}

bool iolatd_usage_recent(const struct usage_ent *e, int dir, uint64_t now, uint64_t within_ns)
{
	return e->last_io_ns[dir] && now - e->last_io_ns[dir] <= within_ns;
}

static void ema(double *r, double v)
{
	*r += (v - *r) / 4;
}

void iolatd_usage_roll(struct usage *u, unsigned dev, uint64_t period_ns, uint64_t now)
{
	double secs = (double)period_ns / 1e9;

	for (unsigned i = 0; i < USAGE_SLOTS; i++) {
		struct usage_ent *e = &u->slot[i];

		if (!e->ino || e->dev != dev)
			continue;
		ema(&e->rate[CG_RBPS], (double)e->cur_bytes[0] / secs);
		ema(&e->rate[CG_WBPS], (double)e->cur_bytes[1] / secs);
		ema(&e->rate[CG_RIOPS], (double)e->cur_ios[0] / secs);
		ema(&e->rate[CG_WIOPS], (double)e->cur_ios[1] / secs);
		memset(e->cur_bytes, 0, sizeof(e->cur_bytes));
		memset(e->cur_ios, 0, sizeof(e->cur_ios));
	}
	/* Idle entries go (a second pass: removal moves entries between slots). */
	for (unsigned i = 0; i < USAGE_SLOTS; i++) {
		struct usage_ent *e = &u->slot[i];

		while (e->ino && e->dev == dev && !e->carrying && !iolatd_usage_recent(e, 0, now, USAGE_IDLE_NS) &&
		       !iolatd_usage_recent(e, 1, now, USAGE_IDLE_NS))
			remove_at(u, i); /* slot i may now hold a moved entry: look again */
	}
}
