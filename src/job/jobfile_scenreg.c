/* SPDX-License-Identifier: MIT */
/*
 * jobfile_scenreg.c - the registry of scenario workloads in job files
 * (src/scen; docs/design.md, "Scenario keys"): the scenarios registered,
 * each naming the rw= words of its workloads and declaring its own keys in
 * a table of the job file's own struct iolat_opt. Matching a key or an rw=
 * word, the `help keys` lines, did-you-mean candidates, and which scenario a
 * file is. It calls no other file of the parser: the key applier
 * (jobfile_apply.c) matches rw= words here, and registering (jobfile_scen.c,
 * which checks a scenario with the applier first) adds here.
 * Context: jf_scen_add() at the program's start, before any job file is
 * parsed (it writes the registry); everything else any thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "job/jobfile.h"
#include "job/jobfile_priv.h"
#include "util/errmsg.h"

#define MAX_SCEN 4

static const struct iolat_jobfile_scen *registry[MAX_SCEN];
static unsigned nr_registered;

bool jf_scen_registered(const struct iolat_jobfile_scen *s)
{
	for (unsigned i = 0; i < nr_registered; i++)
		if (registry[i] == s)
			return true;
	return false;
}

int jf_scen_add(const struct iolat_jobfile_scen *s)
{
	if (nr_registered == MAX_SCEN)
		return -EINVAL;
	registry[nr_registered++] = s;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Keys and rw= words                                                        */

const struct iolat_opt *jf_scen_find_opt(const char *key)
{
	for (unsigned i = 0; i < nr_registered; i++)
		for (const struct iolat_opt *o = registry[i]->keys; o->name; o++)
			if (!strcmp(o->name, key))
				return o;
	return NULL;
}

bool jf_scen_workload(const char *word, const struct iolat_jobfile_scen **scen,
		      const char **name)
{
	for (unsigned i = 0; i < nr_registered; i++)
		for (const char *const *w = registry[i]->workloads; *w; w++)
			if (!strcmp(*w, word)) {
				if (scen)
					*scen = registry[i];
				if (name)
					*name = *w;
				return true;
			}
	return false;
}

size_t jf_scen_words(char *buf, size_t len, const char *sep)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < nr_registered; i++)
		for (const char *const *w = registry[i]->workloads; *w; w++) {
			int n = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
					 "%s%s", sep, *w);

			used += n > 0 ? (size_t)n : 0;
		}
	return used;
}

size_t jf_scen_rw_help(char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < nr_registered; i++) {
		int n = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0, "; %s",
				 registry[i]->rw_help ? registry[i]->rw_help : registry[i]->what);

		used += n > 0 ? (size_t)n : 0;
	}
	return used;
}

const struct iolat_opt *jf_scen_key(unsigned i)
{
	for (unsigned k = 0; k < nr_registered; k++)
		for (const struct iolat_opt *o = registry[k]->keys; o->name; o++)
			if (i-- == 0)
				return o;
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Which scenario a file is                                                  */

int iolat_jobfile_scenario(const struct iolat_jobfile *jf, const struct iolat_jobfile_scen **out,
			   char *err, size_t errlen)
{
	const struct iolat_job *first_scen = NULL, *first_other = NULL;

	*out = NULL;
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];

		if (j->scen && !first_scen)
			first_scen = j;
		else if (!j->scen && !first_other)
			first_other = j;
	}
	if (!first_scen)
		return 0;
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];

		if (j->scen && j->scen != first_scen->scen)
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key 'rw': rw=%s belongs to %s, "
					  "which cannot share a file with %s ([%s] at line %u)", jf->file,
					  j->line, j->workload, j->scen->what, first_scen->scen->what,
					  first_scen->name, first_scen->line);
	}
	if (first_other)
		return iolat_errf(err, errlen, -EINVAL, "%s:%u: key 'rw': rw=%s belongs to %s, which "
				  "cannot share a file with ordinary jobs ([%s] at line %u)", jf->file,
				  first_scen->line, first_scen->workload, first_scen->scen->what,
				  first_other->name, first_other->line);
	*out = first_scen->scen;
	return 0;
}
