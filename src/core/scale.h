/* SPDX-License-Identifier: MIT */
/*
 * scale.h - the pure arithmetic of throttling (docs/controller.md R6, R7, R10, C9):
 * the parent's scale cookie step, a group's depth step, the window length and
 * the HDD latency average. No state, no atomics: callers own the concurrency.
 * Context: any thread.
 */
#ifndef IOLAT_CORE_SCALE_H
#define IOLAT_CORE_SCALE_H

#include <stdbool.h>
#include <stdint.h>

#include "iolatency_internal.h"

/* Cookie step after a scale event, for device queue depth @qd. */
uint32_t iolat_cookie_step(uint32_t old, uint32_t qd, bool up);

/* New max depth after one scale step of a group at @max_depth (IOLAT_DEPTH_MAX
 * = unlimited). Up-steps at depth 1 that pay off delay are the caller's. */
uint32_t iolat_depth_step(uint32_t max_depth, uint32_t qd, bool up);

/* The window length for a target, iolat_window_ns(), is declared in
 * iolatency_internal.h: the job layer sizes its samples with it. */

/* The kernel's calc_load() EMA of window means, with the factor chosen by
 * window length (index min(4, win / 250 ms) into {2045,2039,2031,2023,2014}). */
uint64_t iolat_lat_avg_update(uint64_t avg, uint64_t win_ns, uint64_t mean_ns);

/* SSD rule: a window is ok when missed < max(total / 10, 1). */
static inline bool iolat_ssd_ok(uint64_t missed, uint64_t total)
{
	uint64_t thresh = total / 10;

	return missed < (thresh ? thresh : 1);
}

/* HDD rule: a window is ok when its mean latency is within the target. */
static inline bool iolat_hdd_ok(uint64_t mean_ns, uint64_t target_ns)
{
	return mean_ns <= target_ns;
}

#endif
