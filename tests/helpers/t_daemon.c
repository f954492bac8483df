/* SPDX-License-Identifier: MIT */
/*
 * t_daemon.c - iolatd started for a daemon test (t_daemon.h).
 * Context: the test's one thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "daemon/sys/cgroupfs.h"
#include "t_daemon.h"

struct iolatd_opts t_daemon_opts(const char *run_dir, const char *sysfs_root,
				 const struct iolat_clock *clock,
				 void (*log)(void *ctx, const char *line))
{
	struct iolatd_opts o = { .run_dir = run_dir, .clock = clock, .log = log,
				 .allow_plain_root = true, .sysfs_root = sysfs_root };

	return o;
}

struct iolatd *t_daemon_start(const struct iolatd_config *cfg, const struct iolatd_opts *o)
{
	char err[IOLATD_ERR_MAX] = "";
	struct iolatd *d = NULL;
	int ret = iolatd_create(cfg, o, &d, err, sizeof(err));

	if (ret)
		fail_msg("iolatd_create: %d: %s", ret, err);
	return d;
}

uint64_t t_daemon_ino(struct t_fakecg *f, const char *rel)
{
	return iolatd_cgfs_ino(t_fakecg_path(f, rel));
}
