/* SPDX-License-Identifier: MIT */
/*
 * jobfile_scen.c - scenario workloads in job files (src/scen), their values:
 * registering a scenario (its rw= words and keys checked against the job
 * table, its defaults parsed), checking and keeping a value, copying
 * [global]'s to a new job, a value with its default (docs/design.md,
 * "Scenario keys"). The registry itself and matching a key or an rw= word
 * are jobfile_scenreg.c's, below the key applier this file uses.
 * The job layer names no scenario.
 * Context: iolat_jobfile_register_scen() at the program's start, before any
 * job file is parsed (it writes the registry); everything else any thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/jobfile.h"
#include "job/jobfile_priv.h"
#include "util/errmsg.h"

/* A numeric key the generic parser stores as one integer: the scenario's keys. */
static bool numeric_type(const struct iolat_opt *o)
{
	switch (o->type) {
	case IOLAT_OPT_SIZE: case IOLAT_OPT_RATE: case IOLAT_OPT_TIME_S: case IOLAT_OPT_TIME_US:
	case IOLAT_OPT_TARGET: case IOLAT_OPT_UINT: case IOLAT_OPT_ENUM:
		return true;
	case IOLAT_OPT_BOOL:
		return !o->value_words;
	default:
		return false;
	}
}

/* Parse @text as option @o into *@value, with no file behind it (defaults). */
static int parse_value(const struct iolat_opt *o, const char *text, uint64_t *value)
{
	struct iolat_jobfile jf = { .file = "<scenario table>" };
	struct parser p = { .jf = &jf };
	struct iolat_opt one = *o;

	one.off = 0;
	one.fsize = sizeof(*value);
	*value = 0;
	return jf_apply(&p, &one, value, o->name, text);
}

static bool key_taken(const char *name)
{
	if (jf_find_opt(name))
		return true;
	for (size_t i = 0; i < jf_nr_opts; i++)
		if (jf_opts[i].type == IOLAT_OPT_ENUM && jf_opts[i].scen_words &&
		    iolat_conf_choice_index(jf_opts[i].choices, name) >= 0)
			return true;
	return false;
}

int iolat_jobfile_register_scen(const struct iolat_jobfile_scen *s)
{
	uint64_t v;

	if (jf_scen_registered(s))
		return 0;
	if (!s->name || !s->what || !s->workloads || !s->keys)
		return -EINVAL;
	for (const char *const *w = s->workloads; *w; w++)
		if (key_taken(*w) || jf_scen_workload(*w, NULL, NULL))
			return -EINVAL;
	for (const struct iolat_opt *o = s->keys; o->name; o++)
		if (!numeric_type(o) || o->alias || o->has_given || key_taken(o->name) ||
		    (o->def && parse_value(o, o->def, &v)))
			return -EINVAL;
	return jf_scen_add(s);   /* -EINVAL when the registry is full */
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */

int jf_scen_set(struct parser *p, struct iolat_scen_vals *vals, const struct iolat_opt *o,
		const char *key, const char *v)
{
	struct iolat_opt one = *o;
	struct iolat_scen_val *e = NULL;
	uint64_t x = 0;
	int r;

	one.off = 0;
	one.fsize = sizeof(x);
	r = jf_apply(p, &one, &x, key, v);
	if (r)
		return r;
	for (unsigned i = 0; i < vals->nr; i++)
		if (vals->v[i].opt == o)
			e = &vals->v[i];   /* set again: the last value wins */
	if (!e) {
		e = realloc(vals->v, (vals->nr + 1) * sizeof(*e));
		if (!e)
			return jf_oom(p);
		vals->v = e;
		e = &vals->v[vals->nr++];
		e->opt = o;
	}
	e->value = x;
	e->line = p->line;
	return 0;
}

int jf_scen_dup(struct parser *p, struct iolat_scen_vals *to, const struct iolat_scen_vals *from)
{
	to->v = NULL;
	to->nr = 0;
	if (!from->nr)
		return 0;
	to->v = malloc(from->nr * sizeof(*to->v));
	if (!to->v)
		return jf_oom(p);
	memcpy(to->v, from->v, from->nr * sizeof(*to->v));
	to->nr = from->nr;
	return 0;
}

void jf_scen_free(struct iolat_scen_vals *vals)
{
	free(vals->v);
	vals->v = NULL;
	vals->nr = 0;
}

int iolat_scen_value(const struct iolat_scen_vals *vals, const char *key, uint64_t *value,
		     unsigned *line)
{
	const struct iolat_opt *o = jf_scen_find_opt(key);

	if (line)
		*line = 0;
	*value = 0;
	if (!o)
		return -ENOENT;
	for (unsigned i = 0; vals && i < vals->nr; i++)
		if (vals->v[i].opt == o) {
			*value = vals->v[i].value;
			if (line)
				*line = vals->v[i].line;
			return 0;
		}
	if (o->def)
		parse_value(o, o->def, value);   /* checked at registration */
	return 0;
}
