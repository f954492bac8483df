/* SPDX-License-Identifier: MIT */
/*
 * checkconf.h - iolatd --check-config: would the daemon start with this
 * configuration, and what would it wait for? Every problem found is one
 * line "FILE:LINE: ..." (as sshd -t), an error (the daemon would refuse
 * the file) or a warning (it would start, but e.g. wait for a cgroup that
 * is not there). Only looks: sysfs for the disks, the cgroup tree for the
 * root and the groups, the textfile's directory, and `systemctl show` for
 * the units named - no cgroup write, no BPF, no lock, no run directory,
 * and no root needed. The same device checks serve iolatd_create().
 * Context: any thread (the daemon's one, or the --check-config process).
 */
#ifndef IOLAT_DAEMON_CHECKCONF_H
#define IOLAT_DAEMON_CHECKCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "daemon/config/config.h"

struct iolatd_check_env {
	const char *sysfs_root;   /* NULL: /sys */
	bool allow_plain_root;    /* tests: cgroup_root may be a plain directory tree */
	const char *systemctl;    /* NULL: the system's, asked only where systemd runs */
	/* One problem: @priority LOG_ERR (the daemon would refuse it) or LOG_WARNING. */
	void (*report)(void *ctx, int priority, const char *line);
	void *ctx;
};

/*
 * iolatd_check_device() - configured disk @name (vda, 254:0) to its number,
 * if iolatd can control it: it exists, takes block requests (blk-mq) and is
 * a whole disk. Return: 0, -ENODEV or -EINVAL with one line in @err.
 */
int iolatd_check_device(const char *name, const char *sysfs, dev_t *dev, char *err, size_t errlen);

/* Is the metrics textfile's directory (if one is configured) writable? Return: 0, or -EINVAL with @err. */
int iolatd_check_textfile(const struct iolatd_config *cfg, char *err, size_t errlen);

/* Check parsed @cfg in place. Return: the number of errors reported (0: it would start). */
unsigned iolatd_check_config(const struct iolatd_config *cfg, const struct iolatd_check_env *env);

#endif
