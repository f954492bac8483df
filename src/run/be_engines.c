/* SPDX-License-Identifier: MIT */
/*
 * be_engines.c - the one runner's engines backend (run.h: real files
 * through the I/O engines, in real time): its table, its checks and files
 * before the run, and the run itself; one clone's loop is
 * be_engines_loop.c, set-up be_engines_setup.c, the checks
 * be_engines_check.c, the shared state be_engines_priv.h.
 * Before the run, on the calling thread: every check (preflight.h), device
 * facts from sysfs, the files laid out, one engine per job clone. Then one
 * thread per clone runs an event loop: take the workload's due I/Os at one
 * clock reading, admit each through the controller
 * (iolat_throttle_async_at), queue the admitted ones on the engine, commit
 * once, reap a batch, and complete each I/O with iolat_done_at() at the
 * engine's clock reading. Grants for queued admissions arrive through the
 * waiter callback, from any thread: they go on the clone's grant list and
 * wake its engine. Charged delay is served by not issuing
 * (iolat_group_delay_due). The calling thread samples the report, reports
 * progress, and forwards a stop request. A job with cgroup= runs in that
 * kernel cgroup (jobcg.h): made before the threads start, each thread moves
 * itself in first (v1; on v2 the process moved), removed at teardown.
 * Reliability (docs/reliability.md): with IOLAT_CHECK=1 in the environment
 * (always in -DIOLAT_DEBUG builds) the controller's invariants are checked at
 * every sample and at the end, with the exact per-group accounting (every
 * admitted I/O completed once). Writes to files with verify= jobs are tracked
 * per block (the verify map); after the run every block whose last write was
 * reported successful is read back and must carry that write.
 * Context: see run.h and be_engines_priv.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "iolatency.h"
#include "run/be_engines_priv.h"
#include "run/fileprep.h"
#include "run/preflight.h"
#include "util/errmsg.h"
#include "util/monocond.h"
#include "util/units.h"

/* ---- before the run ---- */

/* The state, its lock and the condition the main loop sleeps on (on
 * CLOCK_MONOTONIC); every check before the first side effect (preflight.h);
 * the device's facts. */
static int eng_prepare(struct run *r, char *err, size_t errlen)
{
	struct erun *e = r->be_state;
	int ret;

	e->r = r;
	iolat_monocond_init(&e->lock, &e->cv);
	e->ready = true;
	atomic_init(&e->stop_all, false);
	e->check = eng_check_wanted();
	r->res->checked = e->check;
	ret = iolat_jobcg_check(&e->cg, r->jf, NULL, NULL, err, errlen);
	if (!ret)
		ret = iolat_preflight_check(r->jf, r->o.fault_options, &e->pf, err, errlen);
	if (ret)
		return ret;
	eng_device_facts(e);
	return 0;
}

static int eng_lay_out(struct run *r, char *err, size_t errlen)
{
	struct erun *e = r->be_state;

	return iolat_fileprep_layout(&e->fp, &e->pf, r->o.stop, r->o.note, r->o.ctx, err, errlen);
}

static void eng_label(const struct run *r, char *buf, size_t len)
{
	const char *disk = r->res->device;

	snprintf(buf, len, "%s%s", disk[0] ? "device " : "real I/O", disk);
}

static uint64_t eng_now(const struct run *r)
{
	return eng_mono_ns();
}

/* The bytes a job's clones work on: its file's size past offset=, or for a
 * job without a file size= (else ENG_DEF_SIZE). */
static int eng_region(struct run *r, const struct iolat_job *job, uint64_t *region,
		      char *err, size_t errlen)
{
	*region = 0;
	if (!eng_diskless(job)) {
		int ret = eng_file_size(job->filename, region);

		if (ret)
			return iolat_errf(err, errlen, ret, "%s: %s", job->filename, strerror(-ret));
		*region = *region > job->offset ? *region - job->offset : 0;
	} else if (!job->size) {
		*region = ENG_DEF_SIZE;
	}
	return 0;
}

static int eng_bad_region(const struct run *r, const struct iolat_job *job, int ret,
			  char *err, size_t errlen)
{
	return iolat_errf(err, errlen, ret, "%s:%u: key 'size': job '%s': the region is smaller "
			  "than bs", r->jf->file, iolat_job_key_line(job, "size"), job->name);
}

/* ---- the run ---- */

static void progress(struct erun *e, uint64_t now, uint64_t total,
		     uint64_t *last_ios, uint64_t *last_bytes, uint64_t *last_ns)
{
	struct run *r = e->r;
	struct iolat_run_progress p = {
		.elapsed_ns = now - r->start_ns, .total_ns = total,
	};
	double dt = (double)(now - *last_ns) / 1e9;

	for (unsigned i = 0; i < r->nr_clones; i++) {
		struct eclone *j = eng_clone(e, i);

		p.ios += atomic_load_explicit(&j->ios, memory_order_relaxed);
		p.bytes += atomic_load_explicit(&j->bytes, memory_order_relaxed);
		p.errors += atomic_load_explicit(&j->errors, memory_order_relaxed);
	}
	pthread_mutex_lock(&e->lock);
	p.jobs_running = r->nr_clones - e->nr_finished;
	pthread_mutex_unlock(&e->lock);
	if (dt > 0) {
		p.iops = (double)(p.ios - *last_ios) / dt;
		p.mib_s = (double)(p.bytes - *last_bytes) / dt / 1048576.0;
	}
	*last_ios = p.ios;
	*last_bytes = p.bytes;
	*last_ns = now;
	r->o.progress(r->o.ctx, &p);
}

static void wait_until(struct erun *e, uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / NSEC_PER_SEC), .tv_nsec = (long)(t % NSEC_PER_SEC),
	};

	pthread_mutex_lock(&e->lock);
	if (e->nr_finished < e->r->nr_clones)
		pthread_cond_timedwait(&e->cv, &e->lock, &ts);
	pthread_mutex_unlock(&e->lock);
}

/* The controller's timer, then one thread per clone; on failure the
 * started ones are stopped and joined. */
static int start_threads(struct erun *e, char *err, size_t errlen)
{
	struct run *r = e->r;
	int ret = r->ctl ? iolat_ctl_start_timer(r->ctl) : 0;

	if (ret)
		return iolat_errf(err, errlen, ret, "cannot start the controller's timer: %s",
				  strerror(-ret));
	for (unsigned i = 0; i < r->nr_clones; i++) {
		ret = pthread_create(&eng_clone(e, i)->thread, NULL, eng_clone_main, eng_clone(e, i));
		if (ret) {
			atomic_store(&e->stop_all, true);
			for (unsigned k = 0; k < i; k++)
				iolat_eng_wake(eng_clone(e, k)->eng);
			for (unsigned k = 0; k < i; k++)
				pthread_join(eng_clone(e, k)->thread, NULL);
			return iolat_errf(err, errlen, -ret, "cannot start a job thread: %s",
					  strerror(ret));
		}
	}
	return 0;
}

/* A stop was requested (a signal): end every clone, and say the run was cut
 * short unless every clone was done already. */
static void forward_stop(struct erun *e)
{
	struct run *r = e->r;
	bool cut_short;

	if (!run_stop_requested(r) || eng_stopping(e))
		return;
	pthread_mutex_lock(&e->lock);
	cut_short = e->nr_finished < r->nr_clones;
	pthread_mutex_unlock(&e->lock);
	if (cut_short)
		run_mark_interrupted(r);
	atomic_store(&e->stop_all, true);
	for (unsigned i = 0; i < r->nr_clones; i++)
		iolat_eng_wake(eng_clone(e, i)->eng);
}

static bool all_done(struct erun *e)
{
	bool done;

	pthread_mutex_lock(&e->lock);
	done = e->nr_finished == e->r->nr_clones;
	pthread_mutex_unlock(&e->lock);
	return done;
}

/* The calling thread while the clones run: the stop request, the end of
 * ramp_time, samples and progress, until every clone is done. */
static void main_loop(struct erun *e)
{
	struct run *r = e->r;
	uint64_t sample_ns = r->res->sample_ns;
	uint64_t prog_ns = r->o.progress_ns ? r->o.progress_ns : NSEC_PER_SEC;
	uint64_t ramp_end = r->jf->global.ramp_ns ? r->start_ns + r->jf->global.ramp_ns : 0;
	uint64_t next_sample = (ramp_end ? ramp_end : r->start_ns) + sample_ns;
	uint64_t next_prog = r->start_ns + prog_ns;
	uint64_t total = r->end_ns == UINT64_MAX ? 0 : r->end_ns - r->start_ns;
	uint64_t last_ios = 0, last_bytes = 0, last_ns = r->start_ns, now;
	bool done = false;

	while (!done) {
		uint64_t wake = next_sample < next_prog || !r->o.progress ? next_sample : next_prog;

		if (ramp_end && ramp_end < wake)
			wake = ramp_end;
		/* Look at the stop request at least every ENG_STOP_POLL_NS. */
		now = eng_mono_ns();
		wait_until(e, wake < now + ENG_STOP_POLL_NS ? wake : now + ENG_STOP_POLL_NS);
		now = eng_mono_ns();
		forward_stop(e);
		done = all_done(e);
		if (ramp_end && now >= ramp_end && !done) {
			/* ramp_time is over: the report starts from here. */
			iolat_report_end_ramp(r->rep, now);
			ramp_end = 0;
			next_sample = now + sample_ns;
		}
		if (now >= next_sample && !done) {
			iolat_report_sample(r->rep, now);
			eng_check_now(e, "during the run");
			while (next_sample <= now)
				next_sample += sample_ns;
		}
		if (r->o.progress && now >= next_prog && !done) {
			progress(e, now, total, &last_ios, &last_bytes, &last_ns);
			while (next_prog <= now)
				next_prog += prog_ns;
		}
	}
}

static int eng_drive(struct run *r, char *err, size_t errlen)
{
	struct erun *e = r->be_state;
	struct iolat_run_result *res = r->res;
	int ret = iolat_jobcg_make(&e->cg, err, errlen);

	if (!ret)
		ret = start_threads(e, err, errlen);
	if (ret)
		return ret;
	main_loop(e);
	for (unsigned i = 0; i < r->nr_clones; i++)
		pthread_join(eng_clone(e, i)->thread, NULL);
	eng_collect_faults(e);
	ret = run_finish(r, eng_mono_ns());
	for (unsigned i = 0; i < r->nr_clones; i++) {
		struct eclone *j = eng_clone(e, i);

		res->nr_submitted += j->submitted;
		res->nr_completed += j->completed;
		res->nr_errors += atomic_load(&j->errors);
		res->nr_short += j->shorts;
		res->nr_verify_failed += j->verify_failed;
		if (!res->first_error[0] && j->first_error[0])
			snprintf(res->first_error, sizeof(res->first_error), "%s", j->first_error);
	}
	if (!ret && e->cg_error[0])
		ret = iolat_errf(err, errlen, -EIO, "%s", e->cg_error);
	return ret;
}

/* After the jobs and the idle check: the invariants (when checked), the
 * verify pass. */
static int eng_after(struct run *r, char *err, size_t errlen)
{
	struct erun *e = r->be_state;

	if (e->check) {
		int ret = eng_check_final(e, err, errlen);

		if (ret)
			return ret;
	}
	return eng_verify_pass(e, err, errlen);
}

/* Everything freed; after a failure before any job started, the files'
 * layout undone too. */
static void eng_teardown(struct run *r, bool failed)
{
	struct erun *e = r->be_state;

	if (!e->ready)
		return;   /* prepare did not run */
	for (unsigned i = 0; i < r->nr_clones; i++) {
		struct eclone *j = eng_clone(e, i);

		iolat_eng_destroy(j->eng);
		iolat_eng_buf_free(j->bufmem);
		free(j->iov);
		free(j->slots);
		if (j->ready)
			pthread_mutex_destroy(&j->glock);
	}
	for (unsigned k = 0; k < e->nr_vfiles; k++)
		iolat_vmap_destroy(e->vfiles[k].map);
	free(e->vfiles);
	iolat_preflight_free(&e->pf);
	iolat_jobcg_remove(&e->cg, r->o.note, r->o.ctx);   /* every path: the cgroups iolat made go */
	if (failed && !r->jobs_started)
		iolat_fileprep_undo(&e->fp, r->o.note, r->o.ctx);   /* nothing ran: leave nothing */
	iolat_fileprep_free(&e->fp);
	pthread_cond_destroy(&e->cv);
	pthread_mutex_destroy(&e->lock);
}

const struct iolat_run_backend iolat_backend_engines = {
	.name = "engines", .fail_what = "",
	.clone_size = sizeof(struct eclone), .state_size = sizeof(struct erun),
	.default_sample_ns = NSEC_PER_SEC,
	.prepare = eng_prepare, .lay_out = eng_lay_out, .label = eng_label, .now = eng_now,
	.region = eng_region, .bad_region = eng_bad_region,
	.setup_clone = eng_setup_clone, .setup_done = eng_setup_verify,
	.drive = eng_drive, .after = eng_after, .teardown = eng_teardown,
};
