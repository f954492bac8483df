/* SPDX-License-Identifier: MIT */
/*
 * status.c - iolatd's status file under its run directory, rewritten once a
 * second (whole or not at all: util/atomicfile.h), read by `iolat status`,
 * and its Prometheus textfile (the latencies from each node's histogram:
 * round/lathist.h). The status room: below the loop and the life, above
 * the round (why a limit does not hold: round/round_second.h) and the tree
 * (what weights are: tree/tree.h).
 * Format: one record a line, "KIND key=value ...": first "iolatd ..." (the
 * daemon), then "group ..." per discovered cgroup and device (its weight
 * and share among them). statusfile.c parses it.
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/control_priv.h"
#include "daemon/round/round_second.h"
#include "daemon/status/prom.h"
#include "daemon/status/statusfile.h"
#include "daemon/tree/tree.h"
#include "util/atomicfile.h"
#include "util/version.h"

static void node_writes(const struct iolatd *d, int i, unsigned k, uint64_t now, unsigned *writes,
			unsigned *errors, int64_t *ago_ms)
{
	*writes = *errors = 0;
	*ago_ms = -1;
	for (int j = 0; j < LIMTAB_MAX; j++) {
		const struct limtab_ent *e = &d->lim->e[j];
		int64_t ago;

		if (!e->used || e->dev != k || e->node != i)
			continue;
		*writes += e->act.writes;
		*errors += e->act.write_errors;
		ago = (int64_t)((now - e->act.last_write_ns) / 1000000);
		if (e->act.writes + e->act.write_errors && (*ago_ms < 0 || ago < *ago_ms))
			*ago_ms = ago;
	}
}

/* The rule the mode judges disk @c's windows by (the core's table). */
static const char *rule_of(const struct iolatd *d, const struct dev_ctl *c)
{
	return iolat_window_rule_name(iolat_ctl_window_rule(d->cfg.mode, c->rotational));
}

/* Where that rule came from: the mode, when it judges every disk alike. */
static const char *rule_from(const struct iolatd *d, const struct dev_ctl *c)
{
	if (iolat_ctl_window_rule(d->cfg.mode, 0) == iolat_ctl_window_rule(d->cfg.mode, 1))
		return "mode";
	return c->rotational_configured ? "config" : "queue/rotational";
}

/*
 * The adaptive mode's view of group @g: the rate it is paced at, and - when
 * it is the group its parent protects - the parent's last decision, the
 * siblings' limit and whether the target was found unattainable; its
 * requests outstanding as last told to the core, and its windows closed by
 * a stall (round_served.c, src/core/stall.c).
 */
static void write_adaptive(FILE *f, const struct node_dev *nd, const struct iolat_group_stat *st)
{
	struct iolat_group *p = iolat_group_parent(nd->g);
	struct iolat_group_stat ps;
	bool asker = p && iolat_group_scale_grp(p) == nd->g && !iolat_group_stat(p, &ps);

	fprintf(f, " pace_bps=%" PRIu64 " decision=%s sibling_limit_bps=%" PRIu64 " unattainable=%d",
		st->pace_bps, asker ? iolat_step_name(ps.last_decision) : "-",
		asker ? ps.limit_bps : 0, asker && ps.unattainable);
	fprintf(f, " inflight=%" PRIu32 " inflight_stale=%" PRIu64 " stalled_windows=%" PRIu64, nd->inflight,
		nd->infl_stale, st->stalled_windows);
}

/* What the throttle's counters say the node was served over the last round, bytes/s (0: unknown). */
static uint64_t served_rate(const struct node_dev *nd, int dir)
{
	return nd->served.valid && nd->served.ns ? (uint64_t)((double)nd->served.bytes[dir] * 1e9 /
							      (double)nd->served.ns) : 0;
}

/* Node @nd's counters since it appeared: requests and bytes by direction, the latency histogram. */
static void write_totals(FILE *f, const struct node_dev *nd)
{
	fprintf(f, " reads_total=%" PRIu64 " writes_total=%" PRIu64 " read_bytes_total=%" PRIu64
		" write_bytes_total=%" PRIu64 " lat_sum_ns=%" PRIu64 " lat_buckets=", nd->ios_total[RATE_READ],
		nd->ios_total[RATE_WRITE], nd->bytes_total[RATE_READ], nd->bytes_total[RATE_WRITE],
		nd->hist.total_sum_ns);
	for (int j = 0; j <= LAT_PROM_EDGES; j++)
		fprintf(f, "%s%" PRIu64, j ? "," : "", nd->hist.total[j]);
}

/*
 * The weights' view of node @i on device @k: its weight and where it came
 * from, whether weights are configured at all, and the core's last period:
 * active, hweight (ppm), share, use, donated, the budget (-1: none).
 */
static void write_weights(FILE *f, const struct iolatd *d, int i, unsigned k, const struct iolatd_group_cfg *gc)
{
	struct iolat_group_share sh;

	if (iolat_group_share(d->nd[i][k].g, &sh))
		sh = (struct iolat_group_share){ .hweight = 1, .budget_bps = UINT64_MAX };
	fprintf(f, " weight=%u weight_from=%s weighted=%d weight_active=%d hweight_ppm=%" PRIu64 " share_bps=%" PRIu64
		" use_bps=%" PRIu64 " donated_bps=%" PRIu64 " budget_bps=%" PRId64, iolatd_weight_of(d, i, k),
		!gc || !gc->weight_given ? "default" : gc->weight_from_unit ? "unit" : "config",
		iolatd_config_weighted(&d->cfg), sh.active, (uint64_t)llround(sh.hweight * 1e6), sh.share_bps,
		sh.use_bps, sh.donated_bps, sh.budget_bps == UINT64_MAX ? (int64_t)-1 : (int64_t)sh.budget_bps);
}

static void write_group(FILE *f, const struct iolatd *d, int i, unsigned k, uint64_t now)
{
	const struct node_dev *nd = &d->nd[i][k];
	const struct iolatd_group_cfg *gc = iolatd_config_group(&d->cfg, d->disc->nodes[i].rel);
	struct iolat_group_stat st;
	unsigned writes, errors;
	int64_t ago;

	if (!nd->g || iolat_group_stat(nd->g, &st))
		return;
	node_writes(d, i, k, now, &writes, &errors, &ago);
	fprintf(f, "group path=%s dev=%s configured=%d unit=%s target_us=%" PRIu64 " rule=%s depth=%" PRId64
		" use_delay=%d delay_used=%d", d->disc->nodes[i].rel, d->devs[k].name, gc != NULL,
		gc && gc->unit[0] ? gc->unit : "-", st.target_ns / 1000,
		rule_of(d, &d->devs[k]), nd->depth == IOLAT_DEPTH_MAX ? (int64_t)-1 : (int64_t)nd->depth,
		nd->use_delay, nd->delay_used);
	fprintf(f, " ios=%" PRIu64 " avg_lat_us=%" PRIu64 " p50_us=%" PRIu64 " p90_us=%" PRIu64 " p99_us=%" PRIu64
		" windows_ok=%" PRIu64 " windows_missed=%" PRIu64 " scale_downs=%" PRIu64 " scale_ups=%" PRIu64,
		nd->hist.last_n, nd->hist.last_mean_ns / 1000, nd->hist.last_p50_ns / 1000,
		nd->hist.last_p90_ns / 1000, nd->hist.last_p99_ns / 1000, st.windows_ok, st.windows_missed,
		st.scale_downs, st.scale_ups);
	fprintf(f, " limited_ms=%" PRIu64 " limited=%d",
		(nd->limited_ns + (nd->limited ? now - nd->limited_since : 0)) / 1000000, nd->limited);
	for (int l = 0; l < CG_NR_LIMITS; l++)
		fprintf(f, " %s=%" PRIu64, iolatd_cg_limit_name(l), nd->limited ? nd->want.v[l] : 0);
	write_weights(f, d, i, k, gc);
	fprintf(f, " carriers=%u left_out=%u holds=%d cause=%s not_holding_s=%" PRIu64
		" misses_from_elsewhere=%d writes=%u write_errors=%u written_ago_ms=%" PRId64,
		nd->carriers, nd->left_out, !nd->eff.ineffective, iolatd_effect_cause(d, nd),
		nd->eff.ineffective_secs, nd->outside_misses, writes, errors, ago);
	fprintf(f, " served_rbps=%" PRIu64 " served_wbps=%" PRIu64, served_rate(nd, 0), served_rate(nd, 1));
	if (d->cfg.mode == IOLAT_CTL_MODE_ADAPTIVE)
		write_adaptive(f, nd, &st);
	fprintf(f, " disk=%s", d->devs[k].disk);
	write_totals(f, nd);
	fprintf(f, "\n");
}

/* Each cgroup carrying a limit of ours: what is written there, and for which node. */
static void write_limits(FILE *f, const struct iolatd *d, uint64_t now)
{
	for (int j = 0; j < LIMTAB_MAX; j++) {
		const struct limtab_ent *e = &d->lim->e[j];

		if (!e->used || !e->act.active)
			continue;
		fprintf(f, "limit path=%s dev=%s for=%s", e->rel, d->devs[e->dev].name,
			e->node >= 0 && d->disc->nodes[e->node].used ? d->disc->nodes[e->node].rel : "-");
		for (int l = 0; l < CG_NR_LIMITS; l++)
			fprintf(f, " %s=%" PRIu64, iolatd_cg_limit_name(l), e->act.written.v[l]);
		fprintf(f, " writes=%u write_errors=%u written_ago_ms=%" PRIu64 " disk=%s\n", e->act.writes,
			e->act.write_errors, (now - e->act.last_write_ns) / 1000000, d->devs[e->dev].disk);
	}
}

static void write_devices(FILE *f, const struct iolatd *d)
{
	for (unsigned k = 0; k < d->nr_devs; k++) {
		const struct dev_ctl *c = &d->devs[k];

		struct iolat_group_share root;

		if (iolat_group_share(iolat_ctl_root(c->ctl), &root))
			root.capacity_bps = 0;
		fprintf(f, "device dev=%s disk=%s nr_requests=%" PRIu32 " rule=%s rule_from=%s"
			" unattributed_bps=%" PRIu64 " unattributed_bytes_total=%" PRIu64 " weights=%s"
			" kernel_weights=%s kernel_weights_on=%d weighted=%d capacity_bps=%" PRIu64 "\n", c->name,
			c->disk, c->nr_requests, rule_of(d, c), rule_from(d, c), c->unattr_last_bps, c->unattr_total,
			iolatd_weights_word(d, k), iolatd_kweights_name(c->kweights.kw), c->kweights.kw != KWEIGHTS_NONE,
			iolatd_config_weighted(&d->cfg), root.capacity_bps);
	}
}

/* Configured groups whose cgroup does not exist (yet), and units without one. */
static void write_waiting(FILE *f, const struct iolatd *d)
{
	for (unsigned g = 0; g < d->cfg.nr_groups; g++)
		if (iolatd_disc_find(d->disc, d->cfg.groups[g].path) < 0)
			fprintf(f, "waiting path=%s unit=%s reason=no_cgroup\n", d->cfg.groups[g].path,
				d->cfg.groups[g].unit[0] ? d->cfg.groups[g].unit : "-");
	for (unsigned u = 0; u < d->nr_unit_waits; u++) {
		char why[64];

		snprintf(why, sizeof(why), "%s", d->unit_waits[u].why);
		for (char *c = why; *c; c++)
			*c = *c == ' ' ? '_' : *c == '(' || *c == ')' ? '-' : *c;
		fprintf(f, "waiting path=%s unit=%s reason=%s\n", d->unit_waits[u].name, d->unit_waits[u].name, why);
	}
}

/* The groups never limited (exempt.c) and why: iolatd's own cgroup, and every exempt node. */
static void write_exempt(FILE *f, const struct iolatd *d)
{
	if (d->self_cg[0])
		fprintf(f, "exempt path=%s reason=%s\n", d->self_cg, iolatd_exempt_name(EXEMPT_SELF));
	for (int i = 0; i < DISC_MAX_NODES; i++)
		if (d->nd[i] && d->nd[i][0].exempt != EXEMPT_NONE &&
		    strcmp(d->disc->nodes[i].rel, d->self_cg))
			fprintf(f, "exempt path=%s reason=%s\n", d->disc->nodes[i].rel,
				iolatd_exempt_name(d->nd[i][0].exempt));
}

/* The daemon record's tail: version, start, the metrics histogram's edges (us). */
static void write_build(FILE *f, const struct iolatd *d)
{
	fprintf(f, " version=%s start_time=%" PRId64 " lat_edges_us=", IOLAT_VERSION_STRING, d->started_wall);
	for (int j = 0; j < LAT_PROM_EDGES; j++)
		fprintf(f, "%s%llu", j ? "," : "", 1ull << (LAT_PROM_FIRST_LOG2 + j));
	fputc('\n', f);
}

/* The metrics of the status file just written, into the configured textfile (whole or not at all). */
static int write_textfile(struct iolatd *d, const char *status_path)
{
	char why[256];
	struct iolat_atomic_file af;
	struct status_file s;
	int err;

	if ((err = iolatd_status_read(status_path, &s, why, sizeof(why))))
		return err;
	err = iolat_atomic_open(&af, d->cfg.textfile, false);
	if (!err)
		err = iolat_atomic_commit(&af, iolatd_prom_write(&s, af.f));
	iolatd_status_free(&s);
	return err;
}

int iolatd_write_status(struct iolatd *d, uint64_t now)
{
	char path[IOLATD_PATH_MAX + 16];
	struct iolat_atomic_file af;
	int err;

	snprintf(path, sizeof(path), "%s/%s", d->run_dir, IOLATD_STATUS_FILE);
	err = iolat_atomic_open(&af, path, false);
	if (err)
		return err;
	fprintf(af.f, "iolatd pid=%ld time=%lld uptime_s=%" PRIu64 " cgroup=v%d root=%s control=%d mode=%s dry_run=%d"
		" source=%s observed=%" PRIu64 " unattributed=%" PRIu64 " writeback_throttled=%d unit_targets=%s",
		(long)getpid(), (long long)time(NULL), (uint64_t)((now - d->started_ns) / 1000000000u),
		d->root.version, d->root.path, d->cfg.control, iolat_ctl_mode_name(d->cfg.mode), d->opts.dry_run,
		d->source_lost ? "lost" : "ok", d->observed, d->unattributed, d->root.version == 2,
		!d->user.systemd ? "off" : d->unit_targets_kernel ? "kernel" : "iolatd");
	write_build(af.f, d);
	write_devices(af.f, d);
	write_waiting(af.f, d);
	write_exempt(af.f, d);
	for (int i = 0; i < DISC_MAX_NODES; i++)
		for (unsigned k = 0; d->nd[i] && k < d->nr_devs; k++)
			write_group(af.f, d, i, k, now);
	write_limits(af.f, d, now);
	err = iolat_atomic_commit(&af, 0);
	if (!err && d->cfg.textfile[0] && (err = write_textfile(d, path)) && !d->textfile_logged) {
		iolatd_log_at(d, LOG_ERR, "textfile %s: cannot write: %s", d->cfg.textfile, strerror(-err));
		d->textfile_logged = true;
	}
	return err;
}
