/* SPDX-License-Identifier: MIT */
/*
 * loop.c - iolatd's controller loop (control.h: iolatd_period): the schedule
 * of one period and one second. Each call: primed writes whose time has
 * come (round/round.c); each period, a control round per disk
 * (round/round.c), at once when the adaptive core lowered a rate; each
 * second, the controllers' tick, systemd's units looked at again every
 * IOLATD_RESOLVE_NS (tree/tree_units.c), the rescan
 * and the kernel's weights (tree/tree.c), the second's checks
 * (round/round_second.c), the status file (status/status.c). It calls
 * those rooms and none calls it; the life (life.c) sits beside it.
 * Context: one thread for every call on one struct iolatd.
 */
#include <string.h>

#include "daemon/control_priv.h"
#include "daemon/round/round.h"
#include "daemon/round/round_second.h"
#include "daemon/tree/tree.h"
#include "daemon/tree/tree_units.h"

/* Units come, go and restart: look at them again (tree_units.c). */
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

/*
 * Adaptive: has the core lowered a node's rate since the last round (a
 * first limit, a recall, a cut)? Then the round goes now, not at the
 * period's end: a reader that comes back behind a writer at full speed
 * has every read late until the limit is written (measured on this
 * project's disk: the recall written 50-130 ms after the first read back,
 * 40-60 % of a busy spell's late reads). Raises wait for the period.
 */
static bool lowering_due(struct iolatd *d, uint64_t now)
{
	if (d->cfg.mode != IOLAT_CTL_MODE_ADAPTIVE || !d->cfg.control || d->source_lost ||
	    now - d->last_period < IOLATD_ROUND_MIN_NS)
		return false;
	for (int i = 0; i < DISC_MAX_NODES; i++) {
		for (unsigned k = 0; d->nd[i] && k < d->nr_devs; k++) {
			struct node_dev *nd = &d->nd[i][k];
			struct iolat_observe_stat st;

			if (!nd->g || iolat_group_observe_stat(nd->g, &st) || !st.pace_bps)
				continue;
			if (!nd->pace_bps || st.pace_bps < nd->pace_bps)
				return true;
		}
	}
	return false;
}

void iolatd_period(struct iolatd *d, uint64_t now)
{
	if (!d->source_lost)
		iolatd_commit_primed(d, now);
	if (now - d->last_period >= IOLATD_PERIOD_NS || lowering_due(d, now)) {
		if (!d->source_lost) /* blind: no limit is written (iolatd_source_lost()) */
			for (unsigned k = 0; k < d->nr_devs; k++)
				iolatd_round(d, k, now, now - d->last_period);
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
