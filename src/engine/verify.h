/* SPDX-License-Identifier: MIT */
/*
 * verify.h - the write-then-verify block format: every 512-byte block of a
 * written buffer starts with a header (crc32c, magic, file offset,
 * generation) followed by bytes derived from (offset, generation), so a
 * later read checks where the block belongs, which write it came from, and
 * that no byte changed. Native byte order (verification on the same host).
 * Context: any thread; no state.
 */
#ifndef IOLAT_ENGINE_VERIFY_H
#define IOLAT_ENGINE_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#define IOLAT_ENG_VERIFY_BLOCK 512u
#define IOLAT_ENG_VERIFY_MAGIC 0x76616c69u      /* "ilav" */
#define IOLAT_ENG_VERIFY_ANY_GEN UINT64_MAX     /* check: any generation */

/* The header at the start of each block (not packed: natural alignment). */
struct iolat_eng_verify_hdr {
	uint32_t crc;          /* crc32c of the block's bytes after this field */
	uint32_t magic;        /* IOLAT_ENG_VERIFY_MAGIC */
	uint64_t offset;       /* file offset of this block */
	uint64_t generation;   /* the writer's stamp (0: laid out) */
	uint32_t block_size;   /* IOLAT_ENG_VERIFY_BLOCK */
	uint32_t reserved;     /* 0 */
};

/* Where and why a check failed. */
struct iolat_eng_verify_err {
	uint64_t offset;       /* file offset of the bad block */
	const char *what;      /* "magic", "offset", "generation", "crc" */
	uint64_t expected, found;
};

/**
 * iolat_eng_verify_fill() - format @len bytes at @buf as the blocks of file
 * offset @offset, stamped @generation.
 * Return: 0, or -EINVAL unless @offset and @len are multiples of 512.
 */
int iolat_eng_verify_fill(void *buf, size_t len, uint64_t offset, uint64_t generation);

/**
 * iolat_eng_verify_check() - check @len bytes read from file offset @offset.
 * @generation: the stamp expected, or IOLAT_ENG_VERIFY_ANY_GEN.
 * @gen_out: if not NULL, the generation of the first block.
 * @err: if not NULL, filled on a mismatch.
 * Return: 0; -EILSEQ on a mismatch; -EINVAL for unaligned @offset or @len.
 */
int iolat_eng_verify_check(const void *buf, size_t len, uint64_t offset,
			   uint64_t generation, uint64_t *gen_out,
			   struct iolat_eng_verify_err *err);

/** iolat_eng_verify_format() - one line describing @err (snprintf's return). */
int iolat_eng_verify_format(const struct iolat_eng_verify_err *err, char *buf, size_t len);

#endif /* IOLAT_ENGINE_VERIFY_H */
