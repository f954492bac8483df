/* SPDX-License-Identifier: MIT */
/*
 * engopt.c - engine option tables (engopt.h): defaults, the parser of
 * "key=val,key=val" and the help line.
 * Context: any thread; tables are constant, the options struct is the
 * caller's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engopt.h"

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

/* Store the @len bytes at @v as option @o in @field; -EINVAL if bad. */
static int store_value(const struct iolat_eng_opt *o, void *field, const char *v, size_t len)
{
	char buf[32], *end;
	const struct iolat_eng_opt_choice *c;
	uint64_t u;
	double d;

	switch (o->type) {
	case IOLAT_EOPT_U64:
		if (!copy_value(v, len, buf, sizeof(buf)) || buf[0] == '-')
			return -EINVAL;
		errno = 0;
		u = strtoull(buf, &end, 0);
		if (errno || *end || u < o->min || u > o->max)
			return -EINVAL;
		*(uint64_t *)field = u * (o->scale ? o->scale : 1);
		return 0;
	case IOLAT_EOPT_DOUBLE:
		if (!copy_value(v, len, buf, sizeof(buf)))
			return -EINVAL;
		d = strtod(buf, &end);
		if (*end || !(d >= o->dmin && d <= o->dmax))
			return -EINVAL;
		*(double *)field = d;
		return 0;
	case IOLAT_EOPT_CHOICE:
		c = find_choice(o, v, len);
		if (!c)
			return -EINVAL;
		*(unsigned *)field = c->value;
		return 0;
	case IOLAT_EOPT_FLAGS:
		return parse_flags(o, v, len, (unsigned *)field);
	}
	return -EINVAL;
}

static int set_value(const struct iolat_eng_opt *o, void *base, const char *v, size_t len)
{
	return store_value(o, (char *)base + o->off, v, len);
}

int iolat_eng_opt_check(const struct iolat_eng_opt *o, const char *v)
{
	union { uint64_t u; double d; unsigned w; } scratch;

	return store_value(o, &scratch, v, strlen(v));
}

static int set_defaults(const struct iolat_eng_opt *tbl, void *base)
{
	for (const struct iolat_eng_opt *o = tbl; o->name; o++)
		if (o->def && set_value(o, base, o->def, strlen(o->def)))
			return -EINVAL;   /* a bad table: caught by the engines' tests */
	return 0;
}

int iolat_eng_opts_parse(const struct iolat_eng_opt *tbl, void *base, const char *opts,
			 uint64_t *set, char *err, size_t errlen)
{
	const char *s = opts;

	if (set)
		*set = 0;
	if (set_defaults(tbl, base))
		return -EINVAL;
	while (s && *s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *eq = memchr(s, '=', len);
		const struct iolat_eng_opt *o;

		if (len && !eq) {
			snprintf(err, errlen, "option '%.*s' needs a value", (int)len, s);
			return -EINVAL;
		}
		if (len) {
			o = iolat_eng_opt_find(tbl, s, (size_t)(eq - s));
			if (!o) {
				snprintf(err, errlen, "unknown option '%.*s'", (int)(eq - s), s);
				return -EINVAL;
			}
			if (set_value(o, base, eq + 1, len - (size_t)(eq - s) - 1)) {
				snprintf(err, errlen, "bad value in '%.*s'", (int)len, s);
				return -EINVAL;
			}
			if (set && o - tbl < 64)
				*set |= 1ull << (o - tbl);
		}
		s = end ? end + 1 : NULL;
	}
	return 0;
}

/* Append to buf, snprintf style (*used counts what it needs). */
static void add(char *buf, size_t len, size_t *used, const char *s)
{
	if (*used < len)
		snprintf(buf + *used, len - *used, "%s", s);
	*used += strlen(s);
}

/* The choices of @o, "a, b or c" (FLAGS: the bits only). */
static void add_choices(const struct iolat_eng_opt *o, char *buf, size_t len, size_t *used)
{
	const struct iolat_eng_opt_choice *c, *last = NULL;

	for (c = o->choices; c && c->name; c++)
		if (o->type != IOLAT_EOPT_FLAGS || c->value)
			last = c;
	for (c = o->choices; c && c->name; c++) {
		if (o->type == IOLAT_EOPT_FLAGS && !c->value)
			continue;
		if (c != o->choices)
			add(buf, len, used, c == last ? " or " : ", ");
		add(buf, len, used, c->name);
	}
}

int iolat_eng_opt_expect(const struct iolat_eng_opt *o, char *buf, size_t len)
{
	char num[96];
	size_t used = 0;

	if (buf && len)
		buf[0] = '\0';
	else
		buf = NULL, len = 0;
	switch (o->type) {
	case IOLAT_EOPT_U64:
		snprintf(num, sizeof(num), "an integer from %llu to %llu",
			 (unsigned long long)o->min, (unsigned long long)o->max);
		add(buf, len, &used, num);
		break;
	case IOLAT_EOPT_DOUBLE:
		snprintf(num, sizeof(num), "a number from %g to %g", o->dmin, o->dmax);
		add(buf, len, &used, num);
		break;
	case IOLAT_EOPT_CHOICE:
		add(buf, len, &used, "one of ");
		add_choices(o, buf, len, &used);
		break;
	case IOLAT_EOPT_FLAGS:
		add_choices(o, buf, len, &used);
		add(buf, len, &used, ", several joined with '+', or none");
		break;
	}
	return (int)used;
}

int iolat_eng_opts_help(const struct iolat_eng_opt *tbl, char *buf, size_t len)
{
	size_t used = 0;

	if (buf && len)
		buf[0] = '\0';
	else
		buf = NULL, len = 0;
	for (const struct iolat_eng_opt *o = tbl; o && o->name; o++) {
		bool first = true;

		if (o != tbl)
			add(buf, len, &used, ", ");
		add(buf, len, &used, o->name);
		add(buf, len, &used, "=");
		if (o->type == IOLAT_EOPT_U64 || o->type == IOLAT_EOPT_DOUBLE) {
			add(buf, len, &used, o->value_word ? o->value_word : "N");
			continue;
		}
		for (const struct iolat_eng_opt_choice *c = o->choices; c && c->name; c++) {
			if (o->type == IOLAT_EOPT_FLAGS && !c->value)
				continue;
			if (!first)
				add(buf, len, &used, "|");
			add(buf, len, &used, c->name);
			first = false;
		}
		if (o->type == IOLAT_EOPT_FLAGS)
			add(buf, len, &used, " (join with '+')");
	}
	return (int)used;
}
