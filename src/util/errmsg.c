/* SPDX-License-Identifier: MIT */
/*
 * errmsg.c - writing the error out-parameter (errmsg.h).
 * Context: any thread.
 */
#include <stdarg.h>
#include <stdio.h>

#include "util/errmsg.h"

int iolat_errf(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}
