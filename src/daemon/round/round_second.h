/* SPDX-License-Identifier: MIT */
/*
 * round_second.h - what the round checks once a second (round_second.c).
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_ROUND_SECOND_H
#define IOLAT_DAEMON_ROUND_SECOND_H

#include <stdint.h>

struct iolatd;
struct node_dev;

/* What is done once a second besides the tick and rescan. */
void iolatd_second(struct iolatd *d, uint64_t now);
/* A word for why a node's limit does not hold ("none" when it does). */
const char *iolatd_effect_cause(const struct iolatd *d, const struct node_dev *nd);

#endif
