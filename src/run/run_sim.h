/* SPDX-License-Identifier: MIT */
/*
 * run_sim.h - a virtual-time run with its series, for tests and benches: a
 * parsed job file run by the one runner (run.h) on the simulator backend
 * (a simulated device of src/sim in virtual time, through the real
 * controller with the simulator's clock, the 1 s controller tick), with
 * its results: the report (table, JSON, CSV, plots) plus a per-group time
 * series and per-window latency figures measured beside the controller
 * (sim_result.h, the simulator backend's, which fills them).
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
#include "run/sim_result.h"

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

/**
 * iolat_sim_run() - simulate @jf.
 * @opts: may be NULL (everything from the job file).
 * @out: the result, to free with iolat_sim_result_free() (sim_result.h).
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

/**
 * iolat_sim_format_models() - the --help text for device models: each model,
 * its summary and its parameters. As snprintf: the length needed.
 */
int iolat_sim_format_models(char *buf, size_t len);

#endif /* IOLAT_RUN_RUN_SIM_H */
