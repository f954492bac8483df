/* SPDX-License-Identifier: MIT */
/*
 * round.h - iolatd's control round (round.c); iolatd_observe() is in
 * control.h, the daemon's public header.
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_ROUND_H
#define IOLAT_DAEMON_ROUND_H

#include <stdint.h>

struct iolatd;

/* One control round on device @k, @round_ns since the last: wants, placement,
 * the files written, the core told. */
void iolatd_round(struct iolatd *d, unsigned k, uint64_t now, uint64_t round_ns);
/* Primed lowerings and opened kinds whose time has come go out (actuate.h). */
void iolatd_commit_primed(struct iolatd *d, uint64_t now);

#endif
