/* SPDX-License-Identifier: MIT */
/*
 * readfile.c - read a whole file into memory, up to a cap (readfile.h).
 * Context: any thread; the buffer belongs to the caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/grow.h"
#include "util/readfile.h"

/* Read @fd to its end into *@buf (capacity *@cap), one byte past @max at most. */
static int read_all(int fd, size_t max, char **buf, size_t *cap, size_t *len)
{
	for (;;) {
		ssize_t got;

		if (*len >= *cap) {
			int r = iolat_grow((void **)buf, cap, *len + 1, 1);

			if (r)
				return r;
		}
		got = read(fd, *buf + *len, *cap - *len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return 0;
		*len += (size_t)got;
		if (*len > max)
			return -EFBIG;
	}
}

int iolat_read_file(const char *path, size_t max, char **text, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	struct stat st;
	int fd, r;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else
		r = read_all(fd, max, &buf, &cap, &n);
	close(fd);
	if (!r && n == cap)
		r = iolat_grow((void **)&buf, &cap, n + 1, 1);
	if (r) {
		free(buf);
		return r;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}
