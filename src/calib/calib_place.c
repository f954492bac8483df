/* SPDX-License-Identifier: MIT */
/*
 * calib_place.c - where `iolat calibrate` reads and writes (calib_place.h):
 * a whole block device that nothing uses (two regions of it), or two scratch
 * files on a filesystem (in a directory, or at a path that does not exist
 * yet). Every check before anything is created; a mounted or held device, a
 * device with a filesystem or partition table, and an existing file are
 * refused with the way to do it instead. Only stats, reads and a probe.
 * Context: any thread; no state.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "calib/calib_place.h"
#include "engine/blkdev.h"
#include "run/preflight.h"

static int place_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int on_device(struct iolat_calib_place *pl, const char *path, char *err, size_t len)
{
	struct iolat_eng_blkdev_state st;
	char need[32];
	int ret = iolat_eng_blkdev_probe(path, &st);

	/* Mounts and holders are known even when the device cannot be opened. */
	if (ret && !st.mounted && !st.held)
		return place_err(err, len, "%s: cannot probe the device: %s", path, strerror(-ret));
	if (st.mounted)
		return place_err(err, len, "%s: %s is mounted on %s, and calibrate's writes would "
				 "destroy that filesystem: give a directory on it instead "
				 "(iolat calibrate %s)", path, st.mounted_dev, st.mount_point,
				 st.mount_point);
	if (st.held)
		return place_err(err, len, "%s: in use (%s): calibrate writes to the disk; give a "
				 "directory on a filesystem of it instead", path, st.holder);
	if (st.signature)
		return place_err(err, len, "%s: carries a %s, which calibrate's writes would "
				 "destroy: give a directory on a filesystem instead", path,
				 st.signature);
	if (st.size < IOLAT_CALIB_READ_SIZE + IOLAT_CALIB_WRITE_SIZE)
		return place_err(err, len, "%s: %s is too small: calibrate needs %s", path,
				 "the device", iolat_format_bytes(IOLAT_CALIB_READ_SIZE +
				 IOLAT_CALIB_WRITE_SIZE, need, sizeof(need)));
	snprintf(pl->read_path, sizeof(pl->read_path), "%s", path);
	snprintf(pl->write_path, sizeof(pl->write_path), "%s", path);
	pl->read_offset = 0;
	pl->write_offset = IOLAT_CALIB_READ_SIZE;
	pl->device = true;
	return 0;
}

/* Two scratch files @prefix.read and @prefix.write, in a directory with room. */
static int on_files(struct iolat_calib_place *pl, const char *prefix, char *err, size_t len)
{
	uint64_t need = IOLAT_CALIB_READ_SIZE + IOLAT_CALIB_WRITE_SIZE, avail;
	char dir[4096], a[32], b[32];
	struct statvfs vfs;

	if ((size_t)snprintf(pl->read_path, sizeof(pl->read_path), "%s.read", prefix) >=
	    sizeof(pl->read_path) ||
	    (size_t)snprintf(pl->write_path, sizeof(pl->write_path), "%s.write", prefix) >=
	    sizeof(pl->write_path))
		return place_err(err, len, "%s: the path is too long", prefix);
	if (!access(pl->read_path, F_OK) || !access(pl->write_path, F_OK))
		return place_err(err, len, "%s: exists, and calibrate would overwrite it: "
				 "remove it or give another path",
				 access(pl->read_path, F_OK) ? pl->write_path : pl->read_path);
	iolat_path_dir(pl->read_path, dir, sizeof(dir));
	if (access(dir, W_OK) || statvfs(dir, &vfs))
		return place_err(err, len, "%s: cannot write in %s: %s", prefix, dir, strerror(errno));
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail < need + need / 10)
		return place_err(err, len, "%s: calibrate needs %s for two scratch files and %s has "
				 "%s free", prefix, iolat_format_bytes(need, a, sizeof(a)), dir,
				 iolat_format_bytes(avail, b, sizeof(b)));
	pl->read_offset = pl->write_offset = 0;
	pl->scratch = true;
	return 0;
}

int iolat_calib_place(struct iolat_calib_place *pl, const char *path, long pid,
		      char *err, size_t len)
{
	char prefix[4096];
	struct stat st;

	memset(pl, 0, sizeof(*pl));
	if (!*path)
		return place_err(err, len, "expected a disk, a directory or a new file's path");
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return place_err(err, len, "%s: %s", path, strerror(errno));
		return on_files(pl, path, err, len);   /* a new path: the scratch files' prefix */
	}
	if (S_ISBLK(st.st_mode))
		return on_device(pl, path, err, len);
	if (S_ISDIR(st.st_mode)) {
		if ((size_t)snprintf(prefix, sizeof(prefix), "%s/iolat-calibrate-%ld", path, pid) >=
		    sizeof(prefix))
			return place_err(err, len, "%s: the path is too long", path);
		return on_files(pl, prefix, err, len);
	}
	if (S_ISREG(st.st_mode))
		return place_err(err, len, "%s: exists, and calibrate would overwrite it: give a "
				 "directory, a path that does not exist, or an unused disk", path);
	return place_err(err, len, "%s: expected a block device, a directory or a new file's path",
			 path);
}
