/* SPDX-License-Identifier: MIT */
/*
 * jobfile_msg.c - the job-file parser's messages and memory, which every
 * file of the parser uses and which use none of them: where a message goes
 * (the parser's file, line and buffer), "FILE:LINE: key 'KEY': expected ..."
 * (conf/opt.h's form), out of memory, user text made printable for a
 * message, growing the parser's arrays.
 * Context: any thread; a parser belongs to one call.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/jobfile_priv.h"
#include "util/errmsg.h"

void jf_echo_max(char *dst, size_t dlen, const char *s, size_t n, size_t max)
{
	iolat_conf_echo(dst, dlen, s, n, max);
}

void jf_echo(char *dst, size_t dlen, const char *s, size_t n)
{
	iolat_conf_echo(dst, dlen, s, n, MAX_ECHO);
}

__attribute__((format(printf, 4, 5)))
int jf_perr(struct parser *p, unsigned line, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return iolat_conf_errf(jf_at(p), line, key, "%s", msg);
}

/* Where the parser's messages go: its file, line and buffer. */
const struct iolat_conf_at *jf_at(struct parser *p)
{
	p->at.file = p->jf->file;
	p->at.line = p->line;
	p->at.err = p->err;
	p->at.errlen = p->errlen;
	return &p->at;
}

int jf_oom(struct parser *p)
{
	return iolat_errf(p->err, p->errlen, -ENOMEM, "%s:%u: out of memory", p->jf->file, p->line);
}

int jf_grow(void **arr, unsigned *cap, unsigned need, size_t elem)
{
	if (need <= *cap)
		return 0;
	unsigned ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*arr, (size_t)ncap * elem);
	if (!n)
		return -ENOMEM;
	memset((char *)n + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
	*arr = n;
	*cap = ncap;
	return 0;
}
