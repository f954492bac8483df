/* SPDX-License-Identifier: MIT */
/*
 * calibrate.h - `iolat calibrate`: what a disk gives a latency-sensitive
 * reader, measured in about a minute. A 4 KiB QD 1 random reader alone (its
 * solo latency); then beside a 1 MiB QD 32 O_DIRECT writer unpaced (how fast
 * the writer goes, what the reader suffers); then the writer paced at rates
 * found by bisection, for the highest rate at which the reader keeps its
 * solo latency (the knee); then a few rates around the knee and the reader
 * alone again; the knee from all of these points (calib_fit.c). From these: a
 * suggested latency target and a profile of the disk for the simulator's
 * vdisk model. Each measurement is one run of the one runner (run/run.h)
 * with the controller off, on real files or a block device (the engines)
 * or on a simulated device (virtual time, deterministic).
 * docs/calibrate.md says why each rule is what it is.
 * Context: the calling thread; iolat_calibrate() blocks for the runs.
 */
#ifndef IOLAT_CALIB_CALIBRATE_H
#define IOLAT_CALIB_CALIBRATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "calib/calib_types.h"
#include "job/jobfile.h"

struct iolat_calib_plan {
	const struct iolat_run_backend *backend;  /* run.h: engines or sim */
	/* The simulator: the model and its [global] keys ("vdisk_mbps=1500"). */
	enum iolat_device_kind sim_device;
	const char *const *sim_keys;
	unsigned nr_sim_keys;
	/* The engines: where the reader reads and the writer writes (one block
	 * device twice, at two offsets, or two files). */
	const char *read_path, *write_path;
	uint64_t read_offset, write_offset, read_size, write_size;
	/* How the writer is paced: NULL, by the runner's rate= (a token bucket
	 * in the process); else by the kernel's block throttle, as iolatd acts,
	 * on this cgroup (a path under the hierarchy's root with no write cap on
	 * the disk: cgroup= and cgroup_write_bps= of the writer's job, the cap
	 * taken off after each measurement). Engines only. */
	const char *throttle_cgroup;
	int throttle_version;    /* its hierarchy: 1 (the writer's threads move) or 2 (the process) */
	uint64_t step_ns;        /* each measurement's length; 0: 3 s */
	unsigned bisect_steps;   /* 0: 6 (the knee to 1/64 of the writer's rate) */
	uint64_t target_ns;      /* 0: the knee is where the reader leaves its solo
				  * latency; else where its p90 passes this */
	const atomic_bool *stop; /* a stop request (a signal); NULL */
	/* A measurement instead of a run (tests: a plant in code); NULL: the runner. */
	int (*measure)(void *ctx, uint64_t rate_bps, bool writer, struct iolat_calib_point *pt);
	void (*note)(void *ctx, const char *line);  /* the runner's notices: layout... */
	void (*progress)(void *ctx, const char *phase, const struct iolat_calib_point *pt);
	void *ctx;
};


/**
 * iolat_calibrate() - measure as the plan says.
 * Return: 0 (also when stopped: r->interrupted); -EINVAL (a plan or a run
 * refused, message in @err); -ENOMEM; -EIO (a run's I/O failed).
 */
int iolat_calibrate(const struct iolat_calib_plan *pl, struct iolat_calib_result *r,
		    char *err, size_t errlen);

/*
 * The rules, exposed for tests (docs/calibrate.md):
 * - the threshold: the plan's target, else 3 x the solo p90 and at least
 *   the solo p90 + 100 us;
 * - within: p90 at or under the threshold and at least half the solo
 *   reads/s (a QD 1 reader that stalls issues few reads; its percentiles
 *   alone would hide the stall);
 * - the suggested target: 2 x the solo p90, or 1.5 x the p90 at the
 *   fastest curve point within, whichever is higher, rounded up to 1, 2 or
 *   5 x a power of ten microseconds;
 * - the knee fitted through every point: calib_fit.h.
 */
uint64_t iolat_calib_threshold(const struct iolat_calib_point *solo, uint64_t target_ns);
bool iolat_calib_within(const struct iolat_calib_point *pt, const struct iolat_calib_point *solo,
			uint64_t threshold_ns);
uint64_t iolat_calib_suggest_target(const struct iolat_calib_result *r);
uint64_t iolat_calib_nice_ceil(uint64_t ns);

/* The vdisk model's keys that mimic the measured disk. */
struct iolat_calib_profile {
	double mbps, read_us, jitter_pct;
	int rotational;
};
void iolat_calib_profile(const struct iolat_calib_result *r, struct iolat_calib_profile *p);

/* Outputs (calib_output.c): the table of measurements and the advice; JSON. */
int iolat_calib_write_text(const struct iolat_calib_result *r, const char *dev_hint, FILE *f);
int iolat_calib_write_json(const struct iolat_calib_result *r, const char *dev_hint, FILE *f);

#endif /* IOLAT_CALIB_CALIBRATE_H */
