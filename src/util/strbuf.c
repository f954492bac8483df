/* SPDX-License-Identifier: MIT */
/*
 * strbuf.c - text built into a caller's buffer, snprintf style (strbuf.h).
 * Context: any thread.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/strbuf.h"

void iolat_strbuf_init(struct iolat_strbuf *b, char *buf, size_t len)
{
	b->buf = buf && len ? buf : NULL;
	b->len = b->buf ? len : 0;
	b->used = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

size_t iolat_strbuf_room(const struct iolat_strbuf *b, char **at)
{
	if (!b->buf || b->used >= b->len) {
		*at = NULL;
		return 0;
	}
	*at = b->buf + b->used;
	return b->len - b->used;
}

void iolat_strbuf_wrote(struct iolat_strbuf *b, int n)
{
	if (n > 0)
		b->used += (size_t)n;
}

void iolat_strbuf_add(struct iolat_strbuf *b, const char *s)
{
	iolat_strbuf_addf(b, "%s", s);
}

void iolat_strbuf_addf(struct iolat_strbuf *b, const char *fmt, ...)
{
	char *at;
	size_t room = iolat_strbuf_room(b, &at);
	va_list ap;

	va_start(ap, fmt);
	iolat_strbuf_wrote(b, vsnprintf(at, room, fmt, ap));
	va_end(ap);
}
