/* SPDX-License-Identifier: MIT */
/*
 * engines.c - the job layer's questions to the engine registry (engines.h).
 * Context: any thread; constant data.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/engspec.h"
#include "engine/registry.h"
#include "job/engines.h"
#include "util/strbuf.h"

int iolat_job_engine_parse(const char *v, const char **engine, const char **wrapper)
{
	const char *colon = strchr(v, ':');
	const struct iolat_engine_ops *w = NULL;
	struct iolat_eng_spec spec;

	if (!strcmp(colon ? colon + 1 : v, IOLAT_JOB_ENGINE_SIM)) {
		/* The job layer's own: the simulated device (a wrapper is let be). */
		if (colon) {
			w = iolat_eng_lookup(v, (size_t)(colon - v));
			if (!w || !(w->flags & IOLAT_ENG_F_WRAPPER))
				return -EINVAL;
		}
		*engine = IOLAT_JOB_ENGINE_SIM;
		*wrapper = w ? w->name : NULL;
		return 0;
	}
	if (!*v || iolat_eng_spec_parse(v, &spec, NULL, 0))
		return -EINVAL;
	*engine = spec.engine->name;
	*wrapper = spec.wrapper ? spec.wrapper->name : NULL;
	return 0;
}

int iolat_job_engine_choices(char *buf, size_t len, const char *sep)
{
	const struct iolat_engine_ops *ops;
	struct iolat_strbuf b;

	iolat_strbuf_init(&b, buf, len);
	/* Engines (and their aliases), then sim, then each wrapper. */
	for (unsigned i = 0; (ops = iolat_eng_registry(i)); i++) {
		if (ops->flags & IOLAT_ENG_F_WRAPPER)
			continue;
		iolat_strbuf_addf(&b, "%s%s", b.used ? sep : "", ops->name);
		if (ops->alias)
			iolat_strbuf_addf(&b, "%s%s", sep, ops->alias);
	}
	iolat_strbuf_addf(&b, "%s%s", sep, IOLAT_JOB_ENGINE_SIM);
	for (unsigned i = 0; (ops = iolat_eng_registry(i)); i++)
		if (ops->flags & IOLAT_ENG_F_WRAPPER)
			iolat_strbuf_addf(&b, "%s%s:<engine>", sep, ops->name);
	return (int)b.used;
}

const char *iolat_job_engine_options_help(const char *name)
{
	const char *help = iolat_eng_options_help(name);

	return help ? help : "";
}
