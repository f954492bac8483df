/* SPDX-License-Identifier: MIT */
/*
 * The per-job I/O generator, independent of the time source: what the next
 * I/O of a job is (offset, length, read or write, flags) and when it may be
 * issued (start delay, open-loop arrivals for rate_iops= or rate= with
 * rate_process=poisson, the rate= token bucket, burst on/off gating, think
 * time, runtime and size limits), and for an open-loop job the tally of
 * arrivals that started late and of the backlog. Every function is
 * a pure function of (state, now_ns): the simulator drives it with virtual
 * time, the real runner with CLOCK_MONOTONIC; same seed, same sequence.
 * It does not count in-flight I/O: the runner keeps at most iodepth in flight.
 * Context: one struct iolat_workload belongs to one thread at a time.
 */
#ifndef IOLAT_RUN_WORKLOAD_H
#define IOLAT_RUN_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "job/jobfile.h"
#include "util/rng.h"

/*
 * Allowed burst of the rate= token bucket, in time: a job may run up to this
 * far ahead of its paced schedule. One I/O's cost (B/R at rate R with I/Os of
 * B bytes), between 100 us and 10 ms: one I/O leaves every B/R whatever the
 * job's iodepth (a queue depth is a ceiling, not a burst), at most two back
 * to back, as the kernel's throttle spaces bios; and a wake-up up to one cost
 * late (a loaded machine) is made up, so the long-run rate holds. (It was
 * 10 ms for every job: a 1 MiB writer at 1.5 GB/s then sent ~15 writes at
 * once, and a reader beside it waited behind them: 5-8x the kernel
 * throttle's p90 at the same rate. With 100 us flat, late wake-ups were lost:
 * rate= delivered 0.75-0.8 x its rate on this machine.)
 */
#define IOLAT_WL_RATE_TAU_MIN_NS 100000ull    /* 100 us */
#define IOLAT_WL_RATE_TAU_MAX_NS 10000000ull  /* 10 ms */

/* The next I/O. */
struct iolat_wl_io {
	uint64_t offset;     /* bytes, aligned to bs relative to the job's offset */
	uint32_t len;        /* bytes (bs) */
	bool write;
	bool late;           /* open loop: it waited (a full queue, the controller's
			      * delay or pace gate, the rate= cap, think time) */
	unsigned flags;      /* IOLAT_IO_* from ioflags= */
	uint64_t due_ns;     /* its intended start: an open-loop job's scheduled
			      * arrival, else the now_ns it was taken at (<= now_ns).
			      * The report's latency counts from here. */
	uint64_t seq;        /* 0, 1, 2... within this workload */
};

struct iolat_wl_params {
	uint64_t seed;       /* the job file's global.seed */
	unsigned job_index;  /* position of the job in jobs[] */
	unsigned clone;      /* 0..numjobs-1 */
	uint64_t size;       /* bytes of the region when job->size is 0: the file's size minus job->offset */
	uint64_t start_ns;   /* the run's start; startdelay counts from here */
	uint64_t ramp_ns;    /* ramp_time: runtime starts this long after startdelay */
};

/*
 * One open-loop arrival schedule: the next arrival in "on" time since the
 * start, how many came before it, and what moves it (a gap of the
 * workload's gap_num / gap_den ns: exact with a carried remainder when
 * linear, the mean of exponential gaps drawn from its own stream when
 * poisson). gap_den 0: no arrivals (active_ns UINT64_MAX).
 */
struct iolat_wl_sched {
	uint64_t active_ns;      /* the next arrival */
	uint64_t n;              /* arrivals before it */
	uint64_t gap_den;        /* its rate: I/Os per second, or bytes per second */
	uint64_t rem;            /* linear: the remainder carried */
	struct iolat_rng rng;    /* poisson: the gaps */
};

/* The schedules: every arrival, or with rate_iops=R,W the reads' and the writes'. */
#define IOLAT_WL_READS  0
#define IOLAT_WL_WRITES 1

/* An open-loop job's tally (iolat_workload_openloop()). */
struct iolat_wl_openloop {
	double asked_iops;       /* the arrival rate asked (rate_iops, or rate / bs) */
	uint64_t arrived;        /* arrivals due before the end (or now) */
	uint64_t started;        /* of them, taken (issued) */
	uint64_t late;           /* of those, started after waiting (iolat_wl_io.late) */
	uint64_t max_backlog;    /* most arrivals due and not yet started at once */
	uint64_t span_ns;        /* the time they arrived over: its start (after
				  * startdelay) to min(now, its end) */
};

struct iolat_workload {
	/* configuration (copied from the job at init) */
	enum iolat_rw rw;
	uint32_t rwmixread, bs;
	unsigned flags;
	uint64_t region_off;     /* job offset */
	uint64_t nr_blocks;      /* region length in bs blocks (>= 1) */
	uint64_t rate_iops, rate_bps, thinktime_ns;
	uint64_t burst_on_ns, burst_off_ns;
	uint64_t start_ns;       /* start_ns + startdelay */
	uint64_t end_ns;         /* start + runtime; UINT64_MAX: none */
	uint64_t io_limit;       /* I/Os to issue (size / bs); UINT64_MAX: time based */
	bool open_loop;          /* arrivals on a schedule (rate_iops, or rate + poisson) */
	bool poisson;            /* exponential gaps, else evenly spaced */
	bool split;              /* rate_iops=R,W: reads and writes on their own schedules */
	bool rate_cap;           /* rate= is a token-bucket cap (not the arrival rate) */
	uint64_t gap_num;        /* the mean gap between arrivals: gap_num / gap_den ns */
	/* state */
	struct iolat_rng rng_off, rng_dir;   /* separate streams (arrivals: arr.rng) */
	uint64_t next_block;     /* sequential position */
	struct iolat_wl_sched arr[2];   /* the next arrivals to start ([1]: split only) */
	struct iolat_wl_sched ahead[2]; /* the same schedules run up to now: the backlog */
	uint64_t hold_ns;        /* arrivals due before this waited for the runner */
	uint64_t nr_late, max_backlog;
	uint64_t gcra_tat_ns;    /* token bucket: theoretical arrival time */
	uint64_t gcra_rem;       /* remainder of cost division (keeps pace exact) */
	uint64_t gcra_tau_ns;    /* its allowed burst (IOLAT_WL_RATE_TAU_*) */
	uint64_t think_until_ns; /* no issue before this (thinktime) */
	uint64_t nr_issued;
	uint64_t bytes_issued;
};

/**
 * iolat_workload_init() - set up the generator of one job clone.
 * The PRNG seed is derived from (p->seed, p->job_index, p->clone).
 * Return: 0; -EINVAL when the region (job size, else p->size) is smaller than
 * bs, or offset + size overflows.
 */
int iolat_workload_init(struct iolat_workload *wl, const struct iolat_job *job,
			const struct iolat_wl_params *p);

/**
 * iolat_workload_next_time() - earliest time >= @now_ns at which the next I/O
 * may be issued (start delay, arrivals, token bucket, burst gating and think
 * time all applied), or UINT64_MAX when the workload is done. When it returns
 * @now_ns, iolat_workload_next() may be called now. Does not change state.
 */
uint64_t iolat_workload_next_time(const struct iolat_workload *wl, uint64_t now_ns);

/**
 * iolat_workload_next() - take the next I/O at @now_ns.
 * Return: 0; -EAGAIN when it is not due yet (next_time() > now_ns);
 * -ENODATA when the workload is done.
 */
int iolat_workload_next(struct iolat_workload *wl, uint64_t now_ns, struct iolat_wl_io *io);

/**
 * iolat_workload_completed() - tell the generator an I/O completed at @now_ns
 * (starts the think time: the job issues nothing for thinktime after it).
 */
void iolat_workload_completed(struct iolat_workload *wl, uint64_t now_ns);

/**
 * iolat_workload_hold() - the runner could not start an arrival before
 * @until_ns (its queue was full until a completion at @until_ns, or the
 * controller's delay or pace gate held it): an open-loop arrival due before
 * then starts late. No effect on a closed-loop job.
 */
void iolat_workload_hold(struct iolat_workload *wl, uint64_t until_ns);

/**
 * iolat_workload_openloop() - an open-loop job's tally at @now_ns (the end of
 * its run): arrivals due before min(@now_ns, its end), started, late, the
 * largest backlog. Return: false for a closed-loop job (@out untouched).
 */
bool iolat_workload_openloop(struct iolat_workload *wl, uint64_t now_ns,
			     struct iolat_wl_openloop *out);

/** iolat_workload_done() - no further I/O will be issued at or after @now_ns. */
bool iolat_workload_done(const struct iolat_workload *wl, uint64_t now_ns);

/** iolat_workload_end_ns() - start + startdelay + ramp + runtime, or UINT64_MAX. */
uint64_t iolat_workload_end_ns(const struct iolat_workload *wl);

/** iolat_workload_seed() - the seed a job clone's streams derive from (for messages). */
uint64_t iolat_workload_seed(uint64_t seed, unsigned job_index, unsigned clone);

#endif /* IOLAT_RUN_WORKLOAD_H */
