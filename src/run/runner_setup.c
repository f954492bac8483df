/* SPDX-License-Identifier: MIT */
/*
 * runner_setup.c - setting up a real-time run: the controller and its groups
 * (run_setup.c), device facts, engines (from the registry, with fallback),
 * files, and the job clones with their slots and buffers.
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

/* ---- setup ---- */

int rn_setup_controller(struct runner *r, unsigned flags, char *err, size_t errlen)
{
	struct iolat_ctl_config cfg = {
		.nr_requests = r->res->nr_requests,
		.rotational = r->res->rotational,
		.flags = flags,
	};

	r->groups = calloc(r->jf->nr_groups + 1, sizeof(*r->groups));
	if (!r->groups)
		return -ENOMEM;
	return iolat_job_setup_controller(r->jf, cfg, &r->ctl, r->groups, err, errlen);
}

bool rn_diskless(const struct iolat_job *job)
{
	return iolat_job_engine_diskless(job->engine);
}

/* The engine name for a job ("faulty:psync"...); -EINVAL for sim's. */
static int engine_name(const struct iolat_job *job, char *buf, size_t len)
{
	const char *inner = job->engine ? job->engine : iolat_job_engine_default();

	if (!strcmp(inner, IOLAT_JOB_ENGINE_SIM))
		return -EINVAL;
	if (job->engine_wrapper)
		snprintf(buf, len, "%s:%s", job->engine_wrapper, inner);
	else
		snprintf(buf, len, "%s", inner);
	return 0;
}

static int create_engine(struct runner *r, struct rjob *j, char *err, size_t errlen)
{
	const struct iolat_job *job = j->job;
	struct iolat_eng_config cfg = {
		.depth = j->nr_slots, .bufs = j->iov, .nr_bufs = j->nr_slots,
	};
	const char *inner = job->engine ? job->engine : iolat_job_engine_default();
	const char *fallback, *label = NULL;
	char name[64], msg[IOLAT_ENG_ERRMSG_MAX], opts[IOLAT_ENG_OPTIONS_MAX];
	int ret;

	/* The job's ENGINE.OPTION keys for the engine ioengine= names first,
	 * then --faults (the faulty engine's shortcut), which wins key by key. */
	ret = iolat_job_engine_options(job, job->engine_wrapper ? job->engine_wrapper : inner,
				       job->engine_wrapper && !strcmp(job->engine_wrapper,
					   IOLAT_JOB_ENGINE_FAULTS) ? r->o.fault_options : NULL,
				       opts, sizeof(opts));
	if ((size_t)ret >= sizeof(opts))
		return rn_set_err(err, errlen, -EINVAL, "job '%s': its engine options and --faults "
				  "are longer than %zu bytes", job->name, sizeof(opts) - 1);
	cfg.options = ret ? opts : NULL;

	if (engine_name(job, name, sizeof(name)))
		return rn_set_err(err, errlen, -EINVAL,
			       "%s:%u: key 'ioengine': '%s' runs only in iolat sim",
			       r->jf->file, iolat_job_key_line(job, "ioengine"), job->ioengine);
	cfg.name = name;
	ret = iolat_eng_create(&cfg, &j->eng, msg, sizeof(msg));
	fallback = iolat_job_engine_fallback(inner, &label);
	if (ret < 0 && fallback && ret != -EINVAL) {
		/* Refused (io_uring: ENOSYS, EPERM in containers...): its fallback instead. */
		if (!r->fallback_noted)
			rn_note(r, "%s unavailable (%s); using %s", label, msg, fallback);
		r->fallback_noted = true;
		snprintf(name, sizeof(name), "%s%s%s", job->engine_wrapper ? job->engine_wrapper : "",
			 job->engine_wrapper ? ":" : "", fallback);
		ret = iolat_eng_create(&cfg, &j->eng, msg, sizeof(msg));
	}
	if (ret == -EINVAL)
		return rn_set_err(err, errlen, ret, "%s:%u: key 'ioengine': %s", r->jf->file,
			       iolat_job_key_line(job, "ioengine"), msg);
	if (ret < 0)
		return rn_set_err(err, errlen, ret, "job '%s': engine %s: %s", job->name, name, msg);
	return 0;
}

static int open_file(struct runner *r, struct rjob *j, char *err, size_t errlen)
{
	const struct iolat_job *job = j->job;
	unsigned flags = job->direct ? 0 : IOLAT_ENG_O_BUFFERED;
	int ret;

	if (iolat_rw_has_write(job->rw))
		flags |= IOLAT_ENG_O_WRITE;
	ret = iolat_eng_open(j->eng, job->filename ? job->filename : "", flags, &j->fidx);
	if (ret == -EINVAL && job->direct)
		return rn_set_err(err, errlen, ret, "%s:%u: key 'direct': %s", r->jf->file,
			       iolat_job_key_line(job, "direct"), iolat_eng_errmsg(j->eng));
	if (ret < 0)
		return rn_set_err(err, errlen, ret, "job '%s': %s", job->name,
			       iolat_eng_errmsg(j->eng));
	return 0;
}

/* O_DIRECT: refuse a job whose every I/O the engine would refuse. */
static int check_alignment(struct runner *r, struct rjob *j, char *err, size_t errlen)
{
	const struct iolat_job *job = j->job;
	uint32_t a = iolat_eng_file_align(j->eng, j->fidx);

	if (!a)
		return 0;
	if (job->bs % a)
		return rn_set_err(err, errlen, -EINVAL,
			       "%s:%u: key 'bs': %u is not a multiple of %u, as O_DIRECT needs "
			       "(direct=1 on %s)", r->jf->file, iolat_job_key_line(job, "bs"), job->bs, a,
			       job->filename);
	if (job->offset % a)
		return rn_set_err(err, errlen, -EINVAL,
			       "%s:%u: key 'offset': %" PRIu64 " is not a multiple of %u, as "
			       "O_DIRECT needs", r->jf->file, iolat_job_key_line(job, "offset"), job->offset, a);
	return 0;
}

/* The size of @path as a file or block device; 0 when it does not exist. */
int rn_file_size(const char *path, uint64_t *size)
{
	struct stat st;

	*size = 0;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode)) {
		FILE *f = fopen(path, "rb");

		if (!f)
			return -errno;
		if (fseeko(f, 0, SEEK_END) == 0)
			*size = (uint64_t)ftello(f);
		fclose(f);
	}
	return 0;
}

/* The bytes a job's clones work on: its file's size past offset=, or for a
 * job without a file size= (else RUNNER_DEF_SIZE). */
static int job_region(const struct iolat_job *job, uint64_t *region, char *err, size_t errlen)
{
	*region = 0;
	if (!rn_diskless(job)) {
		int ret = rn_file_size(job->filename, region);

		if (ret)
			return rn_set_err(err, errlen, ret, "%s: %s", job->filename, strerror(-ret));
		*region = *region > job->offset ? *region - job->offset : 0;
	} else if (!job->size) {
		*region = RUNNER_DEF_SIZE;
	}
	return 0;
}

/* A clone's slots, each with its buffer (filled with data, not zeros) and
 * its waiter, all on the free list. */
static int setup_slots(struct rjob *j)
{
	size_t bs = j->job->bs;

	j->nr_slots = j->job->iodepth ? j->job->iodepth : 1;
	j->slots = calloc(j->nr_slots, sizeof(*j->slots));
	j->iov = calloc(j->nr_slots, sizeof(*j->iov));
	bs = (bs + IOLAT_ENG_BUF_ALIGN - 1) & ~(size_t)(IOLAT_ENG_BUF_ALIGN - 1);
	j->bufmem = iolat_eng_buf_alloc(bs * j->nr_slots);
	if (!j->slots || !j->iov || !j->bufmem)
		return -ENOMEM;
	/* Writes carry data, not zeros. */
	for (size_t k = 0; k < bs * j->nr_slots; k++)
		((unsigned char *)j->bufmem)[k] = (unsigned char)(k * 131 + 7);
	for (unsigned k = j->nr_slots; k-- > 0;) {
		struct rslot *s = &j->slots[k];

		j->iov[k].iov_base = (char *)j->bufmem + bs * k;
		j->iov[k].iov_len = bs;
		s->j = j;
		s->req.buf = j->iov[k].iov_base;
		s->req.buf_index = (int)k;
		s->req.user = s;
		s->waiter.granted = rn_on_granted;
		rn_free_slot(j, s);
	}
	return 0;
}

/* One clone of job @i: its workload over @region from @start, its group,
 * its slots, its engine and open file. */
static int setup_clone(struct runner *r, struct rjob *j, unsigned i, unsigned c,
		       uint64_t region, uint64_t start, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = r->jf;
	const struct iolat_job *job = &jf->jobs[i];
	struct iolat_wl_params wp = {
		.seed = jf->global.seed, .job_index = i, .clone = c,
		.size = region, .start_ns = start, .ramp_ns = jf->global.ramp_ns,
	};
	int ret;

	j->r = r;
	j->job = job;
	j->job_index = i;
	j->clone = c;
	j->verify = job->verify != IOLAT_VERIFY_NONE;
	pthread_mutex_init(&j->glock, NULL);
	ret = iolat_workload_init(&j->wl, job, &wp);
	if (ret)
		return rn_set_err(err, errlen, ret,
			       "%s:%u: key 'size': job '%s': the region is smaller than bs",
			       jf->file, iolat_job_key_line(job, "size"), job->name);
	if (j->verify && (job->bs % IOLAT_ENG_VERIFY_BLOCK ||
			  job->offset % IOLAT_ENG_VERIFY_BLOCK))
		return rn_set_err(err, errlen, -EINVAL,
			       "%s:%u: key 'verify': needs bs and offset in multiples of %u",
			       jf->file, iolat_job_key_line(job, "verify"),
			       IOLAT_ENG_VERIFY_BLOCK);
	j->g = !r->ctl ? NULL : job->group < 0 ? iolat_ctl_root(r->ctl)
					       : r->groups[job->group];
	ret = setup_slots(j);
	if (!ret)
		ret = create_engine(r, j, err, errlen);
	if (!ret)
		ret = open_file(r, j, err, errlen);
	if (!ret)
		ret = check_alignment(r, j, err, errlen);
	if (ret)
		return ret;
	for (unsigned k = 0; k < j->nr_slots; k++)
		j->slots[k].req.file = j->fidx;
	return 0;
}

int rn_setup_jobs(struct runner *r, uint64_t start, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = r->jf;
	unsigned n = 0;
	int ret;

	for (unsigned i = 0; i < jf->nr_jobs; i++)
		n += jf->jobs[i].numjobs ? jf->jobs[i].numjobs : 1;
	r->jobs = calloc(n ? n : 1, sizeof(*r->jobs));
	if (!r->jobs)
		return -ENOMEM;
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *job = &jf->jobs[i];
		unsigned clones = job->numjobs ? job->numjobs : 1;
		uint64_t region;

		ret = job_region(job, &region, err, errlen);
		if (ret)
			return ret;
		for (unsigned c = 0; c < clones; c++) {
			/* counted first: teardown frees what a failed clone set up */
			ret = setup_clone(r, &r->jobs[r->nr_jobs++], i, c, region, start, err, errlen);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * The controller's qd when the job file does not set nr_requests: the
 * device's queue depth, but never more than the jobs can have in flight
 * together. The kernel's qd is the depth its requests can really reach; in
 * user space only our own jobs queue there, so a device reporting 256 slots
 * to a 33-deep workload would make each scale-up step (qd/16) far too coarse.
 */
static uint32_t user_space_qd(const struct iolat_jobfile *jf, uint32_t device_qd)
{
	uint64_t total = 0;

	for (unsigned i = 0; i < jf->nr_jobs; i++)
		total += (uint64_t)jf->jobs[i].iodepth * jf->jobs[i].numjobs;
	if (total == 0 || total >= device_qd)
		return device_qd;
	return (uint32_t)total;
}

void rn_device_facts(struct runner *r)
{
	const struct iolat_jobfile *jf = r->jf;
	struct iolat_runner_result *res = r->res;
	struct iolat_eng_devinfo di;
	const char *path = NULL;

	for (unsigned i = 0; i < jf->nr_jobs && !path; i++)
		if (!rn_diskless(&jf->jobs[i]) && jf->jobs[i].filename)
			path = jf->jobs[i].filename;
	res->device_known = path && iolat_eng_devinfo_path(path, &di) == 0;
	if (!path)
		iolat_eng_devinfo_dev(NULL, 0, 0, &di);   /* the fallbacks */
	snprintf(res->disk, sizeof(res->disk), "%s", di.disk);
	res->nr_requests = jf->global.nr_requests ? jf->global.nr_requests :
			   user_space_qd(jf, di.nr_requests);
	res->rotational = jf->global.rotational >= 0 ? jf->global.rotational : di.rotational;
}
