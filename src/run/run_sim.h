/* SPDX-License-Identifier: MIT */
/*
 * run_sim.h - a virtual-time run with its series, for tests and benches: a
 * parsed job file run by the one runner (run.h) on the simulator backend
 * (a simulated device of src/sim in virtual time, through the real
 * controller with the simulator's clock, the 1 s controller tick), with
 * its results: the report (table, JSON, CSV, plots) plus a per-group time
 * series and per-window latency figures measured beside the controller.
 * The same job file and seed always give the same results, byte for byte.
 * `iolat sim` itself runs iolat_run() with iolat_backend_sim.
 * Context: one thread per run; runs share nothing, so several may run at
 * once on different threads.
 */
#ifndef IOLAT_RUN_RUN_SIM_H
#define IOLAT_RUN_RUN_SIM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/jobfile.h"
#include "report/report.h"

/* Virtual time at which a run starts ("uptime"); series times are relative. */
#define IOLAT_SIM_T0_NS (1000ull * 1000000000ull)

struct iolat_sim_opts {
	uint64_t seed;          /* used when seed_set; else the job file's seed */
	bool seed_set;
	int control;            /* -1: the job file's control=; 0: no controller; 1: on */
	int kernel_compat;      /* -1: the job file's; 0/1 */
	int mode;                 /* enum iolat_ctl_mode; 0: --kernel-compat, the job file's, default_mode */
	int default_mode;         /* 0: article */
	uint64_t sample_ns;     /* time-series step; 0: the smallest window of a
				 * group with a target (100 ms when none) */
	const char *label;      /* report heading; NULL: made from the mode */
	const atomic_bool *stop;/* becomes true to end the run early (a signal); NULL */
};

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
	unsigned nr_groups;           /* jobfile groups, then the root row */
	struct iolat_sim_group *groups;
	size_t nr_samples;
};

/**
 * iolat_sim_run() - simulate @jf.
 * @opts: may be NULL (everything from the job file).
 * @out: the result, to free with iolat_sim_result_free().
 * @err: one line "FILE:LINE: ..." (or "FILE: ...") for a job file the
 * simulator cannot run; may be NULL.
 * The result (its report, group paths) refers to @jf: keep @jf until the
 * result is freed.
 * Return: 0; -EINVAL (bad model key or value, bad job for the simulator);
 * -EINTR (@opts->stop set before the start); -ENOMEM; other negative errnos
 * from the controller.
 * Context: any thread; @jf is only read.
 */
int iolat_sim_run(const struct iolat_jobfile *jf, const struct iolat_sim_opts *opts,
		  struct iolat_sim_result **out, char *err, size_t errlen);

/**
 * iolat_sim_check() - everything iolat_sim_run() would refuse in @jf, found
 * the same way (the device model and its keys, the controller's groups, each
 * job's workload on the device; for a scenario's file (src/scen) the check
 * it registered), without running anything: `iolat sim --parse-only`.
 * Return: 0; -EINVAL with one line in @err; -ENOMEM.
 * Context: any thread; @jf is only read.
 */
int iolat_sim_check(const struct iolat_jobfile *jf, const struct iolat_sim_opts *opts,
		    char *err, size_t errlen);

void iolat_sim_result_free(struct iolat_sim_result *res);

/** iolat_sim_find_group() - index of the group with @path in @res, or -ENOENT. */
int iolat_sim_find_group(const struct iolat_sim_result *res, const char *path);

/**
 * iolat_sim_format_models() - the --help text for device models: each model,
 * its summary and its parameters. As snprintf: the length needed.
 */
int iolat_sim_format_models(char *buf, size_t len);

#endif /* IOLAT_RUN_RUN_SIM_H */
