/* SPDX-License-Identifier: MIT */
/*
 * control_priv.h - struct iolatd and its nodes and disks, the state the
 * daemon's rooms share, and the log lines (log/log.c) they all write. Every
 * function lives in the room that owns it, with its own header, and the
 * rooms, each a folder of src/daemon, call and include one way
 * (docs/design.md, "The daemon cut"; scripts/check_layers.sh): the loop
 * (loop.c) and the life (life.c) on top, then the status (status/), the
 * round (round/), the tree (tree/), the limits in force and their record
 * (limits/), the log (log/); under the rooms the interfaces (sys/) and the
 * configuration (config/), which know nothing of this struct. This header
 * has no file of its own and names none of the rooms' (but the types of
 * the round's, the tree's and the limits' parts its members are). Every
 * room from the top to the log may include it; what a room reaches through
 * it is not judged by the layers, what it calls is.
 * Not for other users: they go through control.h.
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_CONTROL_PRIV_H
#define IOLAT_DAEMON_CONTROL_PRIV_H

#include <syslog.h> /* LOG_ERR ... LOG_DEBUG: the priorities of iolatd_log_at() */

#include "daemon/control.h"
#include "daemon/limits/actuate.h"
#include "daemon/limits/limtab.h"
#include "daemon/limits/state.h"
#include "daemon/round/effect.h"
#include "daemon/round/lathist.h"
#include "daemon/round/placement.h"
#include "daemon/round/ratelimit.h"
#include "daemon/round/usage.h"
#include "daemon/tree/discover.h"
#include "daemon/tree/exempt.h"
#include "daemon/tree/kweights.h"

/* One discovered cgroup on one device. Its figures cover its whole subtree. */
struct node_dev {
	struct iolat_group *g;
	struct rate_sample cur;   /* this period */
	struct rate_est est;
	struct effect eff;        /* does its limit hold (effect.h) */
	struct lat_hist hist;
	uint64_t ios_total[2], bytes_total[2]; /* since the node appeared, by RATE_READ/RATE_WRITE */
	struct cg_limits want;    /* its budget now, the tighter of the two below; all 0: not limited */
	struct cg_limits lat_want;/* the latency controller's part (node_want) */
	struct cg_limits wwant;   /* the weights' part (weight_want): the core's budget split; all 0: none */
	uint64_t wbudget_bps;     /* the core's budget wwant was split from (UINT64_MAX: none) */
	uint64_t wsplit_at;       /* when wwant was last split */
	struct cg_limits placed;  /* the parts written for it, summed */
	uint32_t depth;           /* as of the last control round */
	int use_delay;            /* the core's */
	int delay_used;           /* the one acted on (iolatd_effect_delay) */
	uint64_t pace_bps, pace_iops; /* adaptive: the core's rate at the last round */
	uint64_t split_at;        /* adaptive: its direction split last rewritten */
	unsigned carriers;        /* cgroups carrying its budget */
	unsigned left_out;        /* cgroups doing I/O below it that could not be given a part */
	bool limited;             /* carriers > 0 */
	uint64_t limited_since, limited_ns; /* the open episode; closed episodes' total */
	uint64_t missed_seen;     /* windows_missed at the last second */
	bool outside_misses;      /* missing while every clamped sibling is at the floor and idle */
	/* The throttle's own counters (round_served.c), for nodes limited or with a target. */
	struct cg_served served_last; /* the last reading */
	uint64_t served_last_ns;      /* when (0: none to compare with) */
	struct {
		uint64_t bytes[2], ios[2]; /* [0] reads, [1] writes, since the last reading */
		uint64_t ns;               /* over how long */
		bool valid;
	} served;                     /* the last control round's */
	bool served_error_logged;
	/* Adaptive: its requests outstanding, as bytes submitted (the counters
	 * above) minus bytes completed (BPF) since a common base (round_served.c). */
	uint64_t infl_sub_base, infl_done_base; /* the base */
	uint64_t infl_gen;            /* d->measure_gen at the base */
	bool infl_based;
	uint32_t inflight;            /* the last count fed to the core */
	uint64_t infl_sub_seen, infl_done_seen; /* the counters when the count last moved */
	uint64_t infl_still_since;    /* since when neither moved, the disk serving (0: they move) */
	uint64_t infl_others, infl_disk_at; /* the disk's completions (dev_ctl.completed), when they last moved */
	uint64_t infl_stale;          /* counts found stale and set to 0 */
	enum iolatd_exempt exempt;    /* exempt.h: never limited, no controller group (g NULL) */
};

struct dev_ctl {
	dev_t dev;
	char name[IOLATD_DEVNAME_MAX];  /* MAJ:MIN */
	char disk[IOLATD_DEVNAME_MAX];  /* vda, as configured or from sysfs */
	struct iolat_ctl *ctl;
	uint32_t nr_requests;
	int rotational;
	bool rotational_configured;
	uint64_t unattr_bytes, unattr_last_bps; /* I/O of no node: this second, the last */
	uint64_t unattr_total;                  /* the same since the start */
	uint64_t completed;                     /* requests completed on it, any cgroup */
	struct kweights_watch kweights;         /* the kernel's own weights in force on it, and whether said */
};

#define STATE_MAX_RECS 1024

/* A group named as a systemd unit that has no cgroup to follow yet. */
struct unit_wait {
	char name[IOLATD_UNIT_MAX];
	char why[64];
};

struct iolatd {
	struct iolatd_config user;           /* as written */
	struct iolatd_config cfg;            /* as the tree follows it: units resolved (tree_units.c) */
	struct unit_wait unit_waits[IOLATD_MAX_GROUPS];
	unsigned nr_unit_waits;
	uint64_t last_resolve;
	bool units_logged, systemd_ok;        /* said once why units are not read; the last query worked */
	bool unit_targets_kernel;             /* units' IODeviceLatencyTargetSec= left to the kernel's io.latency */
	struct iolatd_opts opts;
	char run_dir[IOLATD_PATH_MAX];
	char sysfs[IOLATD_PATH_MAX];
	struct cgfs_root root;
	struct discover *disc;
	struct disc_ops ops;
	struct dev_ctl devs[IOLATD_MAX_DEVICES];
	unsigned nr_devs;
	struct node_dev *nd[DISC_MAX_NODES]; /* [node][device], NULL: no node */
	struct usage *usage;                  /* per cgroup and device */
	struct limtab *lim;                   /* the limits in force */
	struct carrier carriers[PLACE_MAX_CARRIERS]; /* scratch for placement */
	uint64_t carrier_ino[PLACE_MAX_CARRIERS];
	struct state_rec recs[STATE_MAX_RECS];
	uint64_t last_period, last_second, started_ns;
	int64_t started_wall;                 /* the start, in seconds since the epoch */
	uint64_t observed, unattributed;
	int restored_at_start;
	unsigned removed_at_stop;
	int lock_fd;                          /* the run dir's lock, held for life; -1 */
	bool group_present[IOLATD_MAX_GROUPS];/* each configured group's cgroup, at the last scan */
	bool group_checked[IOLATD_MAX_GROUPS];
	bool state_error_logged, full_logged, source_lost, table_full_logged, textfile_logged;
	uint64_t dropped;                     /* the BPF source's lost completions (iolatd_note_dropped) */
	uint64_t measure_gen;                 /* moves when completions may have been lost */
	char self_cg[IOLATD_PATH_MAX];        /* iolatd's own cgroup under the root ("": at the root) */
	bool exempt_v2_logged[DISC_MAX_NODES];/* a limited parent of an exempt cgroup was said (v2) */
};


/* life.c: remove every limit of ours now. Return: 0 or the first -errno. */
int iolatd_stop_limits(struct iolatd *d, uint64_t now);

/* log.c: a log line at LOG_INFO; iolatd_log_at: at syslog @priority (LOG_ERR, LOG_WARNING, ...). */
void iolatd_logf(struct iolatd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void iolatd_log_at(struct iolatd *d, int priority, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
