/* SPDX-License-Identifier: MIT */
/*
 * knee.c - the adaptive mode's rate decision (knee.h), one parent's episode
 * at a time. In short (docs/controller-adaptive.md has the why and the
 * anchors: io.cost's vrate, BBR, LEDBAT, TCP Vegas):
 *
 *  - off: a missed window starts a measurement of what the siblings do
 *    unthrottled; after two more missed windows the first limit is 0.9 x the
 *    best of them (one may be a hiccup of the device). A lone miss (a good
 *    window while measuring) limits nothing.
 *  - limited, a miss (after the last change has settled and the level has
 *    been seen for 3 windows more): back off to
 *    0.9 x min(limit, what the siblings were delivered in that window, but
 *    at least half the limit) - a small factor, not halving, and never above
 *    what they actually did.
 *  - limited, good: hold still. After a hold (10 windows, >= 1 s) a probe
 *    raises the limit by the probe gain (+5 %, doubling per success up to
 *    +40 %), or straight to just under the best rate delivered in a good
 *    window of the last 10 s; not above 0.95 x a rate that missed in the
 *    last 10 s unless that leaves less than +1 % (then +5 %: the miss is
 *    tested again, after a hold that doubled with it). A probe is
 *    judged over 3 windows (>= 300 ms): a miss fails it - the limit goes to
 *    0.95 x where it was before the probe (a margin under the knee, which
 *    also drains what the probe queued) and the hold doubles (up to 32 s);
 *    success halves the hold and doubles the step, except just under a rate
 *    that missed (0.9 to 1 x it), where both stay.
 *  - futility: two back-offs in a row (no good window between them) that
 *    did not lower the protected group's mean by 10 % (each level judged on
 *    at least 3 windows after it settled), or a miss at the
 *    floor, mean that lowering does not help (the target is below what the
 *    device gives the group alone, or another tenant causes the misses).
 *    The limit goes back to the highest
 *    level whose mean was within 10 % of the best, and from then on periods
 *    of 3 windows are judged against 1.5 x that best mean (a LEDBAT-style
 *    base delay) until the target is met again for 5 windows in a row; if
 *    lowering stops helping again (another tenant got worse), the same rule
 *    sends the limit back up to the best level and takes its mean as the
 *    new reference.
 *  - a limit the siblings did not use for 4 s is lifted. (One they keep
 *    using while the protected group is fine is probed upward instead,
 *    until it misses or goes unused.)
 *
 * Context: knee.h (the caller serialises; pure).
 */
#include <string.h>

#include "iolatency.h"
#include "core/knee.h"
#include "util/units.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* @v x @pm / 1000 without overflow for any rate we see. */
static uint64_t scale_pm(uint64_t v, uint32_t pm)
{
	return v / 1000 * pm + v % 1000 * pm / 1000;
}

/* Per second: @n over @dt_ns. */
static uint64_t per_sec(uint64_t n, uint64_t dt_ns)
{
	if (!dt_ns)
		return 0;
	if (n > UINT64_MAX / NSEC_PER_SEC)
		return n / dt_ns * NSEC_PER_SEC;
	return n * NSEC_PER_SEC / dt_ns;
}

static uint64_t mean_of(uint64_t nr, uint64_t sum)
{
	return nr ? sum / nr : 0;
}

void knee_reset(struct iolat_knee *k)
{
	uint64_t probes = k->probes, fails = k->probe_fails, backoffs = k->backoffs;
	uint64_t last_obs = k->last_obs;

	memset(k, 0, sizeof(*k));
	k->probes = probes;
	k->probe_fails = fails;
	k->backoffs = backoffs;
	k->last_obs = last_obs;
}

/* ---- the good-rate estimate: a max filter over the last seconds ---- */

uint64_t knee_good_rate(const struct iolat_knee *k, uint64_t now)
{
	uint64_t sec = now / KNEE_GOOD_BUCKET_NS + 1, best = 0;

	for (uint32_t i = 0; i < KNEE_GOOD_BUCKETS; i++)
		if (k->good_sec[i] && k->good_sec[i] + KNEE_GOOD_BUCKETS > sec)
			best = max_u64(best, k->good_max[i]);
	return best;
}

static void good_add(struct iolat_knee *k, uint64_t now, uint64_t bps)
{
	uint64_t sec = now / KNEE_GOOD_BUCKET_NS + 1;
	uint32_t i = (uint32_t)(sec % KNEE_GOOD_BUCKETS);

	if (k->good_sec[i] != sec) {
		k->good_sec[i] = sec;
		k->good_max[i] = 0;
	}
	k->good_max[i] = max_u64(k->good_max[i], bps);
}

/* A miss at @bps: good windows at that rate or more are no longer evidence. */
static void good_cap(struct iolat_knee *k, uint64_t bps)
{
	for (uint32_t i = 0; i < KNEE_GOOD_BUCKETS; i++)
		k->good_max[i] = min_u64(k->good_max[i], bps);
}

/* ---- levels: the limits visited and the protected group's mean at each ---- */

static void level_push(struct iolat_knee *k)
{
	memmove(&k->lv[1], &k->lv[0], sizeof(k->lv[0]) * (KNEE_HISTORY - 1));
	k->lv[0] = (struct knee_level){ .bps = k->limit_bps, .iops = k->limit_iops };
	if (k->nr_lv < KNEE_HISTORY)
		k->nr_lv++;
}

static void level_add(struct knee_level *l, const struct knee_obs *o)
{
	l->nr += o->nr;
	l->sum_ns += o->sum_ns;
	l->windows++;
}

/* Has the level been seen long enough for its mean to say something? */
static bool level_known(const struct knee_level *l)
{
	return l->nr && l->windows >= KNEE_LEVEL_WINDOWS;
}

static uint64_t level_mean(const struct knee_level *l)
{
	return mean_of(l->nr, l->sum_ns);
}

/* Set the limit to @bps/@iops, a new level, at @now. */
static void set_limit(struct iolat_knee *k, uint64_t bps, uint64_t iops, uint64_t now,
		      unsigned decision)
{
	k->per_nr = k->per_sum = 0; /* a period is judged at one level */
	k->per_windows = 0;
	k->limit_bps = bps;
	k->limit_iops = iops;
	k->changed_at = now;
	k->since_change = 0;
	k->decision = decision;
	level_push(k);
}

static uint64_t floor_bps(const struct iolat_knee *k)
{
	return max_u64(k->base_bps / KNEE_FLOOR_DIV, 1);
}

static uint64_t floor_iops(const struct iolat_knee *k)
{
	return k->base_iops ? max_u64(k->base_iops / KNEE_FLOOR_DIV, 1) : 0;
}

static uint64_t hold_min(const struct knee_obs *o)
{
	return max_u64(KNEE_HOLD_MIN_NS, KNEE_HOLD_WINDOWS * o->win_ns);
}

/* The highest limit a probe may reach: a margin under a rate that missed
 * recently; UINT64_MAX when none did. */
static uint64_t ceiling(const struct iolat_knee *k, uint64_t now)
{
	if (!k->bad_at || now - k->bad_at >= KNEE_BAD_MEMORY_NS)
		return UINT64_MAX;
	return scale_pm(k->bad_bps, KNEE_MARGIN_PM);
}

/*
 * The base of a back-off: what the siblings were delivered in the missed
 * window (a knee that dropped shows at once as a lower rate), but not under
 * half the limit (a window cut short by a stall of the device is not a knee).
 */
static uint64_t backoff_base(uint64_t limit, uint64_t delivered)
{
	if (!limit)
		return 0;
	return min_u64(limit, max_u64(delivered, limit / 2));
}

/* ---- the phases ---- */

static enum knee_act measure(struct iolat_knee *k, const struct knee_obs *o, bool ok,
			     uint64_t d_bps, uint64_t d_iops)
{
	if (ok) {
		/* A lone miss: nothing limited. */
		knee_reset(k);
		k->decision = IOLAT_STEP_RESET;
		return KNEE_RELEASE;
	}
	level_add(&k->lv[0], o);
	k->base_bps = max_u64(k->base_bps, d_bps);
	k->base_iops = max_u64(k->base_iops, d_iops);
	if (++k->since_change < KNEE_MEASURE_WINDOWS || (!k->base_bps && !k->base_iops))
		return KNEE_NONE; /* measuring; or the siblings did nothing: not theirs (yet) */
	d_bps = k->base_bps;
	d_iops = k->base_iops;
	k->lv[0].bps = d_bps;
	k->lv[0].iops = d_iops;
	k->nr_lv = 1;
	k->phase = KNEE_LIMIT;
	k->hold_ns = hold_min(o);
	k->gain_pm = KNEE_GAIN_MIN_PM;
	k->used_at = o->now;
	set_limit(k, max_u64(scale_pm(d_bps, KNEE_FIRST_PM), floor_bps(k)),
		  d_iops ? max_u64(scale_pm(d_iops, KNEE_FIRST_PM), floor_iops(k)) : 0, o->now,
		  IOLAT_STEP_LIMIT);
	return KNEE_SET;
}

/* Lowering has stopped helping: back to the best level seen, judged from
 * now on against its mean. */
static enum knee_act go_futile(struct iolat_knee *k, uint64_t now)
{
	uint64_t best = UINT64_MAX, bps = 0, iops = 0;

	for (uint32_t i = 0; i < k->nr_lv; i++)
		if (level_known(&k->lv[i]) && level_mean(&k->lv[i]) < best)
			best = level_mean(&k->lv[i]);
	for (uint32_t i = 0; i < k->nr_lv; i++)
		if (level_known(&k->lv[i]) && level_mean(&k->lv[i]) <= scale_pm(best, KNEE_BEST_PM) &&
		    k->lv[i].bps > bps) {
			bps = k->lv[i].bps;
			iops = k->lv[i].iops;
		}
	k->phase = KNEE_FUTILE;
	k->futile_steps = 0;
	k->attained = 0;
	k->per_nr = k->per_sum = 0;
	k->per_windows = 0;
	k->best_mean_ns = best == UINT64_MAX ? 0 : best;
	if (!bps || bps > k->base_bps) { /* no level measured, or only the unthrottled one */
		bps = k->limit_bps;
		iops = k->limit_iops;
	}
	set_limit(k, bps, iops, now, IOLAT_STEP_FUTILE);
	/* Latencies seen before are no evidence for a later re-entry. */
	for (uint32_t i = 1; i < k->nr_lv; i++)
		k->lv[i].nr = k->lv[i].sum_ns = k->lv[i].windows = 0;
	return KNEE_SET;
}

static enum knee_act back_off(struct iolat_knee *k, const struct knee_obs *o, uint64_t d_bps,
			      uint64_t d_iops)
{
	bool at_floor = k->limit_bps <= floor_bps(k);
	uint64_t bps, iops;

	if (k->nr_lv > 1 && level_known(&k->lv[0]) && level_known(&k->lv[1])) {
		if (level_mean(&k->lv[0]) > scale_pm(level_mean(&k->lv[1]), KNEE_HELP_PM))
			k->futile_steps++;
		else
			k->futile_steps = 0;
	}
	if (k->futile_steps >= KNEE_FUTILE_STEPS || at_floor)
		return go_futile(k, o->now);
	if (d_bps >= scale_pm(k->limit_bps, 900) || o->waited) {
		/* The siblings were at their limit: that rate missed. */
		k->bad_bps = k->limit_bps;
		k->bad_at = o->now;
	}
	bps = scale_pm(backoff_base(k->limit_bps, d_bps), KNEE_BACKOFF_PM);
	iops = scale_pm(backoff_base(k->limit_iops, d_iops), KNEE_BACKOFF_PM);
	good_cap(k, bps);
	k->backoffs++;
	set_limit(k, max_u64(bps, floor_bps(k)), iops ? max_u64(iops, floor_iops(k)) : 0, o->now,
		  IOLAT_STEP_BACKOFF);
	return KNEE_SET;
}

static enum knee_act probe_fail(struct iolat_knee *k, uint64_t now)
{
	k->bad_bps = k->limit_bps;
	k->bad_at = now;
	k->probing = false;
	k->hold_ns = min_u64(k->hold_ns * 2, KNEE_HOLD_MAX_NS);
	k->gain_pm = KNEE_GAIN_MIN_PM;
	k->probe_fails++;
	good_cap(k, k->pre_bps);
	set_limit(k, max_u64(scale_pm(k->pre_bps, KNEE_MARGIN_PM), floor_bps(k)),
		  k->pre_iops ? max_u64(scale_pm(k->pre_iops, KNEE_MARGIN_PM), floor_iops(k)) : 0,
		  now, IOLAT_STEP_PROBE_FAIL);
	return KNEE_SET;
}

/* The next probe's rate: the gain, or up to just under a rate recently
 * delivered in a good window; not past the ceiling while that leaves a step
 * of at least 1 %; at the ceiling, the smallest step (the miss is tested
 * again after the hold, which doubled). */
static uint64_t probe_rate(const struct iolat_knee *k, uint64_t now)
{
	uint64_t up = scale_pm(k->limit_bps, 1000 + k->gain_pm);
	uint64_t good = scale_pm(knee_good_rate(k, now), 1000 - KNEE_GAIN_MIN_PM / 2);
	uint64_t capped = min_u64(max_u64(up, good), ceiling(k, now));

	if (capped >= scale_pm(k->limit_bps, KNEE_STEP_MIN_PM))
		return capped;
	return scale_pm(k->limit_bps, 1000 + KNEE_GAIN_MIN_PM);
}

static enum knee_act probe(struct iolat_knee *k, uint64_t now)
{
	uint64_t bps = probe_rate(k, now), iops;

	iops = k->limit_iops ? (uint64_t)((double)k->limit_iops * (double)bps /
					  (double)k->limit_bps) : 0;
	k->pre_bps = k->limit_bps;
	k->pre_iops = k->limit_iops;
	k->probing = true;
	k->probe_windows = 0;
	k->probes++;
	set_limit(k, bps, iops, now, IOLAT_STEP_PROBE);
	return KNEE_SET;
}

static void probe_ok(struct iolat_knee *k, const struct knee_obs *o)
{
	k->probing = false;
	/* Careful only just under a rate that missed recently (0.9 to 1 x it);
	 * elsewhere a probe that held halves the hold and doubles the step. */
	if (ceiling(k, o->now) == UINT64_MAX || k->limit_bps > k->bad_bps ||
	    k->limit_bps < scale_pm(k->bad_bps, KNEE_CAREFUL_PM)) {
		k->hold_ns = max_u64(k->hold_ns / 2, hold_min(o));
		k->gain_pm = min_u64(k->gain_pm * 2, KNEE_GAIN_MAX_PM);
	}
	if (k->limit_bps > k->bad_bps)
		k->bad_at = 0; /* held above the rate that missed: the knee moved up */
	k->changed_at = o->now; /* the next probe waits a hold from here */
	k->decision = IOLAT_STEP_PROBE_OK;
}

/*
 * The verdict on this window: 1 good, 0 bad, -1 none yet. Under the target
 * rule each window; when the target is unattainable, periods of
 * KNEE_PROBE_WINDOWS windows against the best mean.
 */
static int verdict(struct iolat_knee *k, const struct knee_obs *o, bool ok)
{
	uint64_t mean;

	if (k->phase != KNEE_FUTILE)
		return ok;
	k->attained = ok ? k->attained + 1 : 0;
	if (k->attained >= KNEE_ATTAIN_WINDOWS) {
		k->phase = KNEE_LIMIT; /* the target can be met again */
		k->futile_steps = 0;
		k->decision = IOLAT_STEP_ATTAINED;
		return 1;
	}
	if (k->since_change <= KNEE_SETTLE_WINDOWS && !k->probing)
		return -1; /* a period starts when the last change has settled */
	k->per_nr += o->nr;
	k->per_sum += o->sum_ns;
	if (++k->per_windows < KNEE_PROBE_WINDOWS)
		return -1;
	mean = mean_of(k->per_nr, k->per_sum);
	k->per_nr = k->per_sum = 0;
	k->per_windows = 0;
	return mean <= scale_pm(k->best_mean_ns, KNEE_WORSE_PM);
}

/* A limit the siblings have not reached for a while is no longer needed. */
static bool should_lift(const struct iolat_knee *k, uint64_t now)
{
	return now - k->used_at >= KNEE_IDLE_LIFT_NS && now - k->changed_at >= KNEE_IDLE_LIFT_NS;
}

static enum knee_act limited(struct iolat_knee *k, const struct knee_obs *o, bool ok,
			     uint64_t d_bps, uint64_t d_iops)
{
	int v;

	k->since_change++;
	if (o->waited || d_bps >= scale_pm(k->limit_bps, 900) ||
	    (k->limit_iops && d_iops >= scale_pm(k->limit_iops, 900)))
		k->used_at = o->now;
	if (k->since_change > KNEE_SETTLE_WINDOWS)
		level_add(&k->lv[0], o);
	v = verdict(k, o, ok);
	if (v < 0)
		return KNEE_NONE;
	if (v) {
		good_add(k, o->now, d_bps);
		k->base_bps = max_u64(k->base_bps, d_bps); /* a base measured low (noise) grows */
		k->futile_steps = 0; /* only back-offs in a row count */
	}
	if (k->probing) {
		if (!v)
			return probe_fail(k, o->now);
		k->probe_windows++;
		if (k->probe_windows >= KNEE_PROBE_WINDOWS &&
		    o->now - k->changed_at >= KNEE_PROBE_MIN_NS)
			probe_ok(k, o);
		return KNEE_NONE;
	}
	if (!v) {
		/* Not while the last change settles, nor before this level has
		 * been seen long enough to say whether lowering helped. */
		if (k->since_change <= KNEE_SETTLE_WINDOWS || !level_known(&k->lv[0]))
			return KNEE_NONE;
		return back_off(k, o, d_bps, d_iops);
	}
	if (should_lift(k, o->now)) {
		knee_reset(k);
		k->decision = IOLAT_STEP_LIFT;
		return KNEE_RELEASE;
	}
	if (o->now - k->changed_at < k->hold_ns || k->used_at <= k->changed_at) {
		k->decision = IOLAT_STEP_HOLD;
		return KNEE_NONE;
	}
	return probe(k, o->now);
}

enum knee_act knee_window(struct iolat_knee *k, const struct knee_obs *o, bool ok)
{
	uint64_t dt = k->last_obs && k->last_obs < o->now ? o->now - k->last_obs : o->win_ns;
	uint64_t d_bps = per_sec(o->bytes, dt), d_iops = per_sec(o->ios, dt);

	k->last_obs = o->now;
	switch (k->phase) {
	case KNEE_OFF:
		if (ok)
			return KNEE_NONE;
		knee_reset(k);
		k->phase = KNEE_MEASURE;
		k->decision = IOLAT_STEP_MEASURE;
		level_add(&k->lv[0], o); /* the unthrottled level's latencies */
		return KNEE_WATCH;
	case KNEE_MEASURE:
		return measure(k, o, ok, d_bps, d_iops);
	default:
		return limited(k, o, ok, d_bps, d_iops);
	}
}
