/* SPDX-License-Identifier: MIT */
/*
 * t_fakecg.h - a fake cgroupfs tree in a temp directory for iolatd's tests:
 * cgroup directories holding empty throttle files (v1 blkio.throttle.* or
 * v2 io.max and io.stat, and cgroup.controllers at a v2 root), file contents set and
 * read back, everything removed at the end.
 * Context: the test's one thread. Names start with t_.
 */
#ifndef T_FAKECG_H
#define T_FAKECG_H

#include <stdbool.h>
#include <stddef.h>

struct t_fakecg {
	char root[256];
	int version;
};

/* A new tree (version 1 or 2) under $TMPDIR or /tmp. Fails the test on error. */
void t_fakecg_new(struct t_fakecg *f, int version);
/* Remove it all. */
void t_fakecg_free(struct t_fakecg *f);
/* mkdir @rel (parents must exist) with its throttle files. */
void t_fakecg_mkdir(struct t_fakecg *f, const char *rel);
/* Remove @rel (and its files); it must have no subdirectory. */
void t_fakecg_rmdir(struct t_fakecg *f, const char *rel);
/* The contents of @rel/@file ("" when empty), in a static buffer. */
const char *t_fakecg_read(struct t_fakecg *f, const char *rel, const char *file);
/* Replace @rel/@file's contents with @text. */
void t_fakecg_write(struct t_fakecg *f, const char *rel, const char *file, const char *text);
/*
 * A fake sysfs beside the tree with block device @majmin ("254:0"):
 * dev/block/MAJ:MIN/ with mq/ (a request-based disk) unless @bio_based.
 * Return: the fake sysfs root (to pass as iolatd_opts.sysfs_root).
 */
const char *t_fakecg_sysfs_dev(struct t_fakecg *f, const char *majmin, bool bio_based);
/* Does a line of @run_dir's iolatd status file contain @text? (The file must exist.) */
bool t_run_status_has(const char *run_dir, const char *text);
/*
 * What @rel was served on @majmin, in the kernel's format: v2 io.stat's
 * line; v1 blkio.throttle.io_service_bytes_recursive and
 * io_serviced_recursive (Read, Write, Sync, Async, Discard, Total lines).
 */
void t_fakecg_set_served(struct t_fakecg *f, const char *rel, const char *majmin, unsigned long long rbytes,
			 unsigned long long wbytes, unsigned long long rios, unsigned long long wios);
/* Absolute path of @rel, in a static buffer. */
const char *t_fakecg_path(struct t_fakecg *f, const char *rel);

#endif
