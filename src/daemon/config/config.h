/* SPDX-License-Identifier: MIT */
/*
 * config.h - iolatd's configuration file, a table over the configuration
 * grammar the job files use (src/conf: the INI reader, sizes, durations,
 * booleans, did-you-mean):
 *
 *   [global]
 *   device=vda            ; a disk name or MAJ:MIN; several: repeat or comma-separate
 *   control=adaptive      ; the controller's mode: adaptive (the knee seeker,
 *                         ; docs/controller-adaptive.md), article (the kernel's
 *                         ; rules, the article's release), kernel; 1: the
 *                         ; default mode; 0: measure and report, write no limit
 *   kernel_compat=0       ; 1: control=kernel (the kernel's timer and B1)
 *   nr_requests=256       ; default: the device's queue/nr_requests
 *   rotational=0          ; default: the device's queue/rotational
 *   min_bps=1m            ; the lowest rate limit written (bytes/s)
 *   min_iops=10           ; the lowest IOPS limit written
 *   cgroup_root=PATH      ; default: the io (v2) or blkio (v1) hierarchy's mount
 *   strict=0              ; 1: a configured group whose cgroup is missing is an error
 *   systemd=1             ; protect units by their IODeviceLatencyTargetSec=, weigh them by
 *                         ; their IOWeight=/IODeviceWeight= (systemctl show)
 *   textfile=/var/lib/prometheus/node-exporter/iolatd.prom  ; metrics for node_exporter
 *   exempt=backup.service,sys/agent ; never limited (besides iolatd's own cgroup and
 *                         ; systemd-journald.service, always exempt): units or cgroup paths
 *
 *   [group:web/frontend]  ; a cgroup path relative to that root
 *   target=5ms            ; up to 10 s (IOLATD_MAX_TARGET_NS)
 *   weight=300            ; its share among its siblings, 1..10000 (default 100)
 *   [group:web.service]   ; a systemd unit (or slice): its cgroup, followed as it restarts
 *
 * Parsing does no I/O besides reading the file; device names are resolved
 * later (cgroupfs.c). Errors: one line "FILE:LINE: key 'KEY': expected ...",
 * a misspelled key with the nearest one ("did you mean 'strict'?").
 * Context: any thread; a parsed config is immutable.
 */
#ifndef IOLAT_DAEMON_CONFIG_H
#define IOLAT_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"

#define IOLATD_MAX_DEVICES 8
#define IOLATD_MAX_GROUPS 64
#define IOLATD_MAX_EXEMPT 16
#define IOLATD_PATH_MAX 256
#define IOLATD_DEVNAME_MAX 32
#define IOLATD_ERR_MAX 512
#define IOLATD_UNIT_MAX 128
#define IOLATD_MAX_TARGET_NS 10000000000ull /* the window is at most 1 s: a larger target never misses */
/* A group's weight (weight=, systemd's IOWeight=): io.weight's range and default. */
#define IOLATD_WEIGHT_MIN ((unsigned)IOLAT_WEIGHT_MIN)
#define IOLATD_WEIGHT_MAX ((unsigned)IOLAT_WEIGHT_MAX)
#define IOLATD_WEIGHT_DEFAULT ((unsigned)IOLAT_WEIGHT_DEFAULT)

/* The mode without control= (the core's modes: iolat_ctl_mode_name()). */
#define IOLATD_DEFAULT_MODE IOLAT_CTL_MODE_ADAPTIVE

struct iolatd_group_cfg {
	char path[IOLATD_PATH_MAX];   /* "a/b", no leading or trailing '/' (or a unit name: web.service) */
	uint64_t target_ns;           /* 0: none ("max") */
	unsigned line;                /* 0: not from the file (a unit's IODeviceLatencyTargetSec=) */
	char unit[IOLATD_UNIT_MAX];   /* the systemd unit it was resolved from, "" */
	bool per_device;              /* dev_target_ns holds the targets, by device index */
	uint64_t dev_target_ns[IOLATD_MAX_DEVICES];
	unsigned weight;              /* IOLATD_WEIGHT_MIN..MAX; IOLATD_WEIGHT_DEFAULT when not given */
	bool weight_given;            /* weight= written (or the unit's IOWeight=/IODeviceWeight=) */
	unsigned dev_weight[IOLATD_MAX_DEVICES]; /* a unit's IODeviceWeight= by device index; 0: weight */
	bool weight_from_unit;        /* the weights are the unit's (IOWeight=, IODeviceWeight=) */
};

struct iolatd_config {
	char file[IOLATD_PATH_MAX];   /* the file it came from, for messages */
	char devices[IOLATD_MAX_DEVICES][IOLATD_DEVNAME_MAX];
	unsigned nr_devices;
	bool control;                 /* 0: measure only */
	enum iolat_ctl_mode mode;     /* control= / kernel_compat= */
	bool mode_given;              /* control= named a mode (kernel_compat=1 then conflicts) */
	bool strict;                  /* a configured group without its cgroup is an error, not a wait */
	bool systemd;                 /* read units' IODeviceLatencyTargetSec= (default 1) */
	uint32_t nr_requests;         /* 0: from the device */
	int rotational;               /* -1: from the device */
	uint64_t min_bps, min_iops;
	char cgroup_root[IOLATD_PATH_MAX]; /* "": found automatically */
	char textfile[IOLATD_PATH_MAX];    /* "": none; else node_exporter's textfile, rewritten every second */
	char exempt[IOLATD_MAX_EXEMPT][IOLATD_PATH_MAX]; /* exempt=: cgroup paths or unit names */
	unsigned nr_exempt;
	struct iolatd_group_cfg groups[IOLATD_MAX_GROUPS];
	unsigned nr_groups;
	/* Where keys were given (0: not given), for messages about their values (checkconf.c). */
	unsigned device_line, cgroup_root_line, textfile_line, exempt_line;
};

/* Parse @text (named @file in messages). Return: 0 or -EINVAL with @err set. */
int iolatd_config_parse(const char *file, const char *text, struct iolatd_config *cfg,
			char *err, size_t errlen);

/* Read and parse @file. Return: 0, -EINVAL (bad content) or -errno (unreadable). */
int iolatd_config_load(const char *file, struct iolatd_config *cfg, char *err, size_t errlen);

/**
 * iolatd_config_check() - read @file and check it as iolatd_config_load()
 * would, with no other effect (nothing but the file is read, nothing is
 * written), and tell every problem, not only the first: one line each,
 * "FILE:LINE: key 'KEY': expected ...", each ended by '\n', into @out
 * (@len bytes; as snprintf: cut when it does not fit, always terminated).
 * The checks of the whole file (a device, a group, a target) come last.
 * Return: the number of problems (0: iolatd would take the file); -errno
 * when it cannot be read ("FILE: cannot open: REASON" in @out).
 * Context: any thread.
 */
int iolatd_config_check(const char *file, char *out, size_t len);

/* The same for @text, named @file in the messages. -ENOMEM: out of memory. */
int iolatd_config_check_text(const char *file, const char *text, char *out, size_t len);

/* The table of iolatd.conf's keys (conf/opt.h), ended by an entry with name NULL. */
struct iolat_opt;
const struct iolat_opt *iolatd_config_options(void);

/* Group @g's weight on device index @k (its IODeviceWeight= there, else weight=); @g NULL: the default. */
unsigned iolatd_config_weight(const struct iolatd_group_cfg *g, unsigned k);

/* Does any group of @cfg have a weight written (weight=, or a unit's)? */
bool iolatd_config_weighted(const struct iolatd_config *cfg);

/* The group of @path, or NULL. */
const struct iolatd_group_cfg *iolatd_config_group(const struct iolatd_config *cfg,
						   const char *path);

#endif
