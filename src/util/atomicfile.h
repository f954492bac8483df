/* SPDX-License-Identifier: MIT */
/*
 * atomicfile.h - a file replaced whole or not at all: written as PATH.tmp,
 * then renamed over PATH, so that a reader sees the old file or the new
 * one, never half of one, and a failed write leaves the old file and no
 * temporary behind. What iolatd's state and status files and its
 * Prometheus textfile are written with.
 * Context: any thread; one writer per PATH at a time (the temporary's name
 * is fixed).
 */
#ifndef IOLAT_UTIL_ATOMICFILE_H
#define IOLAT_UTIL_ATOMICFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct iolat_atomic_file {
	FILE *f;                     /* write the new content here */
	bool sync;                   /* fsync before the rename (it must survive a crash) */
	char path[PATH_MAX];
	char tmp[PATH_MAX + 8];
};

/**
 * iolat_atomic_open() - start replacing @path: @af->f is PATH.tmp, open for
 * writing (created or emptied). @sync: fsync the data before the rename.
 * Return: 0, -ENAMETOOLONG, or the errno of fopen as a negative number.
 */
int iolat_atomic_open(struct iolat_atomic_file *af, const char *path, bool sync);

/**
 * iolat_atomic_commit() - end it: with @err 0, flush (and fsync), close and
 * rename the temporary over the path; with @err non-zero (the caller's
 * writing failed), or when any of these steps fails, close and remove the
 * temporary and leave the path as it was.
 * Return: 0 when the path now holds the new content, else @err or the
 * failing step's negative errno.
 */
int iolat_atomic_commit(struct iolat_atomic_file *af, int err);

#endif /* IOLAT_UTIL_ATOMICFILE_H */
