/* SPDX-License-Identifier: MIT */
/*
 * verify.c - fills and checks write-then-verify blocks (format in verify.h):
 * the payload is a splitmix64 stream seeded from (offset, generation); the
 * crc covers everything in the block after the crc field.
 * Owns no state; any thread may call it.
 */
#include "engine/verify.h"
#include "engine/crc32c.h"
#include "util/rng.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define HDR_SIZE sizeof(struct iolat_eng_verify_hdr)

_Static_assert(sizeof(struct iolat_eng_verify_hdr) == 32, "verify header is 32 bytes");
_Static_assert(IOLAT_ENG_VERIFY_BLOCK % 8 == 0, "payload is whole words");

static uint32_t block_crc(const unsigned char *blk)
{
	return iolat_eng_crc32c(0, blk + sizeof(uint32_t),
				IOLAT_ENG_VERIFY_BLOCK - sizeof(uint32_t));
}

int iolat_eng_verify_fill(void *buf, size_t len, uint64_t offset, uint64_t generation)
{
	unsigned char *blk = buf;

	if ((offset | len) % IOLAT_ENG_VERIFY_BLOCK)
		return -EINVAL;
	for (size_t done = 0; done < len; done += IOLAT_ENG_VERIFY_BLOCK,
	     blk += IOLAT_ENG_VERIFY_BLOCK) {
		struct iolat_eng_verify_hdr h = {
			.magic = IOLAT_ENG_VERIFY_MAGIC,
			.offset = offset + done,
			.generation = generation,
			.block_size = IOLAT_ENG_VERIFY_BLOCK,
		};
		uint64_t s = h.offset * 0x2545f4914f6cdd1dull ^ generation;

		for (size_t i = HDR_SIZE; i < IOLAT_ENG_VERIFY_BLOCK; i += 8) {
			uint64_t w = iolat_splitmix64(&s);

			memcpy(blk + i, &w, 8);
		}
		memcpy(blk, &h, HDR_SIZE);
		h.crc = block_crc(blk);
		memcpy(blk, &h.crc, sizeof(h.crc));
	}
	return 0;
}

static int fail(struct iolat_eng_verify_err *err, uint64_t off, const char *what,
		uint64_t expected, uint64_t found)
{
	if (err)
		*err = (struct iolat_eng_verify_err){
			.offset = off, .what = what, .expected = expected, .found = found,
		};
	return -EILSEQ;
}

int iolat_eng_verify_check(const void *buf, size_t len, uint64_t offset,
			   uint64_t generation, uint64_t *gen_out,
			   struct iolat_eng_verify_err *err)
{
	const unsigned char *blk = buf;

	if ((offset | len) % IOLAT_ENG_VERIFY_BLOCK)
		return -EINVAL;
	for (size_t done = 0; done < len; done += IOLAT_ENG_VERIFY_BLOCK,
	     blk += IOLAT_ENG_VERIFY_BLOCK) {
		struct iolat_eng_verify_hdr h;
		uint64_t off = offset + done;
		uint32_t crc;

		memcpy(&h, blk, HDR_SIZE);
		if (h.magic != IOLAT_ENG_VERIFY_MAGIC)
			return fail(err, off, "magic", IOLAT_ENG_VERIFY_MAGIC, h.magic);
		if (h.offset != off)
			return fail(err, off, "offset", off, h.offset);
		if (done == 0 && gen_out)
			*gen_out = h.generation;
		if (generation != IOLAT_ENG_VERIFY_ANY_GEN && h.generation != generation)
			return fail(err, off, "generation", generation, h.generation);
		crc = block_crc(blk);
		if (crc != h.crc)
			return fail(err, off, "crc", h.crc, crc);
	}
	return 0;
}

int iolat_eng_verify_format(const struct iolat_eng_verify_err *err, char *buf, size_t len)
{
	return snprintf(buf, len, "verify failed at offset %" PRIu64 ": bad %s "
			"(expected %#" PRIx64 ", found %#" PRIx64 ")",
			err->offset, err->what, err->expected, err->found);
}
