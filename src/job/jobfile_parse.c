/* SPDX-License-Identifier: MIT */
/*
 * jobfile_parse.c - the job-file parser's INI reader and entry points: fio's INI
 * dialect ([global], one section a job, key=value, ';'/'#' comments, bare
 * boolean keys) plus [group:PATH] sections. Table-driven: the option table
 * (jobfile_table.c) gives every key's type, field, range, default and help;
 * the defaults themselves are applied by parsing their text, so the table is
 * the single source. Works on (pointer, length) slices: no fixed line buffer,
 * NULs and over-long lines are errors, never overflows. Owns struct
 * iolat_jobfile's memory. Engine names come from the engine registry
 * (job/engines.h).
 * Context: any thread; no global state.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_parse_duration_unit() */
#include "job/engines.h"
#include "job/jobfile.h"
#include "job/jobfile_priv.h"
#include "conf/ini.h"
#include "conf/suggest.h"
#include "job/fiokeys.h"
#include "util/readfile.h"
#include "util/errmsg.h"
#include "util/units.h"

/* ------------------------------------------------------------------------ */
/* Sections                                                                 */

static size_t opt_index(const struct iolat_opt *o)
{
	return (size_t)(o - jf_opts);
}

/* Checks across the keys of job @j (the parser's last, or a built one). */
int jf_check_job(struct parser *p, const struct iolat_job *j)
{
	if (!j->randrepeat)
		return jf_perr(p, iolat_job_key_line(j, "randrepeat"), "randrepeat",
			    "1: a seed always repeats its offsets here; for another sequence "
			    "give seed= another value");
	if (!j->norandommap)
		return jf_perr(p, iolat_job_key_line(j, "norandommap"), "norandommap",
			    "1: iolat keeps no random map (offsets are drawn independently, as "
			    "fio's norandommap=1)");
	if (j->time_based && !j->runtime_ns)
		return jf_perr(p, iolat_job_key_line(j, "time_based"), "time_based", "a runtime as well");
	if (j->size && j->size < j->bs)
		return jf_perr(p, iolat_job_key_line(j, "size"), "size", "at least bs (%u bytes)", j->bs);
	if (j->size && j->offset > UINT64_MAX - j->size)
		return jf_perr(p, iolat_job_key_line(j, "offset"), "offset", "offset + size below 2^64");
	if ((j->burst_on_ns == 0) != (j->burst_off_ns == 0))
		return jf_perr(p, iolat_job_key_line(j, j->burst_on_ns ? "burst_on" : "burst_off"),
			    j->burst_on_ns ? "burst_on" : "burst_off",
			    "burst_on and burst_off together (both above 0)");
	if (j->rate_split && (!iolat_rw_is_mixed(j->rw) || !j->rate_iops || !j->rate_iops_write))
		return jf_perr(p, iolat_job_key_line(j, "rate_iops"), "rate_iops",
			    "one value for rw=%s; R,W (both above 0) only for rw=rw or randrw",
			    iolat_rw_name(j->rw));
	if ((j->rate_iops || j->rate_split) && j->rate_bps && j->rate_process == IOLAT_RATE_POISSON)
		return jf_perr(p, iolat_job_key_line(j, "rate_process"), "rate_process",
			    "rate_iops or rate, not both, with poisson (each would set the arrival rate)");
	if (j->cgroup_write_bps && !j->cgroup[0])
		return jf_perr(p, iolat_job_key_line(j, "cgroup_write_bps"), "cgroup_write_bps",
			    "a cgroup= to cap (the kernel's throttle acts on a cgroup)");
	if (j->cgroup_write_bps && !j->filename)
		return jf_perr(p, iolat_job_key_line(j, "cgroup_write_bps"), "cgroup_write_bps",
			    "a filename= (the throttle caps one disk: the job file's)");
	if (j->burst_on_ns > UINT64_MAX / 4 || j->burst_off_ns > UINT64_MAX / 4)
		return jf_perr(p, iolat_job_key_line(j, "burst_on"), "burst_on",
			    "on/off durations below 100 years");
	return 0;
}

/* The job just finished: its key lines, then its checks. */
static int finish_job(struct parser *p)
{
	struct iolat_job *j;

	if (p->sec != SEC_JOB)
		return 0;
	j = &p->jf->jobs[p->jf->nr_jobs - 1];
	memcpy(j->key_line, p->cur_lines, sizeof(p->cur_lines));
	int r = jf_check_job(p, j);

	if (!r)
		r = jf_engopt_resolve(p, j);
	return r ? r : jf_engopt_finish_job(p, j);
}

static int job_dup_defaults(struct parser *p, struct iolat_job *j)
{
	*j = p->defaults;
	if (jf_engopt_dup(p, j))
		return -ENOMEM;
	if (jf_scen_dup(p, &j->scen_vals, &p->defaults.scen_vals)) {
		free(j->engopts);
		return -ENOMEM;
	}
	if (p->defaults.filename) {
		j->filename = strdup(p->defaults.filename);
		if (!j->filename) {
			free(j->engopts);
			jf_scen_free(&j->scen_vals);
			return jf_oom(p);
		}
	}
	return 0;
}

int jf_add_job(struct parser *p, const char *name, size_t n)
{
	struct iolat_jobfile *jf = p->jf;
	struct iolat_job *j;
	int r;

	if (jf_grow((void **)&jf->jobs, &p->cap_jobs, jf->nr_jobs + 1, sizeof(*jf->jobs)))
		return jf_oom(p);
	j = &jf->jobs[jf->nr_jobs];
	r = job_dup_defaults(p, j);
	if (r)
		return r;
	memcpy(j->name, name, n);
	j->name[n] = '\0';
	j->line = p->line;
	j->index = jf->nr_jobs++;
	return 0;
}

static int begin_section(struct parser *p, const char *s, size_t n)
{
	struct iolat_jobfile *jf = p->jf;
	char name[IOLAT_GROUP_PATH_MAX + 8], got[MAX_ECHO + 8];
	int r;

	jf_echo(got, sizeof(got), s, n);
	if (n == 0)
		return jf_perr(p, p->line, NULL, "section '[]': expected a name ([global], [group:PATH] or [JOB])");
	r = finish_job(p);
	if (r)
		return r;

	if (n == 6 && memcmp(s, "global", 6) == 0) {
		p->sec = SEC_GLOBAL;
		return 0;
	}
	if (n >= 6 && memcmp(s, "group:", 6) == 0) {
		char path[IOLAT_GROUP_PATH_MAX];
		const char *why = NULL;
		if (n - 6 >= sizeof(name))
			return jf_perr(p, p->line, NULL, "section '%s': expected a group path shorter than 256 bytes", got);
		memcpy(name, s + 6, n - 6);
		name[n - 6] = '\0';
		r = jf_normalise_group_path(name, path, sizeof(path), &why);
		if (r != 0)
			return jf_perr(p, p->line, NULL, "section '%s': expected %s", got,
				    r > 0 ? "a group path other than the root" : why);
		int gi = iolat_jobfile_find_group(jf, path);
		if (gi >= 0 && jf->groups[gi].declared)
			return jf_perr(p, p->line, NULL, "section '%s': expected each group once (already declared at line %u)",
				    got, jf->groups[gi].line);
		gi = jf_get_group(p, path, p->line, NULL);
		if (gi < 0)
			return gi;
		jf->groups[gi].declared = true;
		jf->groups[gi].line = p->line;
		p->cur_group = gi;
		p->sec = SEC_GROUP;
		return 0;
	}

	/* a job */
	if (n >= IOLAT_JOB_NAME_MAX)
		return jf_perr(p, p->line, NULL, "section '%s': expected a job name of at most %u bytes",
			    got, IOLAT_JOB_NAME_MAX - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f || s[i] == '[' || s[i] == ']')
			return jf_perr(p, p->line, NULL, "section '%s': expected a job name of printable characters", got);
	if (jf->nr_jobs >= MAX_JOBS)
		return jf_perr(p, p->line, NULL, "section '%s': expected at most %u jobs", got, MAX_JOBS);
	r = jf_add_job(p, s, n);
	if (r)
		return r;
	memcpy(p->cur_lines, p->def_lines, sizeof(p->cur_lines));
	p->sec = SEC_JOB;
	return 0;
}

/* An unknown key: what fio calls it here, or the nearest known key. */
static int unknown_key(struct parser *p, const char *key)
{
	struct iolat_suggest sg;
	const char *hint = iolat_fio_key_hint(key), *best;
	char engine_keys[64][JF_ENGOPT_NAME_MAX];
	size_t nr_engine_keys = jf_engopt_names(engine_keys, 64);

	if (hint)
		return jf_perr(p, p->line, key, "a known key: %s (see `iolat help keys`)", hint);
	iolat_suggest_init(&sg, key);
	for (size_t i = 0; i < jf_nr_opts; i++) {
		if (jf_opts[i].type == IOLAT_OPT_ENGOPT) {   /* the family's members */
			for (size_t k = 0; k < nr_engine_keys; k++)
				iolat_suggest_offer(&sg, engine_keys[k]);
			continue;
		}
		if (jf_opts[i].type == IOLAT_OPT_PARAM)
			continue;
		iolat_suggest_offer(&sg, jf_opts[i].name);
		if (jf_opts[i].alias)
			iolat_suggest_offer(&sg, jf_opts[i].alias);
	}
	for (unsigned i = 0; jf_scen_key(i); i++)
		iolat_suggest_offer(&sg, jf_scen_key(i)->name);
	best = iolat_suggest_best(&sg);
	if (best)
		return jf_perr(p, p->line, key, "a known key; did you mean '%s'? (see `iolat help keys`)",
			    best);
	return jf_perr(p, p->line, key, "a known key (see `iolat help keys`)");
}

/* A scenario's key (jobfile_scen.c) in the current section, as do_key() allows it. */
static int do_scen_key(struct parser *p, const struct iolat_opt *o, const char *key,
		       const char *v)
{
	struct iolat_jobfile *jf = p->jf;

	if (p->sec == SEC_GLOBAL)
		return jf_scen_set(p, (o->where & IOLAT_OPT_IN_JOB) ? &p->defaults.scen_vals :
				   &jf->global.scen_vals, o, key, v);
	if (p->sec == SEC_JOB)
		return jf_scen_set(p, &jf->jobs[jf->nr_jobs - 1].scen_vals, o, key, v);
	return jf_scen_set(p, &jf->groups[p->cur_group].scen_vals, o, key, v);
}

static int do_key(struct parser *p, const char *key, const char *v)
{
	const struct iolat_opt *o = jf_find_opt(key);
	bool table = o && jf_is_table_opt(o);
	void *base;

	if (!o)
		return unknown_key(p, key);
	switch (p->sec) {
	case SEC_NONE:
		return jf_perr(p, p->line, key, "a section header ([global], [group:PATH] or [JOB]) before it");
	case SEC_GLOBAL:
		if (!(o->where & IOLAT_OPT_IN_GLOBAL))
			return jf_perr(p, p->line, key, "only in a [group:PATH] section");
		if (!table)
			return do_scen_key(p, o, key, v);
		base = (o->where & IOLAT_OPT_IN_JOB) ? (void *)&p->defaults : (void *)&p->jf->global;
		if (o->type != IOLAT_OPT_PARAM)
			p->def_lines[opt_index(o)] = p->line;
		if (o->has_given) {
			/* The table says this key records that it was given. */
			int r = jf_apply(p, o, base, key, v);
			if (!r)
				*(bool *)((char *)&p->jf->global + o->given_off) = true;
			return r;
		}
		break;
	case SEC_JOB:
		if (!(o->where & IOLAT_OPT_IN_JOB))
			return jf_perr(p, p->line, key, o->where & IOLAT_OPT_IN_GLOBAL ?
				    "only in [global]" : "only in a [group:PATH] section");
		if (!table)
			return do_scen_key(p, o, key, v);
		base = &p->jf->jobs[p->jf->nr_jobs - 1];
		p->cur_lines[opt_index(o)] = p->line;
		break;
	case SEC_GROUP:
		if (!(o->where & IOLAT_OPT_IN_GROUP))
			return jf_perr(p, p->line, key, "only target in a [group:PATH] section");
		if (!table)
			return do_scen_key(p, o, key, v);
		base = &p->jf->groups[p->cur_group];
		break;
	default:
		return -EINVAL;
	}
	return jf_apply(p, o, base, key, v);
}

/* The INI reader's "[NAME]". */
static int on_section(void *ctx, const char *s, size_t n)
{
	struct parser *p = ctx;

	p->line = p->at.line;
	return begin_section(p, s, n);
}

/* The INI reader's "KEY=VALUE" or bare "KEY". */
static int on_key(void *ctx, const char *s, size_t kn, const char *vs, size_t vn)
{
	struct parser *p = ctx;
	char key[MAX_KEY_LEN + 1], got[MAX_ECHO + 8];

	p->line = p->at.line;
	if (kn > MAX_KEY_LEN) {
		jf_echo(got, sizeof(got), s, kn);
		return jf_perr(p, p->line, got, "a known key (see `iolat help keys`)");
	}
	memcpy(key, s, kn);
	key[kn] = '\0';
	for (size_t i = 0; i < kn; i++)
		if (jf_is_space(key[i]) || (unsigned char)key[i] < 0x20 || (unsigned char)key[i] >= 0x7f)
			return jf_perr(p, p->line, key, "a known key (see `iolat help keys`)");
	if (!vs)
		return do_key(p, key, NULL);
	if (vn > MAX_VALUE_LEN)
		return jf_perr(p, p->line, key, "a value of at most %u bytes", MAX_VALUE_LEN);
	char *val = malloc(vn + 1);
	if (!val)
		return jf_oom(p);
	memcpy(val, vs, vn);
	val[vn] = '\0';
	int r = do_key(p, key, val);
	free(val);
	return r;
}

static int set_defaults(struct parser *p)
{
	struct iolat_jobfile *jf = p->jf;

	memset(&p->defaults, 0, sizeof(p->defaults));
	p->defaults.group = IOLAT_GROUP_ROOT;
	jf->global.rotational = -1;
	for (size_t i = 0; i < jf_nr_opts; i++) {
		const struct iolat_opt *o = &jf_opts[i];
		void *base;
		if (!o->def || o->where == IOLAT_OPT_IN_GROUP)
			continue;
		base = (o->where & IOLAT_OPT_IN_JOB) ? (void *)&p->defaults : (void *)&jf->global;
		int r = jf_apply(p, o, base, o->name, o->def);
		if (r)
			return r;   /* a broken table: caught by the tests */
	}
	return 0;
}

/* Group @gi has a [group:PATH] section, or is the parent of one that does. */
static bool group_is_declared(const struct iolat_jobfile *jf, int gi)
{
	if (jf->groups[gi].declared)
		return true;
	for (unsigned k = 0; k < jf->nr_groups; k++) {
		if (!jf->groups[k].declared)
			continue;
		for (int a = jf->groups[k].parent; a >= 0; a = jf->groups[a].parent)
			if (a == gi)
				return true;
	}
	return false;
}

/*
 * cgroup= used to be another name of group=: a job that names a declared
 * [group:PATH] with cgroup= and gives no group= most likely means iolat's
 * group. Say so rather than run it in the root group.
 */
static int check_job_cgroup(struct parser *p, const struct iolat_job *j)
{
	int gi = j->cgroup[0] ? iolat_jobfile_find_group(p->jf, j->cgroup) : -1;

	if (gi < 0 || j->group != IOLAT_GROUP_ROOT || !p->jf->groups[gi].declared)
		return 0;
	return jf_perr(p, iolat_job_key_line(j, "cgroup"), "cgroup",
		       "a kernel cgroup for the job's threads, as fio's cgroup= (got '%s', a [group:%s] "
		       "of this file: for iolat's group write group=%s; both keys to have both)",
		       j->cgroup, j->cgroup, j->cgroup);
}

/*
 * Every job's group= names a declared group: a misspelled path would
 * otherwise make a new group with no target, silently losing the protection
 * the user asked for.
 */
static int check_job_groups(struct parser *p)
{
	const struct iolat_jobfile *jf = p->jf;

	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];
		struct iolat_suggest sg;
		const char *best;
		char got[MAX_ECHO + 8];
		int r = check_job_cgroup(p, j);

		if (r)
			return r;
		if (j->group < 0 || group_is_declared(jf, j->group))
			continue;
		jf_echo(got, sizeof(got), jf->groups[j->group].path, strlen(jf->groups[j->group].path));
		iolat_suggest_init(&sg, jf->groups[j->group].path);
		for (unsigned k = 0; k < jf->nr_groups; k++)
			if (jf->groups[k].declared)
				iolat_suggest_offer(&sg, jf->groups[k].path);
		best = iolat_suggest_best(&sg);
		return jf_perr(p, iolat_job_key_line(j, "group"), "group",
			    "a group declared by a [group:PATH] section (got '%s'%s%s%s)", got,
			    best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
	}
	return 0;
}

unsigned iolat_job_key_line(const struct iolat_job *job, const char *key)
{
	const struct iolat_opt *o = jf_find_opt(key);
	unsigned l = o && jf_is_table_opt(o) ? job->key_line[opt_index(o)] : 0;

	return l ? l : job->line;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */

void iolat_jobfile_free(struct iolat_jobfile *jf)
{
	if (!jf)
		return;
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		free(jf->jobs[i].filename);
		free((void *)jf->jobs[i].spec);
		free(jf->jobs[i].engopts);
		jf_scen_free(&jf->jobs[i].scen_vals);
	}
	for (unsigned i = 0; i < jf->nr_groups; i++)
		jf_scen_free(&jf->groups[i].scen_vals);
	jf_scen_free(&jf->global.scen_vals);
	free(jf->jobs);
	free(jf->groups);
	free(jf->params);
	free(jf->file);
	free(jf);
}

static int parse_lines(struct parser *p, const char *buf, size_t len)
{
	static const struct iolat_ini_ops ops = { .section = on_section, .key = on_key };
	int r;

	jf_at(p);
	r = iolat_ini_read(&p->at, buf, len, &ops, p);
	p->line = p->at.line;
	return r ? r : finish_job(p);
}

int jf_parser_new(const char *file, char *err, size_t errlen, struct parser **out)
{
	struct parser *p;
	struct iolat_jobfile *jf;
	char fname[256];
	int r;

	if (err && errlen)
		err[0] = '\0';
	*out = NULL;
	p = calloc(1, sizeof(*p));
	jf = calloc(1, sizeof(*jf));
	jf_echo_max(fname, sizeof(fname), file ? file : "<buffer>", strlen(file ? file : "<buffer>"),
		 MAX_FILE_ECHO);
	if (!p || !jf || !(jf->file = strdup(fname))) {
		iolat_errf(err, errlen, 0, "%s: out of memory", fname);
		free(p);
		if (jf)
			free(jf->file);
		free(jf);
		return -ENOMEM;
	}
	p->jf = jf;
	p->err = err;
	p->errlen = errlen;
	r = set_defaults(p);
	if (r) {
		jf_parser_end(p, r, NULL);
		return r;
	}
	*out = p;
	return 0;
}

int jf_parser_end(struct parser *p, int r, struct iolat_jobfile **out)
{
	struct iolat_jobfile *jf = p->jf;

	if (!r && jf->nr_jobs == 0)
		r = jf_perr(p, p->line ? p->line : 1, NULL, "expected at least one job section ([JOB])");
	if (!r)
		r = check_job_groups(p);
	if (!r)
		r = jf_engopt_finish(p);
	free(p->defaults.filename);
	free(p->defaults.engopts);
	jf_scen_free(&p->defaults.scen_vals);
	free(p);
	if (r) {
		iolat_jobfile_free(jf);
		return r;
	}
	for (unsigned i = 0; i < jf->nr_groups; i++) {
		const char *slash = strrchr(jf->groups[i].path, '/');
		jf->groups[i].name = slash ? slash + 1 : jf->groups[i].path;
	}
	*out = jf;
	return 0;
}

int iolat_jobfile_parse_buf(const char *buf, size_t len, const char *file,
			    struct iolat_jobfile **out, char *err, size_t errlen)
{
	struct parser *p;
	int r;

	if (err && errlen)
		err[0] = '\0';
	if (!out || (!buf && len))
		return -EINVAL;
	*out = NULL;
	r = jf_parser_new(file, err, errlen, &p);
	if (r)
		return r;
	r = parse_lines(p, buf ? buf : "", len);
	return jf_parser_end(p, r, out);
}

int iolat_jobfile_parse_file(const char *path, struct iolat_jobfile **out,
			     char *err, size_t errlen)
{
	char fname[256];
	size_t len;
	char *buf;
	int r;

	if (err && errlen)
		err[0] = '\0';
	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	jf_echo_max(fname, sizeof(fname), path, strlen(path), MAX_FILE_ECHO);
	r = iolat_read_file(path, MAX_FILE_BYTES, &buf, &len);
	if (r == -EFBIG)
		return iolat_errf(err, errlen, r, "%s: cannot read: larger than %u MiB", fname,
				  MAX_FILE_BYTES >> 20);
	if (r)
		return iolat_errf(err, errlen, r, "%s: cannot read: %s", fname, strerror(-r));
	r = iolat_jobfile_parse_buf(buf, len, path, out, err, errlen);
	free(buf);
	return r;
}

