/* SPDX-License-Identifier: MIT */
/*
 * scale.c - cookie and depth steps, window length, latency EMA.
 *
 * The cookie is a generation counter a parent publishes to its children:
 * IOLAT_DEFAULT_COOKIE means "no throttling"; each latency miss among the
 * children moves it down, each recovery up. Near the default it moves by
 * qd/4 down and qd/16 up; more than qd below, by one; it never goes more than
 * 2*qd below, which bounds how long un-throttling can take (docs/controller.md
 * R7). A child's depth halves per observed down step and grows by qd/16 per
 * up step (R6). Pure functions; callers apply them under their own protocol.
 * Context: any thread.
 */
#include "core/scale.h"

#include "iolatency.h"

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

uint32_t iolat_cookie_step(uint32_t old, uint32_t qd, bool up)
{
	const uint32_t def = IOLAT_DEFAULT_COOKIE;
	uint32_t diff = old < def ? def - old : 0;
	uint32_t down_step = max_u32(qd >> 2, 1);
	uint32_t up_step = max_u32(qd >> 4, 1);
	uint64_t max_scale = 2ull * qd;

	if (up) {
		if ((uint64_t)old + up_step > def)
			return def;
		if (diff > qd)
			return old + 1;
		return old + up_step;
	}
	if (diff > qd)
		return diff < max_scale ? old - 1 : old; /* shallow hole; floor */
	/* Saturate: with qd above 4 x the default cookie (any u32 is accepted)
	 * the step would wrap the cookie above the default. */
	return old > down_step ? old - down_step : 0;
}

uint32_t iolat_depth_step(uint32_t max_depth, uint32_t qd, bool up)
{
	uint32_t old = min_u32(max_depth, qd);
	uint64_t grown;

	if (up) {
		if (old >= qd)
			return max_depth; /* stays until the cookie is back at default */
		/* In 64 bits: old + qd/16 wraps for qd near UINT32_MAX. */
		grown = (uint64_t)old + max_u32(qd >> 4, 1);
		return grown < qd ? (uint32_t)grown : qd;
	}
	return max_u32(old >> 1, 1);
}

uint64_t iolat_window_ns(uint64_t target_ns)
{
	uint64_t w;

	if (target_ns == 0)
		return IOLAT_MIN_WIN_NS;
	w = target_ns > IOLAT_MAX_WIN_NS ? IOLAT_MAX_WIN_NS : target_ns * 16;
	if (w < IOLAT_MIN_WIN_NS)
		w = IOLAT_MIN_WIN_NS;
	if (w > IOLAT_MAX_WIN_NS)
		w = IOLAT_MAX_WIN_NS;
	return w;
}

/*
 * Factors of exp(-bucket/horizon) in 11-bit fixed point, one per 250 ms of
 * window length: 2045 ~ exp(-1/683), 2039 ~ exp(-1/228), 2031 ~ exp(-1/120),
 * 2023 ~ exp(-1/82), 2014 ~ exp(-1/60): about a minute of history at each
 * window length (docs/controller.md C9).
 */
#define LAT_AVG_FSHIFT 11
#define LAT_AVG_FIXED_1 (1u << LAT_AVG_FSHIFT)
#define LAT_AVG_BUCKET_NS (1000000000ull / 4)
static const uint32_t lat_avg_factors[] = { 2045, 2039, 2031, 2023, 2014 };
#define NR_LAT_AVG_FACTORS (sizeof(lat_avg_factors) / sizeof(lat_avg_factors[0]))

uint64_t iolat_lat_avg_update(uint64_t avg, uint64_t win_ns, uint64_t mean_ns)
{
	uint64_t idx = win_ns / LAT_AVG_BUCKET_NS;
	uint64_t f, v;

	if (idx > NR_LAT_AVG_FACTORS - 1)
		idx = NR_LAT_AVG_FACTORS - 1;
	f = lat_avg_factors[idx];
	v = avg * f + mean_ns * (LAT_AVG_FIXED_1 - f);
	if (mean_ns >= avg)
		v += LAT_AVG_FIXED_1 - 1; /* round up while rising */
	return v / LAT_AVG_FIXED_1;
}
