/* SPDX-License-Identifier: MIT */
/*
 * memleak_job.c - the leaking-service scenario from a job file: recognises
 * one (jobs with rw=hashd, rw=memhog, rw=bgservice), checks its shape, and
 * turns it into a struct iolat_ml_config for iolat_ml_run().
 *
 *   [global]  device= seed= memory= swap= memleak_mode= oomd= control=
 *   [group:workload] target= memory_low=      [group:system] target=
 *   [web] rw=hashd group=workload rps=
 *   [hog] rw=memhog group=system/hog speed=(% of the write bandwidth)
 *         startdelay=(the web alone first) runtime=(how long the leak may live)
 *   [bg]  rw=bgservice group=system/bg        (optional)
 * Context: any thread; the job file is only read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "job/jobfile.h"
#include "job/memleak.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static bool is_ml(enum iolat_rw rw)
{
	return rw == IOLAT_RW_HASHD || rw == IOLAT_RW_MEMHOG || rw == IOLAT_RW_BGSERVICE;
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *group_of(const struct iolat_jobfile *jf, const struct iolat_job *j)
{
	return j->group == IOLAT_GROUP_ROOT ? "(root)" : jf->groups[j->group].path;
}

int iolat_ml_jobfile_kind(const struct iolat_jobfile *jf, char *err, size_t len)
{
	unsigned ml = 0;
	const struct iolat_job *first_ml = NULL, *first_other = NULL;

	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];

		if (is_ml(j->rw)) {
			ml++;
			if (!first_ml)
				first_ml = j;
		} else if (!first_other) {
			first_other = j;
		}
	}
	if (!ml)
		return 0;
	if (first_other)
		return fail(err, len, "%s:%u: key 'rw': rw=%s belongs to the leaking-service scenario, "
			    "which cannot share a file with ordinary jobs ([%s] at line %u)", jf->file,
			    first_ml->line, iolat_rw_name(first_ml->rw), first_other->name,
			    first_other->line);
	return 1;
}

/* The one job of kind @rw: its index, -1 when absent, -EINVAL (message) when repeated. */
static int find_one(const struct iolat_jobfile *jf, enum iolat_rw rw, const char *group,
		    char *err, size_t len)
{
	int found = -1;

	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];

		if (j->rw != rw)
			continue;
		if (found >= 0)
			return fail(err, len, "%s:%u: key 'rw': one rw=%s job only (another at line %u)",
				    jf->file, j->line, iolat_rw_name(rw), jf->jobs[found].line);
		if (strcmp(group_of(jf, j), group) != 0)
			return fail(err, len, "%s:%u: key 'group': rw=%s runs in group %s (got '%s')",
				    jf->file, j->line, iolat_rw_name(rw), group, group_of(jf, j));
		if (j->numjobs != 1)
			return fail(err, len, "%s:%u: key 'numjobs': 1 expected for rw=%s (got %u)",
				    jf->file, j->line, iolat_rw_name(rw), j->numjobs);
		found = (int)i;
	}
	return found;
}

static uint64_t group_target(const struct iolat_jobfile *jf, const char *path)
{
	int gi = iolat_jobfile_find_group(jf, path);

	return gi >= 0 ? jf->groups[gi].target_ns : 0;
}

int iolat_ml_config_from_jobfile(const struct iolat_jobfile *jf, struct iolat_ml_config *c,
				 char *err, size_t len)
{
	int web, hog, bg, wl;
	const struct iolat_job *h;

	if ((web = find_one(jf, IOLAT_RW_HASHD, "workload", err, len)) < -1 ||
	    (hog = find_one(jf, IOLAT_RW_MEMHOG, "system/hog", err, len)) < -1 ||
	    (bg = find_one(jf, IOLAT_RW_BGSERVICE, "system/bg", err, len)) < -1)
		return -EINVAL;
	if (web < 0 || hog < 0)
		return fail(err, len, "%s: the leaking-service scenario needs one rw=hashd job "
			    "(group workload) and one rw=memhog job (group system/hog)", jf->file);
	if (jf->nr_params)
		return fail(err, len, "%s:%u: key '%s': device-model parameters are not supported "
			    "by the leaking-service scenario", jf->file, jf->params[0].line,
			    jf->params[0].key);
	h = &jf->jobs[hog];
	iolat_ml_defaults(c, jf->global.device == IOLAT_DEVICE_DEFAULT ? "ssd" :
			     iolat_device_name(jf->global.device));
	c->seed = jf->global.seed;
	c->mode = jf->global.control ? (enum iolat_ml_mode)jf->global.memleak_mode : IOLAT_ML_NONE;
	c->oomd = (enum iolat_oomd_preset)jf->global.oomd;
	if (jf->global.memory)
		c->mem_bytes = jf->global.memory;
	if (jf->global.swap)
		c->swap_bytes = jf->global.swap;
	c->rps = jf->jobs[web].rps;
	c->speed = h->speed_pct / 100.0;
	c->bg = bg >= 0;
	if (h->startdelay_ns)
		c->baseline_ns = h->startdelay_ns;
	if (h->runtime_ns)
		c->timeout_ns = h->runtime_ns;
	c->target_workload_ns = group_target(jf, "workload");
	c->target_system_ns = group_target(jf, "system");
	wl = iolat_jobfile_find_group(jf, "workload");
	if (wl >= 0 && jf->groups[wl].memory_low) {
		uint64_t web_bytes = c->mem_bytes > c->reserve_bytes + 512 * MIB ?
				     c->mem_bytes - c->reserve_bytes - 512 * MIB : 0;

		if (jf->groups[wl].memory_low > web_bytes)
			return fail(err, len, "%s:%u: key 'memory_low': at most the web's footprint, "
				    "%llu MiB (got %llu MiB)", jf->file, jf->groups[wl].line,
				    (unsigned long long)(web_bytes / MIB),
				    (unsigned long long)(jf->groups[wl].memory_low / MIB));
		c->web_low_frac = (double)jf->groups[wl].memory_low / (double)web_bytes;
	}
	if (c->mem_bytes > 256 * GIB || c->swap_bytes > 256 * GIB)
		return fail(err, len, "%s: key '%s': at most 256g expected", jf->file,
			    c->mem_bytes > 256 * GIB ? "memory" : "swap");
	if (c->swap_bytes < 64 * MIB)
		return fail(err, len, "%s: key 'swap': at least 64m expected", jf->file);
	if (c->mem_bytes < c->reserve_bytes + 1 * GIB)
		return fail(err, len, "%s: key 'memory': at least 3g expected (2 GiB are the "
			    "kernel's reserve)", jf->file);
	return 0;
}
