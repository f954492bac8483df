/* SPDX-License-Identifier: MIT */
/*
 * tree.c - the discovered cgroup tree mirrored as the controllers' groups
 * (tree.h): a node added gets a group per disk with its target and weight
 * (an exempt one none), a node removed loses what is written on it; the
 * rescan, and whether the configured groups' cgroups exist; each node's
 * target and weight as the configuration says, set on its groups again
 * after a reload or a change of units (tree_units.c); whether iolatd's
 * weights act on a disk. Below the loop, the status and the round, which
 * call it; it calls the limits (limits/: the table, a release, the record)
 * and nothing of theirs.
 * Context: one thread for every call on one struct iolatd.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/control_priv.h"
#include "daemon/limits/record.h"
#include "daemon/tree/tree.h"

static uint64_t now_of(const struct iolatd *d)
{
	return iolat_ctl_now(d->devs[0].ctl);
}

uint64_t iolatd_target_of(const struct iolatd *d, int node, unsigned k)
{
	const struct iolatd_group_cfg *g = iolatd_config_group(&d->cfg, d->disc->nodes[node].rel);

	if (!g)
		return 0;
	return g->per_device ? g->dev_target_ns[k] : g->target_ns;
}

static const char *exempt_words(enum iolatd_exempt why)
{
	return why == EXEMPT_SELF ? "iolatd's own cgroup" :
	       why == EXEMPT_JOURNALD ? "the system's logger" : "exempt= in the configuration";
}

static void node_added(void *ctx, int i)
{
	struct iolatd *d = ctx;
	const struct disc_node *n = &d->disc->nodes[i];
	enum iolatd_exempt why = iolatd_exempt_why(&d->cfg, d->self_cg, n->rel);

	d->nd[i] = calloc(d->nr_devs, sizeof(*d->nd[i]));
	if (!d->nd[i]) {
		iolatd_log_at(d, LOG_ERR, "%s: out of memory", n->rel);
		return;
	}
	if (why != EXEMPT_NONE) { /* exempt.c: no controller group, never limited */
		for (unsigned k = 0; k < d->nr_devs; k++)
			d->nd[i][k].exempt = why;
		iolatd_logf(d, "%s: exempt (%s): never limited", n->rel, exempt_words(why));
		return;
	}
	for (unsigned k = 0; k < d->nr_devs; k++) {
		struct node_dev *nd = &d->nd[i][k];
		struct iolat_group *parent = n->parent >= 0 && d->nd[n->parent] ?
					     d->nd[n->parent][k].g : NULL;
		int err = iolat_group_create(d->devs[k].ctl, parent, n->name, &nd->g);

		if (err) {
			iolatd_log_at(d, LOG_ERR, "%s: cannot add group: %s", n->rel, strerror(-err));
			nd->g = NULL;
			continue;
		}
		iolat_group_set_target(nd->g, iolatd_target_of(d, i, k));
		if (iolatd_config_weighted(&d->cfg)) /* else the core's weights stay off */
			iolat_group_set_weight(nd->g, iolatd_weight_of(d, i, k));
		nd->depth = IOLAT_DEPTH_MAX;
		nd->wbudget_bps = UINT64_MAX;
	}
}

/* A node's cgroup is gone (or recreated): what is written on it goes now. */
static void node_removed(void *ctx, int i)
{
	struct iolatd *d = ctx;
	uint64_t now = now_of(d);
	bool had = false;

	if (!d->nd[i])
		return;
	for (unsigned k = 0; k < d->nr_devs; k++) {
		struct limtab_ent *e = iolatd_limtab_find(d->lim, d->disc->nodes[i].ino, k);
		struct node_dev *nd = &d->nd[i][k];

		if (e) {
			had |= e->act.active;
			iolatd_act_release(&e->act, &d->root, now, d->opts.dry_run);
			if (!e->act.active)
				e->used = false;
		}
		if (nd->g && iolat_group_destroy(nd->g))
			iolatd_log_at(d, LOG_WARNING, "%s: group still busy at removal", d->disc->nodes[i].rel);
	}
	free(d->nd[i]);
	d->nd[i] = NULL;
	if (had)
		iolatd_save_state(d);
}

static const struct disc_ops *tree_ops(struct iolatd *d)
{
	d->ops = (struct disc_ops){ .added = node_added, .removed = node_removed, .ctx = d };
	return &d->ops;
}

void iolatd_rescan(struct iolatd *d)
{
	if (iolatd_disc_scan(d->disc, &d->cfg, tree_ops(d)) == -ENOSPC && !d->full_logged) {
		iolatd_log_at(d, LOG_WARNING, "more cgroups than %d under the configured parents: some are not controlled",
			    DISC_MAX_NODES);
		d->full_logged = true;
	}
	for (unsigned g = 0; g < d->cfg.nr_groups; g++) {
		const struct iolatd_group_cfg *gc = &d->cfg.groups[g];
		bool present = iolatd_disc_find(d->disc, gc->path) >= 0;
		char dir[IOLATD_PATH_MAX * 2];

		if (present == d->group_present[g] && d->group_checked[g])
			continue;
		iolatd_cgfs_dir(&d->root, gc->path, dir, sizeof(dir));
		if (present && !iolatd_cgfs_has_io(&d->root, dir))
			iolatd_log_at(d, LOG_WARNING, "group %s: cgroup %s found, but without the io controller: its I/O is counted "
				    "to the nearest parent that has it and cannot be measured apart; enable it with +io "
				    "in its parent's cgroup.subtree_control (systemd: IOAccounting=yes)", gc->path, dir);
		else if (present)
			iolatd_logf(d, "group %s%s%s: cgroup %s found, controlled", gc->path, gc->unit[0] ? " of " : "",
				    gc->unit, dir);
		else
			iolatd_log_at(d, LOG_WARNING, "%s:%u: group %s: no cgroup %s: waiting for it to appear%s", d->cfg.file,
				    gc->line, gc->path, dir, d->group_checked[g] ? "" : " (strict=1 refuses to start)");
		d->group_present[g] = present;
		d->group_checked[g] = true;
	}
}

int iolatd_check_groups(const struct iolatd *d, const struct iolatd_config *cfg, char *err, size_t errlen)
{
	for (unsigned g = 0; g < cfg->nr_groups && cfg->strict; g++) {
		char dir[IOLATD_PATH_MAX * 2];

		iolatd_cgfs_dir(&d->root, cfg->groups[g].path, dir, sizeof(dir));
		if (iolatd_cgfs_ino(dir))
			continue;
		snprintf(err, errlen, "%s:%u: group %s: no cgroup %s (strict=1: every group's cgroup must exist)",
			 cfg->file, cfg->groups[g].line, cfg->groups[g].path, dir);
		return -EINVAL;
	}
	return 0;
}

void iolatd_apply_targets(struct iolatd *d)
{
	for (int i = 0; i < DISC_MAX_NODES; i++) {
		if (!d->nd[i])
			continue;
		for (unsigned k = 0; k < d->nr_devs; k++) {
			struct iolat_group *g = d->nd[i][k].g;
			uint64_t t = iolatd_target_of(d, i, k);
			unsigned w = iolatd_weight_of(d, i, k);

			if (g && iolat_group_target(g) != t)
				iolat_group_set_target(g, t);
			/* Where weights are configured (even all 100), and a weight that changed back:
			 * the core's weights stay off until one is given. */
			if (g && (iolat_group_weight(g) != w || iolatd_config_weighted(&d->cfg)))
				iolat_group_set_weight(g, w);
		}
	}
}

/* ---- weights (issue 28) ---- */

/*
 * Each node's weight on each disk as the configuration says it (weight=,
 * or a unit's IOWeight=/IODeviceWeight=; 100 elsewhere). iolatd's weights
 * act on a disk only where some group has a weight written, control is on,
 * and the kernel's own weights are not in force there (kweights.h: BFQ, or
 * io.cost enabled): where they are, iolatd stands aside - no weight budget
 * is written on that disk, latency targets still act - said once in the log
 * (again when it changes) and in the status (device weights=,
 * kernel_weights=). Looked at on start, reload and once a second (a
 * scheduler can be switched at any time).
 */
unsigned iolatd_weight_of(const struct iolatd *d, int node, unsigned k)
{
	return iolatd_config_weight(iolatd_config_group(&d->cfg, d->disc->nodes[node].rel), k);
}

bool iolatd_weights_act(const struct iolatd *d, unsigned k)
{
	return d->cfg.control && d->devs[k].kweights.kw == KWEIGHTS_NONE && iolatd_config_weighted(&d->cfg);
}

const char *iolatd_weights_word(const struct iolatd *d, unsigned k)
{
	if (d->devs[k].kweights.kw != KWEIGHTS_NONE)
		return "kernel";
	return iolatd_weights_act(d, k) ? "iolatd" : "off";
}

void iolatd_weights_check(struct iolatd *d)
{
	bool weighted = iolatd_config_weighted(&d->cfg);

	for (unsigned k = 0; k < d->nr_devs; k++) {
		struct dev_ctl *c = &d->devs[k];
		char line[IOLATD_ERR_MAX];
		int prio = iolatd_kweights_watch(&c->kweights, d->sysfs, &d->root, c->dev, c->disk, c->name,
						 weighted, line, sizeof(line));

		if (prio)
			iolatd_log_at(d, prio, "%s", line);
	}
}
