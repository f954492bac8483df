/* SPDX-License-Identifier: MIT */
/*
 * kweights.h - are the kernel's own proportional weights in force on a
 * disk? Two things give them: the BFQ scheduler (queue/scheduler shows
 * [bfq]: it reads io.bfq.weight / blkio.bfq.weight, which systemd's
 * IOWeight= writes) and, on cgroup v2, io.cost enabled for that disk (the
 * root's io.cost.qos has "MAJ:MIN enable=1 ..."; io.weight is then
 * enforced). Where either is, iolatd's weights stand aside: two weight
 * controllers on one disk would fight. Only reads sysfs and the root's
 * io.cost.qos; a file that is not there means "not in force".
 * Context: any thread.
 */
#ifndef IOLAT_DAEMON_KWEIGHTS_H
#define IOLAT_DAEMON_KWEIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "daemon/sys/cgroupfs.h"

enum iolatd_kweights {
	KWEIGHTS_NONE,    /* no weights of the kernel's on the disk: iolatd's may act */
	KWEIGHTS_BFQ,     /* the BFQ scheduler */
	KWEIGHTS_IOCOST,  /* io.cost enabled (cgroup v2) */
};

/*
 * iolatd_kweights_of() - the kernel's weights in force on disk @dev: BFQ per
 * @sysfs ("/sys"), else io.cost per @root's io.cost.qos (v2 only).
 */
enum iolatd_kweights iolatd_kweights_of(const char *sysfs, const struct cgfs_root *root, dev_t dev);

/* "none", "bfq", "iocost": the status file's word. */
const char *iolatd_kweights_name(enum iolatd_kweights k);

/* Where it was seen, for the log: "its scheduler is bfq", "io.cost is enabled for it in io.cost.qos". */
const char *iolatd_kweights_why(enum iolatd_kweights k);

/* One disk's kernel weights as last seen, and whether iolatd's standing aside was said. */
struct kweights_watch {
	enum iolatd_kweights kw;
	bool said;
};

/*
 * iolatd_kweights_watch() - look at disk @dev (called @disk, @name in the
 * line) again. When iolatd has weights to give (@weighted) and the kernel's
 * own are in force, that iolatd stands aside is said once (until it
 * changes); when they go after it was said, that iolatd's act again. The
 * line to log goes into @line. Return: 0 (nothing to say) or the line's
 * syslog priority (LOG_NOTICE).
 */
int iolatd_kweights_watch(struct kweights_watch *w, const char *sysfs, const struct cgfs_root *root, dev_t dev,
			  const char *disk, const char *name, bool weighted, char *line, size_t len);

#endif
