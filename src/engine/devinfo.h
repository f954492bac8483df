/* SPDX-License-Identifier: MIT */
/*
 * devinfo.h - what the block device behind a file says about itself:
 * queue depth (nr_requests), rotational, logical block size, read from
 * /sys/dev/block/MAJ:MIN (the parent disk for a partition). Falls back to
 * 64 / rotational / unknown block size for overlayfs, tmpfs and the like.
 * Context: any thread; no state.
 */
#ifndef IOLAT_ENGINE_DEVINFO_H
#define IOLAT_ENGINE_DEVINFO_H

#include <stdbool.h>
#include <stdint.h>

#define IOLAT_ENG_NR_REQUESTS_DEF 64u   /* the controller's default qd */
#define IOLAT_ENG_ROTATIONAL_DEF  1     /* unknown: assume the mean rule */

struct iolat_eng_devinfo {
	uint32_t nr_requests;         /* queue/nr_requests; 64 when unknown */
	int rotational;               /* queue/rotational; 1 when unknown */
	uint32_t logical_block_size;  /* queue/logical_block_size; 0 when unknown */
	bool found;                   /* a sysfs queue directory was read */
	char disk[32];                /* "vda" (the whole disk), "" when unknown */
	unsigned disk_major, disk_minor; /* the whole disk's MAJ:MIN (its sysfs "dev"); both 0 when unknown */
};

/**
 * iolat_eng_devinfo_path() - describe the device holding @path (a file, a
 * directory, a block device, or a file still to be created: its directory).
 * Return: 0 when sysfs answered; -ENODEV when it did not (@di holds the
 * fallbacks); -errno from stat (fallbacks too).
 */
int iolat_eng_devinfo_path(const char *path, struct iolat_eng_devinfo *di);

/** iolat_eng_devinfo_fd() - the same for an open file. */
int iolat_eng_devinfo_fd(int fd, struct iolat_eng_devinfo *di);

/**
 * iolat_eng_devinfo_dev() - the same for device MAJ:MIN, with sysfs at
 * @sysfs_root ("/sys"; tests pass a fake tree).
 */
int iolat_eng_devinfo_dev(const char *sysfs_root, unsigned maj, unsigned min,
			  struct iolat_eng_devinfo *di);

/**
 * iolat_eng_device_info() - nr_requests and rotational of the device behind
 * @path, for struct iolat_ctl_config. Either pointer may be NULL.
 * Return: 0 when read from sysfs; -ENODEV or -errno with the fallbacks
 * (64, rotational=1) stored.
 */
int iolat_eng_device_info(const char *path, uint32_t *nr_requests, int *rotational);

#endif /* IOLAT_ENGINE_DEVINFO_H */
