/* SPDX-License-Identifier: MIT */
/*
 * ini.h - the INI reader of every configuration file (job files,
 * iolatd.conf): fio's dialect. Lines end at '\n'; a UTF-8 byte order mark
 * is skipped; a comment starts at ';' or '#' at the start of a line or
 * after a blank; blanks around a line are dropped; "[NAME]" opens a
 * section (blanks inside the brackets dropped; nothing may follow ']' but
 * a comment, which may start right after it); "KEY=VALUE" sets a key
 * (blanks around KEY and before VALUE dropped), "KEY" alone is a bare key.
 * A NUL byte is an error. The reader knows no section or key: it hands
 * each one to its user, who keeps the meaning and may stop at the first
 * problem or go on.
 * Context: any thread; no global state.
 */
#ifndef IOLAT_CONF_INI_H
#define IOLAT_CONF_INI_H

#include <stddef.h>

#include "conf/opt.h"

struct iolat_ini_ops {
	/* "[NAME]": the @n bytes at @name (blanks dropped; may be 0). */
	int (*section)(void *ctx, const char *name, size_t n);
	/* "KEY=VALUE": the @kn bytes at @key (at least 1), and the @vn bytes of
	 * the value at @v, or @v NULL for a bare key. Not NUL-terminated. */
	int (*key)(void *ctx, const char *key, size_t kn, const char *v, size_t vn);
	/* The reader's own problem on this line, already in the message buffer:
	 * return 0 to go on with the next line, else the error to stop with.
	 * NULL: stop. */
	int (*problem)(void *ctx, int err);
};

/**
 * iolat_ini_read() - read the @len bytes at @buf as INI lines, calling
 * @ops with @ctx; @at->line is each line's number while its callback runs
 * (and the last line's after), @at the place of the reader's own messages
 * ("FILE:LINE: section '[x': expected ']'", "... expected nothing after
 * ']'", "'=1': expected key=value", "expected text, found a NUL byte").
 * Return: 0, or the first non-zero a callback returned (the reading stops).
 */
int iolat_ini_read(struct iolat_conf_at *at, const char *buf, size_t len,
		   const struct iolat_ini_ops *ops, void *ctx);

#endif /* IOLAT_CONF_INI_H */
