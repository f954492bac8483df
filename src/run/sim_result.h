/* SPDX-License-Identifier: MIT */
/*
 * sim_result.h - what a virtual-time run measured beside the controller:
 * per group, a time series and per-window latency figures, with the
 * runner's result copied beside them (struct iolat_sim_result). The
 * simulator backend (be_sim*.c) fills it, and frees its own when no caller
 * asked for one; run_sim.c hands the backend the caller's. A file of its
 * own below both, so the backend points at neither run_sim.c nor the other
 * way round through it (docs/design.md, "No circles in a folder").
 * Context: a result belongs to its run's thread, then to its caller.
 */
#ifndef IOLAT_RUN_SIM_RESULT_H
#define IOLAT_RUN_SIM_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

/* Virtual time at which a run starts ("uptime"); series times are relative. */
#define IOLAT_SIM_T0_NS (1000ull * 1000000000ull)

/* One group at one sample time (subtree figures, as the controller sees them). */
struct iolat_sim_sample {
	uint64_t t_ns;          /* since the start */
	uint32_t depth;         /* IOLAT_DEPTH_MAX: unlimited (also without control) */
	uint32_t inflight;      /* admitted and not completed (controller's count) */
	int use_delay;
	bool congested;
	uint64_t nr, bytes;     /* completions in this sample interval */
	uint64_t p90_ns, mean_ns, max_ns;
	uint64_t throttled_ns, delay_ns, slept_ns;   /* cumulative, controller's */
	uint64_t scale_downs, scale_ups, windows_ok, windows_missed; /* cumulative */
	uint64_t stalled_windows; /* cumulative: closed while its I/O stalled (adaptive) */
	uint64_t pace_bps;      /* the adaptive mode's rate for the group then (0: none) */
	uint64_t thr_bps;       /* the kernel-throttle plant's limit in force then (0: none or off) */
	uint64_t thr_sent;      /* bytes it let through in this sample interval (bypass too) */
};

/* One latency window of a group with a target, on a fixed grid from the start
 * (length clamp(16 x target, 100 ms, 1 s), as the controller's): what the
 * simulator measured, independently of the controller's own bookkeeping. */
struct iolat_sim_window {
	uint64_t t_ns;          /* window start, since the run's start */
	uint64_t nr;
	uint64_t p90_ns, mean_ns;
};

struct iolat_sim_group {
	const char *path;       /* "a/fast"; "(root)" for the root row */
	uint64_t target_ns;
	uint64_t win_ns;        /* window grid length (0 when no target) */
	struct iolat_sim_sample *samples;  /* nr_samples of them */
	struct iolat_sim_window *windows;
	size_t nr_windows;
	uint64_t nr_ios, bytes; /* subtree totals over the run */
	uint64_t first_io_ns, last_io_ns;  /* completions, since start; 0 if none */
	uint64_t slept_ns;      /* delay the group's jobs served (virtual) */
	uint64_t nr_bypass;     /* bypass (META/SWAP) I/Os its jobs issued */
	uint64_t nr_bypass_waited;   /* bypass I/Os that had to wait for a slot (should be 0) */
	uint64_t max_bypass_wait_ns; /* the longest such wait */
};

struct iolat_sim_result {
	struct iolat_report *report;  /* finished; owned by the result */
	const char *device;           /* model name */
	int rotational;
	uint32_t nr_requests;
	bool control, kernel_compat;
	int mode;                      /* enum iolat_ctl_mode run (with control) */
	uint64_t seed;
	uint64_t sample_ns;
	uint64_t duration_ns;         /* start to end of the measured run */
	bool interrupted;             /* opts->stop ended it early: duration_ns is the
				       * virtual time reached */
	uint64_t drain_ns;            /* after the end, until the last I/O completed */
	uint64_t events;              /* events run */
	uint64_t nr_submitted, nr_completed;
	uint64_t thr_writes, thr_applied; /* the kernel-throttle plant: limits written, put in force */
	unsigned nr_groups;           /* jobfile groups, then the root row */
	struct iolat_sim_group *groups;
	size_t nr_samples;
};

void iolat_sim_result_free(struct iolat_sim_result *res);

/** iolat_sim_find_group() - index of the group with @path in @res, or -ENOENT. */
int iolat_sim_find_group(const struct iolat_sim_result *res, const char *path);

#endif /* IOLAT_RUN_SIM_RESULT_H */
