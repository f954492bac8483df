/* SPDX-License-Identifier: MIT */
/*
 * units.h - the time units every layer counts in: nanoseconds, with the
 * factors to the larger units. The one place they are defined (core, sync,
 * engines, simulator, job layer and tools all include this).
 * Context: constants only; any thread.
 */
#ifndef IOLAT_UTIL_UNITS_H
#define IOLAT_UTIL_UNITS_H

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC  1000000000ull

#endif /* IOLAT_UTIL_UNITS_H */
