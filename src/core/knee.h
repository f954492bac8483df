/* SPDX-License-Identifier: MIT */
/*
 * knee.h - the adaptive mode's rate decision for one parent, as pure logic:
 * fed each window of the protected (asking) group and what its throttled
 * siblings did meanwhile, it judges QoS periods of about a second and says
 * how many bytes and I/Os per second the siblings may have together
 * (docs/controller-adaptive.md).
 *
 * Context: the caller serialises every call on one struct (the parent's
 * child_lock); no atomics, no clock of its own, no allocation.
 */
#ifndef IOLAT_CORE_KNEE_H
#define IOLAT_CORE_KNEE_H

#include <stdbool.h>
#include <stdint.h>

/* Constants (docs/controller-adaptive.md, section 2, says why each). */
#define KNEE_FIRST_PM        900u  /* first limit: 0.9 x the siblings' unthrottled rate ... */
#define KNEE_MEASURE_WINDOWS   2u  /* ... over this many windows: their mean, not their best */
					   /* (one that drowned, queued: to 10 % / its share late) */
#define KNEE_PERIOD_NS   1000000000ull /* a QoS period: this much of judged windows */
#define KNEE_UP_NS        500000000ull /* a probe's and a drain's period: shorter */
#define KNEE_SETTLE_NS    200000000ull /* windows this soon after a cut are not judged */
#define KNEE_BAD_PM          100u  /* a period is bad above 10 % of its I/Os (or windows) late */
#define KNEE_GOOD_PM          75u  /* ... good below 7.5 %; in between nothing changes */
#define KNEE_DEAD_PERIODS      2u  /* dead-zone periods in a row, the limit used: a 4 % cut */
#define KNEE_BUDGET_DIV       10u  /* the budget: the share late of ~10 periods (each decays 1/10) */
#define KNEE_EARLY_WINDOWS     3u  /* a period already bad whatever follows closes early */
#define KNEE_EMERGENCY_PM    500u  /* emergency: a window with more than half its I/Os late */
#define KNEE_EMERGENCY_CUT_PM 900u /* ... cut to 0.9 x the rate delivered over the last period */
#define KNEE_SINCE_NS     200000000ull /* ... or since the last change, if in force that long */
#define KNEE_CUT_FLOOR_PM    500u  /* a cut's base: not under half the limit in force */
#define KNEE_CUT_LEVELS        4u  /* cuts grow with bad periods in a row: */
#define KNEE_CUT_STEPS_PM { 40u, 80u, 150u, 250u } /* 4, 8, 15, 25 % */
#define KNEE_CUT_LATE_MAX_PM 450u  /* ... and at least twice the share of I/Os late beyond 7.5 %, */
					   /* up to 45 % */
#define KNEE_QUEUED_DEPTH      2u  /* ... or, for a group queued: >= 2 I/Os in flight on average */
					   /* and a mean >= KNEE_DROWN_MUL x its target, */
#define KNEE_CUT_RATIO_MAX_PM 750u /* ... to 10 % / its share late, at most to a quarter */
#define KNEE_CRUISE_PM       980u  /* cruise at 0.98 x the knee estimate */
#define KNEE_CRUISE_PERIODS    4u  /* good periods at cruise before a probe */
#define KNEE_UP_LEVELS         5u  /* a probe's gain grows with probes held in a row: */
#define KNEE_UP_STEPS_PM { 20u, 40u, 80u, 160u, 250u } /* +2, 4, 8, 16, 25 % */
#define KNEE_DRAIN_PM        920u  /* after a probe that did not hold: 0.92 x the knee */
#define KNEE_MIN_STEP_PM      20u  /* no change under 2 % (an actuator skips it) */
#define KNEE_PROBE_OVER_PM  1100u  /* a probe: at most 1.1 x the most the siblings delivered */
#define KNEE_STARVED_DIV      10u  /* a late window counts as one (not by its I/Os) with < 9/10 */
					   /* of the group's usual I/Os: a closed loop slowed by it */
#define KNEE_OVERSHOT_DIV      2u  /* a cut overshot: the next period under 1/2 the share late */
					   /* that a share in proportion to the rate would have, */
#define KNEE_OVERSHOT_FROM_PM 200u /* ... after a cut from a period more than 20 % late */
#define KNEE_CEILING_PM      990u  /* probes stay under 0.99 x a rate that failed ... */
#define KNEE_BAD_MEMORY_NS 10000000000ull /* ... in the last 10 s */
#define KNEE_GOOD_BUCKETS     10u  /* the knee estimate: a max filter of 10 buckets ... */
#define KNEE_GOOD_BUCKET_NS  1000000000ull /* ... of 1 s */
#define KNEE_BIND_PM         900u  /* a limit binds: waits, or >= 0.9 x it delivered */
#define KNEE_FLOOR_DIV        64u  /* floor: 1/64 of the unthrottled rate */
#define KNEE_IDLE_LIFT_NS    4000000000ull /* a limit not used for 4 s is lifted */
#define KNEE_APPLY_WAIT_NS   3000000000ull /* a change never put in force: adopt what is */
#define KNEE_FUTILE_STEPS      2u  /* cuts in a row that did not help ... */
#define KNEE_FUTILE_SPAN       2u  /* ... down to 1/2 of the rate where they began (first chase) */
#define KNEE_HELP_PM         900u  /* "helped": the mean fell below 0.9 x the level before */
#define KNEE_BEST_PM        1100u  /* a level within 1.1 x the best mean is as good */
#define KNEE_WORSE_PM       1500u  /* unattainable: a period 1.5 x the best mean is bad */
#define KNEE_HISTORY           8u  /* levels remembered for the futility rule ... */
#define KNEE_LEVEL_WINDOWS     3u  /* ... each known once it has this many judged windows */
#define KNEE_RING             16u  /* windows remembered for the delivered rate */
#define KNEE_DROWN_PM        900u  /* drowning: a judged window with >= 90 % of its I/Os late ... */
#define KNEE_DROWN_MUL          4u  /* ... and a mean >= 4 x the target ... */
#define KNEE_DROWN_HELP_PM   900u  /* ... cut at once by far while each such cut lowers the mean 10 % */
#define KNEE_MEMORY_NS 30000000000ull /* an episode's knee is the next one's first limit for 30 s; */
					     /* at once when its first miss has > half late */

enum knee_phase {
	KNEE_OFF = 0,   /* nothing limited */
	KNEE_MEASURE,   /* a miss: the siblings' unthrottled rate is being measured */
	KNEE_LIMIT,     /* limited; the target rules */
	KNEE_FUTILE,    /* limited; lowering did not help: judged against the best mean */
};

/* Where a limited episode is in its probe cycle (BBR's ProbeBW). */
enum knee_cycle {
	KNEE_CRUISE = 0, /* at (or under) KNEE_CRUISE_PM x the knee estimate */
	KNEE_UP,         /* a short period a little above */
	KNEE_DRAIN,      /* a period a little below, after a probe that did not hold */
};

/* One window of the protected group, and the siblings' I/O over the same time. */
struct knee_obs {
	uint64_t now;          /* the window's end */
	uint64_t win_ns;       /* the protected group's window length */
	uint64_t nr, missed;   /* its latencies in the window, and those >= target */
	uint64_t stalled;      /* of nr: still outstanding, counted late by a stall (stall.c) */
	uint64_t sum_ns;       /* their sum */
	uint64_t late_ns;      /* of it, the late ones' */
	uint64_t target_ns;    /* the protected group's target (0: unknown, never drowning) */
	uint64_t bytes, ios;   /* the limited siblings' I/O served since the last call */
	uint64_t waited;       /* how many of those waited at the pace gate */
	/* The actuator's word (iolat_group_observe_applied()): when @applied is
	 * set, @applied_bps/@applied_iops are in force (0: none) since
	 * @applied_at; otherwise a decided limit is in force at once. */
	bool applied;
	uint64_t applied_bps, applied_iops, applied_at;
};

/* A level visited in this episode: its limit and the protected group's mean there. */
struct knee_level {
	uint64_t bps, iops;
	uint64_t nr, sum_ns;   /* latencies of its last judged period */
	uint32_t windows;      /* how many windows that was */
	bool cut;              /* left by a cut after a bad period */
};

/* The QoS period being judged. */
struct knee_period {
	uint64_t dt;                 /* judged time */
	uint64_t nr, missed, sum_ns; /* the protected group's I/O */
	uint64_t late_ns;            /* ... the late ones' latencies summed */
	uint32_t windows;
	uint32_t missed_windows;     /* ... late and starved: under 9/10 of the group's usual I/Os */
	uint32_t drowned_windows;    /* ... nearly all late by far (knee_window_drowns()) */
	uint64_t bytes, ios, waited; /* the siblings' */
};

struct iolat_knee {
	uint32_t phase;               /* enum knee_phase */
	uint32_t cycle;               /* enum knee_cycle */
	uint32_t decision;            /* enum iolat_step of the last call that decided */
	uint64_t limit_bps, limit_iops; /* the siblings' aggregate limit; 0: none */
	uint64_t force_bps, force_iops; /* what is in force (limit_*, once put in force) */
	bool pending;                 /* the last change is not in force yet */
	uint64_t base_bps, base_iops; /* their rate measured unthrottled (bps: or since, in a good period) */
	uint64_t meas_bytes, meas_ios, meas_dt; /* measuring: the siblings' delivery over its windows */
	uint64_t meas_nr, meas_missed, meas_sum_ns, meas_late_ns; /* ... the protected group's I/O */
	uint64_t meas_win_dt;         /* ... over this long */
	uint32_t meas_drowned;        /* ... its measuring windows that drowned (knee_window_drowns()) */
	uint64_t last_obs;            /* end of the previous call's period */
	uint64_t target_ns;           /* the protected group's target, as last seen (0: unknown) */
	uint64_t nr_avg8;             /* its I/Os per window, 8 x a mean over ~8 windows */
	bool starved;                 /* this window: under 9/10 of that (a closed loop slowed) */
	uint64_t changed_at;          /* the limit last changed (decided) */
	uint64_t force_at;            /* ... and was found in force */
	uint32_t since_change;        /* windows seen since then */
	uint64_t used_at;             /* the limit last bound (waits, or delivered >= 0.9 x) */
	uint64_t cut_at;              /* the last cut (an emergency waits a period after it) */
	struct knee_period per;
	uint64_t ring_bytes[KNEE_RING], ring_dt[KNEE_RING]; /* the last windows' delivery */
	uint64_t since_bytes, since_dt; /* ... and since the last change took force */
	uint32_t ring_pos;
	uint32_t bad_streak;          /* bad periods in a row (the cut's step) */
	uint32_t dead_streak;         /* dead-zone periods in a row */
	uint32_t up_streak;           /* probes held in a row (the probe's gain) */
	uint32_t cruise_periods;      /* good periods at cruise since the last probe or cut */
	uint64_t pre_bps;             /* before the probe */
	uint64_t bad_bps, bad_at;     /* the last probe that failed (the ceiling) */
	uint64_t cut_from_bps;        /* the last cut: the rate it cut from ... */
	uint32_t cut_late_pm;         /* ... and the share late that made it */
	bool bisect;                  /* the cut overshot: probes go half way back to it */
	uint64_t good_max[KNEE_GOOD_BUCKETS]; /* best delivered rate of a good period ... */
	uint64_t good_sec[KNEE_GOOD_BUCKETS]; /* ... in this second (+1; 0: empty) */
	struct knee_level lv[KNEE_HISTORY]; /* lv[0]: the current level */
	uint32_t nr_lv;
	uint64_t budget_nr, budget_late; /* the group's I/Os and late ones, decaying by period */
	uint32_t futile_steps;
	uint64_t futile_from_bps;     /* the level the first cut that did not help left */
	uint64_t best_mean_ns;        /* unattainable: the best mean seen (the reference) */
	uint64_t drown_mean_ns;       /* the mean of the window that made the last drowning cut */
	/* Kept across episodes (knee_reset): the last limited episode's knee. */
	struct knee_memory {
		uint64_t bps, iops;           /* its cruise rate (or limit in force) */
		uint64_t base_bps, base_iops; /* its siblings' base (the floor, the probe's cap) */
		uint64_t at;                  /* when it ended */
	} mem;
	uint64_t probes, probe_fails, backoffs, emergencies;
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

/* The knee estimate: the highest rate the siblings were delivered in a good
 * period over the last KNEE_GOOD_BUCKETS seconds (0: none). */
uint64_t knee_good_rate(const struct iolat_knee *k, uint64_t now);

/* How long until the next probe at the current cycle (0: probing, or none due). */
uint64_t knee_next_probe_ns(const struct iolat_knee *k);

/* True while the target has been found unattainable (futile phase). */
static inline bool knee_unattainable(const struct iolat_knee *k)
{
	return k->phase == KNEE_FUTILE;
}

/* knee_est.c: the knee estimate, the levels and the period's verdict. */
void knee_good_add(struct iolat_knee *k, uint64_t now, uint64_t bps);
void knee_good_cap(struct iolat_knee *k, uint64_t bps);
void knee_level_push(struct iolat_knee *k);
uint64_t knee_level_mean(const struct knee_level *l);
bool knee_level_known(const struct knee_level *l);
void knee_period_add(struct iolat_knee *k, const struct knee_obs *o, bool ok, uint64_t dt);
int knee_period_verdict(const struct iolat_knee *k, bool futile);
/* The period's share late, per mille (of its I/Os, or of its starved late windows). */
uint32_t knee_period_late_pm(const struct knee_period *p);
/* Add the period to the budget; true when its share late is then over the good line. */
bool knee_budget_add(struct iolat_knee *k, uint64_t nr, uint64_t late);
bool knee_period_certain(const struct iolat_knee *k, uint64_t period_ns, uint64_t win_ns);
/* @late of @nr, per mille (0 when @nr is 0). */
uint32_t knee_share_pm(uint64_t late, uint64_t nr);
/* Is the protected group queued behind the siblings (knee_late_step_pm())? */
bool knee_queued(uint64_t late, uint64_t nr, uint64_t late_ns, uint64_t sum_ns, uint64_t dt,
		 uint64_t target_ns);
uint32_t knee_late_step_pm(uint64_t late, uint64_t nr, uint64_t late_ns, uint64_t sum_ns,
			   uint64_t dt, uint64_t target_ns);

/*
 * knee_window_drowns() - was the protected group's window nearly all late
 * (KNEE_DROWN_PM) with a mean KNEE_DROWN_MUL x its target or more: far from
 * the target, not at its edge (an open-loop reader queued behind the writer)?
 * Not a window that completed nothing (closed by a stall alone): a queue
 * drowns in completions that come late; a stall, or a count of outstanding
 * I/O that outlived the I/O (iolatd's ghost counts at the start of an idle
 * spell), is the emergency's and the period's to judge.
 */
bool knee_window_drowns(const struct knee_obs *o);
void knee_ring_add(struct iolat_knee *k, uint64_t bytes, uint64_t dt);
uint64_t knee_ring_rate(const struct iolat_knee *k);
uint64_t knee_scale_pm(uint64_t v, uint32_t pm);
uint64_t knee_per_sec(uint64_t n, uint64_t dt_ns);

#endif
