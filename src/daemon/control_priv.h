/* SPDX-License-Identifier: MIT */
/*
 * control_priv.h - struct iolatd, shared by control.c (the loop),
 * control_life.c (create, reload, stop) and status.c (the status file).
 * Not for other users: they go through control.h.
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_CONTROL_PRIV_H
#define IOLAT_DAEMON_CONTROL_PRIV_H

#include "daemon/actuate.h"
#include "daemon/control.h"
#include "daemon/discover.h"
#include "daemon/ratelimit.h"
#include "daemon/state.h"

/* Latencies of one second, in 8 buckets per power of two from 1 us. */
#define LAT_HIST_BUCKETS 200
struct lat_hist {
	uint32_t b[LAT_HIST_BUCKETS];
	uint64_t n, sum_ns;
	/* The last whole second's summary. */
	uint64_t last_n, last_mean_ns, last_p50_ns, last_p90_ns, last_p99_ns;
};
void lat_hist_add(struct lat_hist *h, uint64_t lat_ns);
/* End a second: summarize it into last_*, start afresh. */
void lat_hist_roll(struct lat_hist *h);

/* One discovered cgroup on one device. */
struct node_dev {
	struct iolat_group *g;
	struct rate_sample cur;   /* this period */
	struct rate_est est;
	struct act act;
	struct lat_hist hist;
	uint32_t depth;           /* as of the last control round */
	int use_delay;
};

struct dev_ctl {
	dev_t dev;
	char name[IOLATD_DEVNAME_MAX];
	struct iolat_ctl *ctl;
	uint32_t nr_requests;
	int rotational;
};

#define STATE_MAX_RECS 1024

struct iolatd {
	struct iolatd_config cfg;
	struct iolatd_opts opts;
	char run_dir[IOLATD_PATH_MAX];
	struct cgfs_root root;
	struct discover *disc;
	struct disc_ops ops;
	struct dev_ctl devs[IOLATD_MAX_DEVICES];
	unsigned nr_devs;
	struct node_dev *nd[DISC_MAX_NODES]; /* [node][device], NULL: no node */
	struct state_rec recs[STATE_MAX_RECS];
	uint64_t last_period, last_second, started_ns;
	uint64_t observed, unattributed;
	int restored_at_start;
	bool state_error_logged, full_logged, source_lost;
};

/* control.c: look at the tree again (nodes added and removed). */
void iolatd_rescan(struct iolatd *d);
/* control_life.c: remove every limit of ours now. Return: 0 or the first -errno. */
int iolatd_stop_limits(struct iolatd *d, uint64_t now);

void iolatd_logf(struct iolatd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
