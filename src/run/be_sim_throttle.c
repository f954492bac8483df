/* SPDX-License-Identifier: MIT */
/*
 * be_sim_throttle.c - the simulator backend's kernel-throttle plant (be_sim.h,
 * docs/simulator-scenarios.md section 6): what iolatd and the kernel's block
 * throttle do with a rate instead of the in-process pace gate. Owns the
 * per-row throttle (a static cap, throttle_bps=, and the controller's rate as
 * an actuator wrote it), the actuator's rounds (read the adaptive rate,
 * write it, report what is in force and what was served) and the delay
 * before a written limit acts. Off (and nothing of it runs) unless the job
 * file sets throttle_slice, actuate_period, actuate_delay or throttle_bps.
 * Context: the run's one thread (events of its virtual clock).
 */

/*
 * The model (facts of blk-throttle as v1's blkio.throttle.*_bps_device
 * applies them; our own code):
 * - A limited group may send in each slice of throttle_slice the slice's
 *   budget, limit x slice. The budget of a slice is there at its start: a
 *   group that has I/O waiting sends it in a clump then, and waits for the
 *   next slice once the budget is spent. An I/O larger than what is left
 *   waits for the slice that covers it (one larger than a budget waits for
 *   as many slices as it needs).
 *   A busy group carries what it left of a budget (less than an I/O) into
 *   the next slice: it gets its limit exactly, as measured on the disk; a
 *   budget left unused for a whole slice is lost (the group was idle: it
 *   starts a fresh slice, a whole budget, at its next I/O).
 * - Writing a new limit starts a fresh slice (the kernel's reconfiguration
 *   does): a clump may go at once.
 * - throttle_slice=0: the same limit applied smoothly (one I/O every
 *   size / limit, a credit of one I/O), as the pace gate does.
 * - The actuator: every actuate_period it reports each group's served
 *   bytes (the throttle's counters), reads the controller's rate
 *   (iolat_group_observe_stat's pace_bps), writes it when it changed and
 *   reports the value written as in force, as iolatd does (the core is not
 *   told of the delay); the new limit acts actuate_delay later. So a decision acts between
 *   delay and period + delay after it was taken. With actuate_period=0 the
 *   rounds run every millisecond.
 * - A job's I/O passes the throttle of its group and of every ancestor;
 *   bypass I/O (ioflags=meta|swap) passes unlimited but is counted.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/be_sim_throttle.h"
#include "util/errmsg.h"

#define THR_DEF_ROUND_NS NSEC_PER_MSEC   /* actuate_period=0: rounds this often */

bool sim_thr_wanted(const struct iolat_jobfile *jf)
{
	if (jf->global.throttle_slice_ns || jf->global.actuate_period_ns ||
	    jf->global.actuate_delay_ns)
		return true;
	for (unsigned i = 0; i < jf->nr_groups; i++)
		if (jf->groups[i].throttle_bps)
			return true;
	return false;
}

int sim_thr_check(const struct iolat_jobfile *jf, char *err, size_t errlen)
{
	if (!sim_thr_wanted(jf) || !iolat_jobfile_has_weights(jf))
		return 0;
	for (unsigned i = 0; i < jf->nr_groups; i++)
		if (jf->groups[i].weight)
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key 'weight': group '%s': "
					  "the simulator's kernel-throttle plant (throttle_slice, "
					  "actuate_*, throttle_bps) does not enforce weights; use one or "
					  "the other", jf->file, jf->groups[i].line, jf->groups[i].path);
	return 0;
}

/* The round period of the actuator. */
static uint64_t round_ns(const struct sim *s)
{
	uint64_t p = s->r->jf->global.actuate_period_ns;

	return p ? p : THR_DEF_ROUND_NS;
}

/* @row's limit in force: the tighter of the static cap and the controller's. */
static uint64_t row_bps(const struct sim_thr *t)
{
	if (!t->static_bps)
		return t->ctl_bps;
	if (!t->ctl_bps)
		return t->static_bps;
	return t->static_bps < t->ctl_bps ? t->static_bps : t->ctl_bps;
}

/* A limit changed at @now (a write took effect): a fresh slice. */
static void restart(struct sim_thr *t, uint64_t now)
{
	t->slice_start = now;
	t->used = 0;
	t->next_issue = now;
}

/* The budget of one slice of @slice_ns at @bps, bytes (at least 1). */
static uint64_t slice_budget(uint64_t bps, uint64_t slice_ns)
{
	double b = (double)bps * (double)slice_ns / 1e9;

	return b < 1.0 ? 1 : (uint64_t)llround(b);
}

/*
 * Move @t's slice on to the one holding @now: each slice that ended pays one
 * budget @q off what was charged. What a busy group left of a budget (less
 * than one I/O) carries into the next slice, so a throttled group gets its
 * limit exactly; a group that left a whole slice's budget unused was idle:
 * it starts a fresh slice at @now.
 */
static void roll(struct sim_thr *t, uint64_t q, uint64_t slice, uint64_t now)
{
	uint64_t k;

	if (now < t->slice_start + slice)
		return;
	k = (now - t->slice_start) / slice;
	if (k > (uint64_t)INT64_MAX / q || t->used - (int64_t)(k * q) <= -(int64_t)q) {
		restart(t, now);
		return;
	}
	t->used -= (int64_t)(k * q);
	t->slice_start += k * slice;
}

/* How long an I/O of @bytes waits at @t at @now (0: it may go). */
static uint64_t row_wait(struct sim_thr *t, uint64_t slice, uint64_t bytes, uint64_t now)
{
	uint64_t bps = row_bps(t), q, j;
	int64_t over;

	if (!bps)
		return 0;
	if (!slice)
		return t->next_issue > now ? t->next_issue - now : 0;
	q = slice_budget(bps, slice);
	roll(t, q, slice, now);
	over = t->used + (int64_t)bytes - (int64_t)q;  /* beyond this slice's budget */
	if (over <= 0)
		return 0;
	/* The first later slice whose budget covers it. */
	j = ((uint64_t)over + q - 1) / q;
	return t->slice_start + j * slice - now;
}

/* Charge @bytes sent at @now to @t. */
static void row_charge(struct sim_thr *t, uint64_t slice, uint64_t bytes, uint64_t now)
{
	uint64_t bps = row_bps(t);

	t->served_bytes += bytes;
	t->served_ios++;
	t->sent_bytes += bytes;
	if (!bps)
		return;
	if (slice) {
		t->used += (int64_t)bytes;
	} else {
		uint64_t cost = (uint64_t)llround((double)bytes * 1e9 / (double)bps);

		t->next_issue = (t->next_issue + cost > now ? t->next_issue : now - cost) + cost;
	}
}

uint64_t sim_thr_due(struct sim *s, unsigned row, uint64_t bytes, bool bypass, uint64_t now)
{
	uint64_t slice = s->r->jf->global.throttle_slice_ns, wait = 0;
	int ri;

	for (ri = (int)row; !bypass && ri >= 0 && ri != (int)s->root_row; ri = s->rows[ri].parent) {
		uint64_t w = row_wait(&s->thr[ri], slice, bytes, now);

		if (w > wait)
			wait = w;
	}
	if (wait)
		return wait;
	for (ri = (int)row; ri >= 0 && ri != (int)s->root_row; ri = s->rows[ri].parent) {
		struct sim_thr *t = &s->thr[ri];

		if (!bypass) {
			row_charge(t, slice, bytes, now);
			continue;
		}
		t->served_bytes += bytes;   /* counted as served, never charged */
		t->served_ios++;
		t->sent_bytes += bytes;
	}
	return 0;
}

uint64_t sim_thr_bps(const struct sim *s, unsigned row)
{
	return s->thr_on && row != s->root_row ? row_bps(&s->thr[row]) : 0;
}

/* A written limit of row @data's ring takes effect. */
static void apply_ev(void *arg, uint64_t data, uint64_t now)
{
	struct sim *s = arg;
	struct sim_thr *t = &s->thr[data];
	uint64_t was = row_bps(t);

	if (!t->pend_n)
		return;
	t->ctl_bps = t->pend[t->pend_head];
	t->pend_head = (t->pend_head + 1) % t->pend_cap;
	t->pend_n--;
	if (row_bps(t) != was)
		restart(t, now);
	s->res->thr_applied++;
}

/* The actuator writes @bps for row @ri at @now: in force after the delay. */
static void write_limit(struct sim *s, unsigned ri, uint64_t bps, uint64_t now)
{
	struct sim_thr *t = &s->thr[ri];
	uint64_t delay = s->r->jf->global.actuate_delay_ns;

	t->written_bps = bps;
	if (t->pend_n == t->pend_cap) {   /* cannot happen: the ring holds a delay of rounds */
		s->error = -EOVERFLOW;
		return;
	}
	t->pend[(t->pend_head + t->pend_n) % t->pend_cap] = bps;
	t->pend_n++;
	if (!delay)
		apply_ev(s, ri, now);
	else if (iolat_sim_evq_at(&s->q, now + delay, apply_ev, s, ri))
		s->error = -ENOMEM;
}

/* One actuator round: report what was served and what is written, read the
 * controller's rate, write it when it changed. */
static void round_ev(void *arg, uint64_t data, uint64_t now)
{
	struct sim *s = arg;

	(void)data;
	for (unsigned ri = 0; ri < s->nr_rows; ri++) {
		struct sim_thr *t = &s->thr[ri];
		struct iolat_group *g = s->rows[ri].g;
		struct iolat_observe_stat st;

		if (ri == s->root_row || !g)
			continue;
		iolat_group_observe_served(g, t->served_bytes, t->served_ios, now);
		t->served_bytes = t->served_ios = 0;
		if (iolat_group_observe_stat(g, &st))
			continue;
		if (st.pace_bps != t->written_bps) {
			write_limit(s, ri, st.pace_bps, now);
			s->res->thr_writes++;
		}
		iolat_group_observe_applied(g, t->written_bps, 0, now);
	}
	if (!s->stopped || s->inflight)
		iolat_sim_evq_after(&s->q, round_ns(s), round_ev, s, 0);
}

int sim_thr_setup(struct sim *s)
{
	const struct iolat_jobfile *jf = s->r->jf;
	uint64_t rnd, cap;

	s->thr_on = sim_thr_wanted(jf);
	if (!s->thr_on)
		return 0;
	s->thr = calloc(s->nr_rows, sizeof(*s->thr));
	if (!s->thr)
		return -ENOMEM;
	rnd = round_ns(s);
	/* Writes pending at once: at most one a round over the delay. */
	cap = jf->global.actuate_delay_ns / rnd + 2;
	for (unsigned ri = 0; ri < s->nr_rows; ri++) {
		struct sim_thr *t = &s->thr[ri];

		t->pend_cap = (unsigned)cap;
		t->pend = calloc(cap, sizeof(*t->pend));
		if (!t->pend)
			return -ENOMEM;
		if (ri < jf->nr_groups)
			t->static_bps = jf->groups[ri].throttle_bps;
		restart(t, s->r->start_ns);
	}
	return 0;
}

void sim_thr_start(struct sim *s)
{
	if (s->thr_on && s->r->ctl && iolat_sim_evq_at(&s->q, s->r->start_ns + round_ns(s),
						       round_ev, s, 0))
		s->error = -ENOMEM;
}

void sim_thr_free(struct sim *s)
{
	if (!s->thr)
		return;
	for (unsigned ri = 0; ri < s->nr_rows; ri++)
		free(s->thr[ri].pend);
	free(s->thr);
	s->thr = NULL;
}
