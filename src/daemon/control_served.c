/* SPDX-License-Identifier: MIT */
/*
 * control_served.c - what the block throttle's own counters say each node
 * was served, period by period (cgroupfs.h: iolatd_cgfs_read_served): for
 * every node that carries a budget or has a target, once a control round,
 * its subtree's bytes and requests since the last round, per direction, and
 * over how long. The delta is valid only when both readings worked, found
 * the device and did not go backwards (a cgroup recreated, stats reset):
 * otherwise the reading is only the base of the next one. The adaptive core
 * can be told the rate a limited node was delivered from here instead of
 * the BPF completions, and, on v1 where the counters count bios as they
 * enter the throttle, that a protected group is submitting while nothing
 * completes (stalled, not idle). A node's first failed reading is logged
 * once.
 * Context: one thread for every call on one struct iolatd.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/control_priv.h"

/* Does node @i on device @k want the counters read? */
static bool wants_served(const struct iolatd *d, int i, unsigned k)
{
	const struct node_dev *nd = &d->nd[i][k];

	return !iolatd_limits_empty(&nd->want) || iolatd_target_of(d, i, k) != 0;
}

static void read_node(struct iolatd *d, int i, unsigned k, uint64_t now)
{
	struct node_dev *nd = &d->nd[i][k];
	char dir[IOLATD_PATH_MAX * 2];
	struct cg_served cur;
	const struct cg_served *was = &nd->served_last;
	int err;

	iolatd_cgfs_dir(&d->root, d->disc->nodes[i].rel, dir, sizeof(dir));
	err = iolatd_cgfs_read_served(&d->root, dir, d->devs[k].dev, &cur);
	memset(&nd->served, 0, sizeof(nd->served));
	/* A cgroup without the io controller has no counters: its own warning said so. */
	if (err && !nd->served_error_logged && (err != -ENOENT || iolatd_cgfs_has_io(&d->root, dir))) {
		iolatd_logf(d, "%s %s: cannot read what the throttle served it: %s", d->disc->nodes[i].rel,
			    d->devs[k].name, strerror(-err));
		nd->served_error_logged = true;
	}
	nd->served.valid = !err && nd->served_last_ns && now > nd->served_last_ns;
	for (int dir_i = 0; dir_i < 2 && nd->served.valid; dir_i++)
		nd->served.valid = cur.bytes[dir_i] >= was->bytes[dir_i] && cur.ios[dir_i] >= was->ios[dir_i];
	if (nd->served.valid) {
		for (int dir_i = 0; dir_i < 2; dir_i++) {
			nd->served.bytes[dir_i] = cur.bytes[dir_i] - was->bytes[dir_i];
			nd->served.ios[dir_i] = cur.ios[dir_i] - was->ios[dir_i];
		}
		nd->served.ns = now - nd->served_last_ns;
	}
	nd->served_last = cur;
	nd->served_last_ns = err ? 0 : now;
}

void iolatd_served_round(struct iolatd *d, unsigned k, uint64_t now)
{
	for (int i = 0; i < DISC_MAX_NODES; i++) {
		if (!d->nd[i])
			continue;
		if (wants_served(d, i, k)) {
			read_node(d, i, k, now);
			continue;
		}
		memset(&d->nd[i][k].served, 0, sizeof(d->nd[i][k].served));
		d->nd[i][k].served_last_ns = 0; /* the next reading starts afresh */
	}
}
