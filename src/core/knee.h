/* SPDX-License-Identifier: MIT */
/*
 * knee.h - the adaptive mode's rate decision for one parent, as pure logic:
 * fed each window of the protected (asking) group and what its throttled
 * siblings did meanwhile, it says how many bytes and I/Os per second the
 * siblings may have together (docs/controller-adaptive.md).
 *
 * Context: the caller serialises every call on one struct (the parent's
 * child_lock); no atomics, no clock of its own, no allocation.
 */
#ifndef IOLAT_CORE_KNEE_H
#define IOLAT_CORE_KNEE_H

#include <stdbool.h>
#include <stdint.h>

/* Constants (docs/controller-adaptive.md says why each). */
#define KNEE_FIRST_PM        900u  /* first limit: 0.9 x the siblings' unthrottled rate ... */
#define KNEE_MEASURE_WINDOWS   2u  /* ... the best of this many windows (one may be a hiccup) */
#define KNEE_BACKOFF_PM      900u  /* a miss: 0.9 x min(limit, delivered) */
#define KNEE_GAIN_MIN_PM      50u  /* first probe step: +5 % */
#define KNEE_GAIN_MAX_PM     400u  /* probe step doubles per success, up to +40 % */
#define KNEE_SETTLE_WINDOWS    2u  /* windows after a change before a miss counts */
#define KNEE_PROBE_WINDOWS     3u  /* a probe is judged over this many windows ... */
#define KNEE_PROBE_MIN_NS    300000000ull  /* ... and at least this long */
#define KNEE_HOLD_WINDOWS     10u  /* shortest wait between probes: 10 windows ... */
#define KNEE_HOLD_MIN_NS     1000000000ull /* ... and at least 1 s */
#define KNEE_HOLD_MAX_NS    32000000000ull /* doubling per failed probe up to 32 s */
#define KNEE_BAD_MEMORY_NS  10000000000ull /* a rate that missed is remembered 10 s ... */
#define KNEE_MARGIN_PM       950u  /* ... and probes stay 5 % under it ... */
#define KNEE_STEP_MIN_PM    1010u  /* ... unless that leaves less than +1 % */
#define KNEE_CAREFUL_PM      900u  /* from 0.9 x it, a probe that holds keeps hold and step */
#define KNEE_GOOD_BUCKETS     10u  /* the good-rate max filter: 10 buckets ... */
#define KNEE_GOOD_BUCKET_NS  1000000000ull /* ... of 1 s */
#define KNEE_FLOOR_DIV        64u  /* floor: 1/64 of the unthrottled rate */
#define KNEE_IDLE_LIFT_NS    4000000000ull /* a limit not used for 4 s is lifted */
#define KNEE_FUTILE_STEPS      2u  /* back-offs in a row that did not help */
#define KNEE_HELP_PM         900u  /* "helped": the mean fell below 0.9 x the level before */
#define KNEE_BEST_PM        1100u  /* a level within 1.1 x the best mean is as good */
#define KNEE_WORSE_PM       1500u  /* unattainable: a period 1.5 x the best mean is a miss */
#define KNEE_ATTAIN_WINDOWS    5u  /* unattainable ends after this many windows within */
#define KNEE_HISTORY           8u  /* levels remembered for the futility rule ... */
#define KNEE_LEVEL_WINDOWS     3u  /* ... each judged once it has this many settled windows */

enum knee_phase {
	KNEE_OFF = 0,   /* nothing limited */
	KNEE_MEASURE,   /* a miss: the siblings' unthrottled rate is being measured */
	KNEE_LIMIT,     /* limited; the target rules */
	KNEE_FUTILE,    /* limited; lowering did not help: judged against the best mean */
};

/* One window of the protected group, and the siblings' I/O over the same time. */
struct knee_obs {
	uint64_t now;          /* the window's end */
	uint64_t win_ns;       /* the protected group's window length */
	uint64_t nr, missed;   /* its latencies in the window, and those >= target */
	uint64_t sum_ns;       /* their sum */
	uint64_t bytes, ios;   /* the limited siblings' I/O let through since the last call */
	uint64_t waited;       /* how many of those waited at the pace gate */
};

/* A level visited in this episode: its limit and the protected group's mean there. */
struct knee_level {
	uint64_t bps, iops;
	uint64_t nr, sum_ns;   /* latencies seen while at it (after it settled) */
	uint32_t windows;      /* how many windows that was */
};

struct iolat_knee {
	uint32_t phase;               /* enum knee_phase */
	uint32_t decision;            /* enum iolat_step of the last call that decided */
	uint64_t limit_bps, limit_iops; /* the siblings' aggregate limit; 0: none */
	uint64_t base_bps, base_iops; /* their rate measured unthrottled (bps: or since, in a good window) */
	uint64_t last_obs;            /* end of the previous call's period */
	uint64_t changed_at;          /* the limit last changed */
	uint32_t since_change;        /* windows seen since then */
	uint64_t used_at;             /* the limit last bound (waits, or delivered >= 0.9 x) */
	uint64_t hold_ns;             /* wait between probes */
	uint32_t gain_pm;             /* the next probe's step */
	bool probing;
	uint32_t probe_windows;
	uint64_t pre_bps, pre_iops;   /* before the probe */
	uint64_t bad_bps, bad_at;     /* the last rate that missed (a probe, or a bound limit) */
	uint64_t good_max[KNEE_GOOD_BUCKETS]; /* best delivered rate of a good window ... */
	uint64_t good_sec[KNEE_GOOD_BUCKETS]; /* ... in this second (+1; 0: empty) */
	struct knee_level lv[KNEE_HISTORY]; /* lv[0]: the current level */
	uint32_t nr_lv;
	uint32_t futile_steps;
	uint64_t best_mean_ns;        /* unattainable: the best mean seen (the reference) */
	uint32_t attained;            /* windows within target in a row (futile phase) */
	uint64_t per_nr, per_sum;     /* futile phase: the period being judged */
	uint32_t per_windows;
	uint64_t probes, probe_fails, backoffs;
};

/* Start (or forget) an episode: nothing limited. */
void knee_reset(struct iolat_knee *k);

/* What the caller must do after a window. */
enum knee_act {
	KNEE_NONE = 0,  /* nothing */
	KNEE_WATCH,     /* count the siblings' I/O from now on (a measurement began) */
	KNEE_SET,       /* a new limit: give it to the siblings */
	KNEE_RELEASE,   /* no limit, stop counting */
};

/*
 * knee_window() - one window of the protected group, judged @ok by the
 * target rule. k->decision says why (enum iolat_step); k->limit_* is the
 * limit after it.
 */
enum knee_act knee_window(struct iolat_knee *k, const struct knee_obs *o, bool ok);

/* The good-rate estimate: the highest rate the siblings were delivered in a
 * good window over the last KNEE_GOOD_BUCKETS seconds (0: none). */
uint64_t knee_good_rate(const struct iolat_knee *k, uint64_t now);

/* True while the target has been found unattainable (futile phase). */
static inline bool knee_unattainable(const struct iolat_knee *k)
{
	return k->phase == KNEE_FUTILE;
}

#endif
