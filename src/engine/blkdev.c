/* SPDX-License-Identifier: MIT */
/*
 * blkdev.c - the block-device safety probe (see blkdev.h): mounts from
 * /proc/self/mountinfo matched by device number (the device and every
 * partition sysfs lists under it), holders from sysfs, an O_EXCL open to
 * catch other claims, and a table of on-disk magic numbers at their
 * documented offsets. Every check only reads.
 * Context: any thread; no state.
 */
#include "engine/blkdev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define PROBE_BYTES (72u * 1024u)   /* covers btrfs's superblock at 64 KiB */
#define MAX_DEVS    64u             /* the device and its partitions */

struct magic {
	size_t off;
	const char *bytes;
	size_t len;
	const char *what;
};

/* Offsets and magic numbers as the formats define them. */
static const struct magic magics[] = {
	{ 0, "LUKS\xba\xbe", 6, "LUKS encrypted volume" },
	{ 0, "XFSB", 4, "XFS filesystem" },
	{ 1080, "\x53\xef", 2, "ext2/3/4 filesystem" },
	{ 65600, "_BHRfS_M", 8, "btrfs filesystem" },
	{ 4086, "SWAPSPACE2", 10, "swap area" },
	{ 4086, "SWAP-SPACE", 10, "swap area" },
	{ 8182, "SWAPSPACE2", 10, "swap area" },
	{ 16374, "SWAPSPACE2", 10, "swap area" },
	{ 65526, "SWAPSPACE2", 10, "swap area" },
	{ 512, "EFI PART", 8, "GPT partition table" },
	{ 4096, "EFI PART", 8, "GPT partition table" },
	{ 536, "LVM2 001", 8, "LVM physical volume" },
	{ 0, "\xfc\x4e\x2b\xa9", 4, "Linux RAID (md) member" },
	{ 4096, "\xfc\x4e\x2b\xa9", 4, "Linux RAID (md) member" },
	{ 3, "NTFS    ", 8, "NTFS filesystem" },
	{ 32769, "CD001", 5, "ISO 9660 filesystem" },
	{ 1024, "\x10\x20\xf5\xf2", 4, "F2FS filesystem" },
	{ 510, "\x55\xaa", 2, "MBR partition table or boot sector" },
};

const char *iolat_eng_signature(const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		const struct magic *m = &magics[i];

		if (m->off + m->len <= len && !memcmp(buf + m->off, m->bytes, m->len))
			return m->what;
	}
	return NULL;
}

/* A sysfs file holding "MAJ:MIN\n". */
static int read_devno(const char *path, dev_t *dev)
{
	unsigned maj, min;
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%u:%u", &maj, &min) == 2;
	fclose(f);
	if (!ok)
		return -EINVAL;
	*dev = makedev(maj, min);
	return 0;
}

/* @dev and the partitions sysfs lists under it, with their names. */
static unsigned list_devs(dev_t dev, dev_t *devs, char names[][32], unsigned max)
{
	char dir[96], path[400];
	unsigned n = 0;
	DIR *d;
	struct dirent *e;

	devs[n] = dev;
	snprintf(names[n++], 32, "the device itself");
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	d = opendir(dir);
	if (!d)
		return n;
	while ((e = readdir(d)) && n < max) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/partition", dir, e->d_name);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, e->d_name);
		if (read_devno(path, &devs[n]) == 0)
			snprintf(names[n++], 32, "%.31s", e->d_name);
	}
	closedir(d);
	return n;
}

/* The first mount of any of @devs: field 3 of mountinfo is MAJ:MIN, field 5 the mount point. */
static void find_mount(const dev_t *devs, char names[][32], unsigned n,
		       struct iolat_eng_blkdev_state *st)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	while (!st->mounted && getline(&line, &cap, f) > 0) {
		unsigned maj, min;
		char mnt[256];

		if (sscanf(line, "%*s %*s %u:%u %*s %255s", &maj, &min, mnt) != 3)
			continue;
		for (unsigned i = 0; i < n; i++) {
			if (devs[i] == makedev(maj, min)) {
				st->mounted = true;
				snprintf(st->mount_point, sizeof(st->mount_point), "%.127s", mnt);
				snprintf(st->mounted_dev, sizeof(st->mounted_dev), "%s", names[i]);
				break;
			}
		}
	}
	free(line);
	fclose(f);
}

/* A holder (dm, md) of any of @devs, by sysfs. */
static void find_holder(const dev_t *devs, unsigned n, struct iolat_eng_blkdev_state *st)
{
	for (unsigned i = 0; i < n && !st->held; i++) {
		char dir[96];
		DIR *d;
		struct dirent *e;

		snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/holders", major(devs[i]),
			 minor(devs[i]));
		d = opendir(dir);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			st->held = true;
			snprintf(st->holder, sizeof(st->holder), "held by %.40s", e->d_name);
			break;
		}
		closedir(d);
	}
}

int iolat_eng_blkdev_probe(const char *path, struct iolat_eng_blkdev_state *st)
{
	dev_t devs[MAX_DEVS];
	char names[MAX_DEVS][32];
	unsigned char *buf;
	struct stat sb;
	ssize_t got;
	unsigned n;
	int fd, ret = 0;

	memset(st, 0, sizeof(*st));
	if (stat(path, &sb) < 0)
		return -errno;
	if (!S_ISBLK(sb.st_mode))
		return -ENOTBLK;
	n = list_devs(sb.st_rdev, devs, names, MAX_DEVS);
	find_mount(devs, names, n, st);
	find_holder(devs, n, st);
	/* A mounted or otherwise claimed device refuses an exclusive open. */
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY && !st->held && !st->mounted) {
		st->held = true;
		snprintf(st->holder, sizeof(st->holder), "in use (an exclusive open was refused)");
	}
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, &st->size) < 0)
		ret = -errno;
	buf = calloc(1, PROBE_BYTES);
	if (!buf)
		ret = ret ? ret : -ENOMEM;
	if (!ret) {
		got = pread(fd, buf, PROBE_BYTES, 0);
		if (got < 0)
			ret = -errno;
		else
			st->signature = iolat_eng_signature(buf, (size_t)got);
	}
	free(buf);
	close(fd);
	return ret;
}
