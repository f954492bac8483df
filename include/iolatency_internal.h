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
int iolat_ctl_check_invariants(struct iolat_ctl *ctl, char *err, size_t errlen);

/*
 * iolat_parse_duration_unit() - the parser behind iolat_parse_duration(),
 * for durations other than targets: "30s", "500ms", "2m", "1.5s", "250us",
 * "10ns", "1h", "1d" (units ns|nsec, us|usec|µs, ms|msec, s|sec, m|min, h, d,
 * any ASCII case); a bare number counts in @bare_unit_ns. No "max".
 * Return: 0 or -EINVAL (empty, junk, negative, overflow, @bare_unit_ns 0).
 * Context: any thread.
 */
int iolat_parse_duration_unit(const char *s, uint64_t bare_unit_ns, uint64_t *ns);

#endif /* IOLATENCY_INTERNAL_H */
