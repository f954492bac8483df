/* SPDX-License-Identifier: MIT */
/*
 * round_second.c - what iolatd's round does once a second besides the
 * controllers' tick and the rescan: the effect check of every limited node
 * (effect.h: a limit that does not hold is logged with its likely cause),
 * misses that are not the clamped siblings' doing (they are at the floor and
 * nearly idle: the I/O comes from elsewhere), and the latency summaries.
 * Context: one thread for every call on one struct iolatd.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "daemon/control_priv.h"
#include "daemon/round/round_second.h"

const char *iolatd_effect_cause(const struct iolatd *d, const struct node_dev *nd)
{
	if (!nd->eff.ineffective)
		return "none";
	if (nd->left_out)
		return "cgroups_without_a_part";
	return d->root.version == 1 ? "not_enforced_or_new_cgroups" : "not_enforced";
}

static void check_effect(struct iolatd *d, int i, unsigned k)
{
	struct node_dev *nd = &d->nd[i][k];
	int change = iolatd_effect_second(&nd->eff, d->cfg.min_bps, d->cfg.min_iops);

	if (change > 0)
		iolatd_log_at(d, LOG_WARNING, "%s %s: the limit does not hold: %s %.0f/s allowed, %.0f/s done for %d s (%s%s); "
			    "not tightened further while it does not hold", d->disc->nodes[i].rel, d->devs[k].name,
			    iolatd_cg_limit_name(nd->eff.over_kind), nd->eff.allowed_rate, nd->eff.over_rate,
			    EFFECT_OVER_SECS, iolatd_effect_cause(d, nd),
			    d->root.version == 2 ? ": a 6.1 kernel lets I/O past an io.max rewritten under queued I/O" :
			    ": a cgroup below it without a part yet, or a kernel that does not enforce it");
	else if (change < 0)
		iolatd_log_at(d, LOG_NOTICE, "%s %s: the limit holds again", d->disc->nodes[i].rel, d->devs[k].name);
}

/* Is node @i a clamped sibling at the floor that did almost nothing this second? */
static bool idle_at_floor(const struct iolatd *d, const struct node_dev *nd)
{
	uint64_t floor[CG_NR_LIMITS] = { d->cfg.min_bps, d->cfg.min_bps, d->cfg.min_iops, d->cfg.min_iops };

	if (!iolatd_rate_at_floor(&nd->want, d->cfg.min_bps, d->cfg.min_iops))
		return false;
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (nd->eff.used[k] > 2.0 * (double)floor[k])
			return false;
	return true;
}

/*
 * A group with a target that missed this second while every sibling clamped
 * for it sits at the floor doing next to nothing: its misses are not theirs.
 */
static void check_misses(struct iolatd *d, int i, unsigned k)
{
	struct node_dev *nd = &d->nd[i][k];
	struct iolat_group_stat st;
	bool any = false, all_idle = true, outside;

	if (!nd->g || iolat_group_stat(nd->g, &st) || !st.target_ns)
		return;
	for (int j = 0; j < DISC_MAX_NODES; j++) {
		if (j == i || !d->nd[j] || d->disc->nodes[j].parent != d->disc->nodes[i].parent ||
		    !d->nd[j][k].limited)
			continue;
		any = true;
		all_idle &= idle_at_floor(d, &d->nd[j][k]);
	}
	outside = any && all_idle && st.windows_missed > nd->missed_seen;
	nd->missed_seen = st.windows_missed;
	if (outside && !nd->outside_misses)
		iolatd_log_at(d, LOG_WARNING, "%s %s: missing its target while the groups clamped for it are at the floor "
			    "and nearly idle: the misses come from elsewhere (I/O of no configured group on "
			    "this disk: %.1f MiB/s); they are not lowered further", d->disc->nodes[i].rel,
			    d->devs[k].name, (double)d->devs[k].unattr_bytes / (1 << 20));
	nd->outside_misses = outside;
}

void iolatd_second(struct iolatd *d, uint64_t now)
{
	for (unsigned k = 0; k < d->nr_devs; k++) {
		for (int i = 0; i < DISC_MAX_NODES; i++)
			if (d->nd[i])
				check_misses(d, i, k);
		for (int i = 0; i < DISC_MAX_NODES; i++) {
			if (!d->nd[i])
				continue;
			check_effect(d, i, k);
			iolatd_lat_hist_roll(&d->nd[i][k].hist);
		}
		d->devs[k].unattr_last_bps = d->devs[k].unattr_bytes;
		d->devs[k].unattr_bytes = 0;
	}
}
