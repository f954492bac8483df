/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the engines by name (registry.h): the table of every engine
 * the project knows, the look-ups over it, a name read into a spec, and an
 * engine created by name. The only file that points at the engines; they
 * point at the dispatch layer (engine.c) below.
 * Context: any thread; the table is constant, the options help made once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine/registry.h"
#include "util/errmsg.h"

/*
 * The registry: every engine name the project knows, in this order, each
 * named once, by its own ops table (an engine absent from this build still
 * names itself, with IOLAT_ENG_F_NOT_BUILT). The first one built is the
 * default. The job file asks here which names exist.
 */
static const struct iolat_engine_ops *const engines[] = {
	&iolat_eng_uring_ops,
	&iolat_eng_psync_ops,
	&iolat_eng_null_ops,
	&iolat_eng_faulty_ops,
};
#define NR_ENGINES (sizeof(engines) / sizeof(engines[0]))

static bool name_eq(const char *name, const char *s, size_t len)
{
	return name && strlen(name) == len && !strncmp(name, s, len);
}

/* Look up @name (up to @len bytes): an engine's name or its alias. */
static const struct iolat_engine_ops *find_ops(const char *name, size_t len)
{
	for (size_t i = 0; i < NR_ENGINES; i++)
		if (name_eq(engines[i]->name, name, len) || name_eq(engines[i]->alias, name, len))
			return engines[i];
	return NULL;
}

const struct iolat_engine_ops *iolat_eng_registry(unsigned i)
{
	return i < NR_ENGINES ? engines[i] : NULL;
}

const struct iolat_engine_ops *iolat_eng_lookup(const char *name, size_t len)
{
	return name ? find_ops(name, len) : NULL;
}

const char *iolat_eng_default_name(void)
{
	for (size_t i = 0; i < NR_ENGINES; i++)
		if (!(engines[i]->flags & (IOLAT_ENG_F_NOT_BUILT | IOLAT_ENG_F_WRAPPER)))
			return engines[i]->name;
	return NULL;   /* not reached: psync is always built */
}

bool iolat_eng_available(const char *name)
{
	const struct iolat_engine_ops *ops = name ? find_ops(name, strlen(name)) : NULL;

	return ops && !(ops->flags & IOLAT_ENG_F_NOT_BUILT);
}

/* Each engine's options help line, made once from its table. */
static char options_help[NR_ENGINES][IOLAT_ENG_OPTS_HELP_MAX];
static pthread_once_t options_help_once = PTHREAD_ONCE_INIT;

static void make_options_help(void)
{
	for (size_t i = 0; i < NR_ENGINES; i++)
		if (engines[i]->options)
			iolat_eng_opts_help(engines[i]->options, options_help[i], IOLAT_ENG_OPTS_HELP_MAX);
}

const char *iolat_eng_options_help(const char *name)
{
	const struct iolat_engine_ops *ops = name ? find_ops(name, strlen(name)) : NULL;

	if (!ops || !ops->options)
		return NULL;
	pthread_once(&options_help_once, make_options_help);
	for (size_t i = 0; i < NR_ENGINES; i++)
		if (engines[i] == ops)
			return options_help[i];
	return NULL;
}

const struct iolat_eng_opt *iolat_eng_options(const char *name)
{
	const struct iolat_engine_ops *ops = name ? find_ops(name, strlen(name)) : NULL;

	return ops ? ops->options : NULL;
}

int iolat_eng_spec_parse(const char *name, struct iolat_eng_spec *s, char *err, size_t errlen)
{
	const char *colon, *inner;
	const struct iolat_engine_ops *ops;

	memset(s, 0, sizeof(*s));
	if (!name || !*name)
		name = iolat_eng_default_name();
	colon = strchr(name, ':');
	ops = iolat_eng_lookup(name, colon ? (size_t)(colon - name) : strlen(name));
	if (!ops || (colon && !(ops->flags & IOLAT_ENG_F_WRAPPER)) ||
	    (!colon && (ops->flags & IOLAT_ENG_F_WRAPPER)))
		return iolat_errf(err, errlen, -ENOENT, "unknown I/O engine '%s'%s", name,
				  ops && (ops->flags & IOLAT_ENG_F_WRAPPER)
					  ? " (a wrapper: use faulty:<engine>)" : "");
	if (!colon) {
		s->engine = ops;
		return 0;
	}
	inner = colon + 1;
	if (!*inner)
		return iolat_errf(err, errlen, -EINVAL, "%s: name the engine to wrap (%s:psync)",
				  ops->name, ops->name);
	s->wrapper = ops;
	s->engine = iolat_eng_lookup(inner, strlen(inner));
	if (!s->engine || (s->engine->flags & IOLAT_ENG_F_WRAPPER)) {
		s->engine = NULL;
		return iolat_errf(err, errlen, -ENOENT, "unknown I/O engine '%s'", inner);
	}
	return 0;
}

int iolat_eng_create(const struct iolat_eng_config *cfg, struct iolat_eng **out,
		     char *err, size_t errlen)
{
	struct iolat_eng_spec spec;
	int ret;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	ret = iolat_eng_spec_parse(cfg ? cfg->name : NULL, &spec, err, errlen);
	if (ret)
		return ret;
	if (cfg && cfg->options && strlen(cfg->options) >= IOLAT_ENG_OPTIONS_MAX)
		return iolat_errf(err, errlen, -EINVAL, "options longer than %u bytes",
				  IOLAT_ENG_OPTIONS_MAX - 1);
	ret = iolat_eng_spec_options(&spec, cfg ? cfg->options : NULL, err, errlen);
	return ret ? ret : iolat_eng_create_spec(&spec, cfg, out, err, errlen);
}
