/* SPDX-License-Identifier: MIT */
/*
 * round_served.h - what the block throttle served each node (round_served.c).
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_ROUND_SERVED_H
#define IOLAT_DAEMON_ROUND_SERVED_H

#include <stdint.h>

struct iolatd;

/*
 * iolatd_served_round() - read the throttle's counters of every node on
 * device @k that is limited or has a target, each node's served set to the
 * delta since the last round. Call once a control round, after the wants.
 */
void iolatd_served_round(struct iolatd *d, unsigned k, uint64_t now);

#endif
