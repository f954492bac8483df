/* SPDX-License-Identifier: MIT */
/*
 * be_engines_setup.c - the engines backend's set-up (be_engines_priv.h): the
 * device's facts, and for each clone its engine (from the registry, with
 * fallback), its open file and its slots with their buffers.
 * Context: the calling thread, before the clones' threads start.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/devinfo.h"
#include "engine/engine.h"
#include "engine/engspec.h"
#include "engine/registry.h"
#include "engine/verify.h"
#include "iolatency.h"
#include "job/engines.h"
#include "run/be_engines_priv.h"
#include "util/errmsg.h"

/* ---- setup ---- */

bool eng_diskless(const struct iolat_job *job)
{
	return job->spec && iolat_eng_spec_diskless(job->spec);
}

/*
 * A clone's engine, from its job's spec (engine/engspec.h: read once from
 * ioengine= and the job's ENGINE.OPTION keys), with --faults over a faulty
 * wrapper's options; refused (io_uring: ENOSYS, EPERM in containers...),
 * its fallback instead, said once.
 */
static int create_engine(struct erun *e, struct eclone *j, char *err, size_t errlen)
{
	const struct iolat_job *job = j->c.job;
	struct iolat_eng_config cfg = {
		.depth = j->nr_slots, .bufs = j->iov, .nr_bufs = j->nr_slots,
	};
	struct iolat_eng_spec spec;
	const struct iolat_engine_ops *fallback;
	char name[IOLAT_ENG_NAME_MAX], msg[IOLAT_ENG_ERRMSG_MAX];
	int ret;

	if (!job->spec)
		return iolat_errf(err, errlen, -EINVAL, "%s:%u: key 'ioengine': '%s' runs only in "
				  "iolat sim", e->r->jf->file, iolat_job_key_line(job, "ioengine"),
				  job->ioengine);
	spec = *job->spec;
	if (spec.wrapper && e->pf.faults && !strcmp(spec.wrapper->name, IOLAT_JOB_ENGINE_FAULTS))
		iolat_eng_optset_merge(&spec.opts, e->pf.faults);
	ret = iolat_eng_create_spec(&spec, &cfg, &j->eng, msg, sizeof(msg));
	fallback = spec.engine->fallback ? iolat_eng_lookup(spec.engine->fallback,
							    strlen(spec.engine->fallback)) : NULL;
	if (ret < 0 && fallback && ret != -EINVAL) {
		if (!e->fallback_noted)
			run_note(e->r, "%s unavailable (%s); using %s",
				 spec.engine->alias ? spec.engine->alias : spec.engine->name, msg,
				 fallback->name);
		e->fallback_noted = true;
		spec.engine = fallback;
		ret = iolat_eng_create_spec(&spec, &cfg, &j->eng, msg, sizeof(msg));
	}
	iolat_eng_spec_name(&spec, name, sizeof(name));
	if (ret == -EINVAL)
		return iolat_errf(err, errlen, ret, "%s:%u: key 'ioengine': %s", e->r->jf->file,
				  iolat_job_key_line(job, "ioengine"), msg);
	if (ret < 0)
		return iolat_errf(err, errlen, ret, "job '%s': engine %s: %s", job->name, name, msg);
	return 0;
}

static int open_file(struct erun *e, struct eclone *j, char *err, size_t errlen)
{
	const struct iolat_job *job = j->c.job;
	unsigned flags = job->direct ? 0 : IOLAT_ENG_O_BUFFERED;
	int ret;

	if (iolat_rw_has_write(job->rw))
		flags |= IOLAT_ENG_O_WRITE;
	ret = iolat_eng_open(j->eng, job->filename ? job->filename : "", flags, &j->fidx);
	if (ret == -EINVAL && job->direct)
		return iolat_errf(err, errlen, ret, "%s:%u: key 'direct': %s", e->r->jf->file,
			       iolat_job_key_line(job, "direct"), iolat_eng_errmsg(j->eng));
	if (ret < 0)
		return iolat_errf(err, errlen, ret, "job '%s': %s", job->name,
			       iolat_eng_errmsg(j->eng));
	return 0;
}

/* O_DIRECT: refuse a job whose every I/O the engine would refuse. */
static int check_alignment(struct erun *e, struct eclone *j, char *err, size_t errlen)
{
	const struct iolat_job *job = j->c.job;
	uint32_t a = iolat_eng_file_align(j->eng, j->fidx);

	if (!a)
		return 0;
	if (job->bs % a)
		return iolat_errf(err, errlen, -EINVAL,
			       "%s:%u: key 'bs': %u is not a multiple of %u, as O_DIRECT needs "
			       "(direct=1 on %s)", e->r->jf->file, iolat_job_key_line(job, "bs"), job->bs, a,
			       job->filename);
	if (job->offset % a)
		return iolat_errf(err, errlen, -EINVAL,
			       "%s:%u: key 'offset': %" PRIu64 " is not a multiple of %u, as "
			       "O_DIRECT needs", e->r->jf->file, iolat_job_key_line(job, "offset"), job->offset, a);
	return 0;
}

/* The size of @path as a file or block device; 0 when it does not exist. */
int eng_file_size(const char *path, uint64_t *size)
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

/* A clone's slots, each with its buffer (filled with data, not zeros) and
 * its waiter, all on the free list. */
static int setup_slots(struct eclone *j)
{
	size_t bs = j->c.job->bs;

	j->nr_slots = j->c.job->iodepth ? j->c.job->iodepth : 1;
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
		struct eslot *s = &j->slots[k];

		j->iov[k].iov_base = (char *)j->bufmem + bs * k;
		j->iov[k].iov_len = bs;
		s->j = j;
		s->req.buf = j->iov[k].iov_base;
		s->req.buf_index = (int)k;
		s->req.user = s;
		s->waiter.granted = eng_on_granted;
		eng_free_slot(j, s);
	}
	return 0;
}

/* A clone's own part, after its workload: the verify alignment, its slots,
 * its engine and open file. */
int eng_setup_clone(struct run *r, struct run_clone *c, char *err, size_t errlen)
{
	struct eclone *j = (struct eclone *)c;
	const struct iolat_job *job = c->job;
	struct erun *e = r->be_state;
	int ret;

	j->e = e;
	pthread_mutex_init(&j->glock, NULL);
	j->ready = true;
	j->verify = job->verify != IOLAT_VERIFY_NONE;
	if (j->verify && (job->bs % IOLAT_ENG_VERIFY_BLOCK ||
			  job->offset % IOLAT_ENG_VERIFY_BLOCK))
		return iolat_errf(err, errlen, -EINVAL,
				  "%s:%u: key 'verify': needs bs and offset in multiples of %u",
				  r->jf->file, iolat_job_key_line(job, "verify"),
				  IOLAT_ENG_VERIFY_BLOCK);
	ret = setup_slots(j);
	if (!ret)
		ret = create_engine(e, j, err, errlen);
	if (!ret)
		ret = open_file(e, j, err, errlen);
	if (!ret)
		ret = check_alignment(e, j, err, errlen);
	if (ret)
		return ret;
	for (unsigned k = 0; k < j->nr_slots; k++)
		j->slots[k].req.file = j->fidx;
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

void eng_device_facts(struct erun *e)
{
	const struct iolat_jobfile *jf = e->r->jf;
	struct iolat_run_result *res = e->r->res;
	struct iolat_eng_devinfo di;
	const char *path = NULL;

	for (unsigned i = 0; i < jf->nr_jobs && !path; i++)
		if (!eng_diskless(&jf->jobs[i]) && jf->jobs[i].filename)
			path = jf->jobs[i].filename;
	res->device_known = path && iolat_eng_devinfo_path(path, &di) == 0;
	if (!path)
		iolat_eng_devinfo_dev(NULL, 0, 0, &di);   /* the fallbacks */
	snprintf(res->device, sizeof(res->device), "%s", di.disk);
	res->nr_requests = jf->global.nr_requests ? jf->global.nr_requests :
			   user_space_qd(jf, di.nr_requests);
	res->rotational = jf->global.rotational >= 0 ? jf->global.rotational : di.rotational;
}
