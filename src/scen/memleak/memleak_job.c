/* SPDX-License-Identifier: MIT */
/*
 * memleak_job.c - the leaking-service scenario in job files: its workloads
 * (rw=hashd, rw=memhog, rw=bgservice) and keys, registered with the job-file
 * parser (struct iolat_jobfile_scen); recognising such a file, checking its
 * shape, and turning it into a struct iolat_ml_config for iolat_ml_run().
 *
 *   [global]  device= seed= memory= swap= memleak_mode= oomd= web= control=
 *   [group:workload] target= memory_low=      [group:system] target=
 *   [web] rw=hashd group=workload rps=
 *   [hog] rw=memhog group=system/hog speed=(% of the write bandwidth)
 *         startdelay=(the web alone first) runtime=(how long the leak may live)
 *   [bg]  rw=bgservice group=system/bg        (optional)
 * Context: iolat_ml_register_jobfile() at the program's start; the rest any
 * thread (the job file is only read).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "job/jobfile.h"
#include "scen/memleak/memleak.h"
#include "util/errmsg.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define IN_JOBS (IOLAT_OPT_IN_GLOBAL | IOLAT_OPT_IN_JOB)

static const char *const workloads[] = { "hashd", "memhog", "bgservice", NULL };

static const struct iolat_opt keys[] = {
	{ .name = "memory", .type = IOLAT_OPT_SIZE, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "leaking service: the machine's memory (default 16g)" },
	{ .name = "swap", .type = IOLAT_OPT_SIZE, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "leaking service: swap on the simulated disk (default 8g)" },
	{ .name = "memleak_mode", .type = IOLAT_OPT_ENUM, .where = IOLAT_OPT_IN_GLOBAL,
	  .min = 0, .choices = "none|block|full|stock|nobypass", .def = "full",
	  .help = "leaking service: io.latency off, block side, block + memory side, stock, no bypass" },
	{ .name = "oomd", .type = IOLAT_OPT_ENUM, .where = IOLAT_OPT_IN_GLOBAL,
	  .min = 0, .choices = "off|fb2018|resctl|desktop|percgroup", .def = "percgroup",
	  .help = "leaking service: the oomd preset" },
	{ .name = "web", .type = IOLAT_OPT_ENUM, .where = IOLAT_OPT_IN_GLOBAL,
	  .min = 0, .choices = "hhvm|rdhashd", .def = "hhvm",
	  .help = "leaking service: the web's calibration (10 % or 25 % of its memory file-backed)" },
	{ .name = "memory_low", .type = IOLAT_OPT_SIZE, .where = IOLAT_OPT_IN_GROUP,
	  .help = "leaking service: memory.low of workload (default 75% of the web's footprint)" },
	{ .name = "rps", .type = IOLAT_OPT_UINT, .where = IN_JOBS, .min = 1, .max = 100000,
	  .def = "200", .help = "rw=hashd: requests per second (Poisson)" },
	{ .name = "speed", .type = IOLAT_OPT_UINT, .where = IN_JOBS, .min = 1,
	  .max = 10000, .def = "200", .help = "rw=memhog: leak rate, % of the disk's write bandwidth" },
	{ .name = NULL },
};

static int check_file(const struct iolat_jobfile *jf, char *err, size_t errlen);

static const struct iolat_jobfile_scen scen = {
	.name = "memleak", .what = "the leaking-service scenario", .workloads = workloads,
	.rw_help = "hashd, memhog, bgservice: the leaking-service scenario (iolat sim)",
	.keys = keys, .check = check_file,
};

int iolat_ml_register_jobfile(void)
{
	return iolat_jobfile_register_scen(&scen);
}

/* A scenario key's value in @vals (its default when not set). */
static uint64_t val(const struct iolat_scen_vals *vals, const char *key)
{
	uint64_t v;

	iolat_scen_value(vals, key, &v, NULL);
	return v;
}

static const char *group_of(const struct iolat_jobfile *jf, const struct iolat_job *j)
{
	return j->group == IOLAT_GROUP_ROOT ? "(root)" : jf->groups[j->group].path;
}

int iolat_ml_jobfile_kind(const struct iolat_jobfile *jf, char *err, size_t errlen)
{
	const struct iolat_jobfile_scen *s;
	int ret = iolat_jobfile_scenario(jf, &s, err, errlen);

	if (ret)
		return ret;
	return s == &scen;
}

/* The one job of workload @rw: its index, -1 when absent, -EINVAL (message) when repeated. */
static int find_one(const struct iolat_jobfile *jf, const char *rw, const char *group,
		    char *err, size_t errlen)
{
	int found = -1;

	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];

		if (j->scen != &scen || strcmp(j->workload, rw))
			continue;
		if (found >= 0)
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key 'rw': one rw=%s job only (another at line %u)",
				    jf->file, j->line, rw, jf->jobs[found].line);
		if (strcmp(group_of(jf, j), group) != 0)
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key 'group': rw=%s runs in group %s (got '%s')",
				    jf->file, j->line, rw, group, group_of(jf, j));
		if (j->numjobs != 1)
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key 'numjobs': 1 expected for rw=%s (got %u)",
				    jf->file, j->line, rw, j->numjobs);
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
				 char *err, size_t errlen)
{
	const struct iolat_scen_vals *g = &jf->global.scen_vals;
	int web, hog, bg, wl;
	const struct iolat_job *h;
	uint64_t low;

	if ((web = find_one(jf, "hashd", "workload", err, errlen)) < -1 ||
	    (hog = find_one(jf, "memhog", "system/hog", err, errlen)) < -1 ||
	    (bg = find_one(jf, "bgservice", "system/bg", err, errlen)) < -1)
		return -EINVAL;
	if (web < 0 || hog < 0)
		return iolat_errf(err, errlen, -EINVAL, "%s: the leaking-service scenario needs one rw=hashd job "
			    "(group workload) and one rw=memhog job (group system/hog)", jf->file);
	if (jf->nr_params)
		return iolat_errf(err, errlen, -EINVAL, "%s:%u: key '%s': device-model parameters are not supported "
			    "by the leaking-service scenario", jf->file, jf->params[0].line,
			    jf->params[0].key);
	h = &jf->jobs[hog];
	iolat_ml_defaults(c, jf->global.device == IOLAT_DEVICE_DEFAULT ? "ssd" :
			     iolat_device_name(jf->global.device));
	c->seed = jf->global.seed;
	c->mode = jf->global.control ? (enum iolat_ml_mode)val(g, "memleak_mode") : IOLAT_ML_NONE;
	c->oomd = (int)val(g, "oomd");
	iolat_ml_web_preset(c, val(g, "web") ? "rdhashd" : "hhvm");
	if (val(g, "memory"))
		c->mem_bytes = val(g, "memory");
	if (val(g, "swap"))
		c->swap_bytes = val(g, "swap");
	c->rps = (double)val(&jf->jobs[web].scen_vals, "rps");
	c->speed = (double)val(&h->scen_vals, "speed") / 100.0;
	c->bg = bg >= 0;
	if (h->startdelay_ns)
		c->baseline_ns = h->startdelay_ns;
	if (h->runtime_ns)
		c->timeout_ns = c->stock_timeout_ns = h->runtime_ns;
	c->target_workload_ns = group_target(jf, "workload");
	c->target_system_ns = group_target(jf, "system");
	wl = iolat_jobfile_find_group(jf, "workload");
	low = wl >= 0 ? val(&jf->groups[wl].scen_vals, "memory_low") : 0;
	if (low) {
		uint64_t web_bytes = c->mem_bytes > c->reserve_bytes + 512 * MIB ?
				     c->mem_bytes - c->reserve_bytes - 512 * MIB : 0;

		if (low > web_bytes)
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key 'memory_low': at most the web's footprint, "
				    "%llu MiB (got %llu MiB)", jf->file, jf->groups[wl].line,
				    (unsigned long long)(web_bytes / MIB),
				    (unsigned long long)(low / MIB));
		c->web_low_frac = (double)low / (double)web_bytes;
	}
	if (c->mem_bytes > 256 * GIB || c->swap_bytes > 256 * GIB)
		return iolat_errf(err, errlen, -EINVAL, "%s: key '%s': at most 256g expected", jf->file,
			    c->mem_bytes > 256 * GIB ? "memory" : "swap");
	if (c->swap_bytes < 64 * MIB)
		return iolat_errf(err, errlen, -EINVAL, "%s: key 'swap': at least 64m expected", jf->file);
	if (c->mem_bytes < c->reserve_bytes + 1 * GIB)
		return iolat_errf(err, errlen, -EINVAL, "%s: key 'memory': at least 3g expected (2 GiB are the "
			    "kernel's reserve)", jf->file);
	return 0;
}

static int check_file(const struct iolat_jobfile *jf, char *err, size_t errlen)
{
	struct iolat_ml_config c;

	return iolat_ml_config_from_jobfile(jf, &c, err, errlen);
}
