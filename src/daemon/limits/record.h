/* SPDX-License-Identifier: MIT */
/*
 * record.h - the record of written limits (record.c).
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_RECORD_H
#define IOLAT_DAEMON_RECORD_H

/* Record every limit in force under the run dir (before a write); @ctx: the struct iolatd. */
void iolatd_save_state(void *ctx);

#endif
