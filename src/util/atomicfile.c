/* SPDX-License-Identifier: MIT */
/*
 * atomicfile.c - a file replaced whole or not at all (atomicfile.h).
 * Context: any thread; one writer per path at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "util/atomicfile.h"

int iolat_atomic_open(struct iolat_atomic_file *af, const char *path, bool sync)
{
	af->f = NULL;
	af->sync = sync;
	if ((size_t)snprintf(af->path, sizeof(af->path), "%s", path) >= sizeof(af->path) ||
	    (size_t)snprintf(af->tmp, sizeof(af->tmp), "%s.tmp", path) >= sizeof(af->tmp))
		return -ENAMETOOLONG;
	af->f = fopen(af->tmp, "w");
	return af->f ? 0 : -errno;
}

int iolat_atomic_commit(struct iolat_atomic_file *af, int err)
{
	if (!af->f)
		return err ? err : -EBADF;
	if (!err && fflush(af->f))
		err = -errno;
	if (!err && af->sync && fsync(fileno(af->f)))
		err = -errno;
	if (fclose(af->f) && !err)
		err = -errno;
	af->f = NULL;
	if (!err && rename(af->tmp, af->path))
		err = -errno;
	if (err)
		unlink(af->tmp);
	return err;
}
