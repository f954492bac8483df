/* SPDX-License-Identifier: MIT */
/*
 * engines.c - the job layer's questions to the engine registry (engines.h).
 * Context: any thread; constant data.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "job/engines.h"

int iolat_job_engine_parse(const char *v, const char **engine, const char **wrapper)
{
	const char *colon = strchr(v, ':');
	const char *inner = colon ? colon + 1 : v;
	const struct iolat_engine_ops *w = NULL, *e;

	if (colon) {
		w = iolat_eng_lookup(v, (size_t)(colon - v));
		if (!w || !(w->flags & IOLAT_ENG_F_WRAPPER))
			return -EINVAL;
	}
	if (!strcmp(inner, IOLAT_JOB_ENGINE_SIM)) {
		*engine = IOLAT_JOB_ENGINE_SIM;
	} else {
		e = iolat_eng_lookup(inner, strlen(inner));
		if (!e || (e->flags & IOLAT_ENG_F_WRAPPER))
			return -EINVAL;
		*engine = e->name;
	}
	*wrapper = w ? w->name : NULL;
	return 0;
}

/* Append @s to buf (snprintf style: @used counts what it would need). */
static void add(char *buf, size_t len, size_t *used, const char *s)
{
	size_t n = strlen(s);

	if (*used < len)
		snprintf(buf + *used, len - *used, "%s", s);
	*used += n;
}

int iolat_job_engine_choices(char *buf, size_t len, const char *sep)
{
	const struct iolat_engine_ops *ops;
	size_t used = 0;

	if (buf && len)
		buf[0] = '\0';
	else
		buf = NULL, len = 0;
	/* Engines (and their aliases), then sim, then each wrapper. */
	for (unsigned i = 0; (ops = iolat_eng_registry(i)); i++) {
		if (ops->flags & IOLAT_ENG_F_WRAPPER)
			continue;
		if (used)
			add(buf, len, &used, sep);
		add(buf, len, &used, ops->name);
		if (ops->alias) {
			add(buf, len, &used, sep);
			add(buf, len, &used, ops->alias);
		}
	}
	add(buf, len, &used, sep);
	add(buf, len, &used, IOLAT_JOB_ENGINE_SIM);
	for (unsigned i = 0; (ops = iolat_eng_registry(i)); i++) {
		if (!(ops->flags & IOLAT_ENG_F_WRAPPER))
			continue;
		add(buf, len, &used, sep);
		add(buf, len, &used, ops->name);
		add(buf, len, &used, ":<engine>");
	}
	return (int)used;
}

const char *iolat_job_engine_default(void)
{
	return iolat_eng_default_name();
}

const char *iolat_job_engine_fallback(const char *engine, const char **label)
{
	const struct iolat_engine_ops *ops = engine ? iolat_eng_lookup(engine, strlen(engine)) : NULL;

	if (!ops || !ops->fallback)
		return NULL;
	*label = ops->alias ? ops->alias : ops->name;
	return ops->fallback;
}

bool iolat_job_engine_diskless(const char *engine)
{
	const struct iolat_engine_ops *ops = engine ? iolat_eng_lookup(engine, strlen(engine)) : NULL;

	return ops && (ops->flags & IOLAT_ENG_F_DISKLESS);
}

const char *iolat_job_engine_options_help(const char *name)
{
	const char *help = iolat_eng_options_help(name);

	return help ? help : "";
}
