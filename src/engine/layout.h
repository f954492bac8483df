/* SPDX-License-Identifier: MIT */
/*
 * layout.h - lay out a job's file before a run, as fio does: create it,
 * reserve its blocks (fallocate where the filesystem can), and write real
 * data over it so that reads reach the device rather than holes or
 * unwritten extents (which read back as zeros without any I/O).
 * Context: any thread; no state. Block devices are never written.
 */
#ifndef IOLAT_ENGINE_LAYOUT_H
#define IOLAT_ENGINE_LAYOUT_H

#include <stdatomic.h>
#include <stdint.h>

#define IOLAT_ENG_LAYOUT_FILL   (1u << 0)  /* write data over [0, size) */
#define IOLAT_ENG_LAYOUT_VERIFY (1u << 1)  /* fill with verify blocks, generation 0
					    * (implies FILL and FORCE) */
#define IOLAT_ENG_LAYOUT_FORCE  (1u << 2)  /* rewrite even when already big enough */

/**
 * iolat_eng_layout_file() - make @path at least @size bytes.
 * A regular file already that large is left alone (unless FORCE or VERIFY);
 * a smaller one is extended (and filled from its old end with FILL).
 * After writing, the data is synced and dropped from the page cache.
 * @created: if not NULL, set to 1 when this call created the file.
 * @stop: NULL, or a flag looked at between 1 MiB writes: when it becomes
 * true the layout ends at once with -EINTR (not synced).
 * On failure a file this call created is removed when @created is NULL;
 * otherwise *created says so and removing it is the caller's (it may report
 * it). A file it extended is left at its new size (the caller knows the old
 * one and truncates it back).
 * Return: 0; -ENOSPC when the filesystem cannot hold it; -EINVAL for @size 0;
 * for a block device 0 when it is at least @size (nothing is written), else
 * -ENOSPC; -EINTR when stopped; -errno from open/fallocate/write/fsync.
 */
int iolat_eng_layout_file(const char *path, uint64_t size, unsigned flags, int *created,
			  const atomic_bool *stop);

#endif /* IOLAT_ENGINE_LAYOUT_H */
