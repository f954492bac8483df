/* SPDX-License-Identifier: MIT */
/*
 * engopt.c - engine option tables (engopt.h): defaults, the parser of
 * "key=val,key=val" (values in the configuration grammar's integers and
 * reals, conf/value.h; did-you-mean for a misspelled option) and the help
 * line.
 * Context: any thread; tables are constant, the options struct is the
 * caller's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/suggest.h"
#include "conf/value.h"
#include "engine/engopt.h"
#include "util/errmsg.h"
#include "util/strbuf.h"

static bool word_is(const char *w, const char *s, size_t len)
{
	return strlen(w) == len && !strncmp(w, s, len);
}

const struct iolat_eng_opt *iolat_eng_opt_find(const struct iolat_eng_opt *tbl,
					       const char *name, size_t len)
{
	for (; tbl && tbl->name; tbl++)
		if (word_is(tbl->name, name, len))
			return tbl;
	return NULL;
}

/* A copy of the @len bytes at @v as a string, in @buf; false if too long. */
static bool copy_value(const char *v, size_t len, char *buf, size_t size)
{
	if (!len || len >= size)
		return false;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return true;
}

/* The choice called the @len bytes at @v; NULL if none. */
static const struct iolat_eng_opt_choice *find_choice(const struct iolat_eng_opt *o,
						      const char *v, size_t len)
{
	for (const struct iolat_eng_opt_choice *c = o->choices; c && c->name; c++)
		if (word_is(c->name, v, len))
			return c;
	return NULL;
}

static int parse_flags(const struct iolat_eng_opt *o, const char *v, size_t len, unsigned *out)
{
	size_t i = 0;

	*out = 0;
	while (i < len) {
		size_t j = i;
		const struct iolat_eng_opt_choice *c;

		while (j < len && v[j] != '+' && v[j] != '|')
			j++;
		c = find_choice(o, v + i, j - i);
		if (!c)
			return -EINVAL;
		*out |= c->value;
		i = j + 1;
	}
	return 0;
}

int iolat_eng_opt_value(const struct iolat_eng_opt *o, const char *v, size_t len,
			union iolat_optval *out)
{
	char buf[32];
	const struct iolat_eng_opt_choice *c;

	switch (o->type) {
	case IOLAT_EOPT_U64:
		if (!copy_value(v, len, buf, sizeof(buf)) || iolat_conf_parse_uint(buf, &out->u) ||
		    out->u < o->min || out->u > o->max)
			return -EINVAL;
		return 0;
	case IOLAT_EOPT_DOUBLE:
		if (!copy_value(v, len, buf, sizeof(buf)) || iolat_conf_parse_real(buf, &out->d) ||
		    !(out->d >= o->dmin && out->d <= o->dmax))
			return -EINVAL;
		return 0;
	case IOLAT_EOPT_CHOICE:
		c = find_choice(o, v, len);
		if (!c)
			return -EINVAL;
		out->w = c->value;
		return 0;
	case IOLAT_EOPT_FLAGS:
		return parse_flags(o, v, len, &out->w);
	}
	return -EINVAL;
}

/* Store value @v of option @o into its field of @base. */
static void store(const struct iolat_eng_opt *o, union iolat_optval v, void *base)
{
	void *field = (char *)base + o->off;

	switch (o->type) {
	case IOLAT_EOPT_U64:
		*(uint64_t *)field = v.u * (o->scale ? o->scale : 1);
		break;
	case IOLAT_EOPT_DOUBLE:
		*(double *)field = v.d;
		break;
	case IOLAT_EOPT_CHOICE:
	case IOLAT_EOPT_FLAGS:
		*(unsigned *)field = v.w;
		break;
	}
}

int iolat_eng_opt_check(const struct iolat_eng_opt *o, const char *v)
{
	union iolat_optval scratch;

	return iolat_eng_opt_value(o, v, strlen(v), &scratch);
}

int iolat_eng_optset_fill(const struct iolat_eng_opt *tbl, const struct iolat_eng_optset *os,
			  void *base)
{
	for (const struct iolat_eng_opt *o = tbl; o && o->name; o++) {
		size_t i = (size_t)(o - tbl);
		union iolat_optval v;

		if (os && i < IOLAT_ENG_OPTS_MAX && (os->set & (1ull << i)))
			v = os->v[i];
		else if (!o->def)
			continue;
		else if (iolat_eng_opt_value(o, o->def, strlen(o->def), &v))
			return -EINVAL;   /* a bad table: caught by the engines' tests */
		store(o, v, base);
	}
	return 0;
}

/* "unknown option 'k'", with the nearest of @tbl when one is close. */
static int unknown_option(const struct iolat_eng_opt *tbl, const char *name, size_t len,
			  char *err, size_t errlen)
{
	struct iolat_suggest sg;
	char key[64];
	const char *best;

	snprintf(key, sizeof(key), "%.*s", (int)len, name);
	iolat_suggest_init(&sg, key);
	for (; tbl && tbl->name; tbl++)
		iolat_suggest_offer(&sg, tbl->name);
	best = iolat_suggest_best(&sg);
	return iolat_errf(err, errlen, -EINVAL, "unknown option '%.*s'%s%s%s", (int)len, name,
			  best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
}

/* One "key=val" segment (@len bytes at @seg) onto @os. */
static int parse_one(const struct iolat_eng_opt *tbl, struct iolat_eng_optset *os,
		     const char *seg, size_t len, char *err, size_t errlen)
{
	const char *eq = memchr(seg, '=', len);
	const struct iolat_eng_opt *o;
	size_t i;

	if (!eq)
		return iolat_errf(err, errlen, -EINVAL, "option '%.*s' needs a value", (int)len, seg);
	o = iolat_eng_opt_find(tbl, seg, (size_t)(eq - seg));
	if (!o)
		return unknown_option(tbl, seg, (size_t)(eq - seg), err, errlen);
	i = (size_t)(o - tbl);
	if (i >= IOLAT_ENG_OPTS_MAX ||
	    iolat_eng_opt_value(o, eq + 1, len - (size_t)(eq - seg) - 1, &os->v[i]))
		return iolat_errf(err, errlen, -EINVAL, "bad value in '%.*s'", (int)len, seg);
	os->set |= 1ull << i;
	return 0;
}

int iolat_eng_optset_parse(const struct iolat_eng_opt *tbl, struct iolat_eng_optset *os,
			   const char *opts, char *err, size_t errlen)
{
	const char *s = opts;

	while (s && *s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		int ret = len ? parse_one(tbl, os, s, len, err, errlen) : 0;

		if (ret)
			return ret;
		s = end ? end + 1 : NULL;
	}
	return 0;
}

void iolat_eng_optset_merge(struct iolat_eng_optset *to, const struct iolat_eng_optset *from)
{
	for (unsigned i = 0; i < IOLAT_ENG_OPTS_MAX; i++)
		if (from->set & (1ull << i))
			to->v[i] = from->v[i];
	to->set |= from->set;
}

int iolat_eng_opts_parse(const struct iolat_eng_opt *tbl, void *base, const char *opts,
			 uint64_t *set, char *err, size_t errlen)
{
	struct iolat_eng_optset os = { 0 };
	int ret = iolat_eng_optset_parse(tbl, &os, opts, err, errlen);

	if (set)
		*set = ret ? 0 : os.set;
	if (ret)
		return ret;
	return iolat_eng_optset_fill(tbl, &os, base);
}

/* The choices of @o, "a, b or c" (FLAGS: the bits only). */
static void add_choices(const struct iolat_eng_opt *o, struct iolat_strbuf *b)
{
	const struct iolat_eng_opt_choice *c, *last = NULL;

	for (c = o->choices; c && c->name; c++)
		if (o->type != IOLAT_EOPT_FLAGS || c->value)
			last = c;
	for (c = o->choices; c && c->name; c++) {
		if (o->type == IOLAT_EOPT_FLAGS && !c->value)
			continue;
		if (c != o->choices)
			iolat_strbuf_add(b, c == last ? " or " : ", ");
		iolat_strbuf_add(b, c->name);
	}
}

int iolat_eng_opt_expect(const struct iolat_eng_opt *o, char *buf, size_t len)
{
	struct iolat_strbuf b;

	iolat_strbuf_init(&b, buf, len);
	switch (o->type) {
	case IOLAT_EOPT_U64:
		iolat_strbuf_addf(&b, "an integer from %llu to %llu", (unsigned long long)o->min,
				  (unsigned long long)o->max);
		break;
	case IOLAT_EOPT_DOUBLE:
		iolat_strbuf_addf(&b, "a number from %g to %g", o->dmin, o->dmax);
		break;
	case IOLAT_EOPT_CHOICE:
		iolat_strbuf_add(&b, "one of ");
		add_choices(o, &b);
		break;
	case IOLAT_EOPT_FLAGS:
		add_choices(o, &b);
		iolat_strbuf_add(&b, ", several joined with '+', or none");
		break;
	}
	return (int)b.used;
}

/* The names of @o's choices joined by @sep; with @v, only those @v has
 * (a choice: its own; flags: each bit, or the name worth 0). */
static void add_names(const struct iolat_eng_opt *o, const union iolat_optval *v,
		      const char *sep, struct iolat_strbuf *b)
{
	bool first = true;

	for (const struct iolat_eng_opt_choice *c = o->choices; c && c->name; c++) {
		bool one_of = o->type == IOLAT_EOPT_CHOICE || (v && !v->w);

		if (v ? (one_of ? c->value != v->w : !(c->value & v->w))
		      : o->type == IOLAT_EOPT_FLAGS && !c->value)
			continue;
		iolat_strbuf_add(b, first ? "" : sep);
		iolat_strbuf_add(b, c->name);
		first = false;
		if (v && one_of)
			break;
	}
}

int iolat_eng_opts_help(const struct iolat_eng_opt *tbl, char *buf, size_t len)
{
	struct iolat_strbuf b;

	iolat_strbuf_init(&b, buf, len);
	for (const struct iolat_eng_opt *o = tbl; o && o->name; o++) {
		iolat_strbuf_addf(&b, "%s%s=", o != tbl ? ", " : "", o->name);
		if (o->type == IOLAT_EOPT_U64 || o->type == IOLAT_EOPT_DOUBLE) {
			iolat_strbuf_add(&b, o->value_word ? o->value_word : "N");
			continue;
		}
		add_names(o, NULL, "|", &b);
		if (o->type == IOLAT_EOPT_FLAGS)
			iolat_strbuf_add(&b, " (join with '+')");
	}
	return (int)b.used;
}

/* @d with the fewest digits that read back as @d. */
static void add_real(double d, struct iolat_strbuf *b)
{
	char tmp[40];

	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	iolat_strbuf_add(b, tmp);
}

static void add_value(const struct iolat_eng_opt *o, union iolat_optval v, struct iolat_strbuf *b)
{
	if (o->type == IOLAT_EOPT_U64)
		iolat_strbuf_addf(b, "%llu", (unsigned long long)v.u);
	else if (o->type == IOLAT_EOPT_DOUBLE)
		add_real(v.d, b);
	else
		add_names(o, &v, "+", b);
}

int iolat_eng_optset_format(const struct iolat_eng_opt *tbl, const struct iolat_eng_optset *os,
			    char *buf, size_t len)
{
	struct iolat_strbuf b;

	iolat_strbuf_init(&b, buf, len);
	for (const struct iolat_eng_opt *o = tbl; o && o->name; o++) {
		size_t i = (size_t)(o - tbl);

		if (i >= IOLAT_ENG_OPTS_MAX || !(os->set & (1ull << i)))
			continue;
		iolat_strbuf_addf(&b, "%s%s=", b.used ? "," : "", o->name);
		add_value(o, os->v[i], &b);
	}
	return (int)b.used;
}
