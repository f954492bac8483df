/* SPDX-License-Identifier: MIT */
/*
 * record.c - the record of the limits iolatd has written (record.h): every
 * limit in force, taken from the limits table, saved under the run dir
 * (state.c) before a write goes out, so that a daemon that dies leaves
 * nothing a next start cannot put back. Called by the round (each write's
 * callback) and the tree (a cgroup gone with its limits); the limits room
 * (limits/: the writes, the table, the record) sits under both.
 * Context: one thread for every call on one struct iolatd.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/control_priv.h"
#include "daemon/limits/record.h"

void iolatd_save_state(void *ctx)
{
	struct iolatd *d = ctx;
	unsigned n = 0;
	int err;

	for (int i = 0; i < LIMTAB_MAX && n < STATE_MAX_RECS; i++) {
		const struct act *a = &d->lim->e[i].act;

		if (!d->lim->e[i].used || !a->active)
			continue;
		snprintf(d->recs[n].cgdir, sizeof(d->recs[n].cgdir), "%s", a->cgdir);
		d->recs[n].dev = a->dev;
		d->recs[n].admin = a->admin;
		d->recs[n].written = a->written;
		d->recs[n].before = a->before;
		n++;
	}
	if (d->opts.dry_run)
		return;
	err = iolatd_state_save(d->opts.run_dir, d->recs, n);
	if (err && !d->state_error_logged) {
		iolatd_log_at(d, LOG_ERR, "cannot record written limits in %s: %s", d->opts.run_dir, strerror(-err));
		d->state_error_logged = true;
	}
}
