/* SPDX-License-Identifier: MIT */
/*
 * t_daemon.h - iolatd started the way the daemon's tests start it (tests/
 * daemon): over a fake cgroup tree and sysfs (t_fakecg.h), with the test's
 * run directory, virtual clock and log, a plain directory tree allowed as
 * the cgroup root; and the id a cgroup of the fake tree has (what the BPF
 * measurement reports for its I/O).
 * Context: the test's one thread. Names start with t_.
 */
#ifndef T_DAEMON_H
#define T_DAEMON_H

#include <stdint.h>

#include "daemon/config/config.h"
#include "daemon/control.h"
#include "t_fakecg.h"

/* The options of a test's iolatd: @run_dir, the fake @sysfs_root, @clock
 * and @log (ctx NULL); plain root allowed; no dry run, the real systemctl. */
struct iolatd_opts t_daemon_opts(const char *run_dir, const char *sysfs_root,
				 const struct iolat_clock *clock,
				 void (*log)(void *ctx, const char *line));
/* iolatd_create() of @cfg with @o; fails the test (with the error) unless it starts. */
struct iolatd *t_daemon_start(const struct iolatd_config *cfg, const struct iolatd_opts *o);
/* The cgroup id of @rel in the fake tree @f (its inode, as iolatd reads it). */
uint64_t t_daemon_ino(struct t_fakecg *f, const char *rel);

#endif
