/* SPDX-License-Identifier: MIT */
/*
 * calib_types.h - what `iolat calibrate` measured: one point (the reader,
 * and the writer beside it or not) and the whole result. Shared by the
 * measurement (calibrate.c), the fit (calib_fit.c) and the output
 * (calib_output.c); a header of no file of its own.
 * Context: plain data.
 */
#ifndef IOLAT_CALIB_TYPES_H
#define IOLAT_CALIB_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#define IOLAT_CALIB_UNPACED  UINT64_MAX    /* a point's rate_bps: the writer unpaced */
#define IOLAT_CALIB_MAX_STEPS 16
#define IOLAT_CALIB_MAX_CURVE 8

/* One measurement: the reader, and the writer beside it (or not). */
struct iolat_calib_point {
	uint64_t rate_bps;       /* the writer's pace; 0: the reader alone;
				  * IOLAT_CALIB_UNPACED: the writer unpaced */
	double writer_mb_s;      /* what the writer was delivered, MB/s (10^6 B/s) */
	double reads_s;          /* the reader's completed reads per second */
	uint64_t p50_ns, p90_ns, p99_ns;
	bool within;             /* the reader kept its solo latency (iolat_calib_within) */
};

struct iolat_calib_result {
	char device[32];         /* "vda", "vdisk" */
	bool virtual_time;
	int rotational;
	struct iolat_calib_point solo;      /* the reader alone */
	struct iolat_calib_point unpaced;   /* beside the writer unpaced */
	struct iolat_calib_point steps[IOLAT_CALIB_MAX_STEPS];  /* the bisection */
	unsigned nr_steps;
	struct iolat_calib_point curve[IOLAT_CALIB_MAX_CURVE];  /* around the knee */
	unsigned nr_curve;
	struct iolat_calib_point solo_after;  /* the reader alone again, at the end */
	struct iolat_calib_point solo_ref;    /* what every point is judged against: the solo
					       * p90, the mean of both solos' reads/s */
	uint64_t threshold_ns;   /* the reader's p90 bound the knee was judged by */
	uint64_t knee_bps;       /* the writer's pace at the knee */
	double knee_mb_s;        /* the knee: the writer's delivered rate (iolat_calib_fit_knee) */
	uint64_t knee_bisect_bps;   /* the bisection's alone: the highest pace found within */
	double knee_bisect_mb_s;    /* and what the writer was delivered there */
	double knee_lo_mb_s, knee_hi_mb_s;  /* the range the verdicts allow */
	unsigned contradicting;  /* the points that contradict any knee in it */
	unsigned fit_points;     /* the points the line went through; 0: no line (the
				  * bisection's knee, kept in the range) */
	bool no_knee;            /* the writer unpaced leaves the reader within */
	uint64_t target_ns;      /* suggested, or the plan's */
	bool target_given;       /* the plan's */
	double elapsed_s;        /* the measurements' time (virtual in the simulator) */
	bool interrupted;        /* a stop cut it short: what ran is kept */
	bool throttled;          /* the writer was paced by the kernel's throttle (plan's throttle_cgroup) */
};

#endif /* IOLAT_CALIB_TYPES_H */
