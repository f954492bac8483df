/* SPDX-License-Identifier: MIT */
/*
 * rng.h - the simulator's seeded random numbers: xoshiro256** seeded through
 * splitmix64 (both public-domain algorithms by Blackman and Vigna, written
 * here from their published descriptions). Every random choice in a run
 * (device model jitter, workload offsets, Poisson arrivals) draws from one of
 * these, each seeded from the run's seed and a fixed stream number, so the
 * same job file and seed give the same run.
 * Context: a generator belongs to one simulation (one thread); no locking.
 */
#ifndef IOLAT_SIM_RNG_H
#define IOLAT_SIM_RNG_H

#include <stdint.h>

struct iolat_sim_rng {
	uint64_t s[4];
};

/* The two primitives, shared with the job layer's workload generator. */
uint64_t iolat_splitmix64(uint64_t *state);   /* one splitmix64 step */
uint64_t iolat_xoshiro256ss(uint64_t s[4]);   /* one xoshiro256** step */

/* Seed from (seed, stream): different streams of one seed are independent. */
void iolat_sim_rng_seed(struct iolat_sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t iolat_sim_rng_u64(struct iolat_sim_rng *r);
/* Uniform in [0, n) without modulo bias; n == 0 gives 0. */
uint64_t iolat_sim_rng_below(struct iolat_sim_rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double iolat_sim_rng_unit(struct iolat_sim_rng *r);
/* Exponentially distributed value with the given mean (Poisson gaps). */
double iolat_sim_rng_exp(struct iolat_sim_rng *r, double mean);

#endif /* IOLAT_SIM_RNG_H */
