/* SPDX-License-Identifier: MIT */
/*
 * limtab.h - the limits iolatd keeps in force, one entry per cgroup and
 * device that carries one (a clamped node's own cgroup on v2; on v1 the
 * cgroups below it that do I/O). Each control round starts by clearing the
 * wants of a device, every clamped node then adds what it wants written
 * where (the tightest want wins, kind by kind), and the round ends by
 * bringing each entry's file to its want (actuate.h); an entry whose want
 * is empty is released and dropped.
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_LIMTAB_H
#define IOLAT_DAEMON_LIMTAB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/limits/actuate.h"
#include "daemon/sys/cgroupfs.h"

#define LIMTAB_MAX 1024

struct limtab_ent {
	bool used;
	uint64_t ino;             /* the cgroup's id */
	unsigned dev;             /* the daemon's device index */
	int node;                 /* the node whose want is in force (tightest), -1: none */
	char rel[IOLATD_PATH_MAX];/* the cgroup, relative to the root */
	struct cg_limits want;    /* this round's */
	struct act act;           /* what is written */
	bool error_logged;        /* a failed write was said once */
};

struct limtab {
	struct limtab_ent e[LIMTAB_MAX];
	bool direct;              /* limits written at once: the kernel needs no staging (actuate.h) */
};

/* Start a round on device @dev: every want of that device empty. */
void iolatd_limtab_clear_wants(struct limtab *t, unsigned dev);

/*
 * iolatd_limtab_want() - node @node wants @want on cgroup @ino (@rel, directory
 * @cgdir) on device @dev (@devno): kept as the tighter of it and what other
 * nodes want there. Return: 0, or -ENOSPC when the table is full.
 */
int iolatd_limtab_want(struct limtab *t, uint64_t ino, const char *rel, const char *cgdir, unsigned dev,
		dev_t devno, int node, const struct cg_limits *want);

/* The entry of @ino on @dev, or NULL. */
struct limtab_ent *iolatd_limtab_find(struct limtab *t, uint64_t ino, unsigned dev);

/* Is every kind of @l 0? */
bool iolatd_limits_empty(const struct cg_limits *l);

#endif
