/* SPDX-License-Identifier: MIT */
/*
 * A fixed-size log-linear latency histogram (fio's scheme): values below
 * 2^IOLAT_HIST_BITS ns are counted exactly; above, every power of two is cut
 * into 2^IOLAT_HIST_BITS equal sub-buckets. Percentiles are within
 * 1/2^(IOLAT_HIST_BITS+1) (0.78 %) of the exact nearest-rank value (hist.c
 * derives the bound). min, max, count and sum are exact. No allocation.
 * Context: not thread-safe; one writer, or callers serialise (report.c locks).
 */
#ifndef IOLAT_UTIL_HIST_H
#define IOLAT_UTIL_HIST_H

#include <stdint.h>

#define IOLAT_HIST_BITS     6                          /* sub-buckets per power of two: 64 */
#define IOLAT_HIST_SUB      (1u << IOLAT_HIST_BITS)
#define IOLAT_HIST_MAX_LOG2 40                         /* values >= 2^40 ns (~18 min) share the last bucket */
#define IOLAT_HIST_NR       (IOLAT_HIST_SUB * (IOLAT_HIST_MAX_LOG2 - IOLAT_HIST_BITS + 1))

struct iolat_hist {
	uint64_t nr;                        /* samples */
	uint64_t sum_ns;                    /* saturating sum */
	uint64_t min_ns;                    /* UINT64_MAX while empty */
	uint64_t max_ns;
	uint64_t bucket[IOLAT_HIST_NR];
};

/** iolat_hist_reset() - empty @h. */
void iolat_hist_reset(struct iolat_hist *h);

/** iolat_hist_add() - count one sample of @ns nanoseconds. */
void iolat_hist_add(struct iolat_hist *h, uint64_t ns);

/** iolat_hist_merge() - add every sample of @src to @dst. */
void iolat_hist_merge(struct iolat_hist *dst, const struct iolat_hist *src);

/**
 * iolat_hist_percentile() - the nearest-rank @pct percentile (0 < pct <= 100):
 * the sample of rank ceil(pct/100 * nr), as the middle of its bucket, clamped
 * to [min, max]. pct <= 0 gives min. Return: ns; 0 when empty.
 */
uint64_t iolat_hist_percentile(const struct iolat_hist *h, double pct);

uint64_t iolat_hist_min(const struct iolat_hist *h);   /* 0 when empty */
uint64_t iolat_hist_max(const struct iolat_hist *h);   /* 0 when empty */
uint64_t iolat_hist_mean(const struct iolat_hist *h);  /* rounded down; 0 when empty */

/* Bucket geometry, for tests and exporters. */
unsigned iolat_hist_index(uint64_t ns);
uint64_t iolat_hist_bucket_lo(unsigned idx);   /* smallest value of bucket idx */
uint64_t iolat_hist_bucket_hi(unsigned idx);   /* largest value of bucket idx */

#endif /* IOLAT_UTIL_HIST_H */
