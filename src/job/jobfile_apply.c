/* SPDX-License-Identifier: MIT */
/*
 * jobfile_apply.c - group paths and applying one key=value to a job, the
 * defaults or a group, as the option table says.
 * Context: any thread; no global state.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_parse_duration_unit() */
#include "job/engines.h"
#include "job/jobfile.h"
#include "job/jobfile_priv.h"
#include "util/units.h"

/* ------------------------------------------------------------------------ */
/* Groups                                                                   */

static bool group_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || jf_is_digit(c) ||
	       c == '_' || c == '-' || c == '.' || c == '@' || c == '+' || c == ':';
}

/*
 * Check a group path: components of 1..63 bytes of [A-Za-z0-9_.@+:-], not
 * "." or "..", separated by single '/', with no '/' before the first or after
 * the last (every empty component is refused alike: "/a", "a/", "a//b").
 * Writes the path to @out. "/" alone is the root (returns 1).
 */
int jf_normalise_group_path(const char *s, char *out, size_t outlen, const char **why)
{
	size_t n = strlen(s);

	if (n == 1 && s[0] == '/')
		return 1;
	if (n == 0) {
		*why = "a group path like main or system/fbpkg";
		return -EINVAL;
	}
	if (s[0] == '/' || s[n - 1] == '/') {
		*why = "a group path without a leading or trailing '/' (like system/fbpkg)";
		return -EINVAL;
	}
	if (n >= outlen) {
		*why = "a group path shorter than 256 bytes";
		return -EINVAL;
	}
	size_t comp = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '/') {
			if (comp == 0) {
				*why = "a group path without empty components (no '//')";
				return -EINVAL;
			}
			if (comp >= IOLAT_GROUP_NAME_MAX) {
				*why = "group names of at most 63 bytes";
				return -EINVAL;
			}
			if ((comp == 1 && s[i - 1] == '.') ||
			    (comp == 2 && s[i - 1] == '.' && s[i - 2] == '.')) {
				*why = "group names other than '.' and '..'";
				return -EINVAL;
			}
			comp = 0;
			continue;
		}
		if (!group_char_ok(s[i])) {
			*why = "a group path of letters, digits and _ . - @ + : separated by '/'";
			return -EINVAL;
		}
		comp++;
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int iolat_jobfile_find_group(const struct iolat_jobfile *jf, const char *path)
{
	if (!jf || !path)
		return -EINVAL;
	for (unsigned i = 0; i < jf->nr_groups; i++)
		if (strcmp(jf->groups[i].path, path) == 0)
			return (int)i;
	return -ENOENT;
}

bool iolat_jobfile_has_weights(const struct iolat_jobfile *jf)
{
	for (unsigned i = 0; jf && i < jf->nr_groups; i++)
		if (jf->groups[i].weight)
			return true;
	return false;
}

/* Find or create the group at normalised @path, creating parents; returns its index. */
int jf_get_group(struct parser *p, const char *path, unsigned line, const char *key)
{
	struct iolat_jobfile *jf = p->jf;
	int parent = IOLAT_GROUP_ROOT;
	size_t n = strlen(path);

	for (size_t i = 0; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		char prefix[IOLAT_GROUP_PATH_MAX];
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		int idx = iolat_jobfile_find_group(jf, prefix);
		if (idx < 0) {
			if (jf->nr_groups >= MAX_GROUPS)
				return key ? jf_perr(p, line, key, "at most %u groups", MAX_GROUPS) :
					     jf_perr(p, line, NULL, "expected at most %u groups", MAX_GROUPS);
			if (jf_grow((void **)&jf->groups, &p->cap_groups, jf->nr_groups + 1,
				 sizeof(*jf->groups)))
				return jf_oom(p);
			struct iolat_jobfile_group *g = &jf->groups[jf->nr_groups];
			memset(g, 0, sizeof(*g));
			memcpy(g->path, prefix, i + 1);
			g->parent = parent;
			g->line = line;
			idx = (int)jf->nr_groups++;
		}
		parent = idx;
	}
	return parent;
}

/* ------------------------------------------------------------------------ */
/* Applying one key                                                         */

const struct iolat_opt *jf_find_opt(const char *key)
{
	for (size_t i = 0; i < jf_nr_opts; i++) {
		const struct iolat_opt *o = &jf_opts[i];
		if (o->type == IOLAT_OPT_PARAM) {
			size_t pl = strlen(o->name);
			if (strncmp(key, o->name, pl) == 0 && key[pl])
				return o;
			continue;
		}
		if (o->type == IOLAT_OPT_ENGOPT) {
			if (jf_engopt_matches(key))
				return o;
			continue;
		}
		if (strcmp(key, o->name) == 0 || (o->alias && strcmp(key, o->alias) == 0))
			return o;
	}
	return jf_scen_find_opt(key);
}

static int set_engine(struct parser *p, struct iolat_job *job, const char *key, const char *v)
{
	const char *engine, *wrapper;
	char list[160];

	if (iolat_job_engine_parse(v, &engine, &wrapper) == 0 && strlen(v) < sizeof(job->ioengine)) {
		strcpy(job->ioengine, v);
		job->engine = engine;
		job->engine_wrapper = wrapper;
		return 0;
	}
	iolat_job_engine_choices(list, sizeof(list), ", ");
	return jf_perr(p, p->line, key, "one of %s", list);
}

static int set_param(struct parser *p, const char *key, const char *v)
{
	struct iolat_jobfile *jf = p->jf;
	struct iolat_jobfile_param *pa = NULL;

	if (strlen(key) >= IOLAT_PARAM_KEY_MAX)
		return jf_perr(p, p->line, key, "a key of at most %u bytes", IOLAT_PARAM_KEY_MAX - 1);
	if (!*v || strlen(v) >= IOLAT_PARAM_VAL_MAX)
		return jf_perr(p, p->line, key, "a value of 1 to %u bytes", IOLAT_PARAM_VAL_MAX - 1);
	for (unsigned i = 0; i < jf->nr_params; i++)
		if (strcmp(jf->params[i].key, key) == 0)
			pa = &jf->params[i];     /* set again: the last value wins */
	if (!pa) {
		if (jf->nr_params >= MAX_PARAMS)
			return jf_perr(p, p->line, key, "at most %u device parameters", MAX_PARAMS);
		if (jf_grow((void **)&jf->params, &p->cap_params, jf->nr_params + 1, sizeof(*pa)))
			return jf_oom(p);
		pa = &jf->params[jf->nr_params++];
		strcpy(pa->key, key);
	}
	strcpy(pa->value, v);
	pa->line = p->line;
	return 0;
}

/* fio's name=: a new name for the job, same rules as a section name. */
static int set_job_name(struct parser *p, struct iolat_job *job, const char *key, const char *v)
{
	size_t n = strlen(v);

	if (!n || n >= IOLAT_JOB_NAME_MAX)
		return jf_perr(p, p->line, key, "a name of 1 to %u bytes", IOLAT_JOB_NAME_MAX - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] == 0x7f)
			return jf_perr(p, p->line, key, "a name of printable characters");
	memcpy(job->name, v, n + 1);
	return 0;
}

/* fio's percentile_list: "99.5:99.9" (0 < each <= 100), at most 16. */
static int set_percentiles(struct parser *p, struct iolat_jobfile_global *g, const char *key,
			   const char *v)
{
	char got[MAX_ECHO + 8];
	unsigned n = 0;
	const char *s = v;

	jf_echo(got, sizeof(got), v, strlen(v));
	while (*s) {
		char *end;
		double d = strtod(s, &end);

		if (end == s || (*end && *end != ':') || !(d > 0 && d <= 100) ||
		    n == IOLAT_MAX_PERCENTILES)
			return jf_perr(p, p->line, key, "up to %u percentiles in (0, 100] separated by "
				    "':' like 99.5:99.99 (got '%s')", IOLAT_MAX_PERCENTILES, got);
		g->percentiles[n++] = d;
		s = *end ? end + 1 : end;
		if (*end && !*s)
			return jf_perr(p, p->line, key, "a percentile after the last ':' (got '%s')", got);
	}
	if (!n)
		return jf_perr(p, p->line, key, "at least one percentile like 99.9");
	g->nr_percentiles = n;
	return 0;
}

static int set_enum(struct parser *p, const struct iolat_opt *o, void *base,
		    const char *key, const char *v, const char *got)
{
	int idx = iolat_opt_choice(o, v);
	struct iolat_job *job = base;   /* an enum with scen_words is a job's */

	if (idx < 0 && o->scen_words && jf_scen_workload(v, &job->scen, &job->workload)) {
		iolat_opt_store_uint(base, o, o->min);   /* a scenario's workload: no plain pattern */
		return 0;
	}
	if (idx < 0) {
		char list[192];
		size_t n = (size_t)snprintf(list, sizeof(list), "%s", o->choices);

		if (o->scen_words && n < sizeof(list))
			jf_scen_words(list + n, sizeof(list) - n, "|");
		for (char *c = list; *c; c++)
			if (*c == '|')
				*c = ',';
		return jf_perr(p, p->line, key, "one of %s (got '%s')", list, got);
	}
	if (o->scen_words) {
		job->scen = NULL;
		job->workload = NULL;
	}
	iolat_opt_store_uint(base, o, o->min + (uint64_t)idx);
	return 0;
}

static int set_group(struct parser *p, const struct iolat_opt *o, void *base,
		     const char *key, const char *v, const char *got)
{
	char path[IOLAT_GROUP_PATH_MAX];
	const char *why = NULL;
	int r = jf_normalise_group_path(v, path, sizeof(path), &why);
	int gi = IOLAT_GROUP_ROOT;

	if (r < 0)
		return jf_perr(p, p->line, key, "%s (got '%s')", why, got);
	if (r == 0) {
		gi = jf_get_group(p, path, p->line, key);
		if (gi < 0)
			return gi;
	}
	iolat_opt_store_uint(base, o, (uint64_t)(int64_t)gi);
	return 0;
}

/* cgroup=: a kernel cgroup below the hierarchy's root, with a group path's syntax (fio's cgroup=). */
static int set_cgroup(struct parser *p, const struct iolat_opt *o, void *base,
		      const char *key, const char *v, const char *got)
{
	char path[IOLAT_GROUP_PATH_MAX];
	const char *why = NULL;
	int r = jf_normalise_group_path(v, path, sizeof(path), &why);

	if (r > 0)
		return jf_perr(p, p->line, key, "a cgroup below the root (the root holds every task "
			       "already: leave cgroup= out) (got '%s')", got);
	if (r < 0)
		return jf_perr(p, p->line, key, "a cgroup path relative to the hierarchy's root: %s (got '%s')",
			       why, got);
	memcpy((char *)base + o->off, path, sizeof(path));
	return 0;
}

/* One integer of an IOLAT_OPT_UINT key with rw_pair, in its range. */
static int parse_uint_in(struct parser *p, const struct iolat_opt *o, const char *key,
			 const char *v, const char *got, uint64_t *x)
{
	int r = iolat_conf_parse_uint(v, x);

	if (r == -ERANGE || (r == 0 && (*x < o->min || *x > o->max)))
		return jf_perr(p, p->line, key, "an integer from %llu to %llu (got '%s')",
			    (unsigned long long)o->min, (unsigned long long)o->max, got);
	if (r)
		return jf_perr(p, p->line, key, "an integer, or two (read,write) separated "
			    "by a comma (got '%s')", got);
	return 0;
}

/*
 * An integer or fio's "R,W" pair of a key with rw_pair, each in the range:
 * R at off, W at pair_off (0 for one value), the bool at split_off told
 * which it was. The job file's own: the generic table code reads one value.
 */
static int set_uint_pair(struct parser *p, const struct iolat_opt *o, void *base,
			 const char *key, const char *v)
{
	const char *comma = strchr(v, ',');
	char got[MAX_ECHO + 8];
	uint64_t x, w = 0;
	char first[32];
	bool split = comma != NULL;

	jf_echo(got, sizeof(got), v, strlen(v));
	if (comma) {
		if ((size_t)(comma - v) >= sizeof(first))
			return jf_perr(p, p->line, key, "an integer, or two (read,write) separated "
				    "by a comma (got '%s')", got);
		memcpy(first, v, (size_t)(comma - v));
		first[comma - v] = '\0';
		if (parse_uint_in(p, o, key, first, got, &x) ||
		    parse_uint_in(p, o, key, comma + 1, got, &w))
			return -EINVAL;
	} else if (parse_uint_in(p, o, key, v, got, &x)) {
		return -EINVAL;
	}
	iolat_opt_store_uint(base, o, x);
	memcpy((char *)base + o->pair_off, &w, sizeof(w));
	memcpy((char *)base + o->split_off, &split, sizeof(split));
	return 0;
}

/*
 * Apply @key = @v (@v NULL: bare key) of option @o to @base (a job, the
 * global struct or a group, by o->where): the job file's own types here,
 * the rest by the table's generic code (conf/opt.h). Built-in defaults use
 * line 0.
 */
int jf_apply(struct parser *p, const struct iolat_opt *o, void *base,
	     const char *key, const char *v)
{
	char got[MAX_ECHO + 8];
	int r;

	if (o->type == IOLAT_OPT_ENGOPT)   /* its own messages: the engine's table says */
		return jf_set_engopt(p, (struct iolat_job *)base, key, v);
	if (o->type == IOLAT_OPT_UINT && o->rw_pair && v)
		return set_uint_pair(p, o, base, key, v);
	if (!(o->type == IOLAT_OPT_ENUM && o->scen_words)) {
		r = iolat_opt_apply(jf_at(p), o, base, key, v);
		if (r != IOLAT_OPT_NOT_MINE)
			return r;
	}
	if (!v)
		return jf_perr(p, p->line, key, "a value (%s=...)", o->name);
	jf_echo(got, sizeof(got), v, strlen(v));
	switch (o->type) {
	case IOLAT_OPT_ENUM:
		return set_enum(p, o, base, key, v, got);
	case IOLAT_OPT_ENGINE:
		return set_engine(p, (struct iolat_job *)base, key, v);
	case IOLAT_OPT_GROUP:
		return set_group(p, o, base, key, v, got);
	case IOLAT_OPT_CGROUP:
		return set_cgroup(p, o, base, key, v, got);
	case IOLAT_OPT_PARAM:
		return set_param(p, key, v);
	case IOLAT_OPT_JOBNAME:
		return set_job_name(p, (struct iolat_job *)base, key, v);
	case IOLAT_OPT_PCTLIST:
		return set_percentiles(p, (struct iolat_jobfile_global *)base, key, v);
	default:
		return -EINVAL;   /* a type no code reads: caught by the tests */
	}
}
