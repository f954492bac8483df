/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.h - from an allowed queue depth to the block throttle's rate
 * limits, by Little's law. Over a period a group moved B bytes in N requests
 * whose latencies summed to S: its mean in-flight was S/T and its throughput
 * B/T, so one slot of depth carried B/S bytes per second (N/S requests).
 * Depth D is then worth D x B/S bytes/s and D x N/S IOPS, per direction.
 * Below depth 1 (use_delay u > 0, the kernel's induced delay) the rate keeps
 * falling: halved per step, down to the configured floor. In the adaptive
 * mode the core gives the rate itself (bytes and I/Os per second for the
 * group as a whole): iolatd_rate_split() divides it between the directions by the
 * group's recent mix.
 * Pure arithmetic on the caller's records. Context: any thread.
 */
#ifndef IOLAT_DAEMON_RATELIMIT_H
#define IOLAT_DAEMON_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/sys/cgroupfs.h"

enum { RATE_READ = 0, RATE_WRITE = 1 };

/* What one group did in one period, per direction. */
struct rate_sample {
	uint64_t bytes[2], ios[2], lat_ns[2];
};

/* Per-slot throughput, smoothed (an EMA, weight 1/4 per period). */
struct rate_est {
	double bps_slot[2], iops_slot[2];
	bool valid[2];
	unsigned quiet[2];        /* periods since the direction last moved the estimate */
	double mix_bytes[2], mix_ios[2]; /* bytes and requests per period, smoothed (1/8) */
};

/* Periods with fewer requests (or less summed latency) do not move the estimate. */
#define RATE_MIN_IOS 4
#define RATE_MIN_LAT_NS 2000000ull
/*
 * A direction is limited only while the group is seen doing it: within the
 * last RATE_SEEN_PERIODS (5 s), a period with RATE_MIN_IOS requests of it,
 * or fewer that make at least 1/RATE_STRAY_SHARE of the period's bytes (a
 * group held at the floor does few). A writer whose few stray reads once
 * made a read estimate gets no read limit.
 */
#define RATE_SEEN_PERIODS 50
#define RATE_STRAY_SHARE 16

void iolatd_rate_est_update(struct rate_est *e, const struct rate_sample *s);

/*
 * iolatd_rate_limits() - the limits for allowed @depth (IOLAT_DEPTH_MAX: none) and
 * @use_delay, never below @min_bps / @min_iops. A direction without an
 * estimate, or not seen lately (RATE_SEEN_PERIODS), gets no limit.
 * Return: true if any limit is set.
 */
bool iolatd_rate_limits(const struct rate_est *e, uint32_t depth, int use_delay,
		 uint64_t min_bps, uint64_t min_iops, struct cg_limits *out);

/*
 * A direction whose requests average this size or more gets no IOPS limit in
 * the adaptive mode: its bytes limit is the one that binds, and the block
 * throttle counts bios, not the requests the BPF program sees. One 1 MiB
 * O_DIRECT write is two bios on a queue of 254 segments (256 pages), merged
 * back into one request: an IOPS limit in requests held such a writer to half
 * its bytes limit (830-960 MB/s under a 2 GB/s limit, measured on this disk).
 */
#define RATE_IOPS_MAX_REQ_BYTES (64u << 10)

/*
 * iolatd_rate_split() - the adaptive mode's rate for a group (@bps and @iops, for
 * both directions together; 0: none) as limits per direction, in the
 * proportions of its recent mix, for the directions it is seen doing, never
 * below @min_bps / @min_iops; no IOPS limit where requests are large
 * (RATE_IOPS_MAX_REQ_BYTES). Return: true if any limit is set.
 */
bool iolatd_rate_split(const struct rate_est *e, uint64_t bps, uint64_t iops, uint64_t min_bps,
		uint64_t min_iops, struct cg_limits *out);

/* Is every limit set in @l at its floor (lowering further changes nothing)? */
bool iolatd_rate_at_floor(const struct cg_limits *l, uint64_t min_bps, uint64_t min_iops);

#endif
