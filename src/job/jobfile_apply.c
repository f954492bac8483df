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
#include "job/suggest.h"

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

const struct iolat_jobopt *jf_find_opt(const char *key)
{
	for (size_t i = 0; i < jf_nr_opts; i++) {
		const struct iolat_jobopt *o = &jf_opts[i];
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

static void store_uint(void *base, const struct iolat_jobopt *o, uint64_t v)
{
	char *f = (char *)base + o->off;

	switch (o->fsize) {
	case 1: { bool b = v != 0; memcpy(f, &b, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(f, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(f, &x, 4); break; }
	default: memcpy(f, &v, 8); break;
	}
}

static const char *size_hint(const struct iolat_jobopt *o)
{
	return o->type == IOLAT_OPT_RATE ? "a rate in bytes/s like 500k, 10m" :
					   "a size like 4k, 1m, 2g or bytes";
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

/* "a, b, a|b or none" for flags "a|b|none": each bit's word, all of them
 * joined, then the word that sets none. */
static void flags_expect(const struct iolat_jobopt *o, char *buf, size_t len)
{
	char all[128] = "", zero[32] = "";
	size_t used = 0, n_all = 0;
	const char *c = o->choices;

	buf[0] = '\0';
	for (unsigned i = 0; *c; i++) {
		const char *bar = strchr(c, '|');
		int n = bar ? (int)(bar - c) : (int)strlen(c);

		if (!o->flag_bits[i])
			snprintf(zero, sizeof(zero), "%.*s", n, c);
		else if (used < len && n_all < sizeof(all)) {
			used += (size_t)snprintf(buf + used, len - used, "%.*s, ", n, c);
			n_all += (size_t)snprintf(all + n_all, sizeof(all) - n_all, "%s%.*s",
						  n_all ? "|" : "", n, c);
		}
		c = bar ? bar + 1 : c + n;
	}
	if (used < len)
		snprintf(buf + used, len - used, "%s or %s", all, zero);
}

/* Words of o->choices separated by '|' or ',', each OR-ing its flag_bits. */
static int set_flags(struct parser *p, const struct iolat_jobopt *o, void *base,
		     const char *key, const char *v)
{
	unsigned f = 0;
	const char *s = v;
	char word[64], expect[160];

	while (*s) {
		const char *e = s;
		int idx = -1;

		while (*e && *e != '|' && *e != ',')
			e++;
		if ((size_t)(e - s) < sizeof(word)) {
			memcpy(word, s, (size_t)(e - s));
			word[e - s] = '\0';
			idx = jf_choice_index(o->choices, word);
		}
		s = *e ? e + 1 : e;
		if (idx < 0 || (*e && !*s)) {
			flags_expect(o, expect, sizeof(expect));
			return jf_perr(p, p->line, key, "%s", expect);
		}
		f |= o->flag_bits[idx];
	}
	memcpy((char *)base + o->off, &f, sizeof(f));
	return 0;
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

/*
 * Apply @key = @v (@v NULL: bare key) of option @o to @base (a job, the
 * global struct or a group, by o->where). Built-in defaults use line 0.
 */
static int set_str(struct parser *p, const struct iolat_jobopt *o, void *base,
		   const char *key, const char *v)
{
	char **f = (char **)((char *)base + o->off);
	char *d;

	if (!*v)
		return jf_perr(p, p->line, key, "a non-empty value");
	d = strdup(v);
	if (!d)
		return jf_oom(p);
	free(*f);
	*f = d;
	return 0;
}

/* The choice @v stands for in @o's value aliases ("alias=choice|..."), or -1. */
static int alias_index(const struct iolat_jobopt *o, const char *v)
{
	size_t vlen = strlen(v);

	for (const char *a = o->value_aliases; a && *a;) {
		const char *eq = strchr(a, '='), *end = strchr(a, '|');
		size_t n = end ? (size_t)(end - a) : strlen(a);
		char choice[64];

		if (eq && (size_t)(eq - a) == vlen && !strncmp(a, v, vlen) &&
		    n - vlen - 1 < sizeof(choice)) {
			memcpy(choice, eq + 1, n - vlen - 1);
			choice[n - vlen - 1] = '\0';
			return jf_choice_index(o->choices, choice);
		}
		a += n + (end != NULL);
	}
	return -1;
}

static int set_enum(struct parser *p, const struct iolat_jobopt *o, void *base,
		    const char *key, const char *v, const char *got)
{
	int idx = jf_choice_index(o->choices, v);
	struct iolat_job *job = base;   /* an enum with scen_words is a job's */

	if (idx < 0)
		idx = alias_index(o, v);
	if (idx < 0 && o->scen_words && jf_scen_workload(v, &job->scen, &job->workload)) {
		store_uint(base, o, o->min);   /* a scenario's workload: no plain pattern */
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
	store_uint(base, o, o->min + (uint64_t)idx);
	return 0;
}

static int set_group(struct parser *p, const struct iolat_jobopt *o, void *base,
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
	store_uint(base, o, (uint64_t)(int64_t)gi);
	return 0;
}

/* cgroup=: a kernel cgroup below the hierarchy's root, with a group path's syntax (fio's cgroup=). */
static int set_cgroup(struct parser *p, const struct iolat_jobopt *o, void *base,
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

/* "0, 1, a, b or c" for a bool with value words "a|b|c"; "0 or 1" without. */
static void bool_expect(const struct iolat_jobopt *o, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, o->value_words ? "0, 1" : "0 or 1");

	for (const char *w = o->value_words; w && *w && used < len;) {
		const char *bar = strchr(w, '|');
		int n = bar ? (int)(bar - w) : (int)strlen(w);

		used += (size_t)snprintf(buf + used, len - used, "%s%.*s", bar ? ", " : " or ", n, w);
		w = bar ? bar + 1 : "";
	}
}

/* 0/1 (bool spellings), or one of the table's value words (control=kernel):
 * 1, and the word's position + 1 stored in the int at words_off. */
static int set_bool(struct parser *p, const struct iolat_jobopt *o, void *base,
		    const char *key, const char *v, const char *got)
{
	int word = o->value_words ? jf_choice_index(o->value_words, v) : -1;
	char expect[128];
	bool b;

	if (word >= 0) {
		int pos = word + 1;

		memcpy((char *)base + o->words_off, &pos, sizeof(pos));
		v = "1";
	}
	if (jf_parse_bool(v, &b)) {
		bool_expect(o, expect, sizeof(expect));
		return jf_perr(p, p->line, key, "%s (got '%s')", expect, got);
	}
	store_uint(base, o, b);
	return 0;
}

/* One integer of an IOLAT_OPT_UINT key, in its range. */
static int parse_uint_in(struct parser *p, const struct iolat_jobopt *o, const char *key,
			 const char *v, const char *got, uint64_t *x)
{
	int r = jf_parse_uint(v, x);

	if (r == -ERANGE || (r == 0 && (*x < o->min || *x > o->max)))
		return jf_perr(p, p->line, key, "an integer from %llu to %llu (got '%s')",
			    (unsigned long long)o->min, (unsigned long long)o->max, got);
	if (r)
		return jf_perr(p, p->line, key, "%s (got '%s')", o->rw_pair ?
			    "an integer, or two (read,write) separated by a comma" : "an integer", got);
	return 0;
}

/* An integer; for a key with rw_pair also "R,W", each in the range. */
static int set_uint(struct parser *p, const struct iolat_jobopt *o, void *base,
		    const char *key, const char *v, const char *got)
{
	const char *comma = o->rw_pair ? strchr(v, ',') : NULL;
	uint64_t x, w = 0;
	char first[32];

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
	store_uint(base, o, x);
	if (o->rw_pair) {
		bool split = comma != NULL;

		memcpy((char *)base + o->pair_off, &w, sizeof(w));
		memcpy((char *)base + o->split_off, &split, sizeof(split));
	}
	return 0;
}

int jf_apply(struct parser *p, const struct iolat_jobopt *o, void *base,
		 const char *key, const char *v)
{
	uint64_t x = 0;
	const char *hint = "";
	char got[MAX_ECHO + 8];

	if (o->type == IOLAT_OPT_ENGOPT)   /* its own messages: the engine's table says */
		return jf_set_engopt(p, (struct iolat_job *)base, key, v);
	if (!v) {
		if (o->type != IOLAT_OPT_BOOL)
			return jf_perr(p, p->line, key, "a value (%s=...)", o->name);
		v = "1";
	}
	jf_echo(got, sizeof(got), v, strlen(v));

	switch (o->type) {
	case IOLAT_OPT_STR:
		return set_str(p, o, base, key, v);
	case IOLAT_OPT_SIZE:
	case IOLAT_OPT_RATE:
		hint = size_hint(o);
		if (strchr(v, ','))
			return jf_perr(p, p->line, key, "one value (separate read,write values are not supported)");
		if (iolat_parse_size(v, &x))
			return jf_perr(p, p->line, key, "%s (got '%s')", hint, got);
		break;
	case IOLAT_OPT_TIME_S:
		hint = "a duration like 30s, 500ms, 2m (bare number: seconds)";
		if (iolat_parse_duration_unit(v, NSEC_PER_SEC, &x))
			return jf_perr(p, p->line, key, "%s (got '%s')", hint, got);
		break;
	case IOLAT_OPT_TIME_US:
		hint = "a duration like 100us, 2ms (bare number: microseconds)";
		if (iolat_parse_duration_unit(v, NSEC_PER_USEC, &x))
			return jf_perr(p, p->line, key, "%s (got '%s')", hint, got);
		break;
	case IOLAT_OPT_TARGET:
		hint = "a latency target like 5ms, 750us or max";
		if (iolat_parse_duration(v, &x))
			return jf_perr(p, p->line, key, "%s (got '%s')", hint, got);
		break;
	case IOLAT_OPT_BOOL:
		return set_bool(p, o, base, key, v, got);
	case IOLAT_OPT_UINT:
		return set_uint(p, o, base, key, v, got);
	case IOLAT_OPT_ENUM:
		return set_enum(p, o, base, key, v, got);
	case IOLAT_OPT_ENGINE:
		return set_engine(p, (struct iolat_job *)base, key, v);
	case IOLAT_OPT_GROUP:
		return set_group(p, o, base, key, v, got);
	case IOLAT_OPT_CGROUP:
		return set_cgroup(p, o, base, key, v, got);
	case IOLAT_OPT_FLAGS:
		return set_flags(p, o, base, key, v);
	case IOLAT_OPT_PARAM:
		return set_param(p, key, v);
	case IOLAT_OPT_JOBNAME:
		return set_job_name(p, (struct iolat_job *)base, key, v);
	case IOLAT_OPT_PCTLIST:
		return set_percentiles(p, (struct iolat_jobfile_global *)base, key, v);
	case IOLAT_OPT_ENGOPT:
		break;   /* above */
	}
	if (o->max && x > o->max)
		return jf_perr(p, p->line, key, "%s of at most %llu (got '%s')", hint,
			    (unsigned long long)o->max, got);
	if (x < o->min)
		return jf_perr(p, p->line, key, "%s of at least %llu (got '%s')", hint,
			    (unsigned long long)o->min, got);
	store_uint(base, o, x);
	return 0;
}
