/* SPDX-License-Identifier: MIT */
/*
 * jobfile_help.c - `iolat help keys`: the option table as text.
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
#include "job/fiokeys.h"

/* ------------------------------------------------------------------------ */
/* `iolat help keys`                                                        */

static const char *type_word(const struct iolat_opt *o)
{
	switch (o->type) {
	case IOLAT_OPT_UINT:    return o->rw_pair ? "int[,int]" : "int";
	case IOLAT_OPT_ENGINE:  return "engine";
	case IOLAT_OPT_GROUP:   return "path";
	case IOLAT_OPT_CGROUP:  return "path";
	case IOLAT_OPT_PARAM:   return "param";
	case IOLAT_OPT_JOBNAME: return "text";
	case IOLAT_OPT_PCTLIST: return "list";
	case IOLAT_OPT_ENGOPT:  return "engine";
	default: {
		const char *w = iolat_opt_type_name(o->type);

		return w ? w : "?";
	}
	}
}

static const char *where_word(unsigned w)
{
	if (w == IN_JOBS)
		return "global,job";
	if (w == IOLAT_OPT_IN_GLOBAL)
		return "global";
	if (w == IOLAT_OPT_IN_GROUP)
		return "group";
	return "job";
}

/* snprintf into buf at *used, tracking the total length needed. */
__attribute__((format(printf, 5, 6)))
static void emit(char *buf, size_t len, size_t *used, int *err, const char *fmt, ...)
{
	va_list ap;
	size_t room = *used < len ? len - *used : 0;

	va_start(ap, fmt);
	int n = vsnprintf(room ? buf + *used : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*err = -EINVAL;
		return;
	}
	*used += (size_t)n;
}

/* One key's line (and an engine option family's members after it). */
static void emit_key(char *buf, size_t len, size_t *used, int *err, const struct iolat_opt *o)
{
	char name[40];

	if (o->type == IOLAT_OPT_PARAM || o->type == IOLAT_OPT_ENGOPT)
		snprintf(name, sizeof(name), "%s*", o->name);
	else if (o->alias)
		snprintf(name, sizeof(name), "%s|%s", o->name, o->alias);
	else
		snprintf(name, sizeof(name), "%s", o->name);
	emit(buf, len, used, err, "%-16s %-9s %-11s %-8s %s", name, type_word(o),
	     where_word(o->where), o->def ? o->def : "-", o->help);
	if (o->type == IOLAT_OPT_ENGINE) {
		char list[160];

		iolat_job_engine_choices(list, sizeof(list), "|");
		emit(buf, len, used, err, " [%s]", list);
	} else if (o->scen_words) {   /* rw=: the scenarios' workloads too */
		char help[256], words[128];

		jf_scen_rw_help(help, sizeof(help));
		jf_scen_words(words, sizeof(words), "|");
		emit(buf, len, used, err, "%s [%s%s]", help, o->choices, words);
	} else if (o->choices) {
		emit(buf, len, used, err, " [%s]", o->choices);
	}
	emit(buf, len, used, err, "\n");
	if (o->type == IOLAT_OPT_ENGOPT) {   /* the family's members, from the engines */
		size_t room = *used < len ? len - *used : 0;

		*used += (size_t)jf_engopt_format_help(room ? buf + *used : NULL, room,
						       where_word(o->where));
	}
}

int iolat_jobfile_format_keys(char *buf, size_t len)
{
	size_t used = 0;
	int err = 0;

	if (buf && len)
		buf[0] = '\0';
	else
		buf = NULL, len = 0;
	emit(buf, len, &used, &err, "%-16s %-9s %-11s %-8s %s\n", "KEY", "TYPE", "SECTIONS", "DEFAULT",
	     "MEANING");
	for (size_t i = 0; i < jf_nr_opts; i++)
		emit_key(buf, len, &used, &err, &jf_opts[i]);
	for (unsigned i = 0; jf_scen_key(i); i++)   /* the registered scenarios' keys */
		emit_key(buf, len, &used, &err, jf_scen_key(i));
	emit(buf, len, &used, &err,
	     "\nSizes: 512, 4k, 1m, 2g (powers of 1024). Times: 10ns, 250us, 5ms, 30s, 2m, 1h.\n"
	     "Sections: [global] (defaults for the jobs below it, device keys), [group:PATH]\n"
	     "(a group; its parents are created implicitly), [NAME] (a job). A job's group=\n"
	     "must be declared by a [group:PATH] section, or be the parent of one.\n"
	     "Comments: ';' or '#'.\n");
	{
		size_t room = used < len ? len - used : 0;
		int n = iolat_fio_format_keys(room ? buf + used : NULL, room);

		if (n < 0)
			err = -EINVAL;
		else
			used += (size_t)n;
	}
	if (err)
		return err;
	return used > INT_MAX ? -EOVERFLOW : (int)used;
}
