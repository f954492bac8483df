/* SPDX-License-Identifier: MIT */
/*
 * discover.c - the controlled part of the cgroup tree (discover.h): scans
 * the directories, keeps the node table in step, maps cgroup ids to nodes.
 * Context: the daemon's one thread.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/tree/discover.h"

void iolatd_disc_init(struct discover *d, const struct cgfs_root *root)
{
	memset(d, 0, sizeof(*d));
	d->root = *root;
}

int iolatd_disc_find(const struct discover *d, const char *rel)
{
	for (int i = 0; i < DISC_MAX_NODES; i++)
		if (d->nodes[i].used && !strcmp(d->nodes[i].rel, rel))
			return i;
	return -1;
}

static void remove_node(struct discover *d, int i, const struct disc_ops *ops)
{
	/* Children first. */
	for (int c = 0; c < DISC_MAX_NODES; c++)
		if (d->nodes[c].used && d->nodes[c].parent == i)
			remove_node(d, c, ops);
	if (ops && ops->removed)
		ops->removed(ops->ctx, i);
	d->nodes[i].used = false;
}

/* Ensure a node for @rel (whose parent node is @parent); mark it seen. Return: index, -1. */
static int ensure_node(struct discover *d, const char *rel, int parent, uint64_t ino,
		       const struct disc_ops *ops)
{
	int i = iolatd_disc_find(d, rel);
	struct disc_node *n;

	if (i >= 0 && d->nodes[i].ino != ino) {
		remove_node(d, i, ops); /* recreated under the same name */
		i = -1;
	}
	if (i >= 0) {
		d->nodes[i].seen = true;
		return i;
	}
	for (i = 0; i < DISC_MAX_NODES && d->nodes[i].used; i++)
		;
	if (i == DISC_MAX_NODES)
		return -1;
	n = &d->nodes[i];
	memset(n, 0, sizeof(*n));
	n->used = n->seen = true;
	snprintf(n->rel, sizeof(n->rel), "%s", rel);
	n->name = strrchr(n->rel, '/') ? strrchr(n->rel, '/') + 1 : n->rel;
	n->ino = ino;
	n->parent = parent;
	n->seq = ++d->seq;
	if (ops && ops->added)
		ops->added(ops->ctx, i);
	return i;
}

/* Nodes for every prefix of @rel; returns the last one's index, -1 if a prefix is missing. */
static int ensure_chain(struct discover *d, const char *rel, const struct disc_ops *ops, int *full)
{
	char buf[IOLATD_PATH_MAX], dir[IOLATD_PATH_MAX * 2];
	int parent = -1;

	snprintf(buf, sizeof(buf), "%s", rel);
	for (char *slash = buf;; slash++) {
		uint64_t ino;
		char save;

		slash = strchr(slash, '/');
		save = slash ? *slash : '\0';
		if (slash)
			*slash = '\0';
		iolatd_cgfs_dir(&d->root, buf, dir, sizeof(dir));
		ino = iolatd_cgfs_ino(dir);
		if (!ino)
			return -1;
		parent = ensure_node(d, buf, parent, ino, ops);
		if (parent < 0) {
			*full = 1;
			return -1;
		}
		if (!slash)
			return parent;
		*slash = save;
	}
}

/* Every subdirectory of the parent of configured group @rel becomes a node. */
static void ensure_siblings(struct discover *d, const char *rel, const struct disc_ops *ops,
			    int *full)
{
	char parent_rel[IOLATD_PATH_MAX], dir[IOLATD_PATH_MAX * 2], child[IOLATD_PATH_MAX * 4];
	const char *slash = strrchr(rel, '/');
	int pnode = -1;
	struct dirent *de;
	DIR *dh;

	snprintf(parent_rel, sizeof(parent_rel), "%.*s", slash ? (int)(slash - rel) : 0, rel);
	if (*parent_rel && (pnode = ensure_chain(d, parent_rel, ops, full)) < 0)
		return;
	iolatd_cgfs_dir(&d->root, parent_rel, dir, sizeof(dir));
	dh = opendir(dir);
	if (!dh)
		return;
	while ((de = readdir(dh))) {
		uint64_t ino;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= 64)
			continue;
		snprintf(child, sizeof(child), "%s/%s", dir, de->d_name);
		ino = iolatd_cgfs_ino(child);
		if (!ino)
			continue;
		snprintf(child, sizeof(child), "%s%s%s", parent_rel, *parent_rel ? "/" : "", de->d_name);
		if (strlen(child) >= IOLATD_PATH_MAX)
			continue;
		if (ensure_node(d, child, pnode, ino, ops) < 0)
			*full = 1;
	}
	closedir(dh);
}

static void map_add(struct discover *d, uint64_t ino, int node, const char *abs)
{
	size_t rl = strlen(d->root.path);
	const char *rel = !strncmp(abs, d->root.path, rl) ? abs + rl + (abs[rl] == '/') : abs;

	if (d->nr_map == DISC_MAX_MAP || strlen(rel) >= IOLATD_PATH_MAX) {
		d->map_full = true;
		return;
	}
	snprintf(d->map_rel[d->nr_map], IOLATD_PATH_MAX, "%s", rel);
	d->map[d->nr_map] = (struct disc_map_ent){ ino, node, d->nr_map };
	d->nr_map++;
}

/* Map @dir (relative @rel) and its subdirectories that are not nodes to @node. */
static void map_subtree(struct discover *d, const char *dir, int node, int depth)
{
	char child[IOLATD_PATH_MAX * 4];
	struct dirent *de;
	DIR *dh;

	if (depth > DISC_MAX_DEPTH || !(dh = opendir(dir)))
		return;
	while ((de = readdir(dh))) {
		uint64_t ino;

		if (de->d_name[0] == '.')
			continue;
		snprintf(child, sizeof(child), "%s/%s", dir, de->d_name);
		ino = iolatd_cgfs_ino(child);
		if (!ino)
			continue;
		/* A node's own subtree is mapped from that node. */
		if (depth == 0) {
			bool is_node = false;

			for (int i = 0; i < DISC_MAX_NODES && !is_node; i++)
				is_node = d->nodes[i].used && d->nodes[i].ino == ino;
			if (is_node)
				continue;
		}
		map_add(d, ino, node, child);
		map_subtree(d, child, node, depth + 1);
	}
	closedir(dh);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct disc_map_ent *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void rebuild_map(struct discover *d)
{
	char dir[IOLATD_PATH_MAX * 2];

	d->nr_map = 0;
	d->map_full = false;
	for (int i = 0; i < DISC_MAX_NODES; i++) {
		if (!d->nodes[i].used)
			continue;
		iolatd_cgfs_dir(&d->root, d->nodes[i].rel, dir, sizeof(dir));
		map_add(d, d->nodes[i].ino, i, dir);
		map_subtree(d, dir, i, 0);
	}
	qsort(d->map, d->nr_map, sizeof(d->map[0]), cmp_ent);
}

int iolatd_disc_scan(struct discover *d, const struct iolatd_config *cfg, const struct disc_ops *ops)
{
	int full = 0, n = 0;

	for (int i = 0; i < DISC_MAX_NODES; i++)
		d->nodes[i].seen = false;
	for (unsigned i = 0; i < cfg->nr_groups; i++) {
		ensure_chain(d, cfg->groups[i].path, ops, &full);
		ensure_siblings(d, cfg->groups[i].path, ops, &full);
	}
	/* Children are removed with their parents; newest first otherwise. */
	for (int again = 1; again;) {
		again = 0;
		for (int i = 0; i < DISC_MAX_NODES; i++)
			if (d->nodes[i].used && !d->nodes[i].seen) {
				remove_node(d, i, ops);
				again = 1;
			}
	}
	rebuild_map(d);
	for (int i = 0; i < DISC_MAX_NODES; i++)
		n += d->nodes[i].used;
	return full ? -ENOSPC : n;
}

void iolatd_disc_clear(struct discover *d, const struct disc_ops *ops)
{
	for (int i = 0; i < DISC_MAX_NODES; i++)
		if (d->nodes[i].used && d->nodes[i].parent < 0)
			remove_node(d, i, ops);
	d->nr_map = 0;
}

static const struct disc_map_ent *map_find(const struct discover *d, uint64_t ino)
{
	size_t lo = 0, hi = d->nr_map;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->map[mid].ino == ino)
			return &d->map[mid];
		if (d->map[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int iolatd_disc_lookup(const struct discover *d, uint64_t ino)
{
	const struct disc_map_ent *e = map_find(d, ino);

	return e ? e->node : -1;
}

const char *iolatd_disc_rel_of(const struct discover *d, uint64_t ino)
{
	const struct disc_map_ent *e = map_find(d, ino);

	return e ? d->map_rel[e->path] : NULL;
}

bool iolatd_disc_within(const struct discover *d, int i, int anc)
{
	for (int depth = 0; i >= 0 && depth <= DISC_MAX_NODES; depth++, i = d->nodes[i].parent)
		if (i == anc)
			return true;
	return false;
}
