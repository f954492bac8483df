/* SPDX-License-Identifier: MIT */
/*
 * vmap.h - the verify map: which write each block of a file must hold, so a
 * read-back after a run with verify= (and injected faults) can prove that
 * every write reported successful is intact.
 */
#ifndef IOLAT_RUN_VMAP_H
#define IOLAT_RUN_VMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "run/run.h"   /* IOLAT_RUN_NOTE_MAX */

/*
 * The verify map, the runner's record of which write each block of a file
 * must hold . A file region is cut into @block-byte blocks;
 * each write is bracketed by write_begin (when issued) and write_end (when
 * completed). A block is expected to hold the generation of its last write
 * when that write was reported successful, covered the whole block, and no
 * other write to the block was in flight at any time during it; after a
 * failed or overlapping write its contents are unspecified until the next
 * such write. A block no write completed on holds the laid-out generation 0
 * (when @formatted; else it is not checked).
 * Context: any thread (one mutex); iolat_vmap_check() with no write running.
 */
struct iolat_vmap;

struct iolat_vmap_stats {
	uint64_t blocks_checked;       /* read back and compared */
	uint64_t blocks_written;       /* among them, set by a successful write */
	uint64_t blocks_bad;           /* mismatched or unreadable */
	uint64_t blocks_unspecified;   /* not checked: a failed or overlapping write */
	uint32_t block_size;
	char first_bad[IOLAT_RUN_NOTE_MAX];
};

/* Return: 0, -EINVAL (@block not a power of two multiple of 512, @base
 * unaligned, @size 0), -ENOMEM. */
int iolat_vmap_create(uint64_t base, uint64_t size, uint32_t block, bool formatted,
		      struct iolat_vmap **out);
void iolat_vmap_destroy(struct iolat_vmap *m);
/* A write of [@off, @off + @len) is issued: returns its ticket. */
uint64_t iolat_vmap_write_begin(struct iolat_vmap *m, uint64_t off, uint32_t len);
/* It completed: @ok when reported successful (whole length) with data of generation @gen. */
void iolat_vmap_write_end(struct iolat_vmap *m, uint64_t off, uint32_t len, uint64_t ticket,
			  uint64_t gen, bool ok);
/*
 * iolat_vmap_check() - read the region back from @fd (pread) and compare each
 * block with what the map expects (iolat_eng_verify_check()).
 * Return: 0 with @st filled (blocks_bad > 0 is a verdict, not an error);
 * -ENOMEM when the map lost track (a chunk could not be allocated) or no buffer.
 */
int iolat_vmap_check(struct iolat_vmap *m, int fd, struct iolat_vmap_stats *st);

#endif /* IOLAT_RUN_VMAP_H */
