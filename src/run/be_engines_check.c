/* SPDX-License-Identifier: MIT */
/*
 * be_engines_check.c - the engines backend's reliability checks: fault counts from
 * faulty engines, the verify pass after the run, and the invariant and
 * accounting checks of IOLAT_CHECK=1.
 * Context: see run.h and be_engines_priv.h; the calling thread, clones joined.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/eng_faulty.h"
#include "engine/engine.h"
#include "engine/engspec.h"
#include "engine/verify.h"
#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_ctl_check_invariants() */
#include "run/be_engines_priv.h"
#include "run/vmap.h"
#include "util/errmsg.h"

/* ---- reliability: fault counts, the verify pass, invariant checks ---- */

/* IOLAT_CHECK=1 in the environment, or always in an IOLAT_DEBUG build. */
bool eng_check_wanted(void)
{
#ifdef IOLAT_DEBUG
	return true;
#else
	const char *v = getenv("IOLAT_CHECK");

	return v && !strcmp(v, "1");
#endif
}

/* The controller's invariants at any moment; keeps the first violation. */
void eng_check_now(struct erun *e, const char *when)
{
	char why[IOLAT_RUN_NOTE_MAX - 48];

	if (!e->check || !e->r->ctl || e->check_err[0])
		return;
	if (iolat_ctl_check_invariants(e->r->ctl, why, sizeof(why)))
		snprintf(e->check_err, sizeof(e->check_err), "invariant broken %s: %s", when, why);
}

/*
 * After the run, with every job thread joined: nothing completed twice, every
 * submitted I/O completed, and per group the controller's completions equal
 * the admissions the jobs made (less the ones cancelled while waiting):
 * admitted = completed + in flight, with in flight 0 (run.c's idle check).
 */
int eng_check_final(struct erun *e, char *err, size_t errlen)
{
	const struct run *r = e->r;
	struct iolat_group_stat st;

	eng_check_now(e, "after the run");
	if (e->check_err[0])
		return iolat_errf(err, errlen, -EUCLEAN, "%s", e->check_err);
	for (unsigned i = 0; i < r->nr_clones; i++) {
		const struct eclone *j = eng_clone(e, i);

		if (j->double_done)
			return iolat_errf(err, errlen, -EUCLEAN, "job '%s': %" PRIu64
				       " I/Os completed twice", j->c.job->name, j->double_done);
		if (j->submitted != j->completed)
			return iolat_errf(err, errlen, -EUCLEAN, "job '%s': %" PRIu64 " I/Os submitted, %"
				       PRIu64 " completed", j->c.job->name, j->submitted, j->completed);
	}
	if (!r->ctl || !iolat_ctl_enabled(r->ctl))
		return 0;   /* without a target nothing is tracked */
	for (unsigned gi = 0; gi < r->jf->nr_groups; gi++) {
		uint64_t want = 0;

		for (unsigned i = 0; i < r->nr_clones; i++)
			if (eng_clone(e, i)->c.job->group == (int)gi)
				want += eng_clone(e, i)->admitted - eng_clone(e, i)->cancelled;
		if (iolat_group_stat(r->groups[gi], &st) == 0 && st.nr_done != want)
			return iolat_errf(err, errlen, -EUCLEAN, "group '%s': %" PRIu64 " I/Os admitted, "
				       "%" PRIu64 " completed in the controller", r->jf->groups[gi].path,
				       want, st.nr_done);
	}
	return 0;
}

/* What each faulty:<engine> job injected, and the engine with the options it
 * ran with: into the report and the result. */
void eng_collect_faults(struct erun *e)
{
	struct iolat_run_result *res = e->r->res;

	for (unsigned i = 0; i < e->r->nr_clones; i++) {
		struct eclone *j = eng_clone(e, i);
		struct iolat_eng_fault_stats st;
		struct iolat_report_faults f;
		char engine[IOLAT_REPORT_ENGINE_MAX];

		if (!j->eng || iolat_eng_faulty_stats(j->eng, &st))
			continue;
		iolat_eng_spec_format(iolat_eng_spec_of(j->eng), engine, sizeof(engine));
		f = (struct iolat_report_faults){
			.eio = st.eio, .enospc = st.enospc, .short_io = st.short_io,
			.spikes = st.spikes, .stalls = st.stalls, .held = st.held, .engine = engine,
		};
		iolat_report_add_faults(e->r->rep, j->c.job_index, &f);
		res->inj_eio += st.eio;
		res->inj_enospc += st.enospc;
		res->inj_short += st.short_io;
		res->inj_spikes += st.spikes;
		res->inj_stalls += st.stalls;
	}
}

static bool writes_file(const struct iolat_job *job, const char *path)
{
	return !eng_diskless(job) && job->filename && !strcmp(job->filename, path) &&
	       iolat_rw_has_write(job->rw);
}

/*
 * A verify map for every file that a verify= job writes, over the writers'
 * regions together, in blocks of the largest power of two (512..4096) that
 * divides every writer's bs and offset. Every writer of the file is tracked;
 * a write without verify= leaves its blocks unspecified.
 */
int eng_setup_verify(struct run *r, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = r->jf;
	struct erun *e = r->be_state;

	for (unsigned i = 0; i < r->nr_clones; i++) {
		const struct iolat_job *job = eng_clone(e, i)->c.job;
		struct evfile *vf = NULL, *n;
		uint64_t fsize, base = UINT64_MAX, end = 0;
		uint32_t block = 4096;
		struct stat st;
		int ret;

		if (!writes_file(job, job->filename ? job->filename : "") ||
		    job->verify == IOLAT_VERIFY_NONE)
			continue;
		for (unsigned k = 0; k < e->nr_vfiles && !vf; k++)
			if (!strcmp(e->vfiles[k].path, job->filename))
				vf = &e->vfiles[k];
		if (vf)
			continue;
		ret = eng_file_size(job->filename, &fsize);
		if (ret)
			return iolat_errf(err, errlen, ret, "%s: %s", job->filename, strerror(-ret));
		for (unsigned k = 0; k < jf->nr_jobs; k++) {
			const struct iolat_job *o = &jf->jobs[k];
			uint64_t o_end;

			if (!writes_file(o, job->filename))
				continue;
			while (block > IOLAT_ENG_VERIFY_BLOCK && (o->bs % block || o->offset % block))
				block /= 2;
			o_end = o->size ? o->offset + o->size : fsize;
			if (o->offset < base)
				base = o->offset;
			if (o_end > end)
				end = o_end;
		}
		if (end > fsize)
			end = fsize;
		base -= base % block;
		end -= end % block;
		if (end <= base)
			continue;
		n = realloc(e->vfiles, (e->nr_vfiles + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		e->vfiles = n;
		vf = &e->vfiles[e->nr_vfiles];
		memset(vf, 0, sizeof(*vf));
		vf->path = job->filename;
		vf->base = base;
		vf->end = end;
		/* The layout (fileprep.c) wrote a regular file as verify blocks of generation 0. */
		vf->formatted = stat(job->filename, &st) == 0 && S_ISREG(st.st_mode);
		ret = iolat_vmap_create(base, end - base, block, vf->formatted, &vf->map);
		if (ret)
			return ret;
		e->nr_vfiles++;
	}
	for (unsigned i = 0; i < r->nr_clones; i++) {
		struct eclone *j = eng_clone(e, i);

		for (unsigned k = 0; k < e->nr_vfiles; k++)
			if (writes_file(j->c.job, e->vfiles[k].path))
				j->vmap = e->vfiles[k].map;
	}
	return 0;
}

/*
 * The read-back: every tracked block of every verify file, outside the
 * engines and the controller (pread), after the data was synced and dropped
 * from the page cache so that it comes from the device.
 */
int eng_verify_pass(struct erun *e, char *err, size_t errlen)
{
	struct iolat_run_result *res = e->r->res;
	struct iolat_report_verify rv = { 0 };

	for (unsigned k = 0; k < e->nr_vfiles; k++) {
		struct evfile *vf = &e->vfiles[k];
		struct iolat_vmap_stats st;
		int fd = open(vf->path, O_RDONLY | O_CLOEXEC), ret;

		if (fd < 0)
			return iolat_errf(err, errlen, -errno, "verify: %s: %s", vf->path,
				       strerror(errno));
		fsync(fd);
		posix_fadvise(fd, (off_t)vf->base, (off_t)(vf->end - vf->base), POSIX_FADV_DONTNEED);
		ret = iolat_vmap_check(vf->map, fd, &st);
		close(fd);
		if (ret)
			return iolat_errf(err, errlen, ret, "verify: %s: %s", vf->path,
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
	iolat_report_set_verify(e->r->rep, &rv);
	return 0;
}
