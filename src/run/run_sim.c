/* SPDX-License-Identifier: MIT */
/*
 * run_sim.c - the job layer's virtual-time run (run_sim.h): a job file on a
 * simulated device (src/sim), in virtual time, through the real controller:
 * the submitters, the tick, sampling, the end of a run and the drain, the
 * results (set-up is run_sim_setup.c; the state, run_sim_priv.h).
 * Context: one thread per run; all state is local to the run.
 */

/*
 * Each job clone is one submitter. It issues its workload's I/O (offsets,
 * arrivals, rate caps and bursts come from src/job/workload) up to iodepth
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
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_window_ns() */
#include "run/run_setup.h"
#include "run/run_sim_priv.h"
#include "util/grow.h"

void sim_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

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
	uint64_t rel = now - s->t0;

	for (int ri = (int)j->row; ri >= 0; ri = s->rows[ri].parent) {
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
		sm->t_ns = now - s->t0;
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
			}
		}
		iolat_hist_reset(&row->hs);
		row->s_bytes = 0;
	}
	res->nr_samples = n + 1;
	s->last_sample = now;
	if (iolat_report_sample(s->rep, now))
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
		if (rg->win_ns && (s->rows[ri].w_idx + 1) * rg->win_ns <= now - s->t0)
			close_window(s, ri);
	}
	s->res->duration_ns = now - s->t0;
	if (iolat_report_finish(s->rep, now))
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
		iolat_report_end_ramp(s->rep, now);
}

static void sample_ev(void *arg, uint64_t data, uint64_t now)
{
	struct sim *s = arg;

	if (s->stopped)
		return;
	take_sample(s, now);
	iolat_sim_evq_after(&s->q, s->res->sample_ns, sample_ev, s, 0);
}

static void tick_ev(void *arg, uint64_t data, uint64_t now)
{
	struct sim *s = arg;

	iolat_ctl_tick(s->ctl);
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
	if (--s->active == 0 && s->t_end == UINT64_MAX)
		stop_run(s, now);
}

void sim_io_granted(struct iolat_waiter *w)
{
	struct sim_io *io = (struct sim_io *)((char *)w - offsetof(struct sim_io, w));
	struct sim *s = io->job->sim;

	if (io->wl.flags & (IOLAT_IO_META | IOLAT_IO_SWAP)) {
		/* Bypass I/O must never wait: record it if it ever does. */
		struct iolat_sim_group *rg = &s->res->groups[io->job->row];
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

	if (j->g)
		iolat_done_at(&io->io, now);
	s->inflight--;
	s->res->nr_completed++;
	if (!s->stopped) {
		iolat_report_add_io(s->rep, j->job_index, io->wl.write, io->wl.len, lat, 0);
		account(s, j, lat, io->wl.len, now);
	}
	iolat_workload_completed(&j->wl, now);
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

	if (iolat_workload_next(&j->wl, now, &io->wl))
		return;
	j->free = io->next_free;
	j->inflight++;
	s->inflight++;
	s->res->nr_submitted++;
	io->issue_ns = now;
	io->req.off = io->wl.offset;
	io->req.len = io->wl.len;
	io->req.write = io->wl.write;
	if (!j->g) {
		iolat_sim_dev_submit(s->dev, &io->req);
		return;
	}
	if (io->wl.flags & (IOLAT_IO_META | IOLAT_IO_SWAP))
		s->res->groups[j->row].nr_bypass++;
	ret = iolat_throttle_async_at(j->g, io->wl.flags & ~IOLAT_IO_NOWAIT, &io->io, &io->w, now);
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
		uint64_t t = iolat_workload_next_time(&j->wl, now);

		if (t == UINT64_MAX) {
			if (!j->inflight)
				job_finished(j, now);
			return;
		}
		if (t > now) {
			schedule_pump(j, t);
			return;
		}
		if (check && j->g) {
			uint64_t due = iolat_group_delay_due(j->g);

			check = false;
			if (due) {
				iolat_group_note_slept(j->g, due);
				s->res->groups[j->row].slept_ns += due;
				j->sleep_until = now + due;
				j->just_woke = true;
				schedule_pump(j, j->sleep_until);
				return;
			}
		}
		if (j->g && !(j->job->ioflags & (IOLAT_IO_META | IOLAT_IO_SWAP))) {
			/* The adaptive mode's pace gate: a retry event when it says. */
			uint64_t pace = iolat_group_pace_due(j->g, j->job->bs, now);

			if (pace) {
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
static void event_loop(struct sim *s, const struct iolat_sim_opts *o)
{
	uint64_t n = 0;

	while (!s->stopped && !s->error && iolat_sim_evq_step(&s->q)) {
		uint64_t now;

		if (++n % SIM_POLL_EVENTS)
			continue;
		now = iolat_sim_evq_now(&s->q);
		if (o->stop && atomic_load(o->stop)) {
			s->res->interrupted = true;
			iolat_report_set_interrupted(s->rep, true);
			stop_run(s, now);
			break;
		}
		if (o->progress)
			o->progress(o->ctx, now - s->t0,
				    s->t_end == UINT64_MAX ? 0 : s->t_end - s->t0);
	}
}

/* Start the clock's events, run until the end, then drain what is in flight. */
static void run_events(struct sim *s, const struct iolat_sim_opts *o)
{
	uint64_t end;

	iolat_report_start(s->rep, s->t0);
	s->last_sample = s->t0;
	if (s->t_end != UINT64_MAX)
		iolat_sim_evq_at(&s->q, s->t_end, stop_ev, s, 0);
	if (s->jf->global.ramp_ns)
		iolat_sim_evq_at(&s->q, s->t0 + s->jf->global.ramp_ns, ramp_ev, s, 0);
	if (s->ctl)
		iolat_sim_evq_after(&s->q, SIM_TICK_NS, tick_ev, s, 0);
	iolat_sim_evq_after(&s->q, s->res->sample_ns, sample_ev, s, 0);
	for (unsigned i = 0; i < s->nr_jobs; i++)
		schedule_pump(&s->jobs[i], s->t0);
	if (!s->nr_jobs)
		stop_run(s, s->t0);

	event_loop(s, o);
	/* Drain: complete what is in flight so the controller ends idle. */
	end = iolat_sim_evq_now(&s->q);
	while (s->inflight && !s->error && iolat_sim_evq_now(&s->q) - end < SIM_MAX_DRAIN_NS &&
	       iolat_sim_evq_step(&s->q))
		;
	s->res->drain_ns = iolat_sim_evq_now(&s->q) - end;
	s->res->events = s->q.nr_run;
}

/* After the drain: every I/O completed exactly once, the controller is idle. */
static int check_idle(struct sim *s, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = s->jf;

	if (s->inflight) {
		sim_set_err(err, errlen, "%s: %llu I/Os never completed (a wedged controller?)",
			    jf->file, (unsigned long long)s->inflight);
		return -EIO;
	}
	for (unsigned i = 0; s->ctl && i < jf->nr_groups; i++) {
		struct iolat_group_stat st;

		if (!iolat_group_stat(s->rows[i].g, &st) && (st.inflight || st.waiters)) {
			sim_set_err(err, errlen, "%s: group '%s' still has %u in flight and %u "
				    "waiting after every I/O completed", jf->file,
				    jf->groups[i].path, st.inflight, st.waiters);
			s->inflight = 1;   /* keep the controller: destroying it would not be safe */
			return -EIO;
		}
	}
	return 0;
}

/* Set up every part of the run from the job file (each refusal as one line
 * in @err), then, unless @check_only, run it. */
static int run(struct sim *s, const struct iolat_sim_opts *o, bool check_only,
	       char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = s->jf;
	struct iolat_sim_result *res = s->res;
	bool control = o->control >= 0 ? o->control : jf->global.control;
	int mode = iolat_mode_pick(jf, o->mode, o->kernel_compat, o->default_mode);
	bool compat;
	int ret;

	if (o->kernel_compat == 0 && !o->mode && mode == IOLAT_MODE_KERNEL)
		mode = IOLAT_MODE_ARTICLE; /* an explicit kernel_compat = 0 */
	compat = mode == IOLAT_MODE_KERNEL;
	res->control = control;
	res->kernel_compat = control && compat;
	res->mode = control ? mode : IOLAT_MODE_UNSET;
	res->seed = o->seed_set ? o->seed : jf->global.seed;
	res->sample_ns = o->sample_ns ? o->sample_ns
				      : iolat_job_default_sample_ns(jf, SIM_DEF_SAMPLE_NS);
	s->t0 = IOLAT_SIM_T0_NS;
	iolat_sim_evq_init(&s->q, s->t0);
	iolat_sim_evq_clock(&s->q, &s->clk);

	ret = sim_setup_device(s, err, errlen);
	if (!ret && control)
		ret = sim_setup_controller(s, iolat_mode_flags(mode), err, errlen);
	if (!ret)
		ret = sim_setup_jobs(s, err, errlen);
	if (!ret)
		ret = sim_setup_report(s, control, mode, o->label);
	if (ret || check_only)
		return ret;
	run_events(s, o);
	if (s->error)
		return s->error;
	return check_idle(s, err, errlen);
}

static int sim_do(const struct iolat_jobfile *jf, const struct iolat_sim_opts *opts,
		  bool check_only, struct iolat_sim_result **out, char *err, size_t errlen)
{
	static const struct iolat_sim_opts defaults = { .control = -1, .kernel_compat = -1 };
	struct sim *s;
	struct iolat_sim_result *res;
	int ret = -ENOMEM;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!jf)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	res = calloc(1, sizeof(*res));
	if (!s || !res)
		goto out;
	s->jf = jf;
	s->res = res;
	s->nr_rows = jf->nr_groups + 1;
	s->root_row = jf->nr_groups;
	s->rows = calloc(s->nr_rows, sizeof(*s->rows));
	res->groups = calloc(s->nr_rows, sizeof(*res->groups));
	if (!s->rows || !res->groups)
		goto out;
	res->nr_groups = s->nr_rows;
	for (unsigned i = 0; i < s->nr_rows; i++) {
		struct iolat_sim_group *rg = &res->groups[i];
		struct sim_row *row = &s->rows[i];

		iolat_hist_reset(&row->hs);
		iolat_hist_reset(&row->hw);
		if (i < jf->nr_groups) {
			rg->path = jf->groups[i].path;
			rg->target_ns = jf->groups[i].target_ns;
			rg->win_ns = rg->target_ns ? iolat_window_ns(rg->target_ns) : 0;
			row->parent = jf->groups[i].parent;
		} else {
			rg->path = "(root)";
			row->parent = -1;
		}
	}
	ret = run(s, opts ? opts : &defaults, check_only, err, errlen);
	if (ret && err && errlen && !err[0])
		sim_set_err(err, errlen, "%s: simulation failed: %s", jf->file, strerror(-ret));
out:
	if (s) {
		if (s->ctl && !s->inflight)
			iolat_ctl_destroy(s->ctl);   /* with I/O stuck in it, leak rather than crash */
		iolat_sim_dev_destroy(s->dev);
		for (unsigned i = 0; i < s->nr_jobs; i++)
			free(s->jobs[i].ios);
		free(s->jobs);
		free(s->rows);
		iolat_sim_evq_destroy(&s->q);
		if (res)
			res->report = s->rep;
		else
			iolat_report_destroy(s->rep);
		free(s);
	}
	if (ret) {
		iolat_sim_result_free(res);
		return ret;
	}
	*out = res;
	return 0;
}

int iolat_sim_run(const struct iolat_jobfile *jf, const struct iolat_sim_opts *opts,
		  struct iolat_sim_result **out, char *err, size_t errlen)
{
	return sim_do(jf, opts, false, out, err, errlen);
}

int iolat_sim_check(const struct iolat_jobfile *jf, const struct iolat_sim_opts *opts,
		    char *err, size_t errlen)
{
	struct iolat_sim_result *res = NULL;
	const struct iolat_jobfile_scen *scen;
	int ret = iolat_jobfile_scenario(jf, &scen, err, errlen);

	if (ret)
		return ret;
	if (scen)   /* a scenario (src/scen): its own checks */
		return scen->check ? scen->check(jf, err, errlen) : 0;
	ret = sim_do(jf, opts, true, &res, err, errlen);
	iolat_sim_result_free(res);
	return ret;
}

void iolat_sim_result_free(struct iolat_sim_result *res)
{
	if (!res)
		return;
	for (unsigned i = 0; res->groups && i < res->nr_groups; i++) {
		free(res->groups[i].samples);
		free(res->groups[i].windows);
	}
	free(res->groups);
	iolat_report_destroy(res->report);
	free(res);
}

int iolat_sim_find_group(const struct iolat_sim_result *res, const char *path)
{
	for (unsigned i = 0; i < res->nr_groups; i++)
		if (!strcmp(res->groups[i].path, path))
			return (int)i;
	return -ENOENT;
}

int iolat_sim_format_models(char *buf, size_t len)
{
	const struct iolat_sim_model *const *m = iolat_sim_models();
	size_t used = 0;

	for (; *m; m++) {
		int n = snprintf(buf ? buf + (used < len ? used : len) : NULL,
				 used < len ? len - used : 0, "device=%s (%s; %s rule)\n  %s\n",
				 (*m)->name, (*m)->rotational ? "rotational" : "non-rotational",
				 (*m)->rotational ? "mean" : "p90", (*m)->summary);

		if (n < 0)
			return -EINVAL;
		used += (size_t)n;
		n = iolat_sim_param_format((*m)->params, buf ? buf + (used < len ? used : len) : NULL,
					   used < len ? len - used : 0);
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	return (int)used;
}
