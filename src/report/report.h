/* SPDX-License-Identifier: MIT */
/*
 * The results collector both runners feed, and its outputs: the human table,
 * JSON ("schema_version": 1), per-group CSV time series and gnuplot plots.
 * Rows are the job file's groups (subtree totals, as cgroup io.stat: an I/O of
 * a job in "system/fbpkg" counts in "system/fbpkg" and in "system") plus a
 * "(root)" row when some job has no group= (that row counts only those jobs).
 * Output is byte-identical for identical inputs: no timestamps, fixed order,
 * fixed float formatting.
 * Context: iolat_report_add_io() may be called from any thread (one mutex);
 * every other function from one runner thread at a time.
 */
#ifndef IOLAT_REPORT_REPORT_H
#define IOLAT_REPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "iolatency.h"
#include "job/jobfile.h"

struct iolat_report;

/* The JSON's "schema_version" (docs/output.md): 2 since depths are integers
 * (-1: unlimited) and "interrupted" is reported. */
#define IOLAT_REPORT_SCHEMA_VERSION 2

struct iolat_report_cfg {
	const struct iolat_jobfile *jf;  /* groups and jobs; must outlive the report */
	const char *label;               /* heading of table/JSON ("no control"...); NULL: none */
	uint64_t sample_interval_ns;     /* the runner's sample period, for the record; 0: 1 s */
	uint32_t nr_requests;            /* device qd, plotted for depth "max"; 0: 64 */
	bool no_control;                 /* the run had no controller, whatever the job file says */
	bool adaptive;                   /* IOLAT_CTL_ADAPTIVE: CSV gains its columns */
	bool weights;                    /* some group has weight=: weights are shown */
};

/* Pseudo group index of the root row (jobs without group=): jf->nr_groups. */
unsigned iolat_report_root_index(const struct iolat_report *r);

/**
 * iolat_report_create() - an empty collector for @cfg->jf's groups and jobs.
 * Return: 0, -EINVAL (no jf), -ENOMEM.
 * Context: any thread.
 */
int iolat_report_create(const struct iolat_report_cfg *cfg, struct iolat_report **out);

/** iolat_report_destroy() - free; NULL allowed. */
void iolat_report_destroy(struct iolat_report *r);

/**
 * iolat_report_bind_group() - attach the controller group behind row @gi
 * (a jobfile group index, or iolat_report_root_index() for the root), so that
 * samples and iolat_report_finish() copy its iolat_group_stat() and io.stat
 * line. Unbound rows (control=0) show "-" for controller figures.
 * @g must stay valid until iolat_report_finish() has returned.
 * Return: 0, -EINVAL (bad index).
 */
int iolat_report_bind_group(struct iolat_report *r, unsigned gi, struct iolat_group *g);

/** iolat_report_start() - the run starts at @now_ns (time 0 of the series). */
void iolat_report_start(struct iolat_report *r, uint64_t now_ns);

/**
 * iolat_report_end_ramp() - ramp_time is over at @now_ns: forget every I/O
 * and sample so far, count the controller's windows, scale events and
 * throttled time from here, and make @now_ns time 0 of the series.
 */
void iolat_report_end_ramp(struct iolat_report *r, uint64_t now_ns);

/**
 * iolat_report_add_io() - one completed I/O of job @job_index (any clone).
 * @bytes: its length; counted only when @err is 0.
 * @lat_ns: its latency as the runner measures it: from its intended start
 * (admission; an open-loop job's scheduled arrival) to completion.
 * @err: 0 or the negative errno it completed with (counted as an error).
 * Context: any thread; takes the report's mutex. No allocation.
 */
void iolat_report_add_io(struct iolat_report *r, unsigned job_index, bool write,
			 uint32_t bytes, uint64_t lat_ns, int err);

/* What a fault-injecting engine (faulty:<engine>) did to one job's I/O. */
#define IOLAT_REPORT_ENGINE_MAX 128 /* a job's engine as printed, NUL included */

struct iolat_report_faults {
	uint64_t eio, enospc, short_io;  /* failed I/Os it caused */
	uint64_t spikes, stalls, held;   /* delays: spikes, stalls started, completions held */
	const char *engine;              /* the engine and the options it ran with, as
					  * engine/engspec.h prints them ("faulty:null
					  * kind=eio,rate=0.3"); copied; NULL: not said */
};

/**
 * iolat_report_add_faults() - add what an engine of job @job_index injected
 * (call once per clone); the job's row and its ancestors' add it up, and the
 * JSON shows an "injected" object for them (only rows and jobs that had a
 * faulty engine, so reports without one are unchanged); a job's says the
 * engine and its options (@f->engine) too.
 * Context: the runner's thread, before the outputs.
 */
void iolat_report_add_faults(struct iolat_report *r, unsigned job_index,
			     const struct iolat_report_faults *f);

/*
 * An open-loop job's arrivals (rate_iops=, or rate= with rate_process=poisson):
 * its I/Os arrive on a schedule whatever the completions, and its latency
 * counts from each arrival (docs/output.md). Counted over the whole run,
 * ramp_time included.
 */
struct iolat_report_openloop {
	double asked_iops;       /* the arrival rate asked */
	uint64_t arrived;        /* arrivals due before the end */
	uint64_t started;        /* of them, issued */
	uint64_t late;           /* of those, issued after waiting for a free slot,
				  * the controller's delay or pace gate, or the rate= cap */
	uint64_t max_backlog;    /* most arrivals due and not yet issued at once */
	double started_iops;     /* started per second of the time they arrived over */
};

/**
 * iolat_report_add_openloop() - add one clone's arrivals to job @job_index
 * (sums; the backlog's maximum): the table gains an "open loop:" line and
 * the job's JSON an "open_loop" object (only for such jobs, so other reports
 * are unchanged). Context: the runner's thread, before the outputs.
 */
void iolat_report_add_openloop(struct iolat_report *r, unsigned job_index,
			       const struct iolat_report_openloop *o);

/**
 * iolat_report_job_openloop() - job @job_index's arrivals, and its IOPS over
 * the run (completions over the report's duration: @iops, may be NULL).
 * Return: false for a closed-loop job.
 */
bool iolat_report_job_openloop(const struct iolat_report *r, unsigned job_index,
			       struct iolat_report_openloop *o, double *iops);

/* The read-back after a run (the runner's verify pass), in blocks. */
struct iolat_report_verify {
	uint64_t checked;       /* read back and compared */
	uint64_t written;       /* among them, set by a write reported successful */
	uint64_t bad;           /* not what was expected */
	uint64_t unspecified;   /* not checked: their last write failed or overlapped another */
	uint32_t block;         /* bytes per block */
	const char *first_bad;  /* copied; NULL or "": none */
};

/**
 * iolat_report_set_verify() - record the verify pass; the JSON then has a
 * top-level "verify" object. Context: the runner's thread, before the outputs.
 */
void iolat_report_set_verify(struct iolat_report *r, const struct iolat_report_verify *v);

/**
 * iolat_report_sample() - close one interval of the time series at @now_ns:
 * records per row the interval's IOPS, MiB/s, p50/p90/p99/max, and the bound
 * group's depth, in-flight, use_delay, scale events, throttled time, windows
 * missed; tracks the minimum depth seen. Call it every sample interval.
 * Return: 0 or -ENOMEM (the series grows; the sample is dropped).
 */
int iolat_report_sample(struct iolat_report *r, uint64_t now_ns);

/**
 * iolat_report_finish() - the run ends at @now_ns: takes a last sample (when
 * time passed since the previous one) and copies the final controller figures
 * of bound groups; bound groups are not touched afterwards (the controller may
 * be destroyed). Outputs need it first. Return: 0 or -ENOMEM.
 */
int iolat_report_finish(struct iolat_report *r, uint64_t now_ns);

/**
 * iolat_report_set_interrupted() - the run was stopped early (a signal): the
 * JSON says "interrupted": true and the table ends with a line saying so.
 * Context: the runner's thread, before the outputs.
 */
void iolat_report_set_interrupted(struct iolat_report *r, bool interrupted);

/* ---- read back (for the demo's side-by-side summary and for tests) ---- */

struct iolat_report_row {
	const char *name;               /* group path, or "(root)" */
	uint64_t target_ns;             /* 0: none */
	uint64_t ios_read, ios_write, bytes_read, bytes_write, errors;
	uint64_t lat_min_ns, lat_mean_ns, lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p999_ns, lat_max_ns;
	double iops, mib_s;             /* over the run's duration */
	bool bound;                     /* has controller figures below */
	uint32_t depth_final, depth_min; /* IOLAT_DEPTH_MAX: "max" */
	uint64_t throttled_ns, delay_slept_ns;
	uint64_t windows_ok, windows_missed, scale_downs, scale_ups;
	uint64_t nr_bypass;
	const char *io_stat;            /* iolat_group_format_stat() at finish; "" if unbound */
	bool unattainable;              /* adaptive: its target found unattainable (at finish) ... */
	uint64_t sibling_limit_bps;     /* ... with its siblings held to this rate */
	bool faulty;                    /* a job in this subtree ran a faulty engine */
	struct iolat_report_faults faults; /* what it injected, subtree total */
	/* Weights (the run's report has them, and the row is bound): the group's
	 * weight, and the means over the run's samples of its hweight, share,
	 * use and donated share (iolat_group_share(), docs/weights.md). */
	bool weighted;
	unsigned weight;
	double hweight;
	uint64_t share_bps, use_bps, donated_bps;
};

/** iolat_report_nr_rows() - rows: groups, plus the root row when used. */
unsigned iolat_report_nr_rows(const struct iolat_report *r);

/** iolat_report_row() - figures of row @i (after finish). Return: 0 or -EINVAL. */
int iolat_report_row(const struct iolat_report *r, unsigned i, struct iolat_report_row *row);

/** iolat_report_duration_ns() - finish time minus start time. */
uint64_t iolat_report_duration_ns(const struct iolat_report *r);

/* ---- outputs (after iolat_report_finish()) ---- */

/**
 * iolat_report_write_table() - the human table: group, IOPS, MiB/s, p50, p90,
 * p99, max latency (auto-scaled us/ms/s), depth final/min, throttled time,
 * windows ok/missed, scale events; then errors if any.
 * Return: 0 or -EIO (stream error).
 */
int iolat_report_write_table(const struct iolat_report *r, FILE *f);

/**
 * iolat_report_write_json() - the JSON document: schema_version 2, label,
 * duration, seed, one object per row (table fields, io_stat line) and one per
 * job. Return: 0 or -EIO.
 */
int iolat_report_write_json(const struct iolat_report *r, FILE *f);

/* Flags returned by iolat_report_write_log(). */
#define IOLAT_LOG_PLOTTED    0x1u  /* PNGs were made */
#define IOLAT_LOG_NO_GNUPLOT 0x2u  /* gnuplot is not on PATH: plots skipped */
#define IOLAT_LOG_PLOT_FAILED 0x4u /* gnuplot ran and failed */

/**
 * iolat_report_write_log() - into directory @dir (created if missing):
 * one CSV per row ("<group path with '/' as '.'>.csv", "root.csv"; header
 * iolat_report_csv_header()), "plot.gp" (a gnuplot script: latency and depth
 * over time per group), and "latency.png"/"depth.png" when gnuplot is on PATH.
 * @flags_out: IOLAT_LOG_* (may be NULL); the CLI says on stderr that plots
 * were skipped. @err: one-line message on failure (may be NULL).
 * Return: 0 or a negative errno (mkdir/open/write failure).
 */
int iolat_report_write_log(const struct iolat_report *r, const char *dir, unsigned *flags_out,
			   char *err, size_t errlen);

/** iolat_report_write_csv() - the time series of row @i as CSV. Return: 0, -EINVAL, -EIO. */
int iolat_report_write_csv(const struct iolat_report *r, unsigned i, FILE *f);

/** iolat_report_csv_header() - the CSV header line (no newline). */
const char *iolat_report_csv_header(void);

/** iolat_format_latency() - "812.0us", "12.34ms", "3.210s" (fixed formats). Returns @buf. */
const char *iolat_format_latency(uint64_t ns, char *buf, size_t len);

#endif /* IOLAT_REPORT_REPORT_H */
