/* SPDX-License-Identifier: MIT */
/*
 * t_fakecg.c - the fake cgroupfs tree of t_fakecg.h.
 * Context: the test's one thread.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "t_fakecg.h"

static const char *const v1_files[] = {
	"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
	"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device",
};

static const char *const v1_stat_files[] = {
	"blkio.throttle.io_service_bytes_recursive", "blkio.throttle.io_serviced_recursive",
};

static void touch(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

const char *t_fakecg_path(struct t_fakecg *f, const char *rel)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s%s%s", f->root, *rel ? "/" : "", rel);
	return buf;
}

static void add_files(struct t_fakecg *f, const char *dir)
{
	char p[1200];

	if (f->version == 2) {
		snprintf(p, sizeof(p), "%s/io.max", dir);
		touch(p, "");
		snprintf(p, sizeof(p), "%s/io.stat", dir);
		touch(p, "");
		return;
	}
	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, v1_files[i]);
		touch(p, "");
	}
	for (size_t i = 0; i < 2; i++) { /* what a cgroup without I/O shows */
		snprintf(p, sizeof(p), "%s/%s", dir, v1_stat_files[i]);
		touch(p, "Total 0\n");
	}
}

void t_fakecg_new(struct t_fakecg *f, int version)
{
	const char *tmp = getenv("TMPDIR");
	char p[300];

	snprintf(f->root, sizeof(f->root), "%s/iolat-fakecg-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->root));
	f->version = version;
	if (version == 2) {
		snprintf(p, sizeof(p), "%s/cgroup.controllers", f->root);
		touch(p, "io memory\n");
	} else {
		add_files(f, f->root);
	}
}

static void rm_tree(const char *dir)
{
	char p[1200];
	struct dirent *de;
	DIR *dh = opendir(dir);

	if (!dh)
		return;
	while ((de = readdir(dh))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(dh);
	rmdir(dir);
}

void t_fakecg_free(struct t_fakecg *f)
{
	char sysfs[300];

	rm_tree(f->root);
	snprintf(sysfs, sizeof(sysfs), "%s.sysfs", f->root);
	rm_tree(sysfs); /* the fake sysfs, when one was made */
}

void t_fakecg_mkdir(struct t_fakecg *f, const char *rel)
{
	char dir[1024];

	snprintf(dir, sizeof(dir), "%s", t_fakecg_path(f, rel));
	assert_int_equal(mkdir(dir, 0755), 0);
	add_files(f, dir);
}

void t_fakecg_rmdir(struct t_fakecg *f, const char *rel)
{
	char dir[1024];

	snprintf(dir, sizeof(dir), "%s", t_fakecg_path(f, rel));
	rm_tree(dir);
	assert_int_not_equal(access(dir, F_OK), 0);
}

const char *t_fakecg_read(struct t_fakecg *f, const char *rel, const char *file)
{
	static char buf[4096];
	char p[1200];
	FILE *fp;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", t_fakecg_path(f, rel), file);
	fp = fopen(p, "r");
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

void t_fakecg_write(struct t_fakecg *f, const char *rel, const char *file, const char *text)
{
	char p[1200];

	snprintf(p, sizeof(p), "%s/%s", t_fakecg_path(f, rel), file);
	touch(p, text);
}

const char *t_fakecg_sysfs_dev(struct t_fakecg *f, const char *majmin, bool bio_based)
{
	static char sysfs[300];
	char p[700];
	const char *parts[] = { "", "/dev", "/dev/block" };

	snprintf(sysfs, sizeof(sysfs), "%s.sysfs", f->root);
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", sysfs, parts[i]);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof(p), "%s/dev/block/%s", sysfs, majmin);
	assert_int_equal(mkdir(p, 0755), 0);
	if (!bio_based) {
		snprintf(p, sizeof(p), "%s/dev/block/%s/mq", sysfs, majmin);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	return sysfs;
}

bool t_run_status_has(const char *run_dir, const char *text)
{
	char path[1200], line[4096];
	bool found = false;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/status", run_dir);
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		found |= strstr(line, text) != NULL;
	fclose(fp);
	return found;
}

void t_fakecg_set_served(struct t_fakecg *f, const char *rel, const char *majmin, unsigned long long rbytes,
			 unsigned long long wbytes, unsigned long long rios, unsigned long long wios)
{
	char text[1024];

	if (f->version == 2) {
		snprintf(text, sizeof(text), "%s rbytes=%llu wbytes=%llu rios=%llu wios=%llu dbytes=0 dios=0\n",
			 majmin, rbytes, wbytes, rios, wios);
		t_fakecg_write(f, rel, "io.stat", text);
		return;
	}
	snprintf(text, sizeof(text), "%s Read %llu\n%s Write %llu\n%s Sync %llu\n%s Async 0\n%s Discard 0\n"
		 "%s Total %llu\nTotal %llu\n", majmin, rbytes, majmin, wbytes, majmin, rbytes + wbytes, majmin,
		 majmin, majmin, rbytes + wbytes, rbytes + wbytes);
	t_fakecg_write(f, rel, v1_stat_files[0], text);
	snprintf(text, sizeof(text), "%s Read %llu\n%s Write %llu\n%s Sync %llu\n%s Async 0\n%s Discard 0\n"
		 "%s Total %llu\nTotal %llu\n", majmin, rios, majmin, wios, majmin, rios + wios, majmin,
		 majmin, majmin, rios + wios, rios + wios);
	t_fakecg_write(f, rel, v1_stat_files[1], text);
}
