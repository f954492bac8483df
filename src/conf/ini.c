/* SPDX-License-Identifier: MIT */
/*
 * ini.c - the INI reader (ini.h): lines, comments, blanks, sections and
 * key=value, each handed to its user.
 * Context: any thread; no global state.
 */
#include <errno.h>
#include <string.h>

#include "conf/ini.h"
#include "conf/value.h"

/* The reader's own problem: its message, then the user's verdict. */
static int problem(struct iolat_conf_at *at, const struct iolat_ini_ops *ops, void *ctx,
		   const char *fmt, const char *s, size_t n)
{
	char got[IOLAT_CONF_ECHO_MAX + 8];
	int r;

	iolat_conf_echo(got, sizeof(got), s, n, IOLAT_CONF_ECHO_MAX);
	r = iolat_conf_errf(at, at->line, NULL, fmt, got);
	return ops->problem ? ops->problem(ctx, r) : r;
}

static int section_line(struct iolat_conf_at *at, const struct iolat_ini_ops *ops, void *ctx,
			const char *s, size_t n)
{
	const char *close = memchr(s, ']', n), *a = s + 1, *b;

	if (!close)
		return problem(at, ops, ctx, "section '%s': expected ']'", s, n);
	/* after ']': nothing, or a comment (there even without a blank before it) */
	if ((size_t)(close - s) != n - 1 && close[1] != ';' && close[1] != '#')
		return problem(at, ops, ctx, "section '%s': expected nothing after ']'", s, n);
	b = close;
	while (a < b && iolat_conf_is_space(*a))
		a++;
	while (b > a && iolat_conf_is_space(b[-1]))
		b--;
	return ops->section(ctx, a, (size_t)(b - a));
}

static int key_line(struct iolat_conf_at *at, const struct iolat_ini_ops *ops, void *ctx,
		    const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n), *ke = eq ? eq : s + n, *vs, *ve = s + n;

	while (ke > s && iolat_conf_is_space(ke[-1]))
		ke--;
	if (ke == s)
		return problem(at, ops, ctx, "'%s': expected key=value", s, n);
	if (!eq)
		return ops->key(ctx, s, (size_t)(ke - s), NULL, 0);
	vs = eq + 1;
	while (vs < ve && iolat_conf_is_space(*vs))
		vs++;
	return ops->key(ctx, s, (size_t)(ke - s), vs, (size_t)(ve - vs));
}

/* The @n bytes at @s without their comment and outer blanks. */
static const char *strip_line(const char *s, size_t *n)
{
	for (size_t i = 0; i < *n; i++) {
		if ((s[i] == ';' || s[i] == '#') && (i == 0 || iolat_conf_is_space(s[i - 1]))) {
			*n = i;
			break;
		}
	}
	while (*n && iolat_conf_is_space(s[*n - 1]))
		(*n)--;
	while (*n && iolat_conf_is_space(*s)) {
		s++;
		(*n)--;
	}
	return s;
}

int iolat_ini_read(struct iolat_conf_at *at, const char *buf, size_t len,
		   const struct iolat_ini_ops *ops, void *ctx)
{
	size_t pos = 0;

	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		pos = 3;   /* UTF-8 byte order mark */
	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		int r;

		pos += n + (nl ? 1 : 0);
		at->line++;
		if (memchr(s, '\0', n)) {
			r = iolat_conf_errf(at, at->line, NULL, "expected text, found a NUL byte");
			r = ops->problem ? ops->problem(ctx, r) : r;
		} else {
			s = strip_line(s, &n);
			r = !n ? 0 : s[0] == '[' ? section_line(at, ops, ctx, s, n) :
			     key_line(at, ops, ctx, s, n);
		}
		if (r)
			return r;
	}
	return 0;
}
