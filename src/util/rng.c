/* SPDX-License-Identifier: MIT */
/*
 * rng.c - xoshiro256** with splitmix64 seeding (see rng.h). Pure functions of
 * their state: no globals, no time, no libc random().
 * Context: one thread per generator.
 */
#include <math.h>

#include "util/rng.h"

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void iolat_rng_seed(struct iolat_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);

	for (int i = 0; i < 4; i++)
		r->s[i] = iolat_splitmix64(&x);
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1;    /* the all-zero state is a fixed point */
}

uint64_t iolat_xoshiro256ss(uint64_t s[4])
{
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t iolat_rng_u64(struct iolat_rng *r)
{
	return iolat_xoshiro256ss(r->s);
}

uint64_t iolat_rng_below(struct iolat_rng *r, uint64_t n)
{
	uint64_t lim, x;

	if (n == 0)
		return 0;
	/* Reject the top partial block of the 2^64 range. */
	lim = UINT64_MAX - (UINT64_MAX % n);
	do
		x = iolat_rng_u64(r);
	while (x >= lim);
	return x % n;
}

double iolat_rng_unit(struct iolat_rng *r)
{
	return iolat_u64_to_unit(iolat_rng_u64(r));
}

double iolat_rng_unit_pos(struct iolat_rng *r)
{
	return ((double)(iolat_rng_u64(r) >> 11) + 1.0) * 0x1.0p-53;
}

double iolat_rng_exp(struct iolat_rng *r, double mean)
{
	/* 1 - u lies in (0, 1], so the log is finite. */
	return -mean * log(1.0 - iolat_rng_unit(r));
}
