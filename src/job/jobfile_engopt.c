/* SPDX-License-Identifier: MIT */
/*
 * jobfile_engopt.c - engine options in job files: ENGINE.OPTION=VALUE
 * ("faulty.rate=0.01"), one key family of the option table whose members are
 * the options each engine declares in its own table (src/engine/engopt.h).
 * Matching a key, checking its value with the engine's own parser, keeping
 * it in the job, the checks at the end of a job and of the file (an option
 * of an engine the job does not use), the `help keys` lines, did-you-mean
 * candidates; the job's engine spec (engine/engspec.h: the engine, typed
 * options, the default engine when none is named) made once at the end of
 * the job; and the options as written, for messages and tests.
 *
 * The rule (docs/design.md, "Engine options"): an engine option is written
 * with its engine's name and a dot, so that it can never be mistaken for a
 * job key of the same name (faulty.rate= is the fault rate, rate= the
 * job's bandwidth cap). In a job section it needs that job's ioengine= to
 * be that engine (ioengine=faulty:<engine> for faulty.*); in [global] it is
 * a default for the jobs below that use the engine, and at least one must.
 * Context: any thread; no global state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/engopt.h"
#include "engine/engspec.h"
#include "engine/registry.h"
#include "job/engines.h"
#include "job/jobfile.h"
#include "job/jobfile_priv.h"
#include "conf/suggest.h"
#include "util/strbuf.h"

/* The engine named by the @len bytes at @name, if it declares options. */
static const struct iolat_engine_ops *engine_with_options(const char *name, size_t len)
{
	const struct iolat_engine_ops *ops = iolat_eng_lookup(name, len);

	return ops && ops->options ? ops : NULL;
}

bool jf_engopt_matches(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot && engine_with_options(key, (size_t)(dot - key));
}

/* "ioengine=faulty:<engine>" for a wrapper, "ioengine=NAME" for an engine. */
static void engine_usage(const struct iolat_engine_ops *ops, char *buf, size_t len)
{
	snprintf(buf, len, "ioengine=%s%s", ops->name,
		 (ops->flags & IOLAT_ENG_F_WRAPPER) ? ":<engine>" : "");
}

size_t jf_engopt_names(char (*names)[JF_ENGOPT_NAME_MAX], size_t max)
{
	const struct iolat_engine_ops *ops;
	size_t n = 0;

	for (unsigned i = 0; (ops = iolat_eng_registry(i)); i++)
		for (const struct iolat_eng_opt *o = ops->options; o && o->name && n < max; o++)
			snprintf(names[n++], JF_ENGOPT_NAME_MAX, "%s.%s", ops->name, o->name);
	return n;
}

/* ENGINE.OPTION with an option ENGINE does not have: its options, and the nearest. */
static int unknown_option(struct parser *p, const struct iolat_engine_ops *ops, const char *key)
{
	char names[64][JF_ENGOPT_NAME_MAX], list[256], usage[48];
	size_t n = jf_engopt_names(names, 64);
	struct iolat_suggest sg;
	struct iolat_strbuf b;
	const char *best;

	iolat_suggest_init(&sg, key);
	iolat_strbuf_init(&b, list, sizeof(list));
	for (size_t i = 0; i < n; i++) {
		if (strncmp(names[i], ops->name, strlen(ops->name)) ||
		    names[i][strlen(ops->name)] != '.')
			continue;
		iolat_suggest_offer(&sg, names[i]);
		iolat_strbuf_addf(&b, "%s%s", b.used ? ", " : "", names[i] + strlen(ops->name) + 1);
	}
	best = iolat_suggest_best(&sg);
	engine_usage(ops, usage, sizeof(usage));
	if (best)
		return jf_perr(p, p->line, key, "an option of %s (%s); did you mean '%s'?", usage,
			       list, best);
	return jf_perr(p, p->line, key, "an option of %s (%s)", usage, list);
}

/* The job's entry for @o of engine @ops, appended when new; NULL: out of memory. */
static struct iolat_job_engopt *entry_for(struct iolat_job *job, const struct iolat_engine_ops *ops,
					  const struct iolat_eng_opt *o)
{
	struct iolat_job_engopt *e;

	for (unsigned i = 0; i < job->nr_engopts; i++)
		if (job->engopts[i].engine == ops->name && job->engopts[i].name == o->name)
			return &job->engopts[i];   /* set again: the last value wins */
	e = realloc(job->engopts, (job->nr_engopts + 1) * sizeof(*e));
	if (!e)
		return NULL;
	job->engopts = e;
	e = &job->engopts[job->nr_engopts++];
	memset(e, 0, sizeof(*e));
	e->engine = ops->name;
	e->name = o->name;
	return e;
}

int jf_set_engopt(struct parser *p, struct iolat_job *job, const char *key, const char *v)
{
	const char *dot = strchr(key, '.');
	const struct iolat_engine_ops *ops = engine_with_options(key, (size_t)(dot - key));
	const struct iolat_eng_opt *o = iolat_eng_opt_find(ops->options, dot + 1, strlen(dot + 1));
	struct iolat_job_engopt *e;
	char expect[160], got[MAX_ECHO + 8];
	union iolat_optval val;

	if (!o)
		return unknown_option(p, ops, key);
	iolat_eng_opt_expect(o, expect, sizeof(expect));
	if (!v)
		return jf_perr(p, p->line, key, "a value (%s=...): %s", key, expect);
	jf_echo(got, sizeof(got), v, strlen(v));
	if (strchr(v, ','))
		return jf_perr(p, p->line, key, "one value: each %s option on its own line "
			       "(got '%s')", ops->name, got);
	if (strlen(v) >= IOLAT_ENGOPT_VAL_MAX || iolat_eng_opt_value(o, v, strlen(v), &val))
		return jf_perr(p, p->line, key, "%s (got '%s')", expect, got);
	e = entry_for(job, ops, o);
	if (!e)
		return jf_oom(p);
	e->index = (unsigned)(o - ops->options);
	e->v = val;
	strcpy(e->value, v);
	e->line = p->line;
	e->inherited = false;
	e->used = false;
	return 0;
}

int jf_engopt_dup(struct parser *p, struct iolat_job *j)
{
	const struct iolat_job *d = &p->defaults;

	j->engopts = NULL;
	j->nr_engopts = 0;
	if (!d->nr_engopts)
		return 0;
	j->engopts = malloc(d->nr_engopts * sizeof(*j->engopts));
	if (!j->engopts)
		return jf_oom(p);
	memcpy(j->engopts, d->engopts, d->nr_engopts * sizeof(*j->engopts));
	j->nr_engopts = d->nr_engopts;
	for (unsigned i = 0; i < j->nr_engopts; i++)
		j->engopts[i].inherited = true;
	return 0;
}

int jf_engopt_resolve(struct parser *p, struct iolat_job *job)
{
	struct iolat_eng_spec *s;
	const struct iolat_engine_ops *outer;

	if (job->engine && !strcmp(job->engine, IOLAT_JOB_ENGINE_SIM))
		return 0;   /* the simulated device: no engine */
	s = calloc(1, sizeof(*s));
	if (!s)
		return jf_oom(p);
	iolat_eng_spec_parse(NULL, s, NULL, 0);   /* the default engine */
	if (job->engine)
		s->engine = iolat_eng_lookup(job->engine, strlen(job->engine));
	if (job->engine_wrapper)
		s->wrapper = iolat_eng_lookup(job->engine_wrapper, strlen(job->engine_wrapper));
	outer = iolat_eng_spec_outer(s);
	for (unsigned i = 0; i < job->nr_engopts; i++) {
		const struct iolat_job_engopt *e = &job->engopts[i];

		if (strcmp(e->engine, outer->name) || e->index >= IOLAT_ENG_OPTS_MAX)
			continue;   /* refused by jf_engopt_finish_job() */
		s->opts.v[e->index] = e->v;
		s->opts.set |= 1ull << e->index;
	}
	job->spec = s;
	return 0;
}

/* The engine @job hands its options to: ioengine='s first name (the wrapper). */
static const char *outer_engine(const struct iolat_job *job)
{
	return job->spec ? iolat_eng_spec_outer(job->spec)->name : job->engine;
}

int jf_engopt_finish_job(struct parser *p, struct iolat_job *job)
{
	const char *outer = outer_engine(job);

	for (unsigned i = 0; i < job->nr_engopts; i++) {
		struct iolat_job_engopt *e = &job->engopts[i];
		const struct iolat_engine_ops *ops = iolat_eng_lookup(e->engine, strlen(e->engine));
		char key[JF_ENGOPT_NAME_MAX], usage[48];

		if (!strcmp(e->engine, outer)) {
			/* Mark the [global] line this job took it from as used. */
			for (unsigned k = 0; e->inherited && k < p->defaults.nr_engopts; k++)
				if (p->defaults.engopts[k].line == e->line)
					p->defaults.engopts[k].used = true;
			continue;
		}
		if (e->inherited)
			continue;   /* a [global] default for the jobs that use the engine */
		snprintf(key, sizeof(key), "%s.%s", e->engine, e->name);
		engine_usage(ops, usage, sizeof(usage));
		if (!job->ioengine[0])
			return jf_perr(p, e->line, key, "%s in job '%s' for %s.* keys (it has the "
				       "default ioengine, %s)", usage, job->name, e->engine, outer);
		return jf_perr(p, e->line, key, "%s in job '%s' for %s.* keys (it has ioengine=%s)",
			       usage, job->name, e->engine, job->ioengine);
	}
	return 0;
}

int jf_engopt_finish(struct parser *p)
{
	for (unsigned i = 0; i < p->defaults.nr_engopts; i++) {
		const struct iolat_job_engopt *e = &p->defaults.engopts[i];
		const struct iolat_engine_ops *ops = iolat_eng_lookup(e->engine, strlen(e->engine));
		char key[JF_ENGOPT_NAME_MAX], usage[48];

		if (e->used)
			continue;
		snprintf(key, sizeof(key), "%s.%s", e->engine, e->name);
		engine_usage(ops, usage, sizeof(usage));
		return jf_perr(p, e->line, key, "a job below this [global] that takes it (one with "
			       "%s that does not set %s itself)", usage, key);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* For messages, tests and `help keys`                                      */

int iolat_job_engine_options(const struct iolat_job *job, const char *engine, const char *extra,
			     char *buf, size_t len)
{
	struct iolat_strbuf b;

	iolat_strbuf_init(&b, buf, len);
	for (unsigned i = 0; engine && i < job->nr_engopts; i++) {
		const struct iolat_job_engopt *e = &job->engopts[i];

		if (!strcmp(e->engine, engine))
			iolat_strbuf_addf(&b, "%s%s=%s", b.used ? "," : "", e->name, e->value);
	}
	if (extra && *extra)
		iolat_strbuf_addf(&b, "%s%s", b.used ? "," : "", extra);
	return (int)b.used;
}

static const char *eopt_type_word(const struct iolat_eng_opt *o)
{
	switch (o->type) {
	case IOLAT_EOPT_U64:    return "int";
	case IOLAT_EOPT_DOUBLE: return "number";
	case IOLAT_EOPT_CHOICE: return "choice";
	case IOLAT_EOPT_FLAGS:  return "flags";
	}
	return "?";
}

int jf_engopt_format_help(char *buf, size_t len, const char *sections)
{
	const struct iolat_engine_ops *ops;
	size_t used = 0;

	for (unsigned i = 0; (ops = iolat_eng_registry(i)); i++) {
		for (const struct iolat_eng_opt *o = ops->options; o && o->name; o++) {
			char name[JF_ENGOPT_NAME_MAX], expect[160];
			size_t room = used < len ? len - used : 0;
			int n;

			snprintf(name, sizeof(name), "%s.%s", ops->name, o->name);
			iolat_eng_opt_expect(o, expect, sizeof(expect));
			n = snprintf(room ? buf + used : NULL, room, "%-16s %-9s %-11s %-8s %s: %s\n",
				     name, eopt_type_word(o), sections, o->def ? o->def : "-", o->help,
				     expect);
			used += n > 0 ? (size_t)n : 0;
		}
	}
	return (int)used;
}
