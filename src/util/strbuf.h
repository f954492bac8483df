/* SPDX-License-Identifier: MIT */
/*
 * strbuf.h - text built into a caller's buffer the snprintf way: what fits
 * is written, always NUL-terminated when there is room, and the length the
 * whole text needs is counted, so that a function can return it "as
 * snprintf" (a NULL buffer of length 0 only counts).
 * Context: any thread; the buffer is the caller's.
 */
#ifndef IOLAT_UTIL_STRBUF_H
#define IOLAT_UTIL_STRBUF_H

#include <stddef.h>

struct iolat_strbuf {
	char *buf;      /* NULL: count only */
	size_t len;     /* its size */
	size_t used;    /* what the text needs so far, NUL excluded */
};

/** iolat_strbuf_init() - start an empty text in @buf (@len bytes; NULL/0: count only). */
void iolat_strbuf_init(struct iolat_strbuf *b, char *buf, size_t len);

/** iolat_strbuf_add() - append @s. */
void iolat_strbuf_add(struct iolat_strbuf *b, const char *s);

/** iolat_strbuf_addf() - append printf(@fmt, ...). */
void iolat_strbuf_addf(struct iolat_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** iolat_strbuf_room() - where the next bytes go and how many fit (for a
 * writer that takes a buffer): @*at NULL when nothing fits. Then
 * iolat_strbuf_wrote() with the length that writer said it needed. */
size_t iolat_strbuf_room(const struct iolat_strbuf *b, char **at);
void iolat_strbuf_wrote(struct iolat_strbuf *b, int n);

#endif /* IOLAT_UTIL_STRBUF_H */
