/* SPDX-License-Identifier: MIT */
/*
 * round.c - iolatd's control round (round.h): completions fed in (to the
 * node, its ancestors and the cgroup's own usage: iolatd_observe), and each
 * period per disk: what every node wants (node_want: its allowed depth as
 * rate limits; weight_want: its weight's budget), where that goes
 * (place_node: the node itself on v2, the cgroups below it that do I/O on
 * v1), the files brought to it (apply_limits), every write recorded first
 * (limits/record.c), what the adaptive core is told was applied and served
 * (round_served.c); and the primed writes whose time has come. Called by
 * the loop (loop.c; iolatd_observe() by the daemon's caller, control.h);
 * calls the tree (tree/) and the limits (limits/) below it.
 * Context: one thread for every call on one struct iolatd.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/control_priv.h"
#include "daemon/limits/record.h"
#include "daemon/round/round.h"
#include "daemon/round/round_served.h"
#include "daemon/tree/tree.h"

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
	int dir = write ? RATE_WRITE : RATE_READ;

	if (k < 0)
		return;
	d->observed++;
	d->devs[k].completed++;
	node = iolatd_disc_lookup(d->disc, cgid);
	if (node < 0 || !d->nd[node] || !d->nd[node][k].g) {
		d->unattributed++;
		d->devs[k].unattr_bytes += bytes;
		d->devs[k].unattr_total += bytes;
		return;
	}
	iolat_observe_done_at(d->nd[node][k].g, lat_ns, bytes, io_flags, now_ns);
	iolatd_usage_add(d->usage, cgid, (unsigned)k, write, bytes, now_ns);
	/* A node's figures are its whole subtree's: its budget covers all of it. */
	for (int i = node, depth = 0; i >= 0 && depth < DISC_MAX_DEPTH * 4; i = d->disc->nodes[i].parent, depth++) {
		struct node_dev *nd;

		if (!d->nd[i])
			break;
		nd = &d->nd[i][k];
		nd->cur.bytes[dir] += bytes;
		nd->cur.ios[dir]++;
		nd->cur.lat_ns[dir] += lat_ns;
		nd->ios_total[dir]++;
		nd->bytes_total[dir] += bytes;
		iolatd_lat_hist_add(&nd->hist, lat_ns);
	}
}

/* ---- the control round ---- */

/*
 * The adaptive mode's budget: the core's rate, split by direction. A change
 * of the core's rate is written (the core changes it at most once per QoS
 * period, emergencies aside, and in steps of 2 % or more; actuate.c's dead
 * band is 2 % in this mode). While the core's rate stays the same, the
 * direction split is rewritten only when it moved by 1/8 or more and not
 * more than once a second (the block throttle is rewritten only when needed:
 * on 6.1 a rewrite can let bios through above the limit).
 */
static void adaptive_want(struct iolatd *d, struct node_dev *nd,
			  const struct iolat_observe_stat *st, const struct cg_limits *prev,
			  struct cg_limits *want, uint64_t now)
{
	bool same = st->pace_bps == nd->pace_bps && st->pace_iops == nd->pace_iops;

	nd->pace_bps = st->pace_bps;
	nd->pace_iops = st->pace_iops;
	nd->delay_used = 0;
	iolatd_rate_split(&nd->est, st->pace_bps, st->pace_iops, d->cfg.min_bps, d->cfg.min_iops, want);
	if (!same || now - nd->split_at >= IOLATD_SECOND_NS) {
		for (int k = 0; same && k < CG_NR_LIMITS; k++)
			same = (want->v[k] == 0) == (prev->v[k] == 0) &&
			       want->v[k] <= prev->v[k] + prev->v[k] / 8 &&
			       prev->v[k] <= want->v[k] + want->v[k] / 8;
		if (!same) {
			nd->split_at = now;
			return;
		}
	}
	*want = *prev;
}

/* The bytes and I/O rates of @l, read and write together, ours only (an opening binds nothing). */
static void limits_sum(const struct cg_limits *l, uint64_t *bps, uint64_t *iops)
{
	*bps += (l->v[CG_RBPS] < ACT_OPEN_BPS ? l->v[CG_RBPS] : 0) +
		(l->v[CG_WBPS] < ACT_OPEN_BPS ? l->v[CG_WBPS] : 0);
	*iops += (l->v[CG_RIOPS] < ACT_OPEN_IOPS ? l->v[CG_RIOPS] : 0) +
		 (l->v[CG_WIOPS] < ACT_OPEN_IOPS ? l->v[CG_WIOPS] : 0);
}

/* @rate scaled by @got / @asked (0 when nothing is asked or in force). */
static uint64_t in_force_share(uint64_t rate, uint64_t got, uint64_t asked)
{
	return asked && got ? (uint64_t)((double)rate * (double)got / (double)asked) : 0;
}

/*
 * Adaptive mode: tell the core what is in force for node @i on device @k
 * after this round's writes (its rate scaled by what the files hold over what
 * was asked: a primed lowering not yet committed, rounding, the
 * administrator's lower value, a weight budget below it), so that it judges
 * what was applied.
 */
static void feed_applied(struct iolatd *d, int i, unsigned k, uint64_t now)
{
	struct node_dev *nd = &d->nd[i][k];
	uint64_t got_b = 0, got_i = 0, ask_b = 0, ask_i = 0, rate_b, rate_i;

	for (int j = 0; j < LIMTAB_MAX; j++) {
		const struct limtab_ent *e = &d->lim->e[j];

		if (!e->used || e->dev != k || e->node != i || !e->act.active)
			continue;
		limits_sum(&e->act.written, &got_b, &got_i);
		limits_sum(&e->want, &ask_b, &ask_i);
	}
	rate_b = in_force_share(nd->pace_bps, got_b, ask_b);
	rate_i = in_force_share(nd->pace_iops, got_i, ask_i);
	if (!iolatd_limits_empty(&nd->wwant)) { /* a weight budget below the core's rate binds: less is applied */
		uint64_t all_b = 0, all_i = 0, lat_b = 0, lat_i = 0;

		limits_sum(&nd->want, &all_b, &all_i);
		limits_sum(&nd->lat_want, &lat_b, &lat_i);
		rate_b = lat_b ? in_force_share(rate_b, all_b, lat_b) : rate_b;
		rate_i = lat_i ? in_force_share(rate_i, all_i, lat_i) : rate_i;
	}
	iolat_group_observe_applied(nd->g, rate_b, rate_i, now);
}

/*
 * Adaptive mode, and where weights act: what node @i was served on device
 * @k over the round that just ended, for the core's delivered rate and the
 * weights' use: the block throttle's own
 * counters (round_served.c: v2 io.stat, v1 blkio.throttle.io_service_*;
 * the last round's reading), else the completions BPF measured for the
 * node's subtree (also where the counters know nothing of the disk yet and
 * weights act). The one place that decides it; with weights on, for every
 * node (their use is what the core divides shares by).
 */
static void feed_served(struct iolatd *d, int i, unsigned k, uint64_t now)
{
	const struct node_dev *nd = &d->nd[i][k];
	/*
	 * Where weights act, counters without a line for the disk know nothing
	 * yet (v1 from 6.10 counts only once the throttle is active on the disk:
	 * no budget would ever be written): what BPF saw complete is used then.
	 */
	bool counters = nd->served.valid && (nd->served_last.found || !iolatd_weights_act(d, k));

	if (counters)           /* the throttle's own counters over the last round */
		iolat_group_observe_served(nd->g, nd->served.bytes[0] + nd->served.bytes[1],
					   nd->served.ios[0] + nd->served.ios[1], now);
	else                    /* not read yet (a node just limited): what BPF saw complete */
		iolat_group_observe_served(nd->g, nd->cur.bytes[RATE_READ] + nd->cur.bytes[RATE_WRITE],
					   nd->cur.ios[RATE_READ] + nd->cur.ios[RATE_WRITE], now);
}

/*
 * node_want() - what node @i should be held to on device @k: its allowed
 * depth (and use_delay, as iolatd_effect_delay() lets it act) as rate limits, for
 * the directions it is seen doing; not tightened while its limit does not
 * hold; in the adaptive mode the core's rate (adaptive_want). The one place
 * that decides a node's limits.
 */
static void node_want(struct iolatd *d, struct node_dev *nd, const struct iolat_observe_stat *st,
		      const struct cg_limits *prev, struct cg_limits *want, uint64_t now)
{
	if (d->cfg.mode == IOLAT_CTL_MODE_ADAPTIVE) {
		adaptive_want(d, nd, st, prev, want, now);
		return;
	}
	nd->delay_used = iolatd_effect_delay(&nd->eff, st->use_delay,
				      iolatd_rate_at_floor(prev, d->cfg.min_bps, d->cfg.min_iops));
	iolatd_rate_limits(&nd->est, st->depth, nd->delay_used, d->cfg.min_bps, d->cfg.min_iops, want);
	if (!nd->eff.ineffective)
		return;
	for (int k = 0; k < CG_NR_LIMITS; k++)
		if (want->v[k] && prev->v[k] > want->v[k])
			want->v[k] = prev->v[k];
}

/*
 * weight_want() - the weights' budget for node @nd on device @k, where they
 * act (iolatd_weights_act()): the core's budget_bps for its next period
 * (iolat_group_share(); UINT64_MAX: none) split by direction as the
 * adaptive rate is (iolatd_rate_split(): the group's recent mix, only the
 * directions it does, never below the floors). Split again only when the
 * core's budget changes (at most once per its period) or a second has
 * passed (the mix moves): a budget is rewritten at most once a period,
 * and only past actuate.c's dead band. A direction @doing this round that
 * has no limit yet (a group that just started: its mix does not know it)
 * is split for at once and, unknown to the mix, gets the whole budget, the
 * split made again next round. Elsewhere none (what was written for it goes
 * at the next apply).
 */
/* Direction @dir is done this round (@doing) and @w has no bytes limit on it. */
static bool left_free(const bool doing[2], const struct cg_limits *w, int dir)
{
	return doing[dir] && !w->v[dir == RATE_READ ? CG_RBPS : CG_WBPS];
}

static void weight_want(struct iolatd *d, unsigned k, struct node_dev *nd, const bool doing[2],
			uint64_t now)
{
	struct iolat_group_share sh;
	uint64_t budget = UINT64_MAX;

	if (iolatd_weights_act(d, k) && !iolat_group_share(nd->g, &sh))
		budget = sh.budget_bps;
	if (budget == UINT64_MAX || !budget) {
		memset(&nd->wwant, 0, sizeof(nd->wwant));
		nd->wbudget_bps = UINT64_MAX;
		return;
	}
	if (budget == nd->wbudget_bps && now - nd->wsplit_at < IOLATD_SECOND_NS &&
	    !left_free(doing, &nd->wwant, RATE_READ) && !left_free(doing, &nd->wwant, RATE_WRITE))
		return;
	nd->wbudget_bps = budget;
	nd->wsplit_at = now;
	iolatd_rate_split(&nd->est, budget, 0, d->cfg.min_bps, d->cfg.min_iops, &nd->wwant);
	for (int dir = 0; dir < 2; dir++) {
		if (!left_free(doing, &nd->wwant, dir))
			continue;
		/* Done this round, unknown to the mix yet (a group that just
		 * started): the whole budget on it, split again next round. */
		nd->wwant.v[dir == RATE_READ ? CG_RBPS : CG_WBPS] =
			budget > d->cfg.min_bps ? budget : d->cfg.min_bps;
		nd->wbudget_bps = UINT64_MAX;
	}
}

/* @a and @b kind by kind, the tighter where both limit (0: none). */
static void limits_tighter(const struct cg_limits *a, const struct cg_limits *b, struct cg_limits *out)
{
	for (int k = 0; k < CG_NR_LIMITS; k++)
		out->v[k] = iolatd_act_min_limit(a->v[k], b->v[k]);
}

/* Roll node @i's period on device @k and decide its budget: the latency controller's and the weights'. */
static void node_round(struct iolatd *d, int i, unsigned k, uint64_t now, uint64_t round_ns)
{
	struct node_dev *nd = &d->nd[i][k];
	struct cg_limits prev = nd->lat_want;
	struct iolat_observe_stat st;
	bool doing[2];

	for (int dir = 0; dir < 2; dir++) /* this round, by BPF or by the throttle's counters */
		doing[dir] = nd->cur.bytes[dir] || (nd->served.valid && nd->served.bytes[dir]);
	iolatd_effect_period(&nd->eff, &nd->cur, &nd->placed, round_ns);
	iolatd_rate_est_update(&nd->est, &nd->cur);
	if (nd->g && (d->cfg.mode == IOLAT_CTL_MODE_ADAPTIVE || iolatd_weights_act(d, k)))
		feed_served(d, i, k, now);
	memset(&nd->cur, 0, sizeof(nd->cur));
	memset(&nd->want, 0, sizeof(nd->want));
	memset(&nd->lat_want, 0, sizeof(nd->lat_want));
	if (!nd->g || iolat_group_observe_stat(nd->g, &st))
		return;
	nd->depth = st.depth;
	nd->use_delay = st.use_delay;
	if (d->cfg.control)
		node_want(d, nd, &st, &prev, &nd->lat_want, now);
	weight_want(d, k, nd, doing, now);
	limits_tighter(&nd->lat_want, &nd->wwant, &nd->want);
}

static void want_on(struct iolatd *d, uint64_t ino, const char *rel, unsigned k, int node,
		    const struct cg_limits *want)
{
	char dir[IOLATD_PATH_MAX * 2];

	iolatd_cgfs_dir(&d->root, rel, dir, sizeof(dir));
	if (iolatd_limtab_want(d->lim, ino, rel, dir, k, d->devs[k].dev, node, want) && !d->table_full_logged) {
		iolatd_log_at(d, LOG_WARNING, "more than %d limits in force: %s is not limited", LIMTAB_MAX, rel);
		d->table_full_logged = true;
	}
}

/* v1: the cgroups at or below node @i that did I/O lately on device @k. */
static unsigned gather_carriers(struct iolatd *d, int i, unsigned k, uint64_t now)
{
	unsigned n = 0;

	d->nd[i][k].left_out = 0;
	for (unsigned s = 0; s < USAGE_SLOTS; s++) {
		struct usage_ent *e = &d->usage->slot[s];
		struct carrier *c;

		if (!e->ino || e->dev != k || !iolatd_disc_within(d->disc, iolatd_disc_lookup(d->disc, e->ino), i))
			continue;
		if (!iolatd_usage_recent(e, 0, now, USAGE_ACTIVE_NS) && !iolatd_usage_recent(e, 1, now, USAGE_ACTIVE_NS))
			continue;
		if (n == PLACE_MAX_CARRIERS) {
			d->nd[i][k].left_out++;
			continue;
		}
		c = &d->carriers[n];
		memcpy(c->rate, e->rate, sizeof(c->rate));
		c->last = e->alloc;
		c->seen[0] = iolatd_usage_recent(e, 0, now, USAGE_ACTIVE_NS);
		c->seen[1] = iolatd_usage_recent(e, 1, now, USAGE_ACTIVE_NS);
		d->carrier_ino[n++] = e->ino;
	}
	return n;
}

/* Where node @i's budget goes on device @k (placement.h). */
static void place_node(struct iolatd *d, int i, unsigned k, uint64_t now)
{
	struct node_dev *nd = &d->nd[i][k];
	unsigned n;

	if (d->root.version == 2) {
		want_on(d, d->disc->nodes[i].ino, d->disc->nodes[i].rel, k, i, &nd->want);
		nd->placed = nd->want;
		nd->carriers = 1;
		return;
	}
	n = gather_carriers(d, i, k, now);
	iolatd_place_split(&nd->want, d->carriers, n, d->cfg.min_bps, d->cfg.min_iops, &nd->placed);
	nd->carriers = 0;
	for (unsigned j = 0; j < n; j++) {
		struct usage_ent *e = iolatd_usage_find(d->usage, d->carrier_ino[j], k);
		const char *rel = iolatd_disc_rel_of(d->disc, d->carrier_ino[j]);

		if (!e || !rel || iolatd_limits_empty(&d->carriers[j].part))
			continue;
		e->alloc = d->carriers[j].part;
		e->carrying = true;
		want_on(d, e->ino, rel, k, i, &d->carriers[j].part);
		nd->carriers++;
	}
}

static void log_limits(struct iolatd *d, int i, unsigned k)
{
	const struct node_dev *nd = &d->nd[i][k];

	iolatd_logf(d, "%s %s: limited (depth %s%" PRIu32 ", use_delay %d): rbps=%" PRIu64 " wbps=%" PRIu64
		    " riops=%" PRIu64 " wiops=%" PRIu64 " on %s%s", d->disc->nodes[i].rel, d->devs[k].name,
		    nd->depth == IOLAT_DEPTH_MAX ? "max/" : "", nd->depth, nd->delay_used,
		    nd->want.v[CG_RBPS], nd->want.v[CG_WBPS], nd->want.v[CG_RIOPS], nd->want.v[CG_WIOPS],
		    d->root.version == 2 ? "itself" : nd->carriers == 1 ? "1 cgroup at or below it" :
		    "the cgroups at or below it that do I/O", d->opts.dry_run ? " (dry run)" : "");
}

/* Bring every limit of device @k to its want; drop what is no longer ours. */
static void apply_limits(struct iolatd *d, unsigned k, uint64_t now)
{
	for (int i = 0; i < LIMTAB_MAX; i++) {
		struct limtab_ent *e = &d->lim->e[i];
		bool was = e->act.active;
		int ret;

		if (!e->used || e->dev != k)
			continue;
		/* 2 %: the adaptive rate's steps, and the weights' budgets (each period's counts) */
		e->act.band_pm = d->cfg.mode == IOLAT_CTL_MODE_ADAPTIVE || iolatd_weights_act(d, k) ?
				 ACT_BAND_ADAPTIVE_PM : 0;
		ret = iolatd_act_apply(&e->act, &d->root, &e->want, now, d->opts.dry_run, iolatd_save_state, d);
		if (ret < 0 && !e->error_logged) {
			e->error_logged = true;
			if (ret == -ENOENT && d->root.version == 2 && iolatd_cgfs_ino(e->act.cgdir))
				iolatd_log_at(d, LOG_ERR, "%s: cannot write limits: no io.max: the io controller is not enabled "
					    "in its parent's cgroup.subtree_control (systemd: IOAccounting=yes on the "
					    "unit or its slice)", e->rel);
			else
				iolatd_log_at(d, LOG_ERR, "%s: cannot write limits: %s", e->rel, strerror(-ret));
		}
		if (!e->act.active && iolatd_limits_empty(&e->want)) {
			e->used = false;
			if (was)
				iolatd_save_state(d);
		}
	}
}

/*
 * v2: a limit on node @i covers every cgroup below it (io.max is
 * hierarchical), an exempt one or iolatd's own too: said once per node.
 */
static void warn_exempt_below(struct iolatd *d, int i)
{
	const char *rel = d->disc->nodes[i].rel, *below = NULL;

	if (d->root.version != 2 || d->exempt_v2_logged[i])
		return;
	if (iolatd_exempt_above(rel, d->self_cg))
		below = d->self_cg;
	for (int j = 0; !below && j < DISC_MAX_NODES; j++)
		if (d->nd[j] && d->nd[j][0].exempt != EXEMPT_NONE &&
		    iolatd_exempt_above(rel, d->disc->nodes[j].rel))
			below = d->disc->nodes[j].rel;
	if (!below)
		return;
	d->exempt_v2_logged[i] = true;
	iolatd_log_at(d, LOG_WARNING, "%s: limited: on cgroup v2 its limit also covers %s below it, which is exempt "
		      "(io.max is hierarchical)", rel, below);
}

/* Each node's episodes of being limited, and their log lines. */
static void note_transitions(struct iolatd *d, unsigned k, uint64_t now)
{
	for (int i = 0; i < DISC_MAX_NODES; i++) {
		struct node_dev *nd;
		bool now_limited;

		if (!d->nd[i])
			continue;
		nd = &d->nd[i][k];
		now_limited = !iolatd_limits_empty(&nd->want) && nd->carriers > 0;
		if (now_limited == nd->limited)
			continue;
		nd->limited = now_limited;
		if (now_limited) {
			nd->limited_since = now;
			log_limits(d, i, k);
			warn_exempt_below(d, i);
		} else {
			nd->limited_ns += now - nd->limited_since;
			iolatd_effect_reset(&nd->eff);
			iolatd_logf(d, "%s %s: released", d->disc->nodes[i].rel, d->devs[k].name);
		}
	}
}

void iolatd_round(struct iolatd *d, unsigned k, uint64_t now, uint64_t round_ns)
{
	iolatd_limtab_clear_wants(d->lim, k);
	for (int i = 0; i < DISC_MAX_NODES; i++)
		if (d->nd[i])
			node_round(d, i, k, now, round_ns);
	iolatd_usage_roll(d->usage, k, round_ns, now);
	for (unsigned s = 0; s < USAGE_SLOTS; s++)
		if (d->usage->slot[s].ino && d->usage->slot[s].dev == k)
			d->usage->slot[s].carrying = false;
	for (int i = 0; i < DISC_MAX_NODES; i++) {
		if (!d->nd[i])
			continue;
		d->nd[i][k].carriers = 0;
		memset(&d->nd[i][k].placed, 0, sizeof(d->nd[i][k].placed));
		if (!iolatd_limits_empty(&d->nd[i][k].want))
			place_node(d, i, k, now);
	}
	for (unsigned s = 0; s < USAGE_SLOTS; s++)
		if (d->usage->slot[s].ino && d->usage->slot[s].dev == k && !d->usage->slot[s].carrying)
			memset(&d->usage->slot[s].alloc, 0, sizeof(d->usage->slot[s].alloc));
	apply_limits(d, k, now);
	for (int i = 0; i < DISC_MAX_NODES && d->cfg.mode == IOLAT_CTL_MODE_ADAPTIVE; i++)
		if (d->nd[i] && d->nd[i][k].g)
			feed_applied(d, i, k, now);
	note_transitions(d, k, now);
	iolatd_served_round(d, k, now);
}

/* Primed lowerings and opened kinds whose time has come go out (actuate.h: limits that hold on 6.1). */
void iolatd_commit_primed(struct iolatd *d, uint64_t now)
{
	for (int i = 0; i < LIMTAB_MAX; i++) {
		struct limtab_ent *e = &d->lim->e[i];
		int ret;

		if (!e->used || e->act.pending == ACT_NONE)
			continue;
		ret = iolatd_act_commit_due(&e->act, &d->root, now, d->opts.dry_run, iolatd_save_state, d);
		if (ret < 0 && !e->error_logged) {
			e->error_logged = true;
			iolatd_log_at(d, LOG_ERR, "%s: cannot write limits: %s", e->rel, strerror(-ret));
		}
	}
}
