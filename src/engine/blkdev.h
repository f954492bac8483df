/* SPDX-License-Identifier: MIT */
/*
 * blkdev.h - is a block device safe to write? Before `iolat run` writes to a
 * block device it asks: is it (or one of its partitions) mounted
 * (/proc/self/mountinfo), held by another driver (device mapper, md, LVM:
 * /sys/dev/block/MAJ:MIN/holders, or an exclusive open refused), and does it
 * start with a filesystem, RAID, LVM, LUKS, swap or partition-table
 * signature (magic numbers read from its first 72 KiB)? Only reads.
 * Context: any thread; no state.
 */
#ifndef IOLAT_ENGINE_BLKDEV_H
#define IOLAT_ENGINE_BLKDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iolat_eng_blkdev_state {
	uint64_t size;             /* bytes */
	bool mounted;              /* it or a partition of it is mounted */
	char mount_point[128];     /* where (the first found), when mounted */
	char mounted_dev[32];      /* which ("loop0p1", the device itself...) */
	bool held;                 /* a holder in sysfs, or an exclusive open refused */
	char holder[64];           /* "dm-0", or "exclusive open refused (EBUSY)" */
	const char *signature;     /* "ext2/3/4 filesystem", ...; NULL: none found */
};

/**
 * iolat_eng_blkdev_probe() - describe the block device @path.
 * Return: 0; -ENOTBLK when @path is not a block device; -errno when it
 * cannot be opened or read.
 */
int iolat_eng_blkdev_probe(const char *path, struct iolat_eng_blkdev_state *st);

/**
 * iolat_eng_signature() - the name of the first known signature in @buf (the
 * first @len bytes of a device), or NULL. Exposed for tests.
 */
const char *iolat_eng_signature(const unsigned char *buf, size_t len);

#endif /* IOLAT_ENGINE_BLKDEV_H */
