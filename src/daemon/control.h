/* SPDX-License-Identifier: MIT */
/*
 * control.h - iolatd's controller loop without its event sources: one
 * libiolatency controller per device over the discovered cgroup tree,
 * completions fed in (iolatd_observe), and at each period the allowed depth
 * of every group turned into block-throttle limits (round/ratelimit.c)
 * written through limits/actuate.c, with every write recorded first
 * (limits/state.c). Once a second: the controller's tick, a rescan of the
 * tree, the status file. The caller (tools/iolatd.c, or a test on a virtual
 * clock and a fake cgroupfs tree) brings the completions and the time. A
 * header of no file, the door of the daemon's rooms for the tools
 * (scripts/check_layers.sh): iolatd_period() is loop.c's, iolatd_observe()
 * round/round.c's, iolatd_write_status() status/status.c's, the rest
 * life.c's (docs/design.md, "The daemon cut").
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_CONTROL_H
#define IOLAT_DAEMON_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "iolatency.h"
#include "daemon/config/config.h"

struct iolatd;

struct iolatd_opts {
	const char *run_dir;               /* state and status files; must exist */
	bool dry_run;                      /* decide and report, write no limit */
	const struct iolat_clock *clock;   /* NULL: CLOCK_MONOTONIC */
	void (*log)(void *ctx, const char *line); /* NULL: stderr */
	/* Preferred over log when set: each line with its syslog priority (LOG_ERR ... LOG_DEBUG). */
	void (*log_at)(void *ctx, int priority, const char *line);
	void *log_ctx;
	bool allow_plain_root;             /* tests: cgroup_root may be a plain directory tree */
	const char *sysfs_root;            /* NULL: /sys (tests: a fake one with dev/block/MAJ:MIN) */
	const char *systemctl;             /* NULL: /usr/bin/systemctl or /bin/systemctl (tests: a fake) */
	const char *udev_data;             /* NULL: /run/udev/data (devpath.h; tests: a fake) */
	bool direct_limits;                /* write every limit at once: this kernel's throttle keeps no
					      unsigned carry (iolatd_bpf_throttle_carry()); false: 6.1's staging */
	const char *direct_why;            /* how that was decided, for the start-up log (NULL: not said) */
	const char *self_cgroup;           /* NULL: /proc/self/cgroup (tests: a fake): its own cgroup is exempt */
};

#define IOLATD_PERIOD_NS 100000000ull   /* control round: depth -> limits */
#define IOLATD_ROUND_MIN_NS 10000000ull  /* an early round (a lowering): at least this after the last */
#define IOLATD_SECOND_NS 1000000000ull  /* tick, rescan, status */
#define IOLATD_RESOLVE_NS 10000000000ull /* systemd units looked at again */
#define IOLATD_STATUS_FILE "status"

/*
 * iolatd_create() - take the run directory's lock (one daemon per run dir),
 * resolve devices and the cgroup root, put back limits a previous run left
 * (the record under run_dir), build the controllers and the tree. Nothing
 * is written to cgroupfs but that restoration (none with dry_run).
 * Return: 0, or -errno with one line in @err (-EBUSY: another daemon holds
 * the run dir).
 */
int iolatd_create(const struct iolatd_config *cfg, const struct iolatd_opts *opts,
		  struct iolatd **out, char *err, size_t errlen);

/* One completed request (BPF's record) at @now_ns on the controller's clock. */
void iolatd_observe(struct iolatd *d, uint64_t cgid, dev_t dev, uint64_t lat_ns,
		    uint64_t bytes, bool write, unsigned io_flags, uint64_t now_ns);

/* Run what is due at @now_ns; call at least every IOLATD_PERIOD_NS. */
void iolatd_period(struct iolatd *d, uint64_t now_ns);

/*
 * iolatd_reload() - a new configuration, keeping the controllers' state:
 * targets change in place, groups come and go with the tree. The devices
 * and cgroup_root must stay the same. Return: 0, or -EINVAL with @err
 * (the running configuration is kept).
 */
int iolatd_reload(struct iolatd *d, const struct iolatd_config *cfg, char *err, size_t errlen);

/* Remove every limit written (restoring the administrator's), the record and the status file. */
int iolatd_stop(struct iolatd *d, uint64_t now_ns);

/* Free everything (after iolatd_stop, or on a failure path); the run dir's lock goes. */
void iolatd_destroy(struct iolatd *d);

/* Record this process's pid in the run dir's lock (after detaching). */
void iolatd_note_pid(struct iolatd *d);

/* The devices controlled (for the BPF filter). Return: how many. */
unsigned iolatd_devices(const struct iolatd *d, dev_t *devs, unsigned max);

/* The cgroup hierarchy version in use (1 or 2) and its root. */
int iolatd_cgroup_version(const struct iolatd *d);
const char *iolatd_cgroup_root(const struct iolatd *d);

/* Counters: requests fed, of them attributed to no node; limits in force now. */
struct iolatd_counters {
	uint64_t observed, unattributed, writes, write_errors;
	unsigned limits_active, nodes;
	unsigned removed_at_stop;   /* limits removed by iolatd_stop() and source loss */
};
void iolatd_counters(const struct iolatd *d, struct iolatd_counters *c);

/* Write the status file now. Return: 0 or -errno. */
int iolatd_write_status(struct iolatd *d, uint64_t now_ns);

/* Note in the status file that the BPF source is lost (@lost) or back. */
void iolatd_set_source_lost(struct iolatd *d, bool lost);

/* The BPF source's count of completions it lost (full rings), summed since
 * it opened: when it moves, the counts of requests outstanding start afresh
 * (round_served.c). */
void iolatd_note_dropped(struct iolatd *d, uint64_t dropped);

/*
 * iolatd_source_lost() - the BPF measurement is gone: without it the daemon
 * is blind, so every limit it set is removed now (the administrator's own are
 * put back, the record of writes follows), the status file says
 * source=lost, and iolatd_period() writes no limit until
 * iolatd_set_source_lost(d, false). The controllers keep running (their
 * tick releases what nobody asks for any more).
 * Return: 0, or the first -errno of a limit that could not be removed.
 */
int iolatd_source_lost(struct iolatd *d, uint64_t now_ns);

#endif
