/* SPDX-License-Identifier: MIT */
/*
 * iolatency_internal.h - INTERNAL. The few functions of libiolatency that
 * this project's own layers (the job layer, tests, benchmarks) use beyond the
 * public API in iolatency.h. Not installed, not exported by the shared
 * library, not part of any ABI: they may change with any commit. Code outside
 * this repository must use iolatency.h only.
 * Context: as stated per function.
 */
#ifndef IOLATENCY_INTERNAL_H
#define IOLATENCY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"

/*
 * iolat_window_ns() - the latency window the controller uses for a target:
 * clamp(16 x target, 100 ms, 1 s), 100 ms for no target, no overflow for
 * any target (docs/controller.md, "The window"). Pure; any thread.
 */
uint64_t iolat_window_ns(uint64_t target_ns);

/*
 * iolat_ctl_check_invariants() - the debug invariant check (what holds at
 * any moment, even under load; src/core/check.c).
 * Return: 0, or -EUCLEAN with the first violation in @why ("group 3 (web):
 * ..."); -EINVAL for no controller. Context: any thread but ctl_destroy's.
 */
int iolat_ctl_check_invariants(struct iolat_ctl *ctl, char *why, size_t len);

#endif /* IOLATENCY_INTERNAL_H */
