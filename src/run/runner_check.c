/* SPDX-License-Identifier: MIT */
/*
 * runner_check.c - the real-time run's reliability checks: fault counts from
 * faulty engines, the verify pass after the run, and the invariant and
 * accounting checks of IOLAT_CHECK=1.
 * Context: see runner.h and runner_priv.h.
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

/* ---- reliability: fault counts, the verify pass, invariant checks ---- */

/* IOLAT_CHECK=1 in the environment, or always in an IOLAT_DEBUG build. */
bool rn_check_wanted(void)
{
#ifdef IOLAT_DEBUG
	return true;
#else
	const char *v = getenv("IOLAT_CHECK");

	return v && !strcmp(v, "1");
#endif
}

/* The controller's invariants at any moment; keeps the first violation. */
void rn_check_now(struct runner *r, const char *when)
{
	char why[IOLAT_RUNNER_NOTE_MAX - 48];

	if (!r->check || !r->ctl || r->check_err[0])
		return;
	if (iolat_ctl_check_invariants(r->ctl, why, sizeof(why)))
		snprintf(r->check_err, sizeof(r->check_err), "invariant broken %s: %s", when, why);
}

/*
 * After the run, with every job thread joined: nothing completed twice, every
 * submitted I/O completed, and per group the controller's completions equal
 * the admissions the jobs made (less the ones cancelled while waiting):
 * admitted = completed + in flight, with in flight 0 (rn_check_idle).
 */
int rn_check_final(struct runner *r, char *err, size_t errlen)
{
	struct iolat_group_stat st;

	rn_check_now(r, "after the run");
	if (r->check_err[0])
		return rn_set_err(err, errlen, -EUCLEAN, "%s", r->check_err);
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		const struct rjob *j = &r->jobs[i];

		if (j->double_done)
			return rn_set_err(err, errlen, -EUCLEAN, "job '%s': %" PRIu64
				       " I/Os completed twice", j->job->name, j->double_done);
		if (j->submitted != j->completed)
			return rn_set_err(err, errlen, -EUCLEAN, "job '%s': %" PRIu64 " I/Os submitted, %"
				       PRIu64 " completed", j->job->name, j->submitted, j->completed);
	}
	if (!r->ctl || !iolat_ctl_enabled(r->ctl))
		return 0;   /* without a target nothing is tracked */
	for (unsigned gi = 0; gi < r->jf->nr_groups; gi++) {
		uint64_t want = 0;

		for (unsigned i = 0; i < r->nr_jobs; i++)
			if (r->jobs[i].job->group == (int)gi)
				want += r->jobs[i].admitted - r->jobs[i].cancelled;
		if (iolat_group_stat(r->groups[gi], &st) == 0 && st.nr_done != want)
			return rn_set_err(err, errlen, -EUCLEAN, "group '%s': %" PRIu64 " I/Os admitted, "
				       "%" PRIu64 " completed in the controller", r->jf->groups[gi].path,
				       want, st.nr_done);
	}
	return 0;
}

/* What each faulty:<engine> job injected: into the report and the result. */
void rn_collect_faults(struct runner *r)
{
	struct iolat_runner_result *res = r->res;

	for (unsigned i = 0; i < r->nr_jobs; i++) {
		struct iolat_eng_fault_stats st;
		struct iolat_report_faults f;

		if (!r->jobs[i].eng || iolat_eng_faulty_stats(r->jobs[i].eng, &st))
			continue;
		f = (struct iolat_report_faults){
			.eio = st.eio, .enospc = st.enospc, .short_io = st.short_io,
			.spikes = st.spikes, .stalls = st.stalls, .held = st.held,
		};
		iolat_report_add_faults(r->rep, r->jobs[i].job_index, &f);
		res->inj_eio += st.eio;
		res->inj_enospc += st.enospc;
		res->inj_short += st.short_io;
		res->inj_spikes += st.spikes;
		res->inj_stalls += st.stalls;
	}
}

static bool writes_file(const struct iolat_job *job, const char *path)
{
	return !rn_diskless(job) && job->filename && !strcmp(job->filename, path) &&
	       iolat_rw_has_write(job->rw);
}

/*
 * A verify map for every file that a verify= job writes, over the writers'
 * regions together, in blocks of the largest power of two (512..4096) that
 * divides every writer's bs and offset. Every writer of the file is tracked;
 * a write without verify= leaves its blocks unspecified.
 */
int rn_setup_verify(struct runner *r, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = r->jf;

	for (unsigned i = 0; i < r->nr_jobs; i++) {
		const struct iolat_job *job = r->jobs[i].job;
		struct rvfile *vf = NULL, *n;
		uint64_t fsize, base = UINT64_MAX, end = 0;
		uint32_t block = 4096;
		struct stat st;
		int ret;

		if (!writes_file(job, job->filename ? job->filename : "") ||
		    job->verify == IOLAT_VERIFY_NONE)
			continue;
		for (unsigned k = 0; k < r->nr_vfiles && !vf; k++)
			if (!strcmp(r->vfiles[k].path, job->filename))
				vf = &r->vfiles[k];
		if (vf)
			continue;
		ret = rn_file_size(job->filename, &fsize);
		if (ret)
			return rn_set_err(err, errlen, ret, "%s: %s", job->filename, strerror(-ret));
		for (unsigned k = 0; k < jf->nr_jobs; k++) {
			const struct iolat_job *o = &jf->jobs[k];
			uint64_t e;

			if (!writes_file(o, job->filename))
				continue;
			while (block > IOLAT_ENG_VERIFY_BLOCK && (o->bs % block || o->offset % block))
				block /= 2;
			e = o->size ? o->offset + o->size : fsize;
			if (o->offset < base)
				base = o->offset;
			if (e > end)
				end = e;
		}
		if (end > fsize)
			end = fsize;
		base -= base % block;
		end -= end % block;
		if (end <= base)
			continue;
		n = realloc(r->vfiles, (r->nr_vfiles + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		r->vfiles = n;
		vf = &r->vfiles[r->nr_vfiles];
		memset(vf, 0, sizeof(*vf));
		vf->path = job->filename;
		vf->base = base;
		vf->end = end;
		/* The layout (fileprep.c) wrote a regular file as verify blocks of generation 0. */
		vf->formatted = stat(job->filename, &st) == 0 && S_ISREG(st.st_mode);
		ret = iolat_vmap_create(base, end - base, block, vf->formatted, &vf->map);
		if (ret)
			return ret;
		r->nr_vfiles++;
	}
	for (unsigned i = 0; i < r->nr_jobs; i++) {
		struct rjob *j = &r->jobs[i];

		for (unsigned k = 0; k < r->nr_vfiles; k++)
			if (writes_file(j->job, r->vfiles[k].path))
				j->vmap = r->vfiles[k].map;
	}
	return 0;
}

/*
 * The read-back: every tracked block of every verify file, outside the
 * engines and the controller (pread), after the data was synced and dropped
 * from the page cache so that it comes from the device.
 */
int rn_verify_pass(struct runner *r, char *err, size_t errlen)
{
	struct iolat_runner_result *res = r->res;
	struct iolat_report_verify rv = { 0 };

	for (unsigned k = 0; k < r->nr_vfiles; k++) {
		struct rvfile *vf = &r->vfiles[k];
		struct iolat_vmap_stats st;
		int fd = open(vf->path, O_RDONLY | O_CLOEXEC), ret;

		if (fd < 0)
			return rn_set_err(err, errlen, -errno, "verify: %s: %s", vf->path,
				       strerror(errno));
		fsync(fd);
		posix_fadvise(fd, (off_t)vf->base, (off_t)(vf->end - vf->base), POSIX_FADV_DONTNEED);
		ret = iolat_vmap_check(vf->map, fd, &st);
		close(fd);
		if (ret)
			return rn_set_err(err, errlen, ret, "verify: %s: %s", vf->path,
				       ret == -ENOMEM ? "out of memory tracking the writes" :
				       strerror(-ret));
		res->verify_ran = true;
		res->verify_checked += st.blocks_checked;
		res->verify_written += st.blocks_written;
		res->verify_bad += st.blocks_bad;
		res->verify_unspecified += st.blocks_unspecified;
		if (!res->verify_block || st.block_size < res->verify_block)
			res->verify_block = st.block_size;
		if (!res->verify_first_bad[0] && st.first_bad[0])
			snprintf(res->verify_first_bad, sizeof(res->verify_first_bad), "%.80s: %.200s",
				 vf->path, st.first_bad);
	}
	if (!res->verify_ran)
		return 0;
	rv.checked = res->verify_checked;
	rv.written = res->verify_written;
	rv.bad = res->verify_bad;
	rv.unspecified = res->verify_unspecified;
	rv.block = res->verify_block;
	rv.first_bad = res->verify_first_bad;
	iolat_report_set_verify(r->rep, &rv);
	return 0;
}
