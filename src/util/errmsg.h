/* SPDX-License-Identifier: MIT */
/*
 * errmsg.h - the one convention for a function that fails with a reason:
 * it takes the caller's buffer as its last two parameters, spelled
 * `char *err, size_t errlen` (err may be NULL or errlen 0: no message is
 * wanted), writes one line there without a newline, and returns a negative
 * errno. iolat_errf() does the writing.
 * Context: any thread; writes only the caller's buffer.
 */
#ifndef IOLAT_UTIL_ERRMSG_H
#define IOLAT_UTIL_ERRMSG_H

#include <stddef.h>

/**
 * iolat_errf() - printf @fmt into @err (at most @errlen bytes, always
 * NUL-terminated; nothing when @err is NULL or @errlen 0).
 * Return: @ret, so that a failure reads `return iolat_errf(err, errlen,
 * -EINVAL, "...")`.
 */
int iolat_errf(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* IOLAT_UTIL_ERRMSG_H */
