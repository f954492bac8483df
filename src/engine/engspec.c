/* SPDX-License-Identifier: MIT */
/*
 * engspec.c - engine specs (engspec.h): options read once into their typed
 * set, a spec printed back (a name is read into one by registry.c). It
 * reads the ops tables a spec names, and calls no other file of src/engine
 * but the option tables' (engopt.c).
 * Context: any thread; pure functions of constant tables.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/engspec.h"
#include "engine/engtypes.h"
#include "util/errmsg.h"

const struct iolat_engine_ops *iolat_eng_spec_outer(const struct iolat_eng_spec *s)
{
	return s->wrapper ? s->wrapper : s->engine;
}

int iolat_eng_spec_options(struct iolat_eng_spec *s, const char *opts, char *err, size_t errlen)
{
	const struct iolat_engine_ops *outer = iolat_eng_spec_outer(s);
	char why[160], help[IOLAT_ENG_OPTS_HELP_MAX];

	if (!outer || !outer->options)
		return 0;   /* it takes none: nothing to read */
	if (iolat_eng_optset_parse(outer->options, &s->opts, opts, why, sizeof(why))) {
		iolat_eng_opts_help(outer->options, help, sizeof(help));
		return iolat_errf(err, errlen, -EINVAL, "%s: %s (%s)", outer->name, why, help);
	}
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
