/* SPDX-License-Identifier: MIT */
/*
 * control.c - iolatd's controller loop (control.h): the controllers per
 * device, the discovered tree mirrored as groups, completions fed in (to
 * the node, its ancestors and the cgroup's own usage), and each period:
 * what every node wants (node_want: its allowed depth as rate limits), where
 * that goes (place_node: the node itself on v2, the cgroups below it that do
 * I/O on v1), and the files brought to it (apply_limits), every write
 * recorded first.
 * Context: one thread for every call on one struct iolatd.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/control_priv.h"
#include "daemon/round.h"
#include "daemon/round_second.h"
#include "daemon/tree.h"
#include "daemon/tree_units.h"

/* Units come, go and restart: look at them again (control_units.c). */
static void refresh_units(struct iolatd *d, uint64_t now)
{
	static struct iolatd_config eff;
	char err[IOLATD_ERR_MAX];
	bool named = false;

	d->last_resolve = now;
	for (unsigned g = 0; g < d->user.nr_groups; g++)
		named |= d->user.groups[g].path[0] && strchr(d->user.groups[g].path, '.') &&
			 !strchr(d->user.groups[g].path, '/');
	if (!named && !(d->user.systemd && d->systemd_ok))
		return;
	if (iolatd_units_resolve(d, &d->user, &eff, err, sizeof(err)) || !memcmp(&eff, &d->cfg, sizeof(eff)))
		return; /* systemd not answering: what was resolved stays */
	d->cfg = eff;
	iolatd_rescan(d);
	iolatd_apply_targets(d);
}

void iolatd_period(struct iolatd *d, uint64_t now)
{
	if (!d->source_lost)
		iolatd_commit_primed(d, now);
	if (now - d->last_period >= IOLATD_PERIOD_NS) {
		if (!d->source_lost) /* blind: no limit is written (iolatd_source_lost()) */
			for (unsigned k = 0; k < d->nr_devs; k++)
				iolatd_round(d, k, now);
		d->last_period = now;
	}
	if (now - d->last_second >= IOLATD_SECOND_NS) {
		for (unsigned k = 0; k < d->nr_devs; k++)
			iolat_ctl_tick(d->devs[k].ctl);
		if (now - d->last_resolve >= IOLATD_RESOLVE_NS)
			refresh_units(d, now);
		iolatd_rescan(d);
		iolatd_weights_check(d);
		iolatd_second(d, now);
		iolatd_write_status(d, now);
		d->last_second = now;
	}
}
