/* SPDX-License-Identifier: MIT */
/*
 * devinfo.c - reads the sysfs queue attributes of the device behind a file:
 * stat -> st_dev (st_rdev for a block device) -> /sys/dev/block/MAJ:MIN ->
 * the disk's queue/ directory (one level up for a partition).
 * Owns no state; any thread may call it.
 */
#include "engine/devinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void set_fallbacks(struct iolat_eng_devinfo *di)
{
	*di = (struct iolat_eng_devinfo){
		.nr_requests = IOLAT_ENG_NR_REQUESTS_DEF,
		.rotational = IOLAT_ENG_ROTATIONAL_DEF,
	};
}

/* Read one unsigned decimal from @dir/@name; 0 or -errno. */
static int read_uint(const char *dir, const char *name, unsigned long *val)
{
	char path[PATH_MAX + 64], buf[64];
	FILE *f;
	char *end;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	errno = 0;
	*val = strtoul(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

/* The whole disk's MAJ:MIN from @disk_dir/dev ("254:0"); left 0:0 when unreadable. */
static void read_disk_dev(const char *disk_dir, struct iolat_eng_devinfo *di)
{
	char path[PATH_MAX + 16], buf[64];
	unsigned maj, min;
	FILE *f;

	snprintf(path, sizeof(path), "%s/dev", disk_dir);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%u:%u", &maj, &min) == 2) {
		di->disk_major = maj;
		di->disk_minor = min;
	}
	fclose(f);
}

int iolat_eng_devinfo_dev(const char *sysfs_root, unsigned maj, unsigned min,
			  struct iolat_eng_devinfo *di)
{
	char link[PATH_MAX], real[PATH_MAX], part[PATH_MAX + 16], queue[PATH_MAX + 16];
	unsigned long v;
	char *slash;
	bool any = false;

	set_fallbacks(di);
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs_root ? sysfs_root : "/sys",
		 maj, min);
	if (!realpath(link, real))
		return -ENODEV;   /* overlayfs, tmpfs, btrfs anonymous devices... */

	/* A partition has a "partition" file; its queue is its disk's. */
	snprintf(part, sizeof(part), "%s/partition", real);
	if (access(part, F_OK) == 0) {
		slash = strrchr(real, '/');
		if (!slash || slash == real)
			return -ENODEV;
		*slash = '\0';
	}
	slash = strrchr(real, '/');
	snprintf(di->disk, sizeof(di->disk), "%.*s", (int)sizeof(di->disk) - 1,
		 slash ? slash + 1 : real);

	read_disk_dev(real, di);
	snprintf(queue, sizeof(queue), "%s/queue", real);
	if (read_uint(queue, "nr_requests", &v) == 0 && v > 0 && v <= UINT32_MAX) {
		di->nr_requests = (uint32_t)v;
		any = true;
	}
	if (read_uint(queue, "rotational", &v) == 0) {
		di->rotational = v ? 1 : 0;
		any = true;
	}
	if (read_uint(queue, "logical_block_size", &v) == 0 && v >= 512 && v <= 65536 &&
	    (v & (v - 1)) == 0) {
		di->logical_block_size = (uint32_t)v;
		any = true;
	}
	di->found = any;
	return any ? 0 : -ENODEV;
}

static int devinfo_stat(const struct stat *st, struct iolat_eng_devinfo *di)
{
	dev_t dev = S_ISBLK(st->st_mode) ? st->st_rdev : st->st_dev;

	return iolat_eng_devinfo_dev(NULL, major(dev), minor(dev), di);
}

int iolat_eng_devinfo_fd(int fd, struct iolat_eng_devinfo *di)
{
	struct stat st;

	set_fallbacks(di);
	if (fstat(fd, &st) < 0)
		return -errno;
	return devinfo_stat(&st, di);
}

int iolat_eng_devinfo_path(const char *path, struct iolat_eng_devinfo *di)
{
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	set_fallbacks(di);
	if (!path || !*path)
		return -EINVAL;
	if (stat(path, &st) == 0)
		return devinfo_stat(&st, di);
	if (errno != ENOENT)
		return -errno;
	/* Not created yet: ask about the directory that will hold it. */
	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) < 0)
		return -errno;
	return devinfo_stat(&st, di);
}

int iolat_eng_device_info(const char *path, uint32_t *nr_requests, int *rotational)
{
	struct iolat_eng_devinfo di;
	int ret = iolat_eng_devinfo_path(path, &di);

	if (nr_requests)
		*nr_requests = di.nr_requests;
	if (rotational)
		*rotational = di.rotational;
	return ret;
}
