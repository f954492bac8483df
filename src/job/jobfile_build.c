/* SPDX-License-Identifier: MIT */
/*
 * jobfile_build.c - job files built in code (jobfile_build.h). A builder is
 * the parser without its text: the same start (the option table's
 * defaults), the same way of adding a job (a copy of the defaults) and a
 * group (with its parents), the same checks at the end (jobfile_parse.c), so that
 * a built job file and a parsed one with the same keys are equal.
 * Context: any thread; a builder belongs to one thread until it ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "job/jobfile.h"
#include "job/jobfile_build.h"
#include "job/jobfile_priv.h"

struct iolat_jobfile_builder {
	struct parser *p;
	int failed;                      /* the first failure, returned by _end */
};

int iolat_jobfile_build_begin(const char *file, char *err, size_t errlen,
			      struct iolat_jobfile_builder **out)
{
	struct iolat_jobfile_builder *b = calloc(1, sizeof(*b));
	int r;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	r = jf_parser_new(file, err, errlen, &b->p);
	if (r) {
		free(b);
		return r;
	}
	*out = b;
	return 0;
}

struct iolat_jobfile_global *iolat_jobfile_build_global(struct iolat_jobfile_builder *b)
{
	return &b->p->jf->global;
}

static int fail(struct iolat_jobfile_builder *b, int r)
{
	if (!b->failed)
		b->failed = r;
	return r;
}

int iolat_jobfile_build_group(struct iolat_jobfile_builder *b, const char *path,
			      uint64_t target_ns)
{
	struct parser *p = b->p;
	char norm[IOLAT_GROUP_PATH_MAX];
	const char *why = NULL;
	int gi, r = jf_normalise_group_path(path, norm, sizeof(norm), &why);

	if (r != 0)
		return fail(b, jf_perr(p, 0, NULL, "group '%s': expected %s", path,
				       r > 0 ? "a group path other than the root" : why));
	gi = iolat_jobfile_find_group(p->jf, norm);
	if (gi >= 0 && p->jf->groups[gi].declared)
		return fail(b, jf_perr(p, 0, NULL, "group '%s': expected each group once", norm));
	gi = jf_get_group(p, norm, 0, NULL);
	if (gi < 0)
		return fail(b, gi);
	p->jf->groups[gi].declared = true;
	p->jf->groups[gi].target_ns = target_ns;
	return gi;
}

struct iolat_job *iolat_jobfile_build_job(struct iolat_jobfile_builder *b, const char *name)
{
	struct parser *p = b->p;
	size_t n = strlen(name);

	if (n == 0 || n >= IOLAT_JOB_NAME_MAX || p->jf->nr_jobs >= MAX_JOBS) {
		fail(b, jf_perr(p, 0, NULL, "job '%.64s': expected a name of 1 to %u bytes, "
				"at most %u jobs", name, IOLAT_JOB_NAME_MAX - 1, MAX_JOBS));
		return NULL;
	}
	if (fail(b, jf_add_job(p, name, n)))
		return NULL;
	return &p->jf->jobs[p->jf->nr_jobs - 1];
}

int iolat_jobfile_build_device_key(struct iolat_jobfile_builder *b, const char *key,
				   const char *value)
{
	struct parser *p = b->p;
	const struct iolat_opt *o = jf_find_opt(key);

	if (!o || o->where != IOLAT_OPT_IN_GLOBAL)
		return fail(b, jf_perr(p, 0, key, "a [global]-only key"));
	return fail(b, jf_apply(p, o, &p->jf->global, key, value));
}

int iolat_jobfile_build_filename(struct iolat_jobfile_builder *b, struct iolat_job *job,
				 const char *path)
{
	char *copy = strdup(path);

	if (!copy)
		return fail(b, jf_oom(b->p));
	free(job->filename);
	job->filename = copy;
	return 0;
}

int iolat_jobfile_build_end(struct iolat_jobfile_builder *b, struct iolat_jobfile **out)
{
	struct parser *p = b->p;
	int r = b->failed;

	*out = NULL;
	for (unsigned i = 0; !r && i < p->jf->nr_jobs; i++) {
		r = jf_check_job(p, &p->jf->jobs[i]);
		if (!r)
			r = jf_engopt_resolve(p, &p->jf->jobs[i]);
	}
	free(b);
	return jf_parser_end(p, r, out);
}
