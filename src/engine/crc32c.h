/* SPDX-License-Identifier: MIT */
/*
 * crc32c.h - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) in
 * software, for the write-then-verify block headers (verify.h).
 * Context: any thread; the tables are built once, on first use.
 */
#ifndef IOLAT_ENGINE_CRC32C_H
#define IOLAT_ENGINE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/**
 * iolat_eng_crc32c() - extend @crc over @len bytes at @buf.
 * Start with 0; the inversions are inside, so calls chain:
 * crc32c(crc32c(0, a), b) == crc32c(0, a followed by b).
 * Check value: crc32c(0, "123456789", 9) == 0xE3069283.
 */
uint32_t iolat_eng_crc32c(uint32_t crc, const void *buf, size_t len);

#endif /* IOLAT_ENGINE_CRC32C_H */
