/* SPDX-License-Identifier: MIT */
/*
 * devpath.h - the disk a device path names, as systemd means it in a unit's
 * IODeviceLatencyTargetSec= (/dev/vda, /dev/disk/by-id/..., /dev/block/254:0,
 * /dev/vda1, or a file on a filesystem: its device), resolved where iolatd
 * may not see the host's /dev: its own unit runs with PrivateDevices=yes, a
 * /dev holding only null, zero, random and the like. So a path that cannot be
 * looked at is resolved by its name instead: /dev/block/MAJ:MIN by its
 * numbers, /dev/NAME by the kernel's name (sysfs), and a udev symlink
 * (/dev/disk/by-id/..., /dev/mapper/...) through udev's database, whose
 * record of each block device (/run/udev/data/bMAJ:MIN) lists the symlinks
 * udev made for it ("S:disk/by-id/..." lines). A partition is taken as the
 * disk it is on (the block throttle, like systemd, acts on whole disks).
 * Context: any thread; no state.
 */
#ifndef IOLAT_DAEMON_DEVPATH_H
#define IOLAT_DAEMON_DEVPATH_H

#include <sys/types.h>

#define IOLATD_UDEV_DATA "/run/udev/data"

/*
 * iolatd_devpath_disk() - the whole disk @path names. @sysfs ("/sys") and
 * @udev_data (IOLATD_UDEV_DATA) are the trees looked in (tests pass fakes).
 * Return: 0 with *@disk set, or -ENODEV (nothing found by any way).
 */
int iolatd_devpath_disk(const char *path, const char *sysfs, const char *udev_data, dev_t *disk);

#endif
