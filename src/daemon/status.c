/* SPDX-License-Identifier: MIT */
/*
 * status.c - iolatd's status file under its run directory, rewritten once a
 * second (a temporary, then rename), read by `iolat status`; and the
 * per-second latency histogram behind its percentiles.
 * Format: one record a line, "KIND key=value ...": first "iolatd ..." (the
 * daemon), then "group ..." per discovered cgroup and device. statusfile.c
 * parses it.
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

static int bucket_of(uint64_t lat_ns)
{
	double us = (double)lat_ns / 1000.0;
	int b;

	if (us <= 1.0)
		return 0;
	b = (int)(log2(us) * 8.0);
	return b >= LAT_HIST_BUCKETS ? LAT_HIST_BUCKETS - 1 : b;
}

/* The upper edge of bucket @b, in ns. */
static uint64_t bucket_top(int b)
{
	return (uint64_t)(1000.0 * exp2((double)(b + 1) / 8.0));
}

void lat_hist_add(struct lat_hist *h, uint64_t lat_ns)
{
	h->b[bucket_of(lat_ns)]++;
	h->n++;
	h->sum_ns += lat_ns;
}

static uint64_t pct(const struct lat_hist *h, double p)
{
	uint64_t want = (uint64_t)ceil(p * (double)h->n), seen = 0;

	for (int b = 0; b < LAT_HIST_BUCKETS; b++) {
		seen += h->b[b];
		if (seen >= want && seen)
			return bucket_top(b);
	}
	return 0;
}

void lat_hist_roll(struct lat_hist *h)
{
	h->last_n = h->n;
	h->last_mean_ns = h->n ? h->sum_ns / h->n : 0;
	h->last_p50_ns = h->n ? pct(h, 0.50) : 0;
	h->last_p90_ns = h->n ? pct(h, 0.90) : 0;
	h->last_p99_ns = h->n ? pct(h, 0.99) : 0;
	memset(h->b, 0, sizeof(h->b));
	h->n = h->sum_ns = 0;
}

static void write_group(FILE *f, const struct iolatd *d, int i, unsigned k, uint64_t now)
{
	const struct node_dev *nd = &d->nd[i][k];
	const struct act *a = &nd->act;
	struct iolat_group_stat st;

	if (!nd->g || iolat_group_stat(nd->g, &st))
		return;
	fprintf(f, "group path=%s dev=%s configured=%d target_us=%" PRIu64 " depth=", d->disc->nodes[i].rel,
		d->devs[k].name, iolatd_config_group(&d->cfg, d->disc->nodes[i].rel) != NULL,
		st.target_ns / 1000);
	if (nd->depth == IOLAT_DEPTH_MAX)
		fputs("max", f);
	else
		fprintf(f, "%" PRIu32, nd->depth);
	fprintf(f, " use_delay=%d ios=%" PRIu64 " avg_lat_us=%" PRIu64 " p50_us=%" PRIu64
		" p90_us=%" PRIu64 " p99_us=%" PRIu64 " windows_ok=%" PRIu64 " windows_missed=%" PRIu64
		" scale_downs=%" PRIu64 " scale_ups=%" PRIu64 " limited_ms=%" PRIu64 " limited=%d",
		nd->use_delay, nd->hist.last_n, nd->hist.last_mean_ns / 1000, nd->hist.last_p50_ns / 1000,
		nd->hist.last_p90_ns / 1000, nd->hist.last_p99_ns / 1000, st.windows_ok, st.windows_missed,
		st.scale_downs, st.scale_ups, act_limited_ns(a, now) / 1000000, a->active);
	for (int l = 0; l < CG_NR_LIMITS; l++)
		fprintf(f, " %s=%" PRIu64, cg_limit_name(l), a->active ? a->written.v[l] : 0);
	fprintf(f, " writes=%u write_errors=%u written_ago_ms=%" PRId64 "\n", a->writes, a->write_errors,
		a->writes || a->write_errors ? (int64_t)((now - a->last_write_ns) / 1000000) : (int64_t)-1);
}

int iolatd_write_status(struct iolatd *d, uint64_t now)
{
	char path[IOLATD_PATH_MAX + 16], tmp[IOLATD_PATH_MAX + 16];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", d->run_dir, IOLATD_STATUS_FILE);
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", d->run_dir, IOLATD_STATUS_FILE);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "iolatd pid=%ld time=%lld uptime_s=%" PRIu64 " cgroup=v%d root=%s control=%d dry_run=%d"
		" source=%s observed=%" PRIu64 " unattributed=%" PRIu64 " writeback_throttled=%d\n",
		(long)getpid(), (long long)time(NULL), (uint64_t)((now - d->started_ns) / 1000000000u),
		d->root.version, d->root.path, d->cfg.control, d->opts.dry_run,
		d->source_lost ? "lost" : "ok", d->observed, d->unattributed, d->root.version == 2);
	for (int i = 0; i < DISC_MAX_NODES; i++)
		for (unsigned k = 0; d->nd[i] && k < d->nr_devs; k++)
			write_group(f, d, i, k, now);
	if (fclose(f))
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
