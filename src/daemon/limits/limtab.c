/* SPDX-License-Identifier: MIT */
/*
 * limtab.c - the table of limits in force (limtab.h).
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/limits/limtab.h"

bool iolatd_limits_empty(const struct cg_limits *l)
{
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (l->v[k])
			return false;
	return true;
}

void iolatd_limtab_clear_wants(struct limtab *t, unsigned dev)
{
	for (int i = 0; i < LIMTAB_MAX; i++)
		if (t->e[i].used && t->e[i].dev == dev) {
			memset(&t->e[i].want, 0, sizeof(t->e[i].want));
			t->e[i].node = -1;
		}
}

struct limtab_ent *iolatd_limtab_find(struct limtab *t, uint64_t ino, unsigned dev)
{
	for (int i = 0; i < LIMTAB_MAX; i++)
		if (t->e[i].used && t->e[i].ino == ino && t->e[i].dev == dev)
			return &t->e[i];
	return NULL;
}

/* The tighter of two sets of limits, kind by kind (0: none). Return: did @b tighten @a? */
static bool tighten(struct cg_limits *a, const struct cg_limits *b)
{
	bool tighter = false;

	for (int k = 0; k < CG_NR_LIMITS; k++) {
		uint64_t m = iolatd_act_min_limit(a->v[k], b->v[k]);

		tighter |= m != a->v[k];
		a->v[k] = m;
	}
	return tighter;
}

int iolatd_limtab_want(struct limtab *t, uint64_t ino, const char *rel, const char *cgdir, unsigned dev,
		dev_t devno, int node, const struct cg_limits *want)
{
	struct limtab_ent *e = iolatd_limtab_find(t, ino, dev);

	if (!e) {
		for (int i = 0; i < LIMTAB_MAX && !e; i++)
			if (!t->e[i].used)
				e = &t->e[i];
		if (!e)
			return -ENOSPC;
		memset(e, 0, sizeof(*e));
		e->used = true;
		e->ino = ino;
		e->dev = dev;
		e->node = -1;
		snprintf(e->rel, sizeof(e->rel), "%s", rel);
		iolatd_act_init(&e->act, cgdir, devno);
		e->act.staged = !t->direct;
	}
	if (tighten(&e->want, want) || e->node < 0)
		e->node = node;
	return 0;
}
