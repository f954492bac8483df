/* SPDX-License-Identifier: MIT */
/*
 * report_priv.h - PRIVATE to the report's files (report.c, the collector;
 * report_table.c, report_json.c, report_csv.c, the writers): the collected
 * data's layout and two helpers the writers share.
 * Context: as report.h: writers only read finished data.
 */
#ifndef IOLAT_REPORT_REPORT_PRIV_H
#define IOLAT_REPORT_REPORT_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hist.h"
#include "report/report.h"

#define ROOT_NAME    "(root)"
#define IO_STAT_MAX  256

struct series_pt {
	uint64_t t_ns;            /* end of the interval, since start */
	uint64_t dt_ns;           /* its length */
	uint64_t ios, bytes;      /* completed in it */
	uint64_t p50_ns, p90_ns, p99_ns, max_ns;
	bool bound;               /* the controller figures below are valid */
	uint32_t depth, inflight;
	int use_delay;
	uint64_t scale_events, throttled_ns, windows_missed;
	/* Adaptive mode: this group's rate and step, its parent's knee seeker
	 * (the limit of the group and its throttled siblings, decision, hold). */
	uint32_t step, decision;
	uint64_t pace_bps, limit_bps, hold_ns;
	/* Weights: iolat_group_share() at the sample. */
	unsigned weight;
	double hweight;
	uint64_t share_bps, use_bps, donated_bps, budget_bps;
};

struct io_counts {
	uint64_t ios_r, ios_w, bytes_r, bytes_w, errors;
	struct iolat_hist hist;   /* cumulative */
	bool faulty;              /* iolat_report_add_faults() was called for it */
	struct iolat_report_faults faults;  /* its engine: the copy below */
	char engine[IOLAT_REPORT_ENGINE_MAX]; /* a job's: its engine and options, "" if not said */
	bool open_loop;           /* a job's: iolat_report_add_openloop() was called for it */
	struct iolat_report_openloop ol;
};

struct row {
	const char *name;         /* group path or ROOT_NAME (not owned) */
	int parent;               /* row index of the parent group, or -1 */
	uint64_t target_ns;
	bool shown;
	struct io_counts c;
	struct iolat_hist ihist;  /* current interval */
	uint64_t i_ios, i_bytes;
	struct iolat_group *g;    /* bound until finish */
	bool bound;
	uint32_t depth_min;
	struct iolat_group_stat final;
	struct iolat_group_stat base;  /* at the end of ramp_time: subtracted (zero: none) */
	char io_stat[IO_STAT_MAX];
	/* Adaptive: the group its parent protects found its target unattainable
	 * (lowering the siblings stopped helping), with the siblings' limit then. */
	bool unattainable;
	uint64_t sibling_limit_bps;
	struct series_pt *pts;
	size_t nr_pts, cap_pts;
	char file[IOLAT_GROUP_PATH_MAX + 16];   /* CSV name */
};

struct iolat_report {
	const struct iolat_jobfile *jf;
	char *label;
	uint64_t sample_interval_ns;
	uint32_t nr_requests;
	bool no_control;            /* the run had no controller */
	bool adaptive;              /* adaptive columns in the CSV */
	bool weights;               /* weights shown (table, JSON, CSV) */
	pthread_mutex_t lock;
	unsigned nr_rows;         /* nr_groups + 1 (root) */
	struct row *rows;
	struct io_counts *jobs;
	uint64_t start_ns, last_sample_ns, end_ns;
	bool started, finished;
	bool verify_set;
	bool interrupted;           /* the run was stopped before its end */
	struct iolat_report_verify verify;
	char verify_first_bad[320];
};

/* Visible row @i -> index in rows[], or -1. */
static inline int report_visible_row(const struct iolat_report *r, unsigned i)
{
	unsigned seen = 0;

	for (unsigned k = 0; k < r->nr_rows; k++) {
		if (!r->rows[k].shown)
			continue;
		if (seen++ == i)
			return (int)k;
	}
	return -1;
}

/* @x per second over @dur_ns; 0 for no time. */
static inline double report_per_sec(uint64_t x, uint64_t dur_ns)
{
	return dur_ns ? (double)x * 1e9 / (double)dur_ns : 0.0;
}

#endif /* IOLAT_REPORT_REPORT_PRIV_H */
