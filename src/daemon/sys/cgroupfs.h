/* SPDX-License-Identifier: MIT */
/*
 * cgroupfs.h - the kernel's block throttle as files: where the hierarchy
 * that controls block I/O is (cgroup v2 with the io controller, or v1
 * blkio), and reading and writing one cgroup's limits for one device:
 *   v2: io.max, lines "MAJ:MIN rbps=N wbps=N riops=N wiops=N" ("max": none)
 *   v1: blkio.throttle.{read,write}_{bps,iops}_device, lines "MAJ:MIN N"
 *       (writing 0 removes the limit)
 * and what a cgroup was served on a device (iolatd_cgfs_read_served):
 *   v2: io.stat, lines "MAJ:MIN rbytes=N wbytes=N rios=N wios=N ..."
 *   v1: blkio.throttle.io_service_bytes_recursive and
 *       io_serviced_recursive, lines "MAJ:MIN Read N", "MAJ:MIN Write N"
 * A limit of 0 in struct cg_limits means "none". The root can be any
 * directory (tests use a fake tree in a temp dir).
 * Context: any thread; no state besides what the caller passes.
 */
#ifndef IOLAT_DAEMON_CGROUPFS_H
#define IOLAT_DAEMON_CGROUPFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/config/config.h"

enum cg_limit_kind { CG_RBPS, CG_WBPS, CG_RIOPS, CG_WIOPS, CG_NR_LIMITS };

struct cg_limits {
	uint64_t v[CG_NR_LIMITS]; /* 0: none */
};

struct cgfs_root {
	char path[IOLATD_PATH_MAX];
	int version;              /* 1 (blkio) or 2 (io) */
};

/* "rbps", "wbps", "riops", "wiops". */
const char *iolatd_cg_limit_name(enum cg_limit_kind k);

/*
 * iolatd_cgfs_find_root() - the hierarchy that throttles block I/O: @override when
 * given, which must be a cgroup filesystem (v2 with io in its
 * cgroup.controllers, or v1 with the blkio throttle files; with
 * @allow_plain, for tests, a plain directory laid out as one), else from
 * /proc/self/mounts: a cgroup2 mount whose cgroup.controllers lists io, else
 * a cgroup (v1) mount with the blkio option.
 * Return: 0, -ENOENT (none found, not a directory), -EINVAL (not such a
 * hierarchy); @why says what was wrong.
 */
int iolatd_cgfs_find_root(const char *override, bool allow_plain, struct cgfs_root *root, char *why,
		   size_t whylen);

/* "/root/path" for a relative cgroup path ("" is the root itself). */
void iolatd_cgfs_dir(const struct cgfs_root *root, const char *rel, char *out, size_t len);

/*
 * Does @dev (under the sysfs at @sysfs, "/sys") take block requests (blk-mq:
 * it has a queue/../mq directory)? Bio-based devices (zram, most dm and md)
 * do not: their I/O never reaches the block_rq_complete tracepoint.
 */
bool iolatd_cgfs_request_based(const char *sysfs, dev_t dev);

/* A disk name (vda) or "MAJ:MIN" to a device number, via /sys/class/block. */
int iolatd_cgfs_parse_device(const char *name, dev_t *dev);

/* Read the limits set on @dev in @cgdir. Return: 0 (all 0 when none), -errno. */
int iolatd_cgfs_read_limits(const struct cgfs_root *root, const char *cgdir, dev_t dev,
		     struct cg_limits *out);

/*
 * Write the limits @l on @dev to @cgdir; with @only (non-NULL), the kinds
 * whose only[k] is false are left alone. Return: 0 or the first -errno.
 */
int iolatd_cgfs_write_limits(const struct cgfs_root *root, const char *cgdir, dev_t dev,
		      const struct cg_limits *l, const bool *only);

/* What a cgroup's subtree was served on one device since it was made: counters that only grow. */
struct cg_served {
	uint64_t bytes[2], ios[2]; /* [0] reads, [1] writes */
	bool found;                /* the file had a line for the device (else all 0: no I/O yet) */
};

/*
 * iolatd_cgfs_read_served() - the bytes and requests of @dir's whole subtree
 * on @dev, as the kernel counts them for the block throttle. They differ
 * in where they count (docs/iolatd.md, "The throttle's own counters"):
 *   v2 io.stat: a bio as it leaves the throttle for the disk (served),
 *       hierarchical by construction;
 *   v1 *_recursive: a bio as it enters the throttle, before any wait
 *       (requested; it runs ahead of what was dispatched by at most what is
 *       queued in the throttle), summed over the subtree and the cgroups
 *       removed below it; bios, not requests (a 1 MiB write may be two);
 *       on kernels from 6.10 only once some limit was written on @dev.
 * Return: 0 (@out filled, found=false when the device has no line), -errno
 * from opening a file (-ENOENT: no such cgroup or file), -EINVAL for a line
 * of @dev that cannot be read (@out then all 0).
 */
int iolatd_cgfs_read_served(const struct cgfs_root *root, const char *dir, dev_t dev, struct cg_served *out);

/* The inode number of a directory (the cgroup id BPF sees), or 0. */
uint64_t iolatd_cgfs_ino(const char *dir);

/* Does cgroup @dir have the io controller? (Always on v1: blkio is the hierarchy.) */
bool iolatd_cgfs_has_io(const struct cgfs_root *root, const char *dir);

/* Format / parse "MAJ:MIN". */
void iolatd_cgfs_devstr(dev_t dev, char *buf, size_t len);

#endif
