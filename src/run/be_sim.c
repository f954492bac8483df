/* SPDX-License-Identifier: MIT */
/*
 * be_sim.c - the one runner's simulator backend, its run (be_sim.h): a job
 * file on a simulated device (src/sim), in virtual time, through the real
 * controller: the submitters, the tick, sampling, the end of the run and
 * the drain (set-up and the backend's table are be_sim_setup.c).
 * Context: one thread per run; all state is local to the run.
 */

/*
 * Each job clone is one submitter. It issues its workload's I/O (offsets,
 * arrivals, rate caps and bursts come from run/workload) up to iodepth
 * in flight: admission through iolat_throttle_async_at() (a queued I/O is
 * handed to the device when granted() runs), the device model serves it, and
 * iolat_done_at() completes it. Before each submission round ("return to user
 * space") a submitter asks iolat_group_delay_due() and, when its group owes
 * delay, sleeps that long in virtual time, then issues one round unchecked.
 * The controller ticks every virtual second. Every sample interval the report
 * and the result's series take a sample. At the end of the run (the latest
 * job's end, start + startdelay + runtime; or, when some job has no runtime,
 * the moment every job is done) the report is finished; I/O still in
 * flight then drains without being counted, so the controller ends idle.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "run/be_sim.h"
#include "run/be_sim_throttle.h"
#include "util/errmsg.h"
#include "util/grow.h"

/* ---- measurement ---- */

static void close_window(struct sim *s, unsigned ri)
{
	struct sim_row *row = &s->rows[ri];
	struct iolat_sim_group *rg = &s->res->groups[ri];
	struct iolat_sim_window *w;

	if (!row->hw.nr)
		return;
	if (iolat_grow((void **)&rg->windows, &row->cap_windows, rg->nr_windows + 1, sizeof(*w))) {
		s->error = -ENOMEM;
		return;
	}
	w = &rg->windows[rg->nr_windows++];
	w->t_ns = row->w_idx * rg->win_ns;
	w->nr = row->hw.nr;
	w->p90_ns = iolat_hist_percentile(&row->hw, 90);
	w->mean_ns = iolat_hist_mean(&row->hw);
	iolat_hist_reset(&row->hw);
}

/* A completed I/O of @j: count it in its row and every ancestor row. */
static void account(struct sim *s, struct sim_job *j, uint64_t lat, uint32_t bytes, uint64_t now)
{
	uint64_t rel = now - s->r->start_ns;

	for (int ri = (int)j->c.row; ri >= 0; ri = s->rows[ri].parent) {
		struct sim_row *row = &s->rows[ri];
		struct iolat_sim_group *rg = &s->res->groups[ri];

		iolat_hist_add(&row->hs, lat);
		row->s_bytes += bytes;
		rg->nr_ios++;
		rg->bytes += bytes;
		if (!rg->first_io_ns)
			rg->first_io_ns = rel;
		rg->last_io_ns = rel;
		if (rg->win_ns) {
			uint64_t idx = rel / rg->win_ns;

			if (idx != row->w_idx) {
				close_window(s, (unsigned)ri);
				row->w_idx = idx;
			}
			iolat_hist_add(&row->hw, lat);
		}
		if (ri == (int)s->root_row)
			break;
	}
}

static void take_sample(struct sim *s, uint64_t now)
{
	struct iolat_sim_result *res = s->res;
	size_t n = res->nr_samples;

	for (unsigned ri = 0; ri < s->nr_rows; ri++) {
		struct sim_row *row = &s->rows[ri];
		struct iolat_sim_group *rg = &res->groups[ri];
		struct iolat_sim_sample *sm;

		if (iolat_grow((void **)&rg->samples, &row->cap_samples, n + 1, sizeof(*sm))) {
			s->error = -ENOMEM;
			return;
		}
		sm = &rg->samples[n];
		memset(sm, 0, sizeof(*sm));
		sm->t_ns = now - s->r->start_ns;
		sm->depth = IOLAT_DEPTH_MAX;
		sm->nr = row->hs.nr;
		sm->bytes = row->s_bytes;
		sm->p90_ns = iolat_hist_percentile(&row->hs, 90);
		sm->mean_ns = iolat_hist_mean(&row->hs);
		sm->max_ns = iolat_hist_max(&row->hs);
		if (row->g) {
			struct iolat_group_stat st;

			if (!iolat_group_stat(row->g, &st)) {
				sm->depth = st.depth;
				sm->inflight = st.inflight;
				sm->use_delay = st.use_delay;
				sm->congested = st.congested;
				sm->throttled_ns = st.throttled_ns;
				sm->delay_ns = st.delay_ns;
				sm->slept_ns = st.slept_ns;
				sm->scale_downs = st.scale_downs;
				sm->scale_ups = st.scale_ups;
				sm->windows_ok = st.windows_ok;
				sm->windows_missed = st.windows_missed;
				sm->stalled_windows = st.stalled_windows;
				sm->pace_bps = st.pace_bps;
			}
		}
		if (s->thr_on && ri != s->root_row) {
			sm->thr_bps = sim_thr_bps(s, ri);
			sm->thr_sent = s->thr[ri].sent_bytes;
			s->thr[ri].sent_bytes = 0;
		}
		iolat_hist_reset(&row->hs);
		row->s_bytes = 0;
	}
	res->nr_samples = n + 1;
	s->last_sample = now;
	if (iolat_report_sample(s->r->rep, now))
		s->error = -ENOMEM;
}

/* ---- the end of the measured run ---- */

static void stop_run(struct sim *s, uint64_t now)
{
	if (s->stopped)
		return;
	s->stopped = true;
	if (now > s->last_sample)
		take_sample(s, now);
	for (unsigned ri = 0; ri < s->nr_rows; ri++) {
		struct iolat_sim_group *rg = &s->res->groups[ri];

		/* Only whole windows count. */
		if (rg->win_ns && (s->rows[ri].w_idx + 1) * rg->win_ns <= now - s->r->start_ns)
			close_window(s, ri);
	}
	if (run_finish(s->r, now))
		s->error = -ENOMEM;
}

static void stop_ev(void *arg, uint64_t data, uint64_t now)
{
	stop_run(arg, now);
}

/* ramp_time is over: the report counts from here (the series below keep it). */
static void ramp_ev(void *arg, uint64_t data, uint64_t now)
{
	struct sim *s = arg;

	if (!s->stopped)
		iolat_report_end_ramp(s->r->rep, now);
}

static void sample_ev(void *arg, uint64_t data, uint64_t now)
{
	struct sim *s = arg;

	if (s->stopped)
		return;
	take_sample(s, now);
	iolat_sim_evq_after(&s->q, s->r->res->sample_ns, sample_ev, s, 0);
}

static void tick_ev(void *arg, uint64_t data, uint64_t now)
{
	struct sim *s = arg;

	iolat_ctl_tick(s->r->ctl);
	if (!s->stopped || s->inflight)
		iolat_sim_evq_after(&s->q, SIM_TICK_NS, tick_ev, s, 0);
}

/* ---- submitters ---- */

static void pump(struct sim_job *j, uint64_t now);

static void pump_ev(void *arg, uint64_t data, uint64_t now)
{
	struct sim_job *j = arg;

	if (j->pump_at != data)
		return;  /* superseded by an earlier pump */
	j->pump_at = UINT64_MAX;
	pump(j, now);
}

static void schedule_pump(struct sim_job *j, uint64_t t)
{
	if (j->pump_at <= t)
		return;
	j->pump_at = t;
	if (iolat_sim_evq_at(&j->sim->q, t, pump_ev, j, t))
		j->sim->error = -ENOMEM;
}

static void job_finished(struct sim_job *j, uint64_t now)
{
	struct sim *s = j->sim;

	if (j->done)
		return;
	j->done = true;
	/* With a known end (every job has a runtime) the run lasts until then. */
	if (--s->active == 0 && s->r->end_ns == UINT64_MAX)
		stop_run(s, now);
}

void sim_io_granted(struct iolat_waiter *w)
{
	struct sim_io *io = (struct sim_io *)((char *)w - offsetof(struct sim_io, w));
	struct sim *s = io->job->sim;

	if (io->wl.flags & (IOLAT_IO_META | IOLAT_IO_SWAP)) {
		/* Bypass I/O must never wait: record it if it ever does. */
		struct iolat_sim_group *rg = &s->res->groups[io->job->c.row];
		uint64_t wait = iolat_sim_evq_now(&s->q) - io->issue_ns;

		if (wait > rg->max_bypass_wait_ns)
			rg->max_bypass_wait_ns = wait;
		rg->nr_bypass_waited++;
	}
	iolat_sim_dev_submit(s->dev, &io->req);
}

void sim_io_complete(struct iolat_sim_req *r, uint64_t now)
{
	struct sim_io *io = r->owner;
	struct sim_job *j = io->job;
	struct sim *s = j->sim;
	uint64_t lat = now - io->wl.due_ns;

	if (j->c.g)
		iolat_done_at(&io->io, now);
	s->inflight--;
	s->r->res->nr_completed++;
	if (!s->stopped) {
		iolat_report_add_io(s->r->rep, j->c.job_index, io->wl.write, io->wl.len, lat, 0);
		account(s, j, lat, io->wl.len, now);
	}
	iolat_workload_completed(&j->c.wl, now);
	if (j->inflight == j->depth)   /* the queue was full until now: an arrival due waited */
		iolat_workload_hold(&j->c.wl, now);
	io->next_free = j->free;
	j->free = io;
	j->inflight--;
	pump(j, now);
}

static void issue(struct sim_job *j, uint64_t now)
{
	struct sim *s = j->sim;
	struct sim_io *io = j->free;
	int ret;

	if (iolat_workload_next(&j->c.wl, now, &io->wl))
		return;
	j->free = io->next_free;
	j->inflight++;
	s->inflight++;
	s->r->res->nr_submitted++;
	io->issue_ns = now;
	io->req.off = io->wl.offset;
	io->req.len = io->wl.len;
	io->req.write = io->wl.write;
	if (!j->c.g) {
		iolat_sim_dev_submit(s->dev, &io->req);
		return;
	}
	if (io->wl.flags & (IOLAT_IO_META | IOLAT_IO_SWAP))
		s->res->groups[j->c.row].nr_bypass++;
	ret = iolat_throttle_async_at(j->c.g, io->wl.flags & ~IOLAT_IO_NOWAIT, &io->io, &io->w, now);
	if (ret == 0) {
		iolat_sim_dev_submit(s->dev, &io->req);
	} else if (ret != IOLAT_QUEUED) {
		/* Cannot happen with a waiter; keep the books straight if it does. */
		s->error = ret;
		iolat_sim_dev_submit(s->dev, &io->req);
	}
}

/*
 * One submission round of @j at @now: fill up to iodepth with the I/O that is
 * due, after serving any delay its group owes (once per round).
 */
static void pump(struct sim_job *j, uint64_t now)
{
	struct sim *s = j->sim;
	bool check = !j->just_woke;

	if (j->done || s->stopped || now < j->sleep_until)
		return;
	j->just_woke = false;
	while (j->inflight < j->depth) {
		uint64_t t = iolat_workload_next_time(&j->c.wl, now);

		if (t == UINT64_MAX) {
			if (!j->inflight)
				job_finished(j, now);
			return;
		}
		if (t > now) {
			schedule_pump(j, t);
			return;
		}
		if (check && j->c.g) {
			uint64_t due = iolat_group_delay_due(j->c.g);

			check = false;
			if (due) {
				iolat_group_note_slept(j->c.g, due);
				s->res->groups[j->c.row].slept_ns += due;
				j->sleep_until = now + due;
				iolat_workload_hold(&j->c.wl, j->sleep_until);
				j->just_woke = true;
				schedule_pump(j, j->sleep_until);
				return;
			}
		}
		if (s->thr_on) {
			/* The kernel-throttle plant instead of the pace gate (be_sim_throttle.c). */
			uint64_t wait = sim_thr_due(s, j->c.row, j->c.job->bs, j->c.job->ioflags &
						    (IOLAT_IO_META | IOLAT_IO_SWAP), now);

			if (wait) {
				iolat_workload_hold(&j->c.wl, now + wait);
				schedule_pump(j, now + wait);
				return;
			}
		} else if (j->c.g && !(j->c.job->ioflags & (IOLAT_IO_META | IOLAT_IO_SWAP))) {
			/* The adaptive mode's pace gate: a retry event when it says. */
			uint64_t pace = iolat_group_pace_due(j->c.g, j->c.job->bs, now);

			if (pace) {
				iolat_workload_hold(&j->c.wl, now + pace);
				schedule_pump(j, now + pace);
				return;
			}
		}
		issue(j, now);
	}
}

/*
 * Run events until the measured run ends. Every SIM_POLL_EVENTS events (a
 * fraction of a millisecond of wall time) look at the stop request and report
 * progress: neither changes what is simulated, so the output stays the same
 * for a job file and seed unless a stop cuts the run short.
 */
static void event_loop(struct sim *s)
{
	struct run *r = s->r;
	uint64_t n = 0;

	while (!s->stopped && !s->error && iolat_sim_evq_step(&s->q)) {
		struct iolat_run_progress p = { 0 };
		uint64_t now;

		if (++n % SIM_POLL_EVENTS)
			continue;
		now = iolat_sim_evq_now(&s->q);
		if (run_stop_requested(r)) {
			run_mark_interrupted(r);
			stop_run(s, now);
			break;
		}
		if (!r->o.progress)
			continue;
		p.elapsed_ns = now - r->start_ns;
		p.total_ns = r->end_ns == UINT64_MAX ? 0 : r->end_ns - r->start_ns;
		r->o.progress(r->o.ctx, &p);
	}
}

/* Start the clock's events, run until the end, then drain what is in flight. */
static void run_events(struct sim *s)
{
	struct run *r = s->r;
	uint64_t end;

	s->last_sample = r->start_ns;
	if (r->end_ns != UINT64_MAX)
		iolat_sim_evq_at(&s->q, r->end_ns, stop_ev, s, 0);
	if (r->jf->global.ramp_ns)
		iolat_sim_evq_at(&s->q, r->start_ns + r->jf->global.ramp_ns, ramp_ev, s, 0);
	if (r->ctl)
		iolat_sim_evq_after(&s->q, SIM_TICK_NS, tick_ev, s, 0);
	sim_thr_start(s);
	iolat_sim_evq_after(&s->q, r->res->sample_ns, sample_ev, s, 0);
	for (unsigned i = 0; i < r->nr_clones; i++)
		schedule_pump(sim_job_at(s, i), r->start_ns);
	if (!r->nr_clones)
		stop_run(s, r->start_ns);

	event_loop(s);
	/* Drain: complete what is in flight so the controller ends idle. */
	end = iolat_sim_evq_now(&s->q);
	while (s->inflight && !s->error && iolat_sim_evq_now(&s->q) - end < SIM_MAX_DRAIN_NS &&
	       iolat_sim_evq_step(&s->q))
		;
	r->res->drain_ns = iolat_sim_evq_now(&s->q) - end;
	r->res->events = s->q.nr_run;
}

/* The run (the backend's drive): events until the end, the drain; after
 * it every I/O completed exactly once. */
int sim_drive(struct run *r, char *err, size_t errlen)
{
	struct sim *s = r->be_state;

	run_events(s);
	if (s->inflight)
		r->ctl = NULL;   /* I/O stuck in it: leak it rather than destroy it */
	if (s->error)
		return s->error;
	if (s->inflight)
		return iolat_errf(err, errlen, -EIO, "%s: %llu I/Os never completed (a wedged "
				  "controller?)", r->jf->file, (unsigned long long)s->inflight);
	return 0;
}
