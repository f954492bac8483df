/* SPDX-License-Identifier: MIT */
/*
 * optval.h - one option's value as its table types it: an unsigned integer
 * (as written, before any scale), a real number, or a choice's or a set of
 * flags' value. The engines' option tables (engine/engopt.h) parse into it,
 * and the job file keeps each ENGINE.OPTION key's value in it
 * (job/jobfile.h), so that a value is read once, where it is written.
 * Context: a plain value type.
 */
#ifndef IOLAT_UTIL_OPTVAL_H
#define IOLAT_UTIL_OPTVAL_H

#include <stdint.h>

union iolat_optval {
	uint64_t u;          /* an integer, as written */
	double d;            /* a real number */
	unsigned w;          /* a choice's value, or flags OR-ed */
};

#endif /* IOLAT_UTIL_OPTVAL_H */
