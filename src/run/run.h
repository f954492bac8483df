/* SPDX-License-Identifier: MIT */
/*
 * run.h - the one runner: a parsed job file run through the controller on a
 * backend, either the I/O engines on real files in real time (`iolat run`,
 * `iolat demo`) or a simulated device in virtual time (`iolat sim`, `iolat
 * demo --sim`). One set-up (control and mode, the controller and its
 * groups, the jobs' clones and their workloads, the report and its
 * groups), one way of stopping (a flag the backend polls: what ran is
 * reported as "interrupted"), one result and one report (src/report); the
 * backend brings the device, the clock, and how an I/O is issued and
 * completed (docs/design.md, "The one runner").
 * Context: iolat_run() blocks its calling thread for the run. The engines
 * backend runs one thread per job clone plus the controller's timer
 * thread; the simulator runs on the calling thread. Callbacks in the
 * options are called on the calling thread.
 */
#ifndef IOLAT_RUN_RUN_H
#define IOLAT_RUN_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/jobfile.h"
#include "report/report.h"

#define IOLAT_RUN_NOTE_MAX 320   /* one note or error line, NUL included */

/* A backend; its insides are the runner's (run_priv.h). */
struct iolat_run_backend;
/* Real files (or block devices) through the I/O engines, in real time. */
extern const struct iolat_run_backend iolat_backend_engines;
/* The simulated device of the job file's device=, in virtual time. */
extern const struct iolat_run_backend iolat_backend_sim;

/* What the progress callback sees. */
struct iolat_run_progress {
	uint64_t elapsed_ns;      /* since the start (virtual with the simulator) */
	uint64_t total_ns;        /* planned length; 0 when unknown (size-bound jobs) */
	uint64_t ios, bytes;      /* completed so far, all jobs (engines) */
	uint64_t errors;          /* failed I/Os so far (engines) */
	double iops, mib_s;       /* over the last interval (engines) */
	unsigned jobs_running;    /* engines */
};

struct iolat_run_opts {
	int control;              /* -1: the job file's control=; 0: off; 1: on */
	int kernel_compat;        /* -1: the job file's; 0/1 */
	int mode;                 /* enum iolat_ctl_mode; 0: --kernel-compat, the job
				   * file's, default_mode */
	int default_mode;         /* 0: article */
	const char *label;        /* report heading; NULL: made from the device and mode */
	uint64_t sample_ns;       /* time-series step; 0: the smallest window of a group
				   * with a target, else 1 s (engines), 100 ms (simulator) */
	const atomic_bool *stop;  /* becomes true to end the run early (a signal); NULL */
	uint64_t seed;            /* used when seed_set; else the job file's seed= */
	bool seed_set;
	const char *fault_options;/* engines: options of faulty:<engine> jobs (--faults) */
	/* Progress: the engines call it every progress_ns (0: 1 s), the simulator
	 * every few thousand events; NULL: none. */
	uint64_t progress_ns;
	void (*progress)(void *ctx, const struct iolat_run_progress *p);
	void (*note)(void *ctx, const char *line);  /* one-line notices: layout, fallbacks */
	void *ctx;                /* for progress and note */
};

struct iolat_run_result {
	struct iolat_report *report;   /* finished; owned by the result */
	bool virtual_time;             /* the simulator ran it: times are virtual */
	bool control, kernel_compat;
	int mode;                      /* enum iolat_ctl_mode run (with control) */
	char device[32];               /* the disk ("vda"), the model ("ssd"); "" unknown */
	bool device_known;             /* engines: nr_requests/rotational came from sysfs */
	uint32_t nr_requests;          /* the controller's qd */
	int rotational;
	uint64_t seed;
	uint64_t sample_ns;
	uint64_t duration_ns;          /* start to end of the measured run */
	bool interrupted;              /* opts->stop ended it early: duration_ns is what ran */
	uint64_t nr_submitted;         /* I/Os handed to an engine or the device */
	uint64_t nr_completed;         /* completions seen (== nr_submitted at the end) */
	/* The simulator: after the end, until the last I/O completed; events run. */
	uint64_t drain_ns, events;
	/* The engines: failed I/Os (errors, short transfers, bad data). */
	uint64_t nr_errors, nr_short, nr_verify_failed;
	char first_error[IOLAT_RUN_NOTE_MAX]; /* "job 'x': read at 4096: ...", "" if none */
	/* What faulty:<engine> jobs injected, all jobs together (eng_faulty.h). */
	uint64_t inj_eio, inj_enospc, inj_short, inj_spikes, inj_stalls;
	/* The read-back after the run (files with verify= writers); verify_ran false: none. */
	bool verify_ran;
	uint64_t verify_checked;       /* blocks read back and compared */
	uint64_t verify_written;       /* among them, blocks a successful write set */
	uint64_t verify_bad;           /* not what their last successful write wrote */
	uint64_t verify_unspecified;   /* last write failed or overlapped: not checked */
	uint32_t verify_block;         /* bytes per block in these counts */
	char verify_first_bad[IOLAT_RUN_NOTE_MAX];
	/* With IOLAT_CHECK=1 (or -DIOLAT_DEBUG): whether the checks ran (a failed
	 * check makes iolat_run() return -EUCLEAN instead). */
	bool checked;
};

/**
 * iolat_run() - run @jf on backend @be.
 * Every check comes first, before any side effect: for the engines
 * (preflight.h) files, devices, space, O_DIRECT, engine and fault options,
 * then files are laid out (created and filled when missing or too small),
 * a layout undone (fileprep.h) when it fails, is stopped, or the run fails
 * before any job started; jobs asking for io_uring fall back to psync,
 * with a note, when the kernel refuses io_uring; files that verify= jobs
 * write are read back after the run. For the simulator: the device model
 * and its keys, each job's region on the device. Failed I/Os are counted in
 * the result and the report, not returned.
 * With IOLAT_CHECK=1 in the environment (always when built with
 * -DIOLAT_DEBUG) the engines check the controller's invariants
 * (iolat_ctl_check_invariants()) at every sample and at the end, and the
 * accounting: no I/O completed twice, every submitted I/O completed, and
 * per group the controller's completions equal the admissions (less
 * cancelled waiters).
 * A stop request (@opts->stop) during the run ends it early: the result says
 * interrupted and covers what ran.
 * @opts: may be NULL (everything from the job file).
 * @out: the result, to free with iolat_run_result_free(); its report refers
 * to @jf: keep @jf until the result is freed.
 * @err: one line for a failure; for -EINVAL "FILE:LINE: key 'KEY': ...".
 * Return: 0 when the run took place (also when stopped); -EINVAL when the
 * job file cannot run on @be; -EINTR when stopped before any job started
 * (nothing is left behind); -EUCLEAN when a check failed (IOLAT_CHECK);
 * other negative errnos for set-up failures (open, layout, memory).
 * Context: any thread; blocks for the run; @jf is only read.
 */
int iolat_run(const struct iolat_jobfile *jf, const struct iolat_run_backend *be,
	      const struct iolat_run_opts *opts, struct iolat_run_result **out,
	      char *err, size_t errlen);

/**
 * iolat_run_check() - what iolat_run() on @be would refuse in @jf, found the
 * same way, without a side effect: its set-up up to the first step that
 * would change something (the engines' layout of files); for the simulator
 * that is the whole set-up (the device model and its keys, the
 * controller's groups, each job's region on the device). A scenario's
 * file (src/scen) gets the check its scenario registered.
 * Return: 0; -EINVAL with one line in @err; -ENOMEM.
 * Context: any thread; @jf is only read.
 */
int iolat_run_check(const struct iolat_jobfile *jf, const struct iolat_run_backend *be,
		    const struct iolat_run_opts *opts, char *err, size_t errlen);

/** iolat_run_result_free() - free a result and its report; NULL is fine. */
void iolat_run_result_free(struct iolat_run_result *res);

/**
 * iolat_run_describe() - the line a report starts with: the device, its
 * rule, its queue depth, the time run and the controller ("device vda
 * (non-rotational, p90 rule), nr_requests 64, 10.0 s, controller on"; the
 * simulator's says the seed and "virtual"). As snprintf: the length needed.
 */
int iolat_run_describe(const struct iolat_run_result *res, char *buf, size_t len);

#endif /* IOLAT_RUN_RUN_H */
