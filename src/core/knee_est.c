/* SPDX-License-Identifier: MIT */
/*
 * knee_est.c - what the adaptive mode's decision (knee.c) measures: the knee
 * estimate (a max filter of the rate delivered in good periods), the levels
 * visited with the protected group's mean at each (for futility), the QoS
 * period being judged and its verdict, and the rate delivered over the last
 * period's worth of windows.
 *
 * Context: knee.h (the caller serialises; pure).
 */
#include <string.h>

#include "iolatency.h"
#include "core/knee.h"
#include "util/units.h"

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

uint64_t knee_scale_pm(uint64_t v, uint32_t pm)
{
	return v / 1000 * pm + v % 1000 * pm / 1000;
}

uint64_t knee_per_sec(uint64_t n, uint64_t dt_ns)
{
	if (!dt_ns)
		return 0;
	if (n > UINT64_MAX / NSEC_PER_SEC)
		return n / dt_ns * NSEC_PER_SEC;
	return n * NSEC_PER_SEC / dt_ns;
}

uint32_t knee_share_pm(uint64_t late, uint64_t nr)
{
	return nr ? (uint32_t)(late * 1000 / nr) : 0;
}

/* ---- the knee estimate: a max filter over the last seconds ---- */

uint64_t knee_good_rate(const struct iolat_knee *k, uint64_t now)
{
	uint64_t sec = now / KNEE_GOOD_BUCKET_NS + 1, best = 0;

	for (uint32_t i = 0; i < KNEE_GOOD_BUCKETS; i++)
		if (k->good_sec[i] && k->good_sec[i] + KNEE_GOOD_BUCKETS > sec)
			best = max_u64(best, k->good_max[i]);
	return best;
}

void knee_good_add(struct iolat_knee *k, uint64_t now, uint64_t bps)
{
	uint64_t sec = now / KNEE_GOOD_BUCKET_NS + 1;
	uint32_t i = (uint32_t)(sec % KNEE_GOOD_BUCKETS);

	if (k->good_sec[i] != sec) {
		k->good_sec[i] = sec;
		k->good_max[i] = 0;
	}
	k->good_max[i] = max_u64(k->good_max[i], bps);
}

/* A cut to @bps: good periods above it are no longer evidence. */
void knee_good_cap(struct iolat_knee *k, uint64_t bps)
{
	for (uint32_t i = 0; i < KNEE_GOOD_BUCKETS; i++)
		if (k->good_max[i] > bps)
			k->good_max[i] = bps;
}

/* ---- levels: the limits visited and the protected group's mean at each ---- */

void knee_level_push(struct iolat_knee *k)
{
	memmove(&k->lv[1], &k->lv[0], sizeof(k->lv[0]) * (KNEE_HISTORY - 1));
	k->lv[0] = (struct knee_level){ .bps = k->limit_bps, .iops = k->limit_iops };
	if (k->nr_lv < KNEE_HISTORY)
		k->nr_lv++;
}

bool knee_level_known(const struct knee_level *l)
{
	return l->nr && l->windows >= KNEE_LEVEL_WINDOWS;
}

uint64_t knee_level_mean(const struct knee_level *l)
{
	return l->nr ? l->sum_ns / l->nr : 0;
}

/* ---- the period ---- */

void knee_period_add(struct iolat_knee *k, const struct knee_obs *o, bool ok, uint64_t dt)
{
	struct knee_period *p = &k->per;

	p->dt += dt;
	p->nr += o->nr;
	p->missed += o->missed;
	p->sum_ns += o->sum_ns;
	p->late_ns += o->late_ns;
	p->windows++;
	/* A late window counts as one when starved; futile, when late at all
	 * (judged by its mean: its I/Os over the target say nothing there). */
	p->missed_windows += !ok && (k->starved || k->phase == KNEE_FUTILE);
	p->drowned_windows += knee_window_drowns(o);
	p->bytes += o->bytes;
	p->ios += o->ios;
	p->waited += o->waited;
}

bool knee_window_drowns(const struct knee_obs *o)
{
	return o->nr > o->stalled && o->target_ns && o->missed * 1000 >= o->nr * KNEE_DROWN_PM &&
	       o->sum_ns / o->nr >= o->target_ns * KNEE_DROWN_MUL;
}

/*
 * The share of the period that was late, per mille: of its I/Os, or of its
 * windows that were late and starved if more (a reader at queue depth 1
 * issues one I/O per stall and hundreds between: its I/Os alone hide a
 * window a stall held). Only starved windows: a late window with the
 * group's usual count of I/Os (an open-loop reader's) is judged by its I/Os,
 * so the period's verdict is the share of the group's I/Os late, its p90 -
 * counting every window with a p90 over the target held the limit well
 * under the knee (on this project's disk an open-loop reader's 1 ms target
 * was met at p90 289 us with the writer at 0.65 x the best cap's).
 */
uint32_t knee_period_late_pm(const struct knee_period *p)
{
	uint32_t ios = knee_share_pm(p->missed, p->nr);
	uint32_t wins = p->windows ? p->missed_windows * 1000 / p->windows : 0;

	return ios > wins ? ios : wins;
}

/*
 * The budget: a p90 target allows 10 % of the group's I/Os late over a run,
 * not per period. A period in the dead zone (7.5-10 %) changes nothing, and
 * the descent from the siblings' full rate (the measuring windows and the
 * first limit's period: 40-90 % late on this project's disk) spends the
 * allowance of many periods; the budget keeps the share late of the last
 * ~KNEE_BUDGET_DIV periods (each weighs 1/KNEE_BUDGET_DIV less a period on)
 * and, while it is over the good line, the dead zone counts as the edge (a
 * cut, growing with such periods in a row) and no probe starts (knee.c).
 */
bool knee_budget_add(struct iolat_knee *k, uint64_t nr, uint64_t late)
{
	k->budget_nr = k->budget_nr - k->budget_nr / KNEE_BUDGET_DIV + nr;
	k->budget_late = k->budget_late - k->budget_late / KNEE_BUDGET_DIV + late;
	return k->budget_late * 1000 > k->budget_nr * KNEE_GOOD_PM;
}

/*
 * knee_period_verdict() - 1 good, 0 bad, -1 neither (the dead zone, or
 * nothing to judge). @futile: the period's mean against 1.5 x the best.
 */
int knee_period_verdict(const struct iolat_knee *k, bool futile)
{
	const struct knee_period *p = &k->per;
	uint64_t late;

	if (!p->nr)
		return -1;
	if (futile)
		return p->sum_ns / p->nr <= knee_scale_pm(k->best_mean_ns, KNEE_WORSE_PM);
	late = knee_period_late_pm(p);
	if (late > KNEE_BAD_PM)
		return 0;
	return late < KNEE_GOOD_PM ? 1 : -1;
}

/*
 * knee_late_step_pm() - the least cut, per mille, for @late of @nr I/Os
 * over the target @target_ns (their latencies summing to @late_ns), once
 * over the bad line (KNEE_BAD_PM), all latencies summing to @sum_ns over @dt
 * of judged time.
 *
 * A group queued behind the siblings' I/O - its late I/Os late by far (their
 * mean KNEE_DROWN_MUL x its target or more), and KNEE_QUEUED_DEPTH or more
 * I/Os in flight on average (Little's law: @sum_ns / @dt) - issues them
 * whether or not earlier ones completed, so its I/Os sample the device's
 * time evenly: the share late is the share of the time a read finds the
 * writer in its way, which grows in proportion to the writer's rate
 * (measured on this project's disk with an
 * open-loop reader at a 300 us target: 10, 14, 18, 35, 62, 95 % late at 150,
 * 250, 400, 700, 1 200, 2 000 MB/s). Its cut takes the rate to where that
 * share would be the bad line: to KNEE_BAD_PM / share of it, at most to a
 * quarter (KNEE_CUT_RATIO_MAX_PM) in one step; where the knee is a cliff,
 * not a slope, the cut overshoots and the probes search back by halves
 * (knee.c, overshot()).
 *
 * A group with fewer in flight (a reader at queue depth 1 waits for each
 * I/O: one I/O per stall, its share late says little of the time it lost,
 * and its latency is a cliff near the device's capacity, not a slope), or
 * missing by little (near the knee, or a target under what the group gets
 * alone, where cutting does not help), takes twice its share beyond the good
 * line (KNEE_GOOD_PM), at most KNEE_CUT_LATE_MAX_PM (45 %: 30 % late or more).
 *
 * Either way a period that misses by far takes a step that size at once
 * instead of climbing the steps one period at a time; one that misses by a
 * little keeps the small steps.
 */
bool knee_queued(uint64_t late, uint64_t nr, uint64_t late_ns, uint64_t sum_ns, uint64_t dt,
		 uint64_t target_ns)
{
	/* The whole group's mean would say "queued" only when a quarter or more
	 * were late at 12 x a 1 ms target (reads stuck behind a clump of writes):
	 * the slope, in proportion, is there from the first few percent. So
	 * would a bound from the mean that takes each I/O in time at the whole
	 * target (measured at 1 ms: 12 % late, the late ones at 6.4 ms, the
	 * others at 0.1 ms, not queued by that bound). */
	return late && late <= nr && dt && target_ns &&
	       late_ns >= target_ns * KNEE_DROWN_MUL * late &&
	       sum_ns / KNEE_QUEUED_DEPTH >= dt;
}

uint32_t knee_late_step_pm(uint64_t late, uint64_t nr, uint64_t late_ns, uint64_t sum_ns,
			   uint64_t dt, uint64_t target_ns)
{
	uint64_t share = knee_share_pm(late, nr);
	uint64_t pm;

	if (share <= KNEE_BAD_PM)
		return 0;
	if (knee_queued(late, nr, late_ns, sum_ns, dt, target_ns)) {
		pm = 1000 - KNEE_BAD_PM * 1000 / share;
		return (uint32_t)(pm < KNEE_CUT_RATIO_MAX_PM ? pm : KNEE_CUT_RATIO_MAX_PM);
	}
	pm = 2 * (share - KNEE_GOOD_PM);
	return (uint32_t)(pm < KNEE_CUT_LATE_MAX_PM ? pm : KNEE_CUT_LATE_MAX_PM);
}

/*
 * Is the period (of @period_ns, windows of @win_ns) already bad whatever its
 * remaining windows bring, after at least KNEE_EARLY_WINDOWS (a probe: at its
 * first)? Its late starved windows are more than KNEE_BAD_PM of all it will
 * have, or its late I/Os more than KNEE_BAD_PM of all it will have at the
 * rate so far.
 */
bool knee_period_certain(const struct iolat_knee *k, uint64_t period_ns, uint64_t win_ns)
{
	const struct knee_period *p = &k->per;
	uint64_t all = win_ns ? (period_ns + win_ns - 1) / win_ns : 1;

	if (p->windows < (k->cycle == KNEE_UP ? 1 : KNEE_EARLY_WINDOWS))
		return false;
	if (all < p->windows)
		all = p->windows;
	if ((uint64_t)p->missed_windows * 1000 > all * KNEE_BAD_PM)
		return true;
	/* Futile: periods are judged by their mean, not by I/Os over the target. */
	return k->phase != KNEE_FUTILE && p->missed * 1000 * p->windows > p->nr * all * KNEE_BAD_PM;
}

/* ---- the delivered rate over the last period's worth of windows ---- */

void knee_ring_add(struct iolat_knee *k, uint64_t bytes, uint64_t dt)
{
	k->ring_bytes[k->ring_pos] = bytes;
	k->ring_dt[k->ring_pos] = dt;
	k->ring_pos = (k->ring_pos + 1) % KNEE_RING;
}

uint64_t knee_ring_rate(const struct iolat_knee *k)
{
	uint64_t bytes = 0, dt = 0;

	for (uint32_t n = 0; n < KNEE_RING && dt < KNEE_PERIOD_NS; n++) {
		uint32_t i = (k->ring_pos + KNEE_RING - 1 - n) % KNEE_RING;

		if (!k->ring_dt[i])
			break;
		bytes += k->ring_bytes[i];
		dt += k->ring_dt[i];
	}
	return knee_per_sec(bytes, dt);
}
