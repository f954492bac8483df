/* SPDX-License-Identifier: MIT */
/*
 * engspec.c - engine specs (engspec.h): a name read once into the
 * registry's engines, options read once into their typed set, a spec
 * printed back.
 * Context: any thread; pure functions of the constant registry.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/engspec.h"
#include "util/errmsg.h"

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

const struct iolat_engine_ops *iolat_eng_spec_outer(const struct iolat_eng_spec *s)
{
	return s->wrapper ? s->wrapper : s->engine;
}

int iolat_eng_spec_options(struct iolat_eng_spec *s, const char *opts, char *err, size_t errlen)
{
	const struct iolat_engine_ops *outer = iolat_eng_spec_outer(s);
	char why[160];

	if (!outer || !outer->options)
		return 0;   /* it takes none: nothing to read */
	if (iolat_eng_optset_parse(outer->options, &s->opts, opts, why, sizeof(why)))
		return iolat_errf(err, errlen, -EINVAL, "%s: %s (%s)", outer->name, why,
				  iolat_eng_options_help(outer->name));
	return 0;
}

int iolat_eng_spec_name(const struct iolat_eng_spec *s, char *buf, size_t len)
{
	if (s->wrapper)
		return snprintf(buf, len, "%s:%s", s->wrapper->name, s->engine->name);
	return snprintf(buf, len, "%s", s->engine->name);
}

int iolat_eng_spec_format(const struct iolat_eng_spec *s, char *buf, size_t len)
{
	const struct iolat_engine_ops *outer = iolat_eng_spec_outer(s);
	char name[IOLAT_ENG_NAME_MAX], opts[IOLAT_ENG_OPTIONS_MAX];

	iolat_eng_spec_name(s, name, sizeof(name));
	if (!s->opts.set || !outer->options)
		return snprintf(buf, len, "%s", name);
	iolat_eng_optset_format(outer->options, &s->opts, opts, sizeof(opts));
	return snprintf(buf, len, "%s %s", name, opts);
}

bool iolat_eng_spec_diskless(const struct iolat_eng_spec *s)
{
	return s->engine && (s->engine->flags & IOLAT_ENG_F_DISKLESS);
}
