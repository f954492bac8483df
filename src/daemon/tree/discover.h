/* SPDX-License-Identifier: MIT */
/*
 * discover.h - the part of the cgroup tree iolatd controls, kept current as
 * cgroups come and go. Nodes are: each configured group, its ancestors, and
 * every child of a configured group's parent (its siblings: the groups its
 * misses clamp, as in the kernel). Every cgroup below a node that is not a
 * node itself is attributed to that node (its I/O is the node's, as the
 * kernel walks a bio's cgroup up to the controlled level). A cgroup removed,
 * or recreated under the same name (a new inode), is a removed node.
 * Context: the daemon's one thread.
 */
#ifndef IOLAT_DAEMON_DISCOVER_H
#define IOLAT_DAEMON_DISCOVER_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/config/config.h"
#include "daemon/sys/cgroupfs.h"

#define DISC_MAX_NODES 512
#define DISC_MAX_MAP 8192
#define DISC_MAX_DEPTH 16

struct disc_node {
	bool used;
	char rel[IOLATD_PATH_MAX];  /* path relative to the root: "a/b" */
	const char *name;           /* its last component */
	uint64_t ino;
	int parent;                 /* node index, -1: a child of the root */
	unsigned seq;               /* creation order: parents before children */
	bool seen;                  /* present at the last scan */
};

struct disc_map_ent {
	uint64_t ino;
	int node;
	unsigned path;              /* index into map_rel */
};

struct discover {
	struct cgfs_root root;
	struct disc_node nodes[DISC_MAX_NODES];
	struct disc_map_ent map[DISC_MAX_MAP]; /* sorted by ino */
	char map_rel[DISC_MAX_MAP][IOLATD_PATH_MAX]; /* each mapped cgroup's relative path */
	unsigned nr_map;
	unsigned seq;
	bool map_full;              /* the last scan dropped some descendants */
};

struct disc_ops {
	/* A node appeared (its parent node, if any, already exists). */
	void (*added)(void *ctx, int node);
	/* A node disappeared (its children already reported). */
	void (*removed)(void *ctx, int node);
	void *ctx;
};

void iolatd_disc_init(struct discover *d, const struct cgfs_root *root);

/*
 * iolatd_disc_scan() - look at the tree again for the groups of @cfg: report nodes
 * added and removed through @ops, rebuild the cgroup-id map.
 * Return: the number of nodes now, or -ENOSPC when some did not fit (those
 * are left out and the scan is otherwise complete).
 */
int iolatd_disc_scan(struct discover *d, const struct iolatd_config *cfg, const struct disc_ops *ops);

/* Forget every node (reporting each as removed, children first). */
void iolatd_disc_clear(struct discover *d, const struct disc_ops *ops);

/* The node a cgroup id (directory inode) belongs to, or -1. */
int iolatd_disc_lookup(const struct discover *d, uint64_t ino);

/* The node of a relative path, or -1. */
int iolatd_disc_find(const struct discover *d, const char *rel);

/* The relative path of a mapped cgroup id (a node or a cgroup below one), or NULL. */
const char *iolatd_disc_rel_of(const struct discover *d, uint64_t ino);

/* Is node @i node @anc or below it? */
bool iolatd_disc_within(const struct discover *d, int i, int anc);

#endif
