/* SPDX-License-Identifier: MIT */
/*
 * preflight.c - the checks `iolat run` makes before any side effect (see
 * preflight.h). Order: each job's engine and file name, the --faults
 * options (read once into the plan, to go over a faulty job's own options:
 * those were read when the job file was), then each file once (kind,
 * block-device safety, size, space, O_DIRECT). Messages name the key's own
 * line (iolat_job_key_line()).
 * Context: any thread; only stat, statvfs, getrlimit, read-only opens and an
 * unnamed O_TMPFILE probe for O_DIRECT (never visible, gone at close).
 */
#include "run/preflight.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "engine/blkdev.h"
#include "engine/devinfo.h"
#include "engine/engine.h"
#include "engine/engspec.h"
#include "engine/layout.h"
#include "engine/verify.h"
#include "job/engines.h"
#include "util/errmsg.h"

struct pf {
	const struct iolat_jobfile *jf;
	struct iolat_preflight *out;
	char *err;
	size_t errlen;
};

static int pf_err(struct pf *p, const struct iolat_job *job, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "FILE:LINE: key 'KEY': <fmt>" at the line that set @key for @job. */
static int pf_err(struct pf *p, const struct iolat_job *job, const char *key, const char *fmt, ...)
{
	char msg[IOLAT_JOBFILE_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return iolat_errf(p->err, p->errlen, -EINVAL, "%s:%u: key '%s': %s", p->jf->file,
			  iolat_job_key_line(job, key), key, msg);
}

const char *iolat_format_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	unsigned u = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	v /= 1024.0;
	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

static bool diskless(const struct iolat_job *job)
{
	return job->spec && iolat_eng_spec_diskless(job->spec);
}

/* What can be refused from the job alone. */
static int check_job(struct pf *p, const struct iolat_job *job)
{
	if (job->engine && !strcmp(job->engine, IOLAT_JOB_ENGINE_SIM))
		return pf_err(p, job, "ioengine", "'%s' runs only in iolat sim", job->ioengine);
	if (!diskless(job) && (!job->filename || !*job->filename))
		return pf_err(p, job, "filename", "job '%s' names no file", job->name);
	if (job->verify != IOLAT_VERIFY_NONE &&
	    (job->bs % IOLAT_ENG_VERIFY_BLOCK || job->offset % IOLAT_ENG_VERIFY_BLOCK))
		return pf_err(p, job, "verify", "bs and offset in multiples of %u with verify=",
			      IOLAT_ENG_VERIFY_BLOCK);
	return 0;
}

/* --faults: only with a faulty:<engine> job; read once, by the engine's own
 * table, into @p->out->faults. */
static int check_faults(struct pf *p, const char *opts)
{
	struct iolat_eng_spec spec = { 0 };
	char why[IOLAT_JOBFILE_ERR_MAX];
	int ret;

	for (unsigned i = 0; i < p->jf->nr_jobs; i++) {
		const struct iolat_eng_spec *s = p->jf->jobs[i].spec;

		if (s && s->wrapper && !strcmp(s->wrapper->name, IOLAT_JOB_ENGINE_FAULTS))
			spec.wrapper = s->wrapper;
	}
	if (!opts)
		return 0;
	if (!spec.wrapper)
		return iolat_errf(p->err, p->errlen, -EINVAL, "--faults: no job has "
				  "ioengine=faulty:<engine>, so the options would do nothing");
	ret = iolat_eng_spec_options(&spec, opts, why, sizeof(why));
	if (ret)
		return iolat_errf(p->err, p->errlen, ret, "--faults: %s", why);
	p->out->faults = malloc(sizeof(*p->out->faults));
	if (!p->out->faults)
		return -ENOMEM;
	*p->out->faults = spec.opts;
	return 0;
}

/* The directory holding @path ("." when it has none; see preflight.h). */
void iolat_path_dir(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

/* Fill what all the jobs using @f->path need: size, flags; refuse a missing size. */
static int gather_needs(struct pf *p, struct iolat_pf_file *f, const struct iolat_job **sizer)
{
	for (unsigned k = 0; k < p->jf->nr_jobs; k++) {
		const struct iolat_job *o = &p->jf->jobs[k];

		if (diskless(o) || !o->filename || strcmp(o->filename, f->path))
			continue;
		if (!o->size && !f->have)
			return pf_err(p, o, "size", "a size to create %s (it %s)", f->path,
				      f->exists ? "is empty" : "does not exist");
		if (o->size && o->offset + o->size > f->need) {
			f->need = o->offset + o->size;
			*sizer = o;
		}
		if (o->rw != IOLAT_RW_WRITE && o->rw != IOLAT_RW_RANDWRITE)
			f->layout_flags |= IOLAT_ENG_LAYOUT_FILL;
		if (o->verify != IOLAT_VERIFY_NONE)
			f->layout_flags |= IOLAT_ENG_LAYOUT_VERIFY;
	}
	return 0;
}

/* The jobs writing @path: whether all allow a mounted or a signed device. */
static const struct iolat_job *first_writer(struct pf *p, const char *path, bool *allow_mounted,
					    bool *allow_signature)
{
	const struct iolat_job *w = NULL;

	*allow_mounted = *allow_signature = true;
	for (unsigned k = 0; k < p->jf->nr_jobs; k++) {
		const struct iolat_job *o = &p->jf->jobs[k];

		if (diskless(o) || !o->filename || strcmp(o->filename, path) ||
		    !iolat_rw_has_write(o->rw))
			continue;
		if (!w)
			w = o;
		*allow_mounted &= o->allow_mounted_write;
		*allow_signature &= o->allow_signature_write || o->allow_mounted_write;
	}
	return w;
}

/* A block device: big enough; when written, not mounted, held or signed. */
static int check_blockdev(struct pf *p, struct iolat_pf_file *f, const struct iolat_job *first)
{
	struct iolat_eng_blkdev_state st;
	const struct iolat_job *w, *sizer = first;
	bool allow_mounted, allow_sig;
	char a[32], b[32];
	int ret = iolat_eng_blkdev_probe(f->path, &st);

	if (ret)
		return pf_err(p, first, "filename", "%s: %s", f->path, strerror(-ret));
	f->have = st.size;
	ret = gather_needs(p, f, &sizer);
	if (ret)
		return ret;
	if (f->need > f->have)
		return pf_err(p, sizer, "size", "a region within the device: offset + size is %s, "
			      "%s holds %s", iolat_format_bytes(f->need, a, sizeof(a)), f->path,
			      iolat_format_bytes(f->have, b, sizeof(b)));
	w = first_writer(p, f->path, &allow_mounted, &allow_sig);
	if (!w)
		return 0;   /* reading a device is harmless */
	if (st.mounted && !allow_mounted)
		return pf_err(p, w, "filename", "a device that is not mounted: %s is mounted on %s "
			      "(%s), and writing to it would destroy that filesystem (set "
			      "allow_mounted_write=1 to write anyway)", f->path, st.mount_point,
			      st.mounted_dev);
	if (st.held && !allow_mounted)
		return pf_err(p, w, "filename", "a device nothing else uses: %s is %s (set "
			      "allow_mounted_write=1 to write anyway)", f->path, st.holder);
	if (st.signature && !allow_sig)
		return pf_err(p, w, "filename", "a device without data: %s has a signature (%s), "
			      "which the writes would destroy (set allow_signature_write=1 to "
			      "overwrite it)",
			      f->path, st.signature);
	return 0;
}

/*
 * Room for what the layout adds to a regular file: free space (what the
 * files laid out before it on the same filesystem add counts too) and
 * RLIMIT_FSIZE.
 */
static int check_space(struct pf *p, struct iolat_pf_file *f, const struct iolat_job *sizer)
{
	char dir[PATH_MAX], a[32], b[32];
	struct statvfs vfs;
	struct rlimit rl;
	uint64_t extra = f->need > f->have ? f->need - f->have : 0, avail, before = 0;

	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    f->need > (uint64_t)rl.rlim_cur)
		return pf_err(p, sizer, "size", "a file within the file-size limit: %s would be %s, "
			      "over the limit of %s (ulimit -f)", f->path,
			      iolat_format_bytes(f->need, a, sizeof(a)),
			      iolat_format_bytes((uint64_t)rl.rlim_cur, b, sizeof(b)));
	if (!extra)
		return 0;
	iolat_path_dir(f->path, dir, sizeof(dir));
	if (statvfs(f->exists ? f->path : dir, &vfs) < 0)
		return pf_err(p, sizer, "filename", "%s: %s", f->exists ? f->path : dir,
			      strerror(errno));
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	f->extra = extra;
	f->fsid = vfs.f_fsid;
	for (const struct iolat_pf_file *o = p->out->files; o < f; o++)
		if (o->extra && o->fsid == f->fsid)
			before += o->extra;
	if (before + extra > avail)
		return pf_err(p, sizer, "size", "a size that fits: %s needs %s more%s, and its "
			      "filesystem has %s free", f->path, iolat_format_bytes(extra, a, sizeof(a)),
			      before ? " besides the files laid out before it" : "",
			      iolat_format_bytes(avail, b, sizeof(b)));
	return 0;
}

/* A regular file, or one to create: where, whether writable, whether it fits. */
static int check_regular(struct pf *p, struct iolat_pf_file *f, const struct iolat_job *first)
{
	const struct iolat_job *sizer = first;
	char dir[PATH_MAX];
	struct stat st;
	int ret = gather_needs(p, f, &sizer);

	if (ret)
		return ret;
	f->layout = f->need > f->have || (f->layout_flags & IOLAT_ENG_LAYOUT_VERIFY);
	if (!f->layout)
		return 0;
	iolat_path_dir(f->path, dir, sizeof(dir));
	if (!f->exists && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)))
		return pf_err(p, first, "filename", "a file in an existing directory: %s does not "
			      "exist", dir);
	if (access(f->exists ? f->path : dir, W_OK) < 0)
		return pf_err(p, first, "filename", "a file iolat may write to lay it out: %s: %s",
			      f->exists ? f->path : dir, strerror(errno));
	return check_space(p, f, sizer);
}

/* direct=1: the filesystem takes O_DIRECT, and bs and offset are aligned to its blocks. */
static int check_direct(struct pf *p, const struct iolat_job *job, const struct iolat_pf_file *f)
{
	struct iolat_eng_devinfo di;
	char dir[PATH_MAX];
	uint32_t a;
	int fd;

	if (!job->direct)
		return 0;
	iolat_eng_devinfo_path(f->path, &di);
	a = di.logical_block_size ? di.logical_block_size : IOLAT_ENG_DIO_ALIGN_DEF;
	if (job->bs % a)
		return pf_err(p, job, "bs", "a multiple of %u with direct=1 (O_DIRECT on %s), got %u",
			      a, f->path, job->bs);
	if (job->offset % a)
		return pf_err(p, job, "offset", "a multiple of %u with direct=1 (O_DIRECT on %s), "
			      "got %" PRIu64, a, f->path, job->offset);
	if (f->blockdev)
		return 0;
	if (f->exists) {
		fd = open(f->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	} else {
		iolat_path_dir(f->path, dir, sizeof(dir));
		fd = open(dir, O_TMPFILE | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);
	}
	if (fd < 0 && errno == EINVAL)
		return pf_err(p, job, "direct", "0 here: the filesystem of %s refuses O_DIRECT",
			      f->path);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* One file, at the first job that names it. */
static int check_file(struct pf *p, const struct iolat_job *job)
{
	struct iolat_preflight *out = p->out;
	struct iolat_pf_file *f, *n;
	struct stat st;
	int ret;

	n = realloc(out->files, (out->nr_files + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	out->files = n;
	f = &out->files[out->nr_files++];
	memset(f, 0, sizeof(*f));
	f->path = job->filename;
	if (stat(f->path, &st) < 0) {
		if (errno != ENOENT)
			return pf_err(p, job, "filename", "%s: %s", f->path, strerror(errno));
		if (strchr(f->path, ':'))
			return pf_err(p, job, "filename", "one file per job: '%s' looks like fio's list of "
				      "files separated by ':' (give each file its own job section); a name "
				      "with ':' is taken only when it exists", f->path);
	} else if (S_ISDIR(st.st_mode)) {
		return pf_err(p, job, "filename", "a file or a block device: %s is a directory",
			      f->path);
	} else if (S_ISCHR(st.st_mode)) {
		return pf_err(p, job, "filename", "a file or a block device: %s is a character "
			      "device (for no I/O at all use ioengine=null)", f->path);
	} else if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		return pf_err(p, job, "filename", "a file or a block device: %s is neither",
			      f->path);
	} else {
		f->exists = true;
		f->blockdev = S_ISBLK(st.st_mode);
		f->have = f->blockdev ? 0 : (uint64_t)st.st_size;
	}
	ret = f->blockdev ? check_blockdev(p, f, job) : check_regular(p, f, job);
	for (unsigned k = 0; !ret && k < p->jf->nr_jobs; k++) {
		const struct iolat_job *o = &p->jf->jobs[k];
		uint64_t end = f->need > f->have ? f->need : f->have;
		uint64_t region = o->size ? o->size : end > o->offset ? end - o->offset : 0;
		char a[32];

		if (diskless(o) || !o->filename || strcmp(o->filename, f->path))
			continue;
		if (region < o->bs)
			return pf_err(p, o, o->size ? "size" : "offset", "a region of at least bs "
				      "(%u bytes) for job '%s': %s holds %s", o->bs, o->name, f->path,
				      iolat_format_bytes(end, a, sizeof(a)));
		ret = check_direct(p, o, f);
	}
	return ret;
}

int iolat_preflight_check(const struct iolat_jobfile *jf, const char *fault_options,
			  struct iolat_preflight *pf, char *err, size_t errlen)
{
	struct pf p = { .jf = jf, .out = pf, .err = err, .errlen = errlen };
	int ret = 0;

	memset(pf, 0, sizeof(*pf));
	if (err && errlen)
		err[0] = '\0';
	for (unsigned i = 0; i < jf->nr_jobs && !ret; i++)
		ret = check_job(&p, &jf->jobs[i]);
	if (!ret)
		ret = check_faults(&p, fault_options);
	for (unsigned i = 0; i < jf->nr_jobs && !ret; i++) {
		const struct iolat_job *job = &jf->jobs[i];
		bool seen = false;

		if (diskless(job))
			continue;
		for (unsigned k = 0; k < pf->nr_files && !seen; k++)
			seen = !strcmp(pf->files[k].path, job->filename);
		if (!seen)
			ret = check_file(&p, job);
	}
	return ret;
}

void iolat_preflight_free(struct iolat_preflight *pf)
{
	free(pf->faults);
	pf->faults = NULL;
	free(pf->files);
	pf->files = NULL;
	pf->nr_files = 0;
}
