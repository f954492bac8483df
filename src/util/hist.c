/* SPDX-License-Identifier: MIT */
/*
 * Log-linear latency histogram (after fio's stat.h scheme; our code).
 *
 * Geometry, with B = IOLAT_HIST_BITS = 6 and S = 2^B = 64:
 *   v < S:          bucket v (exact, one nanosecond wide)
 *   2^m <= v < 2^(m+1), m >= B:
 *                   bucket S + (m - B) * S + ((v >> (m - B)) - S),
 *                   i.e. S equal buckets of width 2^(m-B) per power of two
 *   v >= 2^IOLAT_HIST_MAX_LOG2 (~18 min): the last bucket.
 *
 * Error bound. A value v >= S lies in a bucket of width w = 2^(m-B) with
 * v >= 2^m = S * w. A percentile is reported as the middle of its bucket, so
 * it is off by at most w/2 <= v / (2 * S) = v / 2^(B+1): 0.78 % for B = 6
 * (values below 64 ns are exact). The report is also clamped to [min, max],
 * which are exact, so p100 == max. Ranks are exact (nearest-rank method).
 *
 * Context: none of these functions lock; one writer or an external lock.
 */
#include <stddef.h>
#include <string.h>

#include "util/hist.h"

void iolat_hist_reset(struct iolat_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

unsigned iolat_hist_index(uint64_t ns)
{
	if (ns < IOLAT_HIST_SUB)
		return (unsigned)ns;
	unsigned m = 63u - (unsigned)__builtin_clzll(ns);   /* ns != 0 here */
	if (m >= IOLAT_HIST_MAX_LOG2)
		return IOLAT_HIST_NR - 1;
	unsigned g = m - IOLAT_HIST_BITS;
	return IOLAT_HIST_SUB + g * IOLAT_HIST_SUB + (unsigned)((ns >> g) - IOLAT_HIST_SUB);
}

uint64_t iolat_hist_bucket_lo(unsigned idx)
{
	if (idx < IOLAT_HIST_SUB)
		return idx;
	if (idx >= IOLAT_HIST_NR)
		idx = IOLAT_HIST_NR - 1;
	unsigned g = idx / IOLAT_HIST_SUB - 1;
	uint64_t sub = idx % IOLAT_HIST_SUB;
	return (IOLAT_HIST_SUB + sub) << g;
}

uint64_t iolat_hist_bucket_hi(unsigned idx)
{
	if (idx < IOLAT_HIST_SUB)
		return idx;
	if (idx >= IOLAT_HIST_NR)
		idx = IOLAT_HIST_NR - 1;
	unsigned g = idx / IOLAT_HIST_SUB - 1;
	return iolat_hist_bucket_lo(idx) + ((uint64_t)1 << g) - 1;
}

void iolat_hist_add(struct iolat_hist *h, uint64_t ns)
{
	h->bucket[iolat_hist_index(ns)]++;
	h->nr++;
	h->sum_ns = (h->sum_ns > UINT64_MAX - ns) ? UINT64_MAX : h->sum_ns + ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void iolat_hist_merge(struct iolat_hist *dst, const struct iolat_hist *src)
{
	if (!src->nr)
		return;
	for (unsigned i = 0; i < IOLAT_HIST_NR; i++)
		dst->bucket[i] += src->bucket[i];
	dst->nr += src->nr;
	dst->sum_ns = (dst->sum_ns > UINT64_MAX - src->sum_ns) ? UINT64_MAX : dst->sum_ns + src->sum_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t iolat_hist_percentile(const struct iolat_hist *h, double pct)
{
	if (!h->nr)
		return 0;
	if (!(pct > 0.0))
		return h->min_ns;
	if (pct >= 100.0)
		return h->max_ns;
	double r = pct / 100.0 * (double)h->nr;
	uint64_t rank = (uint64_t)r;
	if ((double)rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > h->nr)
		rank = h->nr;

	uint64_t seen = 0;
	unsigned i;
	for (i = 0; i < IOLAT_HIST_NR; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			break;
	}
	if (i == IOLAT_HIST_NR)
		return h->max_ns;   /* not reached when counts are consistent */
	uint64_t lo = iolat_hist_bucket_lo(i), hi = iolat_hist_bucket_hi(i);
	uint64_t v = lo + (hi - lo) / 2;
	if (v < h->min_ns)
		v = h->min_ns;
	if (v > h->max_ns)
		v = h->max_ns;
	return v;
}

uint64_t iolat_hist_min(const struct iolat_hist *h)
{
	return h->nr ? h->min_ns : 0;
}

uint64_t iolat_hist_max(const struct iolat_hist *h)
{
	return h->nr ? h->max_ns : 0;
}

uint64_t iolat_hist_mean(const struct iolat_hist *h)
{
	return h->nr ? h->sum_ns / h->nr : 0;
}
