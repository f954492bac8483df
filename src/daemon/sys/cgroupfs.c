/* SPDX-License-Identifier: MIT */
/*
 * cgroupfs.c - reading and writing the block throttle's files (cgroupfs.h):
 * io.max on cgroup v2, blkio.throttle.*_device on v1, what a cgroup was
 * served (io.stat, blkio.throttle.io_service*_recursive), and finding which
 * hierarchy controls block I/O on this host.
 * Context: any thread; plain file I/O, no state.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "daemon/sys/cgroupfs.h"

static const char *const limit_names[CG_NR_LIMITS] = { "rbps", "wbps", "riops", "wiops" };
static const char *const v1_files[CG_NR_LIMITS] = {
	"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
	"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device",
};

const char *iolatd_cg_limit_name(enum cg_limit_kind k)
{
	return k < CG_NR_LIMITS ? limit_names[k] : "?";
}

void iolatd_cgfs_devstr(dev_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", major(dev), minor(dev));
}

void iolatd_cgfs_dir(const struct cgfs_root *root, const char *rel, char *out, size_t len)
{
	snprintf(out, len, "%s%s%s", root->path, *rel ? "/" : "", rel);
}

uint64_t iolatd_cgfs_ino(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? (uint64_t)st.st_ino : 0;
}

static bool file_has_word(const char *path, const char *word)
{
	char buf[512], *save = NULL;
	FILE *f = fopen(path, "r");
	bool found = false;

	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		for (char *t = strtok_r(buf, " \n", &save); t && !found; t = strtok_r(NULL, " \n", &save))
			found = !strcmp(t, word);
	fclose(f);
	return found;
}

bool iolatd_cgfs_has_io(const struct cgfs_root *root, const char *dir)
{
	char ctl[IOLATD_PATH_MAX * 2 + 32];

	if (root->version != 2)
		return true;
	snprintf(ctl, sizeof(ctl), "%s/cgroup.controllers", dir);
	return file_has_word(ctl, "io");
}

static bool opts_have(const char *opts, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = opts; (p = strstr(p, word)); p += n)
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

#define CGROUP1_MAGIC 0x27e0ebu
#define CGROUP2_MAGIC 0x63677270u

/* An explicit cgroup_root: a cgroup filesystem whose controller throttles block I/O. */
static int check_root(const char *dir, bool allow_plain, struct cgfs_root *root, char *err, size_t errlen)
{
	char ctl[IOLATD_PATH_MAX + 32];
	struct statfs sf;
	bool v2;

	if (!iolatd_cgfs_ino(dir) || statfs(dir, &sf)) {
		snprintf(err, errlen, "cgroup_root %s: not a directory", dir);
		return -ENOENT;
	}
	snprintf(ctl, sizeof(ctl), "%s/cgroup.controllers", dir);
	if ((unsigned)sf.f_type == CGROUP2_MAGIC)
		v2 = true;
	else if ((unsigned)sf.f_type == CGROUP1_MAGIC)
		v2 = false;
	else if (allow_plain)
		v2 = access(ctl, F_OK) == 0;
	else {
		snprintf(err, errlen, "cgroup_root %s: not a cgroup filesystem (give the io or blkio hierarchy, "
			 "e.g. /sys/fs/cgroup or /sys/fs/cgroup/blkio)", dir);
		return -EINVAL;
	}
	if (v2 && !file_has_word(ctl, "io")) {
		snprintf(err, errlen, "cgroup_root %s: cgroup v2 without the io controller (not in its "
			 "cgroup.controllers: enable it with +io in the parent's cgroup.subtree_control)", dir);
		return -EINVAL;
	}
	snprintf(ctl, sizeof(ctl), "%s/%s", dir, v1_files[0]);
	if (!v2 && access(ctl, F_OK)) {
		snprintf(err, errlen, "cgroup_root %s: a cgroup v1 hierarchy without blkio throttling (no %s): "
			 "give the blkio hierarchy, e.g. /sys/fs/cgroup/blkio", dir, v1_files[0]);
		return -EINVAL;
	}
	snprintf(root->path, sizeof(root->path), "%s", dir);
	root->version = v2 ? 2 : 1;
	return 0;
}

int iolatd_cgfs_find_root(const char *override, bool allow_plain, struct cgfs_root *root, char *why,
		   size_t whylen)
{
	char dev[256], dir[IOLATD_PATH_MAX], type[64], opts[512], v1[IOLATD_PATH_MAX] = "";
	char ctl[IOLATD_PATH_MAX + 32];
	FILE *f;

	if (override && *override)
		return check_root(override, allow_plain, root, why, whylen);
	f = fopen("/proc/self/mounts", "r");
	if (!f) {
		snprintf(why, whylen, "cannot read /proc/self/mounts");
		return -ENOENT;
	}
	while (fscanf(f, "%255s %255s %63s %511s %*d %*d", dev, dir, type, opts) == 4) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(ctl, sizeof(ctl), "%s/cgroup.controllers", dir);
			if (file_has_word(ctl, "io")) {
				snprintf(root->path, sizeof(root->path), "%s", dir);
				root->version = 2;
				fclose(f);
				return 0;
			}
		} else if (!strcmp(type, "cgroup") && opts_have(opts, "blkio") && !*v1) {
			snprintf(v1, sizeof(v1), "%s", dir);
		}
	}
	fclose(f);
	if (*v1) {
		snprintf(root->path, sizeof(root->path), "%s", v1);
		root->version = 1;
		return 0;
	}
	snprintf(why, whylen, "no cgroup2 mount with the io controller and no cgroup v1 blkio mount");
	return -ENOENT;
}

bool iolatd_cgfs_request_based(const char *sysfs, dev_t dev)
{
	char path[IOLATD_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/mq", sysfs, major(dev), minor(dev));
	return iolatd_cgfs_ino(path) != 0;
}

int iolatd_cgfs_parse_device(const char *name, dev_t *dev)
{
	unsigned maj, min;
	char path[128], buf[64];
	int n = 0;
	FILE *f;

	if (sscanf(name, "%u:%u%n", &maj, &min, &n) == 2 && name[n] == '\0') {
		*dev = makedev(maj, min);
		return 0;
	}
	if (strchr(name, '/') || strlen(name) > 64)
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	f = fopen(path, "r");
	if (!f)
		return -ENODEV;
	n = fgets(buf, sizeof(buf), f) && sscanf(buf, "%u:%u", &maj, &min) == 2;
	fclose(f);
	if (!n)
		return -ENODEV;
	*dev = makedev(maj, min);
	return 0;
}

/* "max" or a number. */
static int parse_val(const char *s, uint64_t *v)
{
	char *end;

	if (!strcmp(s, "max")) {
		*v = 0;
		return 0;
	}
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end ? -EINVAL : 0;
}

/* v2: the io.max line of @dev, "MAJ:MIN rbps=.. wbps=.. riops=.. wiops=..". */
static int read_v2(const char *cgdir, const char *devs, struct cg_limits *out)
{
	char path[IOLATD_PATH_MAX + 16], line[512];
	size_t dl = strlen(devs);
	FILE *f;

	snprintf(path, sizeof(path), "%s/io.max", cgdir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL;

		if (strncmp(line, devs, dl) || line[dl] != ' ')
			continue;
		for (char *t = strtok_r(line + dl, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
			char *eq = strchr(t, '=');

			if (!eq)
				continue;
			*eq = '\0';
			for (int k = 0; k < CG_NR_LIMITS; k++)
				if (!strcmp(t, limit_names[k]) && parse_val(eq + 1, &out->v[k])) {
					fclose(f);
					return -EINVAL;
				}
		}
	}
	fclose(f);
	return 0;
}

/* v1: each blkio.throttle file's line for @dev, "MAJ:MIN N". */
static int read_v1(const char *cgdir, const char *devs, struct cg_limits *out)
{
	char path[IOLATD_PATH_MAX + 48], line[256];
	size_t dl = strlen(devs);

	for (int k = 0; k < CG_NR_LIMITS; k++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", cgdir, v1_files[k]);
		f = fopen(path, "r");
		if (!f)
			return -errno;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strncmp(line, devs, dl) && line[dl] == ' ' &&
			    parse_val(line + dl + 1, &out->v[k])) {
				fclose(f);
				return -EINVAL;
			}
		}
		fclose(f);
	}
	return 0;
}

int iolatd_cgfs_read_limits(const struct cgfs_root *root, const char *cgdir, dev_t dev,
		     struct cg_limits *out)
{
	char devs[32];

	memset(out, 0, sizeof(*out));
	iolatd_cgfs_devstr(dev, devs, sizeof(devs));
	return root->version == 2 ? read_v2(cgdir, devs, out) : read_v1(cgdir, devs, out);
}

/* A counter: decimal digits only. */
static int parse_count(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* v2: io.stat's line of @devs, "MAJ:MIN rbytes=N wbytes=N rios=N wios=N ...". */
static int served_v2(const char *dir, const char *devs, struct cg_served *out)
{
	static const char *const keys[4] = { "rbytes", "wbytes", "rios", "wios" };
	uint64_t *dst[4] = { &out->bytes[0], &out->bytes[1], &out->ios[0], &out->ios[1] };
	char path[IOLATD_PATH_MAX + 16], line[1024];
	size_t dl = strlen(devs);
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/io.stat", dir);
	if (!(f = fopen(path, "r")))
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		char *save = NULL;

		if (strncmp(line, devs, dl) || line[dl] != ' ')
			continue;
		out->found = true;
		for (char *t = strtok_r(line + dl, " \n", &save); t && !err; t = strtok_r(NULL, " \n", &save)) {
			char *eq = strchr(t, '=');

			if (!eq)
				continue;
			*eq = '\0';
			for (int k = 0; k < 4; k++)
				if (!strcmp(t, keys[k]))
					err = parse_count(eq + 1, dst[k]);
		}
	}
	fclose(f);
	return err;
}

/* v1: one rwstat file's Read and Write lines of @devs, "MAJ:MIN Read N". */
static int served_v1_file(const char *dir, const char *file, const char *devs, uint64_t v[2], bool *found)
{
	char path[IOLATD_PATH_MAX + 64], line[256];
	size_t dl = strlen(devs);
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!(f = fopen(path, "r")))
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		char *op = line + dl, *num;
		int k;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, devs, dl) || *op++ != ' ')
			continue;
		*found = true;
		if (!(num = strchr(op, ' ')))
			err = -EINVAL;
		else if ((k = !strncmp(op, "Read ", 5) ? 0 : !strncmp(op, "Write ", 6) ? 1 : -1) >= 0)
			err = parse_count(num + 1, &v[k]);
	}
	fclose(f);
	return err;
}

int iolatd_cgfs_read_served(const struct cgfs_root *root, const char *dir, dev_t dev, struct cg_served *out)
{
	char devs[32];
	int err;

	memset(out, 0, sizeof(*out));
	iolatd_cgfs_devstr(dev, devs, sizeof(devs));
	if (root->version == 2)
		err = served_v2(dir, devs, out);
	else if (!(err = served_v1_file(dir, "blkio.throttle.io_service_bytes_recursive", devs, out->bytes,
					&out->found)))
		err = served_v1_file(dir, "blkio.throttle.io_serviced_recursive", devs, out->ios, &out->found);
	if (err)
		memset(out, 0, sizeof(*out));
	return err;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC); /* O_TRUNC: as a shell redirection */
	ssize_t n, len = (ssize_t)strlen(s);
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, (size_t)len);
	err = n < 0 ? -errno : n != len ? -EIO : 0;
	close(fd);
	return err;
}

int iolatd_cgfs_write_limits(const struct cgfs_root *root, const char *cgdir, dev_t dev,
		      const struct cg_limits *l, const bool *only)
{
	char devs[32], path[IOLATD_PATH_MAX + 48], line[256];
	int first = 0;

	iolatd_cgfs_devstr(dev, devs, sizeof(devs));
	if (root->version == 2) {
		size_t pos = (size_t)snprintf(line, sizeof(line), "%s", devs);

		for (int k = 0; k < CG_NR_LIMITS; k++) {
			if (only && !only[k])
				continue;
			if (l->v[k])
				pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " %s=%" PRIu64,
							limit_names[k], l->v[k]);
			else
				pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " %s=max",
							limit_names[k]);
		}
		snprintf(path, sizeof(path), "%s/io.max", cgdir);
		return write_str(path, line);
	}
	for (int k = 0; k < CG_NR_LIMITS; k++) {
		int err;

		if (only && !only[k])
			continue;
		snprintf(path, sizeof(path), "%s/%s", cgdir, v1_files[k]);
		snprintf(line, sizeof(line), "%s %" PRIu64, devs, l->v[k]);
		err = write_str(path, line);
		if (err && !first)
			first = err;
	}
	return first;
}
