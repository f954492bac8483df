/* SPDX-License-Identifier: MIT */
/*
 * log.c - the daemon's log lines (control_priv.h), the floor every room of
 * the loop writes to and nothing of theirs is called from (below it only
 * the interfaces, sys/, and the configuration, config/); each
 * with a syslog priority: errors (a limit that cannot be written or
 * removed) LOG_ERR, what an administrator should act on (a limit that does
 * not hold, a group waited for) LOG_WARNING, events LOG_NOTICE, routine
 * (limited, released) LOG_INFO. The caller's log_at gets the priority (the
 * daemon turns it into journald's or syslog's); an older log callback only
 * the line.
 * Context: one thread for every call on one struct iolatd.
 */
#include <stdarg.h>
#include <stdio.h>

#include "daemon/control_priv.h"

static void emit(struct iolatd *d, int priority, const char *fmt, va_list ap)
{
	char line[768];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (d->opts.log_at)
		d->opts.log_at(d->opts.log_ctx, priority, line);
	else if (d->opts.log)
		d->opts.log(d->opts.log_ctx, line);
	else
		fprintf(stderr, "iolatd: %s\n", line);
}

void iolatd_logf(struct iolatd *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(d, LOG_INFO, fmt, ap);
	va_end(ap);
}

void iolatd_log_at(struct iolatd *d, int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(d, priority, fmt, ap);
	va_end(ap);
}
