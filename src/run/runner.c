/* SPDX-License-Identifier: MIT */
/*
 * runner.c - the real-I/O runner (runner.h): the run itself (orchestration,
 * progress, stop, teardown); one job's loop is runner_loop.c, set-up
 * runner_setup.c, the checks runner_check.c, the shared state runner_priv.h.
 * Setup on the calling thread:
 * controller and groups from the job file (device facts from sysfs), files
 * laid out, one engine per job clone. Then one thread per job clone runs an
 * event loop: take the workload's due I/Os at one clock reading, admit each
 * through the controller (iolat_throttle_async_at), queue the admitted ones
 * on the engine, commit once, reap a batch, and complete each I/O with
 * iolat_done_at() at the engine's clock reading. Grants for queued
 * admissions arrive through the waiter callback, from any thread: they go on
 * the job's grant list and wake its engine. Charged delay is served by not
 * issuing (iolat_group_delay_due). The calling thread samples the report,
 * reports progress, and forwards a stop request.
 * Reliability (docs/reliability.md): with IOLAT_CHECK=1 in the environment
 * (always in -DIOLAT_DEBUG builds) the controller's invariants are checked at
 * every sample and at the end, with the exact per-group accounting (every
 * admitted I/O completed once). Writes to files with verify= jobs are tracked
 * per block (the verify map below); after the run every block whose last
 * write was reported successful is read back and must carry that write.
 * Context: see runner.h; each job's state belongs to its thread, except the
 * grant list (its mutex), the progress counters (atomics) and the verify
 * map (its mutex).
 */
#include "run/runner.h"
#include "run/runner_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/devinfo.h"
#include "engine/eng_faulty.h"
#include "engine/engine.h"
#include "engine/verify.h"
#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_ctl_check_invariants() */
#include "job/engines.h"
#include "run/run_setup.h"
#include "run/fileprep.h"
#include "run/preflight.h"
#include "run/vmap.h"
#include "run/workload.h"
#include "util/units.h"

uint64_t rn_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

int rn_set_err(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

void rn_note(struct runner *r, const char *fmt, ...)
{
	char line[IOLAT_RUNNER_NOTE_MAX];
	va_list ap;

	if (!r->o.note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->o.note(r->o.ctx, line);
}

bool rn_stopping(const struct runner *r)
{
	return atomic_load_explicit(&r->stop_all, memory_order_relaxed);
}

/* ---- the run ---- */

static void progress(struct runner *r, uint64_t start, uint64_t now, uint64_t total,
		     uint64_t *last_ios, uint64_t *last_bytes, uint64_t *last_ns)
{
	struct iolat_runner_progress p = {
		.elapsed_ns = now - start, .total_ns = total,
	};
	double dt = (double)(now - *last_ns) / 1e9;

	for (unsigned i = 0; i < r->nr_jobs; i++) {
		p.ios += atomic_load_explicit(&r->jobs[i].ios, memory_order_relaxed);
		p.bytes += atomic_load_explicit(&r->jobs[i].bytes, memory_order_relaxed);
		p.errors += atomic_load_explicit(&r->jobs[i].errors, memory_order_relaxed);
	}
	pthread_mutex_lock(&r->lock);
	p.jobs_running = r->nr_jobs - r->nr_finished;
	pthread_mutex_unlock(&r->lock);
	if (dt > 0) {
		p.iops = (double)(p.ios - *last_ios) / dt;
		p.mib_s = (double)(p.bytes - *last_bytes) / dt / 1048576.0;
	}
	*last_ios = p.ios;
	*last_bytes = p.bytes;
	*last_ns = now;
	r->o.progress(r->o.ctx, &p);
}

static void wait_until(struct runner *r, uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / NSEC_PER_SEC), .tv_nsec = (long)(t % NSEC_PER_SEC),
	};

	pthread_mutex_lock(&r->lock);
	if (r->nr_finished < r->nr_jobs)
		pthread_cond_timedwait(&r->cv, &r->lock, &ts);
	pthread_mutex_unlock(&r->lock);
}

/* One thread per job clone; on failure the started ones are stopped and joined. */
static int start_threads(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		int ret = pthread_create(&r->jobs[i].thread, NULL, rn_job_main, &r->jobs[i]);

		if (ret) {
			atomic_store(&r->stop_all, true);
			for (unsigned k = 0; k < i; k++)
				iolat_eng_wake(r->jobs[k].eng);
			for (unsigned k = 0; k < i; k++)
				pthread_join(r->jobs[k].thread, NULL);
			return rn_set_err(err, errlen, -ret, "cannot start a job thread: %s",
				       strerror(ret));
		}
		r->jobs[i].started = true;
	}
	return 0;
}

/* A stop was requested (a signal): end every job, and say the run was cut short. */
static void forward_stop(struct runner *r)
{
	if (!r->o.stop || !atomic_load(r->o.stop) || rn_stopping(r))
		return;
	pthread_mutex_lock(&r->lock);
	r->res->interrupted = r->nr_finished < r->nr_jobs;
	pthread_mutex_unlock(&r->lock);
	atomic_store(&r->stop_all, true);
	for (unsigned i = 0; i < r->nr_jobs; i++)
		iolat_eng_wake(r->jobs[i].eng);
}

static int run_jobs(struct runner *r, uint64_t start, char *err, size_t errlen)
{
	struct iolat_runner_result *res = r->res;
	uint64_t sample_ns = r->o.sample_ns ? r->o.sample_ns
					    : iolat_job_default_sample_ns(r->jf, RUNNER_DEF_SAMPLE_NS);
	uint64_t prog_ns = r->o.progress_ns ? r->o.progress_ns : NSEC_PER_SEC;
	uint64_t ramp_end = r->jf->global.ramp_ns ? start + r->jf->global.ramp_ns : 0;
	uint64_t next_sample = (ramp_end ? ramp_end : start) + sample_ns, next_prog = start + prog_ns;
	uint64_t total = 0, last_ios = 0, last_bytes = 0, last_ns = start, now;
	bool all_done = false;
	int ret;

	for (unsigned i = 0; i < r->nr_jobs; i++) {
		uint64_t end = iolat_workload_end_ns(&r->jobs[i].wl);

		if (end == UINT64_MAX) {
			total = 0;
			break;
		}
		if (end - start > total)
			total = end - start;
	}
	ret = start_threads(r, err, errlen);
	if (ret)
		return ret;
	while (!all_done) {
		uint64_t wake = next_sample < next_prog || !r->o.progress ? next_sample : next_prog;

		if (ramp_end && ramp_end < wake)
			wake = ramp_end;

		/* Look at the stop request at least every RUNNER_STOP_POLL_NS. */
		now = rn_mono_ns();
		wait_until(r, wake < now + RUNNER_STOP_POLL_NS ? wake : now + RUNNER_STOP_POLL_NS);
		now = rn_mono_ns();
		forward_stop(r);
		pthread_mutex_lock(&r->lock);
		all_done = r->nr_finished == r->nr_jobs;
		pthread_mutex_unlock(&r->lock);
		if (ramp_end && now >= ramp_end && !all_done) {
			/* ramp_time is over: the report starts from here. */
			iolat_report_end_ramp(r->rep, now);
			ramp_end = 0;
			next_sample = now + sample_ns;
		}
		if (now >= next_sample && !all_done) {
			iolat_report_sample(r->rep, now);
			rn_check_now(r, "during the run");
			while (next_sample <= now)
				next_sample += sample_ns;
		}
		if (r->o.progress && now >= next_prog && !all_done) {
			progress(r, start, now, total, &last_ios, &last_bytes, &last_ns);
			while (next_prog <= now)
				next_prog += prog_ns;
		}
	}
	for (unsigned i = 0; i < r->nr_jobs; i++)
		pthread_join(r->jobs[i].thread, NULL);
	rn_collect_faults(r);
	now = rn_mono_ns();
	res->duration_ns = now - start;
	ret = iolat_report_finish(r->rep, now);
	iolat_report_set_interrupted(r->rep, res->interrupted);
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		struct rjob *j = &r->jobs[i];

		res->nr_submitted += j->submitted;
		res->nr_completed += j->completed;
		res->nr_errors += atomic_load(&j->errors);
		res->nr_short += j->shorts;
		res->nr_verify_failed += j->verify_failed;
		if (!res->first_error[0] && j->first_error[0])
			snprintf(res->first_error, sizeof(res->first_error), "%s", j->first_error);
	}
	return ret;
}

static void teardown(struct runner *r)
{
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		struct rjob *j = &r->jobs[i];

		iolat_eng_destroy(j->eng);
		iolat_eng_buf_free(j->bufmem);
		free(j->iov);
		free(j->slots);
		pthread_mutex_destroy(&j->glock);
	}
	free(r->jobs);
	for (unsigned k = 0; k < r->nr_vfiles; k++)
		iolat_vmap_destroy(r->vfiles[k].map);
	free(r->vfiles);
	if (r->ctl)
		iolat_ctl_destroy(r->ctl);
	free(r->groups);
	iolat_preflight_free(&r->pf);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->lock);
}

/* Every admitted I/O was completed: nothing in flight in the controller. */
int rn_check_idle(struct runner *r, char *err, size_t errlen)
{
	struct iolat_group_stat st;

	for (unsigned i = 0; r->ctl && i < r->jf->nr_groups; i++) {
		if (iolat_group_stat(r->groups[i], &st) == 0 && (st.inflight || st.waiters))
			return rn_set_err(err, errlen, -EIO,
				       "group '%s': %u I/Os in flight and %u waiting after the run",
				       r->jf->groups[i].path, st.inflight, st.waiters);
	}
	return 0;
}

/* The options (or their defaults), the result, the lock and the condition
 * the main loop sleeps on (on CLOCK_MONOTONIC). -ENOMEM without a result. */
static int runner_init(struct runner *r, const struct iolat_runner_opts *opts)
{
	static const struct iolat_runner_opts defaults = { .control = -1, .kernel_compat = -1 };
	pthread_condattr_t ca;

	r->o = opts ? *opts : defaults;
	r->res = calloc(1, sizeof(*r->res));
	if (!r->res)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cv, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&r->stop_all, false);
	r->check = rn_check_wanted();
	r->res->checked = r->check;
	return 0;
}

/* Control on or off (*@control) and its mode: the options over the job
 * file. Recorded in the result; returns the mode. */
static int pick_control(struct runner *r, bool *control)
{
	int mode = iolat_mode_pick(r->jf, r->o.mode, r->o.kernel_compat, r->o.default_mode);

	*control = r->o.control >= 0 ? r->o.control : r->jf->global.control;
	if (r->o.kernel_compat == 0 && !r->o.mode && mode == IOLAT_MODE_KERNEL)
		mode = IOLAT_MODE_ARTICLE; /* an explicit kernel_compat = 0 */
	r->res->control = *control;
	r->res->kernel_compat = *control && mode == IOLAT_MODE_KERNEL;
	return mode;
}

/* The report: its label (the device and the control), its sample interval. */
static int create_report(struct runner *r, bool control, int mode)
{
	struct iolat_report_cfg rcfg = { .jf = r->jf };
	bool compat = mode == IOLAT_MODE_KERNEL;
	const char *disk = r->res->disk;
	char label[160];

	if (r->o.label)
		snprintf(label, sizeof(label), "%s", r->o.label);
	else
		snprintf(label, sizeof(label), "%s%s%s: %s", disk[0] ? "device " : "",
			 disk, disk[0] ? "" : "real I/O",
			 !control ? "no control" : compat ? "io.latency (kernel compat)" :
			 mode == IOLAT_MODE_ADAPTIVE ? "io.latency (adaptive)" : "io.latency");
	rcfg.label = label;
	rcfg.no_control = !control;
	rcfg.adaptive = mode == IOLAT_MODE_ADAPTIVE;
	rcfg.sample_interval_ns = r->o.sample_ns ? r->o.sample_ns
				  : iolat_job_default_sample_ns(r->jf, RUNNER_DEF_SAMPLE_NS);
	rcfg.nr_requests = r->res->nr_requests;
	return iolat_report_create(&rcfg, &r->rep);
}

/* With a controller: its groups in the report (the root's too when a job
 * runs there), then its timer. */
static int start_control(struct runner *r, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = r->jf;
	bool root_used = false;
	int ret;

	if (!r->ctl)
		return 0;
	for (unsigned i = 0; i < jf->nr_groups; i++)
		iolat_report_bind_group(r->rep, i, r->groups[i]);
	for (unsigned i = 0; i < jf->nr_jobs; i++)
		root_used |= jf->jobs[i].group < 0;
	if (root_used)
		iolat_report_bind_group(r->rep, iolat_report_root_index(r->rep),
					iolat_ctl_root(r->ctl));
	ret = iolat_ctl_start_timer(r->ctl);
	if (ret)
		return rn_set_err(err, errlen, ret, "cannot start the controller's timer: %s",
				  strerror(-ret));
	return 0;
}

/* After the jobs: nothing left in flight, the invariants (when checked),
 * the verify pass. A controller still busy is leaked, not destroyed. */
static int check_after_run(struct runner *r, char *err, size_t errlen)
{
	int ret = rn_check_idle(r, err, errlen);

	if (ret) {
		r->ctl = NULL;   /* not idle: leak it rather than destroy it under I/O */
		return ret;
	}
	if (r->check) {
		ret = rn_check_final(r, err, errlen);
		if (ret)
			return ret;
	}
	return rn_verify_pass(r, err, errlen);
}

/* A failed run: one message, everything freed, and if no job ran, the
 * files' layout undone. */
static int run_failed(struct runner *r, int ret, char *err, size_t errlen)
{
	if (ret == -ENOMEM && err && errlen && !err[0])
		rn_set_err(err, errlen, ret, "out of memory");
	else if (err && errlen && !err[0])
		rn_set_err(err, errlen, ret, "%s: %s", r->jf->file, strerror(-ret));
	teardown(r);
	if (!r->jobs_ran)
		iolat_fileprep_undo(&r->fp, r->o.note, r->o.ctx);   /* nothing ran: leave nothing */
	iolat_fileprep_free(&r->fp);
	iolat_report_destroy(r->rep);
	free(r->res);
	return ret;
}

int iolat_runner_run(const struct iolat_jobfile *jf, const struct iolat_runner_opts *opts,
		     struct iolat_runner_result **out, char *err, size_t errlen)
{
	struct runner r = { .jf = jf };
	bool control;
	uint64_t start;
	int ret, mode;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!jf)
		return -EINVAL;
	ret = runner_init(&r, opts);
	if (ret)
		return ret;
	mode = pick_control(&r, &control);
	/* Every check before the first side effect (preflight.h). */
	ret = iolat_preflight_check(jf, r.o.fault_options, &r.pf, err, errlen);
	if (ret)
		return run_failed(&r, ret, err, errlen);
	r.res->mode = control ? mode : IOLAT_MODE_UNSET;
	rn_device_facts(&r);
	if (control)
		ret = rn_setup_controller(&r, iolat_mode_flags(mode), err, errlen);
	if (!ret)
		ret = iolat_fileprep_layout(&r.fp, &r.pf, r.o.stop, r.o.note, r.o.ctx, err, errlen);
	if (!ret)
		ret = create_report(&r, control, mode);
	if (ret)
		return run_failed(&r, ret, err, errlen);
	start = rn_mono_ns();
	ret = rn_setup_jobs(&r, start, err, errlen);
	if (!ret)
		ret = rn_setup_verify(&r, err, errlen);
	if (!ret)
		ret = start_control(&r, err, errlen);
	if (!ret && r.o.stop && atomic_load(r.o.stop))
		ret = rn_set_err(err, errlen, -EINTR, "interrupted before the jobs started");
	if (ret)
		return run_failed(&r, ret, err, errlen);
	/* The workloads were set up to start at @start: start the clock now. */
	iolat_report_start(r.rep, start);
	r.jobs_ran = true;
	ret = run_jobs(&r, start, err, errlen);
	if (!ret)
		ret = check_after_run(&r, err, errlen);
	if (ret)
		return run_failed(&r, ret, err, errlen);
	r.res->report = r.rep;
	teardown(&r);
	iolat_fileprep_free(&r.fp);
	*out = r.res;
	return 0;
}

void iolat_runner_result_free(struct iolat_runner_result *res)
{
	if (!res)
		return;
	iolat_report_destroy(res->report);
	free(res);
}
