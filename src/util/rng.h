/* SPDX-License-Identifier: MIT */
/*
 * rng.h - the project's one pseudo-random generator: xoshiro256** seeded
 * through splitmix64 (both public-domain algorithms by Blackman and Vigna,
 * written here from their published descriptions). Every random choice of a
 * run (device model jitter, workload offsets, Poisson arrivals, injected
 * faults, verify payloads, file fill) draws from it or from its splitmix64
 * step, seeded from the run's seed, so the same job file and seed give the
 * same run.
 * Context: a generator belongs to one thread; no locking, no globals.
 */
#ifndef IOLAT_UTIL_RNG_H
#define IOLAT_UTIL_RNG_H

#include <stdint.h>

struct iolat_rng {
	uint64_t s[4];
};

/*
 * One splitmix64 step: advances *state and returns the next output. Inline:
 * the verify payload and the file fill call it once per 8 bytes.
 */
static inline uint64_t iolat_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One xoshiro256** step on a raw state. */
uint64_t iolat_xoshiro256ss(uint64_t s[4]);

/*
 * Seed from (seed, stream): different streams of one seed are independent.
 * Stream 0 seeds from the seed itself.
 */
void iolat_rng_seed(struct iolat_rng *r, uint64_t seed, uint64_t stream);
uint64_t iolat_rng_u64(struct iolat_rng *r);
/* Uniform in [0, n) without modulo bias; n == 0 gives 0. */
uint64_t iolat_rng_below(struct iolat_rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double iolat_rng_unit(struct iolat_rng *r);
/* Uniform double in (0, 1] with 53 random bits: safe under log(). */
double iolat_rng_unit_pos(struct iolat_rng *r);
/* Exponentially distributed value with the given mean (Poisson gaps). */
double iolat_rng_exp(struct iolat_rng *r, double mean);

/* The top 53 bits of x as a double in [0, 1). */
static inline double iolat_u64_to_unit(uint64_t x)
{
	return (double)(x >> 11) * 0x1.0p-53;
}

#endif /* IOLAT_UTIL_RNG_H */
