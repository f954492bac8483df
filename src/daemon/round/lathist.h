/* SPDX-License-Identifier: MIT */
/*
 * lathist.h - the daemon's per-node latency histogram, one per node and
 * disk (lathist.c).
 * Context: one thread for every call on one struct iolatd.
 */
#ifndef IOLAT_DAEMON_LATHIST_H
#define IOLAT_DAEMON_LATHIST_H

#include <stdint.h>

/*
 * Latencies of one second, in 8 buckets per power of two from 1 us (bucket b
 * holds (2^(b/8), 2^((b+1)/8)] us; bucket 0 also everything below). Since
 * the node appeared, the same buckets folded into the metrics' histogram:
 * one bucket per power of two from 2^LAT_PROM_FIRST_LOG2 us (8 us) to
 * 2^(LAT_PROM_FIRST_LOG2 + LAT_PROM_EDGES - 1) us (8.4 s), then +Inf.
 */
#define LAT_HIST_BUCKETS 200
#define LAT_PROM_FIRST_LOG2 3
#define LAT_PROM_EDGES 21
struct lat_hist {
	uint32_t b[LAT_HIST_BUCKETS];
	uint64_t n, sum_ns;
	/* The last whole second's summary. */
	uint64_t last_n, last_mean_ns, last_p50_ns, last_p90_ns, last_p99_ns;
	/* Since the start, never reset: each metrics bucket's own count (not cumulative), the sum. */
	uint64_t total[LAT_PROM_EDGES + 1], total_sum_ns;
};
void iolatd_lat_hist_add(struct lat_hist *h, uint64_t lat_ns);
/* End a second: summarize it into last_*, start afresh. */
void iolatd_lat_hist_roll(struct lat_hist *h);

#endif
