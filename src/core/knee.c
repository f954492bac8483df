/* SPDX-License-Identifier: MIT */
/*
 * knee.c - the adaptive mode's rate decision (knee.h), one parent's episode
 * at a time. In short (docs/controller-adaptive.md has the why and the
 * anchors: io.cost's QoS periods and busy level, BBR's ProbeBW, LEDBAT):
 *
 *  - off: a missed window starts a measurement of what the siblings do
 *    unthrottled; after two more missed windows the first limit is 0.9 x
 *    their mean rate, or less for a group queued behind them (the far step
 *    of those windows, below), or the last episode's cruise rate (its
 *    memory, 30 s) when lower; a miss with more than half late takes that
 *    memory at once. A queued group whose measuring window drowned (below)
 *    is limited after that one window, by the whole far step (to 10 % / its
 *    share late: a tenth of their rate at worst), not at most to a quarter.
 *    A lone miss (a good window while measuring) limits nothing.
 *  - limited: the protected group is judged per QoS period (about 1 s of its
 *    windows, windows within 200 ms of a cut aside): bad when more than 10 %
 *    of its I/Os (or of its windows late and starved: under 9/10 of its usual
 *    I/Os, a closed loop slowed) were late, good under 7.5 %, nothing in
 *    between (a second such period in a row with the limit used: the
 *    smallest cut). A period already bad whatever follows closes early. At
 *    most one change per period.
 *  - the budget: the share late of the last ~10 periods (each weighing 1/10
 *    less a period on; the measuring windows count too). While it is over
 *    7.5 %, a dead-zone period takes a cut at once (the smallest, growing
 *    as bad periods' do while such periods follow) and good
 *    periods at cruise do not count toward a probe. It is kept from one
 *    episode to the next with the memory (30 s).
 *  - a bad period cuts from min(limit in force, rate delivered over the
 *    period) by a step that grows with bad periods in a row (4, 8, 15, 25 %),
 *    and is at least the far step while no cut failed to help: for a group
 *    queued behind the siblings (2 or more I/Os in flight, its late I/Os at
 *    4 x the target or more: an open-loop reader, whose share late grows with the
 *    writer's rate) to 10 % / its share late of the rate, at most to a
 *    quarter; for any other (a reader at depth 1) twice its share late
 *    beyond the good line, up to 45 % (knee_late_step_pm()). A period that
 *    misses by far is cut by far at once; a target out of reach is not
 *    chased down by far steps; a period whose every window drowned (see
 *    below) keeps the far step and is no evidence that cutting is futile.
 *  - good periods feed the knee estimate (the highest rate delivered in a
 *    good period over the last 10 s); the limit cruises at 0.98 x it. After
 *    4 good periods at cruise with the limit used, a probe: a short period
 *    (0.5 s) a little above (+2 %, growing to 25 % with probes held in a
 *    row, not above 0.99 x a probe that failed in the last 10 s, nor 1.1 x
 *    the most the siblings ever delivered); held, the next probe follows at
 *    once; not held, a short period at 0.92 x the estimate drains what it
 *    queued, then cruise again. After a far cut that overshot (its first
 *    period far less late than a share in proportion to the rate would
 *    be: a cliff), the probes go half way back to the rate cut from.
 *  - drowning: a judged window >= 90 % late, its mean >= 4 x the target,
 *    while the limit binds (something of it completed: a window a stall
 *    closed alone is not drowning), is cut at once by the far step, again
 *    at the next judged window while each such cut lowered the mean by 10 %.
 *  - emergency: a window with more than half its I/Os late while the limit
 *    binds ends a probe at once, or (no cut in the last period) cuts to 0.9 x
 *    what was delivered over the last second (or since the last change or
 *    period end, >= 200 ms, when lower): only the period's cut, where the
 *    futility rule looks, takes far steps.
 *  - futility: cuts in a row that did not lower the protected group's
 *    mean by 10 %, two at least and down to half the rate where they began
 *    (a plateau of the mean is narrower), or a cut at the floor: lowering
 *    does not help. Back to the highest limited level whose mean was within
 *    10 % of the best; periods are then judged against 1.5 x that mean until
 *    one meets the target.
 *  - the actuator's word: a change is judged once the caller says it is in
 *    force (or at once when it says nothing: the pace gate); one never put
 *    in force within 3 s is given up for what is.
 *  - a limit the siblings did not use for 4 s is lifted.
 *
 * Context: knee.h (the caller serialises; pure).
 */
#include <string.h>

#include "iolatency.h"
#include "core/knee.h"
#include "util/units.h"

static const uint32_t cut_steps[KNEE_CUT_LEVELS] = KNEE_CUT_STEPS_PM;
static const uint32_t up_steps[KNEE_UP_LEVELS] = KNEE_UP_STEPS_PM;

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t iops_for(const struct iolat_knee *k, uint64_t bps);

/* What a limited episode that ends leaves the next one: its cruise rate
 * under the knee estimate, else the limit in force. */
static void remember(struct iolat_knee *k)
{
	uint64_t est = knee_good_rate(k, k->last_obs);
	uint64_t in_force = k->force_bps ? k->force_bps : k->limit_bps;

	if (k->phase < KNEE_LIMIT)
		return;
	k->mem.bps = est ? knee_scale_pm(est, KNEE_CRUISE_PM) : in_force;
	k->mem.iops = iops_for(k, k->mem.bps);
	k->mem.base_bps = k->base_bps;
	k->mem.base_iops = k->base_iops;
	k->mem.at = k->last_obs;
}

void knee_reset(struct iolat_knee *k)
{
	uint64_t probes = k->probes, fails = k->probe_fails, backoffs = k->backoffs;
	uint64_t emergencies = k->emergencies, last_obs = k->last_obs, target = k->target_ns;
	uint64_t nr_avg8 = k->nr_avg8, budget_nr = k->budget_nr, budget_late = k->budget_late;
	struct knee_memory mem;

	remember(k);
	mem = k->mem;
	memset(k, 0, sizeof(*k));
	k->probes = probes;
	k->probe_fails = fails;
	k->backoffs = backoffs;
	k->emergencies = emergencies;
	k->last_obs = last_obs;
	k->target_ns = target;
	k->nr_avg8 = nr_avg8;
	k->budget_nr = budget_nr; /* kept with the memory: budget_start() */
	k->budget_late = budget_late;
	k->mem = mem;
}

/*
 * An episode's first limit: the budget goes on from the last episode's while
 * its memory is kept (a reader that comes and goes is judged over its run,
 * and each of its busy spells starts behind siblings at full speed), else
 * starts over; the I/Os that made the limit count.
 */
static void budget_start(struct iolat_knee *k, uint64_t now, uint64_t nr, uint64_t late)
{
	if (!k->mem.bps || now - k->mem.at >= KNEE_MEMORY_NS)
		k->budget_nr = k->budget_late = 0;
	knee_budget_add(k, nr, late);
}

uint64_t knee_next_probe_ns(const struct iolat_knee *k)
{
	if (k->phase < KNEE_LIMIT || k->cycle != KNEE_CRUISE ||
	    k->cruise_periods >= KNEE_CRUISE_PERIODS)
		return 0;
	return (KNEE_CRUISE_PERIODS - k->cruise_periods) * KNEE_PERIOD_NS;
}

static uint64_t floor_bps(const struct iolat_knee *k)
{
	return max_u64(k->base_bps / KNEE_FLOOR_DIV, 1);
}

static uint64_t floor_iops(const struct iolat_knee *k)
{
	return k->base_iops ? max_u64(k->base_iops / KNEE_FLOOR_DIV, 1) : 0;
}

/* The I/O rate that goes with @bps: the limit's ratio kept. */
static uint64_t iops_for(const struct iolat_knee *k, uint64_t bps)
{
	if (!k->limit_iops || !k->limit_bps)
		return 0;
	return max_u64((uint64_t)((double)k->limit_iops * (double)bps / (double)k->limit_bps),
		       floor_iops(k));
}

static void new_period(struct iolat_knee *k)
{
	memset(&k->per, 0, sizeof(k->per));
	k->since_bytes = k->since_dt = 0;
}

/* Decide the limit @bps/@iops at @now: a new level, pending until in force. */
static void set_limit(struct iolat_knee *k, uint64_t bps, uint64_t iops, uint64_t now,
		      unsigned decision)
{
	k->limit_bps = max_u64(bps, floor_bps(k));
	k->limit_iops = iops ? max_u64(iops, floor_iops(k)) : 0;
	k->changed_at = k->force_at = now;
	k->since_change = 0;
	k->pending = true;
	k->decision = decision;
	knee_level_push(k);
	new_period(k);
}

/* ---- the actuator's word: what is in force ---- */

/* Did the value in force move at least half way from @from to @to? 0: none. */
static bool moved_halfway(uint64_t from, uint64_t to, uint64_t got)
{
	from = from ? from : UINT64_MAX;
	got = got ? got : UINT64_MAX;
	if (to >= from)
		return got >= from + (to - from) / 2;
	return got <= to + (from - to) / 2;
}

/* Returns false while the last change is not in force (its windows are not judged). */
static bool take_force(struct iolat_knee *k, const struct knee_obs *o)
{
	if (!o->applied || !k->pending) {
		if (k->pending || !o->applied_bps) {
			k->force_bps = k->limit_bps; /* the pace gate: at once */
			k->force_iops = k->limit_iops;
		} else {
			k->force_bps = o->applied_bps;
			k->force_iops = o->applied_iops;
		}
		k->pending = false;
		return true;
	}
	if (o->applied_at >= k->changed_at &&
	    moved_halfway(k->force_bps, k->limit_bps, o->applied_bps)) {
		k->force_bps = o->applied_bps;
		k->force_iops = o->applied_iops;
		k->force_at = max_u64(o->applied_at, k->changed_at);
		k->pending = false;
		new_period(k);
		return true;
	}
	if (o->now - k->changed_at < KNEE_APPLY_WAIT_NS)
		return false;
	/* Never put in force: what is in force is the limit now. */
	if (o->applied_bps) {
		k->limit_bps = k->force_bps = o->applied_bps;
		k->limit_iops = k->force_iops = o->applied_iops;
		k->lv[0].bps = k->limit_bps;
	}
	k->pending = false;
	k->force_at = o->now;
	k->cycle = KNEE_CRUISE;
	k->cruise_periods = 0;
	new_period(k);
	return true;
}

/* ---- the phases ---- */

/*
 * Measuring the siblings unthrottled. The first limit starts from their mean
 * rate over the measuring windows they did something in: one window under a
 * throttle's clumps or a batched measurement can read far above it (the
 * best of them was once 3 x the writer's rate on the disk).
 */
static enum knee_act measure(struct iolat_knee *k, const struct knee_obs *o, bool ok,
			     uint64_t dt, uint64_t d_bps, uint64_t d_iops)
{
	uint64_t mean_bps, mean_iops, first_bps, first_iops;
	uint32_t first_pm;
	bool queued, drowned;

	if (ok) {
		/* A lone miss: nothing limited. */
		knee_reset(k);
		k->decision = IOLAT_STEP_RESET;
		return KNEE_RELEASE;
	}
	k->lv[0].nr += o->nr;
	k->lv[0].sum_ns += o->sum_ns;
	k->lv[0].windows++;
	k->meas_nr += o->nr;
	k->meas_missed += o->missed;
	k->meas_sum_ns += o->sum_ns;
	k->meas_late_ns += o->late_ns;
	k->meas_win_dt += dt;
	k->meas_drowned += knee_window_drowns(o);
	if (o->bytes || o->ios) { /* a window the siblings did nothing in says nothing of their rate */
		k->meas_bytes += o->bytes;
		k->meas_ios += o->ios;
		k->meas_dt += dt;
	}
	k->base_bps = max_u64(k->base_bps, d_bps);
	k->base_iops = max_u64(k->base_iops, d_iops);
	queued = knee_queued(k->meas_missed, k->meas_nr, k->meas_late_ns, k->meas_sum_ns,
			     k->meas_win_dt, k->target_ns);
	drowned = k->meas_drowned == ++k->since_change && queued;
	if ((k->since_change < KNEE_MEASURE_WINDOWS && !drowned) || (!k->base_bps && !k->base_iops))
		return KNEE_NONE; /* measuring; or the siblings did nothing: not theirs (yet) */
	k->lv[0].bps = k->base_bps;
	k->lv[0].iops = k->base_iops;
	k->nr_lv = 1;
	k->phase = KNEE_LIMIT;
	k->cycle = KNEE_CRUISE;
	k->used_at = o->now;
	k->force_bps = k->force_iops = 0; /* none in force yet */
	mean_bps = max_u64(knee_per_sec(k->meas_bytes, k->meas_dt), 1);
	mean_iops = knee_per_sec(k->meas_ios, k->meas_dt);
	first_pm = KNEE_FIRST_PM;
	if (queued)
		first_pm = 1000 - knee_late_step_pm(k->meas_missed, k->meas_nr, k->meas_late_ns,
						    k->meas_sum_ns, k->meas_win_dt, k->target_ns);
	if (drowned) /* where the share late would be the bad line, in one step: >= 1/10 */
		first_pm = KNEE_BAD_PM * 1000 / knee_share_pm(k->meas_missed, k->meas_nr);
	first_pm = first_pm < KNEE_FIRST_PM ? first_pm : KNEE_FIRST_PM;
	first_bps = knee_scale_pm(mean_bps, first_pm);
	first_iops = k->base_iops ? max_u64(knee_scale_pm(mean_iops, first_pm), 1) : 0;
	if (k->mem.bps && o->now - k->mem.at < KNEE_MEMORY_NS && k->mem.bps < first_bps) {
		/* The knee of an episode that just ended: the I/O rate keeps today's ratio. */
		first_iops = first_iops ? max_u64((uint64_t)((double)first_iops * (double)k->mem.bps /
							       (double)first_bps), 1) : 0;
		first_bps = k->mem.bps;
	}
	k->cut_from_bps = mean_bps; /* the first limit is a cut from the unthrottled rate */
	k->cut_late_pm = knee_share_pm(k->meas_missed, k->meas_nr);
	budget_start(k, o->now, k->meas_nr, k->meas_missed);
	set_limit(k, first_bps, first_iops, o->now, IOLAT_STEP_LIMIT);
	return KNEE_SET;
}

/*
 * A miss with more than half the window late within KNEE_MEMORY_NS of a
 * limited episode's end: that episode's knee at once, without measuring the
 * siblings unthrottled first. A reader that comes and goes returns to
 * siblings at full speed; measured on this project's disk, the three
 * measuring windows and the first limit's settling cost it its first
 * ~0.5 s of reads after every idle spell (BBR, too, keeps its bandwidth
 * estimate across idle). A lesser miss measures as before.
 */
static bool recall(struct iolat_knee *k, const struct knee_obs *o)
{
	struct knee_memory m = k->mem;

	if (!m.bps || o->now - m.at >= KNEE_MEMORY_NS || !o->nr ||
	    o->missed * 1000 <= o->nr * KNEE_EMERGENCY_PM)
		return false;
	knee_reset(k);
	k->phase = KNEE_LIMIT;
	k->cycle = KNEE_CRUISE;
	k->base_bps = m.base_bps;
	k->base_iops = m.base_iops;
	k->lv[0].bps = m.base_bps; /* the unthrottled level: this window's latencies */
	k->lv[0].iops = m.base_iops;
	k->lv[0].nr = o->nr;
	k->lv[0].sum_ns = o->sum_ns;
	k->lv[0].windows = 1;
	k->nr_lv = 1;
	k->used_at = o->now;
	budget_start(k, o->now, o->nr, o->missed);
	set_limit(k, m.bps, m.iops, o->now, IOLAT_STEP_LIMIT);
	return true;
}

/* Lowering has stopped helping: back to the best level seen, judged from
 * now on against its mean. */
static enum knee_act go_futile(struct iolat_knee *k, uint64_t now)
{
	uint64_t best = UINT64_MAX, bps = 0, iops = 0;

	for (uint32_t i = 0; i < k->nr_lv; i++)
		if (knee_level_known(&k->lv[i]) && knee_level_mean(&k->lv[i]) < best)
			best = knee_level_mean(&k->lv[i]);
	for (uint32_t i = 0; i < k->nr_lv; i++) /* a limited level: under the base */
		if (knee_level_known(&k->lv[i]) && k->lv[i].bps < k->base_bps &&
		    knee_level_mean(&k->lv[i]) <= knee_scale_pm(best, KNEE_BEST_PM) &&
		    k->lv[i].bps > bps) {
			bps = k->lv[i].bps;
			iops = k->lv[i].iops;
		}
	k->phase = KNEE_FUTILE;
	k->futile_steps = 0;
	k->bad_streak = 0;
	k->best_mean_ns = best == UINT64_MAX ? 0 : best;
	if (!bps) { /* no limited level measured */
		bps = k->limit_bps;
		iops = k->limit_iops;
	}
	k->cycle = KNEE_CRUISE;
	k->cruise_periods = KNEE_CRUISE_PERIODS - 1; /* probe soon: lower did not help */
	set_limit(k, bps, iops, now, IOLAT_STEP_FUTILE);
	/* Latencies seen before are no evidence for a later re-entry. */
	for (uint32_t i = 1; i < k->nr_lv; i++)
		k->lv[i].nr = k->lv[i].sum_ns = k->lv[i].windows = 0;
	return KNEE_SET;
}

/* Why a cut is made: within a period (an emergency, a drowning window), after
 * a bad period, or after a period whose every window drowned. */
enum cut_why { CUT_NOW, CUT_PERIOD, CUT_PERIOD_DROWNED };

/*
 * A cut is due after a bad period: did the last one help? Only a level left
 * by a cut is compared (its last period was bad too; a level left by a probe,
 * a drain or an emergency was judged in other conditions). Two cuts in a row
 * that did not help, and down to half the rate of the level the first of them
 * left (the futile phase's re-check: two are enough), or the floor: futile.
 * Why half: on this project's disk at a 1 ms target the mean held ~2 ms from
 * 640 to 526 MB/s (reads fast, or stuck behind a write, in about the same
 * share) with the knee near 450: two cuts judged it out of reach. A period
 * that drowned (@drowned) counts no cut against: far above a knee the
 * latency stays at its worst until the rate comes near the knee (this disk:
 * the same 15 ms from the writer's full rate down to a third of it), so "it
 * did not help yet" says nothing there; the floor still ends the chase.
 */
static bool cut_is_futile(struct iolat_knee *k, bool drowned)
{
	if (!drowned && k->nr_lv > 1 && k->lv[1].cut && knee_level_known(&k->lv[0]) &&
	    knee_level_known(&k->lv[1])) {
		if (knee_level_mean(&k->lv[0]) <=
		    knee_scale_pm(knee_level_mean(&k->lv[1]), KNEE_HELP_PM))
			k->futile_steps = 0;
		else if (!k->futile_steps++)
			k->futile_from_bps = k->lv[1].bps;
	}
	if (k->limit_bps <= floor_bps(k))
		return true;
	if (k->futile_steps < KNEE_FUTILE_STEPS)
		return false;
	/* A target out of reach is flat all the way down. */
	return k->phase == KNEE_FUTILE || k->limit_bps * KNEE_FUTILE_SPAN <= k->futile_from_bps;
}

/*
 * Cut by @step_pm from min(in force, @delivered), but from >= half in force
 * (the I/O rate keeps its ratio to the byte rate: one window's count of I/Os
 * must not bend it); by @far_pm instead when larger and no cut so far failed
 * to help (or the period drowned), nor is the target known out of reach (it
 * is not chased down by far steps).
 */
static enum knee_act cut(struct iolat_knee *k, uint64_t now, uint64_t d_bps, uint32_t step_pm,
			 uint32_t far_pm, uint32_t late_pm, enum cut_why why)
{
	uint64_t from = k->force_bps ? k->force_bps : k->limit_bps;
	uint64_t base = min_u64(from, max_u64(d_bps, knee_scale_pm(from, KNEE_CUT_FLOOR_PM)));
	bool drowned = why == CUT_PERIOD_DROWNED;
	uint64_t bps, iops;

	if (why != CUT_NOW && cut_is_futile(k, drowned))
		return go_futile(k, now);
	if (far_pm > step_pm && (!k->futile_steps || drowned) && k->phase != KNEE_FUTILE)
		step_pm = far_pm; /* in the futile phase the share late says nothing: all miss */
	bps = knee_scale_pm(base, 1000 - step_pm);
	iops = iops_for(k, bps);
	k->lv[0].cut = why != CUT_NOW;
	k->cut_from_bps = base;
	k->cut_late_pm = late_pm;
	k->bisect = false;
	knee_good_cap(k, bps / KNEE_CRUISE_PM * 1000); /* cruise is here now, not above */
	k->backoffs++;
	k->cut_at = now;
	k->cycle = KNEE_CRUISE;
	k->cruise_periods = 0;
	k->up_streak = 0;
	set_limit(k, bps, iops, now, IOLAT_STEP_BACKOFF);
	return KNEE_SET;
}

/* A probe that did not hold (@failed: it was bad): drain under the estimate. */
static enum knee_act probe_end(struct iolat_knee *k, uint64_t now, bool failed)
{
	uint64_t est = knee_good_rate(k, now), top = k->pre_bps / KNEE_CRUISE_PM * 1000;
	uint64_t bps = knee_scale_pm(est && est < top ? est : top, KNEE_DRAIN_PM);

	if (failed) {
		k->bad_bps = k->force_bps;
		k->bad_at = now;
		k->probe_fails++;
	}
	k->up_streak = 0;
	k->bisect = false;
	k->cycle = KNEE_DRAIN;
	set_limit(k, bps, iops_for(k, bps), now, IOLAT_STEP_PROBE_FAIL);
	return KNEE_SET;
}

/* The next probe's rate, or 0 when none is worth it (under +2 %). */
static uint64_t probe_rate(const struct iolat_knee *k, uint64_t now)
{
	uint32_t lvl = k->up_streak < KNEE_UP_LEVELS ? k->up_streak : KNEE_UP_LEVELS - 1;
	uint64_t in_force = k->force_bps ? k->force_bps : k->limit_bps;
	uint64_t up = knee_scale_pm(max_u64(knee_good_rate(k, now), in_force), 1000 + up_steps[lvl]);

	if (k->bisect) { /* half way back to the rate the cut left, not above it */
		uint64_t top = knee_scale_pm(k->cut_from_bps, KNEE_CEILING_PM);

		up = min_u64(max_u64(up, in_force + (top > in_force ? (top - in_force) / 2 : 0)), top);
	}
	if (k->bad_at && now - k->bad_at < KNEE_BAD_MEMORY_NS)
		up = min_u64(up, knee_scale_pm(k->bad_bps, KNEE_CEILING_PM));
	if (k->base_bps) /* not far above all they ever did: a base measured low grows with it */
		up = min_u64(up, knee_scale_pm(k->base_bps, KNEE_PROBE_OVER_PM));
	return up >= knee_scale_pm(in_force, 1000 + KNEE_MIN_STEP_PM) ? up : 0;
}

/*
 * The first good period after a cut: did the cut overshoot? Had the share
 * late been in proportion to the siblings' rate (the slope the far step
 * assumes), the period would have been late by the cut's share scaled by
 * the rate in force over the rate cut from; far fewer late (under
 * 1/KNEE_OVERSHOT_DIV of that) says the knee is a cliff the cut went well
 * under: the probes then search back half way to the rate cut from (a
 * bisection) instead of climbing a few percent at a time. Only a cut made
 * by far (its period over KNEE_OVERSHOT_FROM_PM late) is judged so: near
 * the line a good period is no evidence of a cliff.
 */
static bool overshot(const struct iolat_knee *k, uint64_t late_pm)
{
	uint64_t in_force = k->force_bps ? k->force_bps : k->limit_bps;

	if ((k->decision != IOLAT_STEP_BACKOFF && k->decision != IOLAT_STEP_LIMIT) ||
	    !k->cut_from_bps || in_force >= k->cut_from_bps ||
	    k->cut_late_pm <= KNEE_OVERSHOT_FROM_PM)
		return false;
	return late_pm * KNEE_OVERSHOT_DIV * k->cut_from_bps < (uint64_t)k->cut_late_pm * in_force;
}

static enum knee_act probe(struct iolat_knee *k, uint64_t now)
{
	uint64_t bps = probe_rate(k, now);

	k->cruise_periods = 0;
	if (!bps) {
		k->bisect = false;
		return KNEE_NONE; /* just under a rate that failed: cruise on */
	}
	k->pre_bps = k->limit_bps;
	k->cycle = KNEE_UP;
	k->probes++;
	set_limit(k, bps, iops_for(k, bps), now, IOLAT_STEP_PROBE);
	return KNEE_SET;
}

/* Cruise at KNEE_CRUISE_PM x the estimate (from a drain, or a probe that held). */
static enum knee_act cruise(struct iolat_knee *k, uint64_t now)
{
	uint64_t est = knee_good_rate(k, now);
	uint64_t bps = est ? knee_scale_pm(est, KNEE_CRUISE_PM) : k->limit_bps;

	k->cycle = KNEE_CRUISE;
	k->cruise_periods = 0;
	k->bisect = false;
	if (bps == k->limit_bps)
		return KNEE_NONE;
	set_limit(k, bps, iops_for(k, bps), now, IOLAT_STEP_HOLD);
	return KNEE_SET;
}

/* A limit the siblings have not reached for a while is no longer needed. */
static bool should_lift(const struct iolat_knee *k, uint64_t now)
{
	return now - k->used_at >= KNEE_IDLE_LIFT_NS && now - k->changed_at >= KNEE_IDLE_LIFT_NS;
}

/* A good period (@bound: the limit was used). */
static enum knee_act good_period(struct iolat_knee *k, uint64_t now, uint64_t d_bps,
				 bool bound, bool met, uint64_t late_pm, bool burned)
{
	bool over = bound && overshot(k, late_pm);

	knee_good_add(k, now, d_bps);
	k->base_bps = max_u64(k->base_bps, d_bps); /* a base measured low (noise) grows */
	k->futile_steps = 0;
	k->bad_streak = 0;
	if (k->phase == KNEE_FUTILE && met) {
		k->phase = KNEE_LIMIT; /* the target can be met again */
		k->decision = IOLAT_STEP_ATTAINED;
	}
	if (k->cycle == KNEE_UP) {
		k->up_streak++;
		k->decision = IOLAT_STEP_PROBE_OK;
		if (bound && probe(k, now) == KNEE_SET)
			return KNEE_SET; /* held: the next follows (a knee that moved up) */
		return cruise(k, now);
	}
	if (k->cycle == KNEE_DRAIN)
		return cruise(k, now);
	if (should_lift(k, now)) {
		knee_reset(k);
		k->decision = IOLAT_STEP_LIFT;
		return KNEE_RELEASE;
	}
	if (over) {
		k->bisect = true;
		return probe(k, now);
	}
	if (!bound || burned || ++k->cruise_periods < KNEE_CRUISE_PERIODS) {
		k->decision = IOLAT_STEP_HOLD;
		return KNEE_NONE;
	}
	return probe(k, now);
}

/* The period is over: its verdict, and at most one change. */
static enum knee_act close_period(struct iolat_knee *k, uint64_t now)
{
	const struct knee_period *p = &k->per;
	uint64_t d_bps = knee_per_sec(p->bytes, p->dt), d_iops = knee_per_sec(p->ios, p->dt);
	uint32_t late_step = knee_late_step_pm(p->missed, p->nr, p->late_ns, p->sum_ns, p->dt,
					       k->target_ns);
	uint32_t p_late = knee_share_pm(p->missed, p->nr);
	bool bound = p->waited || d_bps >= knee_scale_pm(k->force_bps, KNEE_BIND_PM) ||
		     (k->force_iops && d_iops >= knee_scale_pm(k->force_iops, KNEE_BIND_PM));
	int v = knee_period_verdict(k, k->phase == KNEE_FUTILE);
	bool met = knee_period_verdict(k, false) == 1;
	bool drowned = p->windows && p->drowned_windows == p->windows;
	/* Judged by its mean, a futile phase spends no budget (all is late). */
	bool burned = k->phase != KNEE_FUTILE &&
		      knee_budget_add(k, p->nr, (uint64_t)knee_period_late_pm(p) * p->nr / 1000);
	uint32_t lvl;

	k->lv[0].nr = p->nr; /* the level's mean: its last period's */
	k->lv[0].sum_ns = p->sum_ns;
	k->lv[0].windows = p->windows;
	new_period(k);
	k->dead_streak = v < 0 ? k->dead_streak + 1 : 0;
	if (v == 1)
		return good_period(k, now, d_bps, bound, met, p_late, burned);
	if (k->cycle == KNEE_UP)
		return probe_end(k, now, v == 0);
	if (v < 0 && ((k->dead_streak < KNEE_DEAD_PERIODS && !burned) || !bound))
		return KNEE_NONE; /* the dead zone: nothing changes, the budget allowing */
	k->dead_streak = 0;
	if (v < 0 && !burned) /* sitting on the edge: the smallest cut */
		return cut(k, now, d_bps, cut_steps[0], 0, p_late, CUT_PERIOD);
	/* A bad period, or the edge while the budget is spent (its late_step is
	 * 0, none of its windows drowned): steps that grow while they follow. */
	k->bad_streak++;
	lvl = k->bad_streak < KNEE_CUT_LEVELS ? k->bad_streak - 1 : KNEE_CUT_LEVELS - 1;
	return cut(k, now, d_bps, cut_steps[lvl], late_step, p_late,
		   drowned ? CUT_PERIOD_DROWNED : CUT_PERIOD);
}

/* A window mostly late while the limit binds: act now (see the file's top). */
static bool emergency_due(const struct iolat_knee *k, const struct knee_obs *o, bool ok,
			  bool bound)
{
	if (ok || k->phase != KNEE_LIMIT || !bound || !o->nr ||
	    o->missed * 1000 <= o->nr * KNEE_EMERGENCY_PM)
		return false;
	if (k->cycle == KNEE_UP && !k->pending)
		return true;
	if (o->now - k->force_at <= KNEE_SETTLE_NS)
		return false;
	return !k->cut_at || o->now - k->cut_at >= KNEE_PERIOD_NS;
}

/* The base of a cut between periods: the rate delivered over the last second
 * of windows, or since the last change when that spans long enough and is
 * lower (a knee that dropped shows since the change). */
static uint64_t recent_rate(const struct iolat_knee *k)
{
	uint64_t d_bps = knee_ring_rate(k);

	if (k->since_dt >= KNEE_SINCE_NS)
		d_bps = min_u64(d_bps, knee_per_sec(k->since_bytes, k->since_dt));
	return d_bps;
}

static enum knee_act emergency(struct iolat_knee *k, const struct knee_obs *o)
{
	k->emergencies++;
	if (k->cycle == KNEE_UP && !k->pending)
		return probe_end(k, o->now, true);
	k->bad_streak = k->bad_streak ? k->bad_streak : 1;
	return cut(k, o->now, recent_rate(k), 1000 - KNEE_EMERGENCY_CUT_PM, 0,
		   knee_share_pm(o->missed, o->nr), CUT_NOW);
}

/*
 * A judged window nearly all late, its mean 4 x the target or more, while the
 * limit binds (an open-loop reader queued behind the writer): cut by far at
 * once rather than at the period's end, for as long as each such cut lowered
 * the window's mean by 10 % (a target out of reach is left to the period and
 * its futility rule). Any judged window not drowning ends the chain.
 */
static bool drowning(struct iolat_knee *k, const struct knee_obs *o, bool bound)
{
	if (!knee_window_drowns(o)) {
		k->drown_mean_ns = 0;
		return false;
	}
	if (k->phase != KNEE_LIMIT || k->cycle == KNEE_UP || !bound || k->futile_steps)
		return false;
	return !k->drown_mean_ns ||
	       o->sum_ns / o->nr <= knee_scale_pm(k->drown_mean_ns, KNEE_DROWN_HELP_PM);
}

static enum knee_act drown_cut(struct iolat_knee *k, const struct knee_obs *o, uint64_t dt)
{
	k->drown_mean_ns = o->sum_ns / o->nr;
	k->bad_streak = k->bad_streak ? k->bad_streak : 1;
	return cut(k, o->now, recent_rate(k), cut_steps[0],
		   knee_late_step_pm(o->missed, o->nr, o->late_ns, o->sum_ns, dt, o->target_ns),
		   knee_share_pm(o->missed, o->nr), CUT_NOW);
}

static enum knee_act limited(struct iolat_knee *k, const struct knee_obs *o, bool ok,
			     uint64_t dt, uint64_t d_bps, uint64_t d_iops)
{
	bool in_force = take_force(k, o), bound, judged;
	uint64_t len = k->cycle == KNEE_CRUISE && k->decision != IOLAT_STEP_LIMIT ? KNEE_PERIOD_NS :
		       KNEE_UP_NS; /* a probe, a drain, the first limit: judged sooner */

	knee_ring_add(k, o->bytes, dt);
	if (in_force) {
		k->since_bytes += o->bytes;
		k->since_dt += dt;
	}
	k->since_change++;
	bound = o->waited || d_bps >= knee_scale_pm(k->force_bps, KNEE_BIND_PM) ||
		knee_ring_rate(k) >= knee_scale_pm(k->force_bps, KNEE_BIND_PM) ||
		(k->force_iops && d_iops >= knee_scale_pm(k->force_iops, KNEE_BIND_PM));
	if (bound)
		k->used_at = o->now;
	judged = in_force && (k->cycle == KNEE_UP || o->now - k->force_at > KNEE_SETTLE_NS);
	if (judged && drowning(k, o, bound))
		return drown_cut(k, o, dt);
	if (emergency_due(k, o, ok, bound))
		return emergency(k, o);
	if (!judged)
		return KNEE_NONE; /* not judged: not in force, or still settling */
	if (k->phase == KNEE_FUTILE) /* a window is late against 1.5 x the best mean */
		ok = o->nr && o->sum_ns / o->nr <= knee_scale_pm(k->best_mean_ns, KNEE_WORSE_PM);
	knee_period_add(k, o, ok, dt);
	if (k->per.dt < len && !knee_period_certain(k, len, o->win_ns))
		return KNEE_NONE;
	return close_period(k, o->now);
}

enum knee_act knee_window(struct iolat_knee *k, const struct knee_obs *o, bool ok)
{
	uint64_t dt = k->last_obs && k->last_obs < o->now ? o->now - k->last_obs : o->win_ns;
	uint64_t d_bps = knee_per_sec(o->bytes, dt), d_iops = knee_per_sec(o->ios, dt);

	k->last_obs = o->now;
	k->target_ns = o->target_ns;
	k->starved = o->nr * 8 * KNEE_STARVED_DIV < k->nr_avg8 * (KNEE_STARVED_DIV - 1);
	k->nr_avg8 = k->nr_avg8 - k->nr_avg8 / 8 + o->nr;
	switch (k->phase) {
	case KNEE_OFF:
		if (ok)
			return KNEE_NONE;
		if (recall(k, o))
			return KNEE_SET;
		knee_reset(k);
		k->phase = KNEE_MEASURE;
		k->decision = IOLAT_STEP_MEASURE;
		k->lv[0].nr += o->nr; /* the unthrottled level's latencies */
		k->lv[0].sum_ns += o->sum_ns;
		k->lv[0].windows++;
		return KNEE_WATCH;
	case KNEE_MEASURE:
		return measure(k, o, ok, dt, d_bps, d_iops);
	default:
		return limited(k, o, ok, dt, d_bps, d_iops);
	}
}
