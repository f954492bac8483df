/* SPDX-License-Identifier: MIT */
/*
 * devpath.c - device paths to whole disks (devpath.h): the node itself
 * when it can be seen, else the path's name through sysfs and udev's
 * database.
 * Context: any thread; no state.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "daemon/tree/devpath.h"

#define PATH_LEN 512

static int parse_majmin(const char *s, dev_t *dev)
{
	unsigned maj, min;
	int n = 0;

	if (sscanf(s, "%u:%u%n", &maj, &min, &n) != 2 || (s[n] && s[n] != '\n'))
		return -ENODEV;
	*dev = makedev(maj, min);
	return 0;
}

static int read_majmin(const char *path, dev_t *dev)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	int ret = -ENODEV;

	if (!f)
		return -ENODEV;
	if (fgets(buf, sizeof(buf), f))
		ret = parse_majmin(buf, dev);
	fclose(f);
	return ret;
}

/* Does udev's record @file list @link (relative to /dev) among its symlinks? */
static bool record_has_link(const char *file, const char *link)
{
	char line[PATH_LEN];
	bool found = false;
	FILE *f = fopen(file, "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = !strncmp(line, "S:", 2) && !strcmp(line + 2, link);
	}
	fclose(f);
	return found;
}

/* The block device whose udev record lists the symlink /dev/@link. */
static int udev_link(const char *udev_data, const char *link, dev_t *dev)
{
	char file[PATH_LEN * 2];
	struct dirent *e;
	int ret = -ENODEV;
	DIR *dir = opendir(udev_data);

	if (!dir)
		return -ENODEV;
	while (ret && (e = readdir(dir))) {
		if (e->d_name[0] != 'b' || parse_majmin(e->d_name + 1, dev))
			continue;
		snprintf(file, sizeof(file), "%s/%s", udev_data, e->d_name);
		if (record_has_link(file, link))
			ret = 0;
	}
	closedir(dir);
	return ret;
}

/* @path by its name alone: /dev/block/MAJ:MIN, /dev/NAME, or a udev symlink under /dev. */
static int by_name(const char *path, const char *sysfs, const char *udev_data, dev_t *dev)
{
	char file[PATH_LEN * 2];
	const char *rel;

	if (strncmp(path, "/dev/", 5))
		return -ENODEV;
	rel = path + 5;
	if (!strncmp(rel, "block/", 6))
		return parse_majmin(rel + 6, dev);
	if (!strchr(rel, '/')) {
		snprintf(file, sizeof(file), "%s/class/block/%s/dev", sysfs, rel);
		if (!read_majmin(file, dev))
			return 0;
	}
	return udev_link(udev_data, rel, dev);
}

int iolatd_devpath_disk(const char *path, const char *sysfs, const char *udev_data, dev_t *disk)
{
	char file[PATH_LEN * 2];
	struct stat st;
	dev_t dev;

	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		dev = st.st_rdev;
	else if (by_name(path, sysfs, udev_data, &dev) == 0)
		;
	else if (stat(path, &st) == 0 && !S_ISCHR(st.st_mode) && major(st.st_dev) != 0)
		dev = st.st_dev; /* a file or directory on a disk's filesystem: that disk */
	else
		return -ENODEV;
	snprintf(file, sizeof(file), "%s/dev/block/%u:%u/partition", sysfs, major(dev), minor(dev));
	if (stat(file, &st) == 0) {
		snprintf(file, sizeof(file), "%s/dev/block/%u:%u/../dev", sysfs, major(dev), minor(dev));
		if (read_majmin(file, &dev))
			return -ENODEV;
	}
	*disk = dev;
	return 0;
}
