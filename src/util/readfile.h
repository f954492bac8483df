/* SPDX-License-Identifier: MIT */
/*
 * readfile.h - read a whole file (regular file, pipe or /proc entry) into
 * memory, up to a size cap: the job file, iolatd's configuration and status
 * files, the demo's result files.
 * Context: any thread; the buffer belongs to the caller.
 */
#ifndef IOLAT_UTIL_READFILE_H
#define IOLAT_UTIL_READFILE_H

#include <stddef.h>

/*
 * iolat_read_file() - read all of @path into a new buffer *@text (free() it),
 * NUL-terminated, of *@len bytes (the terminator not counted; the content
 * may itself hold NULs: the caller decides whether that is text).
 * Reads until end of file, so it works where the size is not known ahead.
 * Return: 0; -EISDIR for a directory; -EFBIG when the file holds more than
 * @max bytes; -ENOMEM; or the -errno of open/read. *@text is NULL on error.
 */
int iolat_read_file(const char *path, size_t max, char **text, size_t *len);

#endif /* IOLAT_UTIL_READFILE_H */
