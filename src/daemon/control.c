/* SPDX-License-Identifier: MIT */
/*
 * control.c - iolatd's controller loop (control.h): the controllers per
 * device, the discovered tree mirrored as groups, completions fed in,
 * allowed depth turned into limits, the record of what is written.
 * Context: one thread for every call on one struct iolatd.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "daemon/actuate.h"
#include "daemon/cgroupfs.h"
#include "daemon/control.h"
#include "daemon/control_priv.h"
#include "daemon/discover.h"
#include "daemon/ratelimit.h"
#include "daemon/state.h"

void iolatd_logf(struct iolatd *d, const char *fmt, ...)
{
	char line[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (d->opts.log)
		d->opts.log(d->opts.log_ctx, line);
	else
		fprintf(stderr, "iolatd: %s\n", line);
}

static uint64_t now_of(const struct iolatd *d)
{
	return iolat_ctl_now(d->devs[0].ctl);
}

/* ---- the record of written limits ---- */

static void save_state(void *ctx)
{
	struct iolatd *d = ctx;
	unsigned n = 0;
	int err;

	for (int i = 0; i < DISC_MAX_NODES; i++) {
		if (!d->nd[i])
			continue;
		for (unsigned k = 0; k < d->nr_devs; k++) {
			struct act *a = &d->nd[i][k].act;

			if (!a->active || n == STATE_MAX_RECS)
				continue;
			snprintf(d->recs[n].cgdir, sizeof(d->recs[n].cgdir), "%s", a->cgdir);
			d->recs[n].dev = a->dev;
			d->recs[n].admin = a->admin;
			d->recs[n].written = a->written;
			n++;
		}
	}
	if (d->opts.dry_run)
		return;
	err = state_save(d->opts.run_dir, d->recs, n);
	if (err && !d->state_error_logged) {
		iolatd_logf(d, "cannot record written limits in %s: %s", d->opts.run_dir, strerror(-err));
		d->state_error_logged = true;
	}
}

/* ---- the tree: discovered nodes mirrored as groups ---- */

static uint64_t target_of(const struct iolatd *d, int node)
{
	const struct iolatd_group_cfg *g = iolatd_config_group(&d->cfg, d->disc->nodes[node].rel);

	return g ? g->target_ns : 0;
}

static void node_added(void *ctx, int i)
{
	struct iolatd *d = ctx;
	const struct disc_node *n = &d->disc->nodes[i];
	char dir[IOLATD_PATH_MAX];

	d->nd[i] = calloc(d->nr_devs, sizeof(*d->nd[i]));
	if (!d->nd[i]) {
		iolatd_logf(d, "%s: out of memory", n->rel);
		return;
	}
	cgfs_dir(&d->root, n->rel, dir, sizeof(dir));
	for (unsigned k = 0; k < d->nr_devs; k++) {
		struct node_dev *nd = &d->nd[i][k];
		struct iolat_group *parent = n->parent >= 0 && d->nd[n->parent] ?
					     d->nd[n->parent][k].g : NULL;
		int err = iolat_group_create(d->devs[k].ctl, parent, n->name, &nd->g);

		if (err) {
			iolatd_logf(d, "%s: cannot add group: %s", n->rel, strerror(-err));
			nd->g = NULL;
			continue;
		}
		iolat_group_set_target(nd->g, target_of(d, i));
		act_init(&nd->act, dir, d->devs[k].dev);
		nd->depth = IOLAT_DEPTH_MAX;
	}
}

static void node_removed(void *ctx, int i)
{
	struct iolatd *d = ctx;
	uint64_t now = now_of(d);
	bool had = false;

	if (!d->nd[i])
		return;
	for (unsigned k = 0; k < d->nr_devs; k++) {
		struct node_dev *nd = &d->nd[i][k];

		had |= nd->act.active;
		act_release(&nd->act, &d->root, now, d->opts.dry_run);
		if (nd->g && iolat_group_destroy(nd->g))
			iolatd_logf(d, "%s: group still busy at removal", d->disc->nodes[i].rel);
	}
	free(d->nd[i]);
	d->nd[i] = NULL;
	if (had)
		save_state(d);
}

static const struct disc_ops *tree_ops(struct iolatd *d)
{
	d->ops = (struct disc_ops){ .added = node_added, .removed = node_removed, .ctx = d };
	return &d->ops;
}

void iolatd_rescan(struct iolatd *d)
{
	if (disc_scan(d->disc, &d->cfg, tree_ops(d)) == -ENOSPC && !d->full_logged) {
		iolatd_logf(d, "more cgroups than %d under the configured parents: some are not controlled",
			    DISC_MAX_NODES);
		d->full_logged = true;
	}
}

/* ---- completions ---- */

static int dev_index(const struct iolatd *d, dev_t dev)
{
	for (unsigned k = 0; k < d->nr_devs; k++)
		if (d->devs[k].dev == dev)
			return (int)k;
	return -1;
}

void iolatd_observe(struct iolatd *d, uint64_t cgid, dev_t dev, uint64_t lat_ns,
		    uint64_t bytes, bool write, unsigned io_flags, uint64_t now_ns)
{
	int k = dev_index(d, dev), node;
	struct node_dev *nd;
	int dir = write ? RATE_WRITE : RATE_READ;

	if (k < 0)
		return;
	d->observed++;
	node = disc_lookup(d->disc, cgid);
	if (node < 0 || !d->nd[node] || !(nd = &d->nd[node][k])->g) {
		d->unattributed++;
		return;
	}
	iolat_observe_done_at(nd->g, lat_ns, bytes, io_flags, now_ns);
	nd->cur.bytes[dir] += bytes;
	nd->cur.ios[dir]++;
	nd->cur.lat_ns[dir] += lat_ns;
	lat_hist_add(&nd->hist, lat_ns);
}

/* ---- the control round ---- */

static void control_one(struct iolatd *d, int i, unsigned k, uint64_t now)
{
	struct node_dev *nd = &d->nd[i][k];
	struct iolat_observe_stat st;
	struct cg_limits want;
	bool was;
	int ret;

	rate_est_update(&nd->est, &nd->cur);
	memset(&nd->cur, 0, sizeof(nd->cur));
	if (!nd->g || iolat_group_observe_stat(nd->g, &st))
		return;
	nd->depth = st.depth;
	nd->use_delay = st.use_delay;
	if (!d->cfg.control)
		return;
	rate_limits(&nd->est, st.depth, st.use_delay, d->cfg.min_bps, d->cfg.min_iops, &want);
	was = nd->act.active;
	ret = act_apply(&nd->act, &d->root, &want, now, d->opts.dry_run, save_state, d);
	if (ret < 0 && nd->act.write_errors == 1)
		iolatd_logf(d, "%s: cannot write limits: %s", d->disc->nodes[i].rel, strerror(-ret));
	if (ret > 0 && was != nd->act.active) {
		if (nd->act.active)
			iolatd_logf(d, "%s %s: limited (depth %s%" PRIu32 ", use_delay %d): rbps=%" PRIu64
				    " wbps=%" PRIu64 " riops=%" PRIu64 " wiops=%" PRIu64 "%s",
				    d->disc->nodes[i].rel, d->devs[k].name,
				    st.depth == IOLAT_DEPTH_MAX ? "max/" : "", st.depth, st.use_delay,
				    nd->act.written.v[CG_RBPS], nd->act.written.v[CG_WBPS],
				    nd->act.written.v[CG_RIOPS], nd->act.written.v[CG_WIOPS],
				    d->opts.dry_run ? " (dry run)" : "");
		else
			iolatd_logf(d, "%s %s: released", d->disc->nodes[i].rel, d->devs[k].name);
	}
	if (!nd->act.active && was)
		save_state(d);
}

static void control_round(struct iolatd *d, uint64_t now)
{
	for (int i = 0; i < DISC_MAX_NODES; i++)
		if (d->nd[i])
			for (unsigned k = 0; k < d->nr_devs; k++)
				control_one(d, i, k, now);
}

void iolatd_period(struct iolatd *d, uint64_t now)
{
	if (now - d->last_period >= IOLATD_PERIOD_NS) {
		if (!d->source_lost) /* blind: no limit is written (iolatd_source_lost()) */
			control_round(d, now);
		d->last_period = now;
	}
	if (now - d->last_second >= IOLATD_SECOND_NS) {
		for (unsigned k = 0; k < d->nr_devs; k++)
			iolat_ctl_tick(d->devs[k].ctl);
		iolatd_rescan(d);
		for (int i = 0; i < DISC_MAX_NODES; i++)
			if (d->nd[i])
				for (unsigned k = 0; k < d->nr_devs; k++)
					lat_hist_roll(&d->nd[i][k].hist);
		iolatd_write_status(d, now);
		d->last_second = now;
	}
}
