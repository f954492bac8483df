/* SPDX-License-Identifier: MIT */
/*
 * prom.h - iolatd's status as Prometheus metrics, in the text exposition
 * format (version 0.0.4): for `iolat status --format=prometheus` and for the
 * node_exporter textfile iolatd can write (textfile= in its configuration).
 * Names follow Prometheus's conventions: prefix iolatd_, base units (seconds,
 * bytes), _total on counters, one family's samples together, labels for
 * the cgroup group, the disk and the direction.
 * Context: any thread; reads the caller's parsed status file only.
 */
#ifndef IOLAT_DAEMON_PROM_H
#define IOLAT_DAEMON_PROM_H

#include <stdio.h>

#include "daemon/status/statusfile.h"

/* Write @s as metrics to @f. Return: 0, or -EIO when @f reports an error. */
int iolatd_prom_write(const struct status_file *s, FILE *f);

#endif
