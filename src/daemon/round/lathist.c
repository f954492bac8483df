/* SPDX-License-Identifier: MIT */
/*
 * lathist.c - the daemon's per-node latency histogram (lathist.h): each
 * completion counted into its 2^(1/8)-octave bucket and its metrics
 * bucket, and once a second the last second summarized (count, mean, p50,
 * p90, p99: a bucket's upper edge). Fed by the round (iolatd_observe), rolled
 * by the second (round_second.c), read by the status (status/status.c).
 * Context: one thread for every call on one struct iolatd.
 */
#include <math.h>
#include <string.h>

#include "daemon/round/lathist.h"

/* Bucket b holds (2^(b/8), 2^((b+1)/8)] us: a latency on an edge is in the bucket below it. */
static int bucket_of(uint64_t lat_ns)
{
	double us = (double)lat_ns / 1000.0;
	int b;

	if (us <= 1.0)
		return 0;
	b = (int)ceil(log2(us) * 8.0) - 1;
	return b < 0 ? 0 : b >= LAT_HIST_BUCKETS ? LAT_HIST_BUCKETS - 1 : b;
}

/* The metrics bucket that holds bucket @b: the first power of two (in us) at or above its top. */
static int prom_bucket_of(int b)
{
	int j = (b + 1 + 7) / 8 - LAT_PROM_FIRST_LOG2;

	return j < 0 ? 0 : j > LAT_PROM_EDGES ? LAT_PROM_EDGES : j;
}

/* The upper edge of bucket @b, in ns. */
static uint64_t bucket_top(int b)
{
	return (uint64_t)(1000.0 * exp2((double)(b + 1) / 8.0));
}

void iolatd_lat_hist_add(struct lat_hist *h, uint64_t lat_ns)
{
	int b = bucket_of(lat_ns);

	h->b[b]++;
	h->n++;
	h->sum_ns += lat_ns;
	h->total[prom_bucket_of(b)]++;
	h->total_sum_ns += lat_ns;
}

static uint64_t pct(const struct lat_hist *h, double p)
{
	uint64_t want = (uint64_t)ceil(p * (double)h->n), seen = 0;

	for (int b = 0; b < LAT_HIST_BUCKETS; b++) {
		seen += h->b[b];
		if (seen >= want && seen)
			return bucket_top(b);
	}
	return 0;
}

void iolatd_lat_hist_roll(struct lat_hist *h)
{
	h->last_n = h->n;
	h->last_mean_ns = h->n ? h->sum_ns / h->n : 0;
	h->last_p50_ns = h->n ? pct(h, 0.50) : 0;
	h->last_p90_ns = h->n ? pct(h, 0.90) : 0;
	h->last_p99_ns = h->n ? pct(h, 0.99) : 0;
	memset(h->b, 0, sizeof(h->b));
	h->n = h->sum_ns = 0;
}

