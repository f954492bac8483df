/* SPDX-License-Identifier: MIT */
/*
 * runner.h - the real-I/O workload runner behind `iolat run` and `iolat demo`:
 * runs a parsed job file on real files (or block devices) with the real
 * engines, each I/O admitted by the controller (iolat_throttle_async_at()),
 * issued by the job's engine, and completed with iolat_done_at() at the time
 * the engine read; or without the controller (control=0, --no-control).
 * Results go to the job layer's report (table, JSON, CSV, plots).
 * Context: iolat_runner_run() blocks its calling thread for the run; it runs
 * one thread per job clone plus the controller's timer thread. Callbacks in
 * the options are called on the calling thread.
 */
#ifndef IOLAT_RUN_RUNNER_H
#define IOLAT_RUN_RUNNER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/jobfile.h"
#include "report/report.h"

#define IOLAT_RUNNER_NOTE_MAX 320   /* one note or error line, NUL included */

/* What the progress callback sees, about once per progress interval. */
struct iolat_runner_progress {
	uint64_t elapsed_ns;      /* since the start */
	uint64_t total_ns;        /* planned length; 0 when unknown (size-bound jobs) */
	uint64_t ios, bytes;      /* completed so far, all jobs */
	uint64_t errors;          /* failed I/Os so far */
	double iops, mib_s;       /* over the last interval */
	unsigned jobs_running;
};

struct iolat_runner_opts {
	int control;              /* -1: the job file's control=; 0: off; 1: on */
	int kernel_compat;        /* -1: the job file's; 0/1 */
	int mode;                 /* enum iolat_ctl_mode; 0: --kernel-compat, the job file's, default_mode */
	int default_mode;         /* 0: article */
	const char *label;        /* report heading; NULL: made from the mode */
	uint64_t sample_ns;       /* time-series step; 0: the smallest window of a
				   * group with a target, else 1 s */
	const char *fault_options;/* options of faulty:<engine> jobs (eng_faulty.h) */
	const atomic_bool *stop;  /* becomes true to end the run early (SIGINT); NULL */
	uint64_t progress_ns;     /* 0: 1 s */
	void (*progress)(void *ctx, const struct iolat_runner_progress *p);
	void (*note)(void *ctx, const char *line);  /* one-line notices: layout, fallbacks */
	void *ctx;                /* for progress and note */
};

struct iolat_runner_result {
	struct iolat_report *report;   /* finished; owned by the result */
	bool control, kernel_compat;
	int mode;                      /* enum iolat_ctl_mode run (with control) */
	uint32_t nr_requests;          /* the controller's qd */
	int rotational;
	bool device_known;             /* nr_requests/rotational came from sysfs */
	char disk[32];                 /* "vda", "" when unknown */
	uint64_t duration_ns;
	bool interrupted;              /* *opts->stop ended the run before its end */
	uint64_t nr_submitted;         /* I/Os handed to an engine */
	uint64_t nr_completed;         /* completions seen (== nr_submitted at the end) */
	uint64_t nr_errors;            /* failed I/Os: errors, short transfers, bad data */
	uint64_t nr_short;             /* short transfers among them */
	uint64_t nr_verify_failed;     /* verify mismatches among them */
	char first_error[IOLAT_RUNNER_NOTE_MAX]; /* "job 'x': read at 4096: ...", "" if none */
	/* What faulty:<engine> jobs injected, all jobs together (eng_faulty.h). */
	uint64_t inj_eio, inj_enospc, inj_short, inj_spikes, inj_stalls;
	/* The read-back after the run (files with verify= writers); verify_ran false: none. */
	bool verify_ran;
	uint64_t verify_checked;       /* blocks read back and compared */
	uint64_t verify_written;       /* among them, blocks a successful write set */
	uint64_t verify_bad;           /* not what their last successful write wrote */
	uint64_t verify_unspecified;   /* last write failed or overlapped: not checked */
	uint32_t verify_block;         /* bytes per block in these counts */
	char verify_first_bad[IOLAT_RUNNER_NOTE_MAX];
	/* With IOLAT_CHECK=1 (or -DIOLAT_DEBUG): whether the checks ran (a failed
	 * check makes iolat_runner_run() return -EUCLEAN instead). */
	bool checked;
};

/**
 * iolat_runner_run() - run @jf on real files.
 * Every check comes first (preflight.h: files, devices, space, O_DIRECT,
 * fault options); then files are laid out (created and filled when missing
 * or too small), a layout undone (fileprep.h) when it fails, is stopped, or
 * the run fails before any job started;
 * jobs asking for io_uring fall back to psync, with a note, when the kernel
 * refuses io_uring. Failed I/Os are counted in the result and the report, not
 * returned.
 * @opts: may be NULL.
 * @out: the result, to free with iolat_runner_result_free(); it refers to @jf.
 * @err: one line for a failure; for -EINVAL "FILE:LINE: key 'KEY': ...".
 * Files that verify= jobs write are read back after the run (the verify
 * map below): the counts are in the result and the report's JSON.
 * With IOLAT_CHECK=1 in the environment (always when built with
 * -DIOLAT_DEBUG) the controller's invariants (iolat_ctl_check_invariants())
 * are checked at every sample and at the end, and so is the accounting: no
 * I/O completed twice, every submitted I/O completed, and per group the
 * controller's completions equal the admissions (less cancelled waiters).
 * A stop request (@opts->stop) during the run ends it early: the result says
 * interrupted and covers what ran.
 * Return: 0 when the run took place (also when stopped); -EINVAL when the
 * job file cannot run (no filename=, size= needed, ioengine=sim, O_DIRECT
 * refused, bad fault options, a mounted or signed device to write, no room);
 * -EINTR when stopped before any job started (nothing is left behind);
 * -EUCLEAN when a check failed (IOLAT_CHECK); other negative errnos for setup
 * failures (open, layout, memory).
 * Context: any thread; blocks for the run.
 */
int iolat_runner_run(const struct iolat_jobfile *jf, const struct iolat_runner_opts *opts,
		     struct iolat_runner_result **out, char *err, size_t errlen);

/** iolat_runner_result_free() - free a result and its report; NULL is fine. */
void iolat_runner_result_free(struct iolat_runner_result *res);

#endif /* IOLAT_RUN_RUNNER_H */
