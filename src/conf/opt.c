/* SPDX-License-Identifier: MIT */
/*
 * opt.c - the generic part of an option table (opt.h): messages, reading
 * one value of a typed entry into its field, finding and suggesting keys.
 * Context: any thread; no global state.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/opt.h"
#include "conf/suggest.h"
#include "conf/value.h"
#include "util/units.h"

void iolat_conf_echo(char *dst, size_t dlen, const char *s, size_t n, size_t max)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 4 < dlen; i++) {
		if (i == max) {
			memcpy(dst + o, "...", 3);
			o += 3;
			break;
		}
		unsigned char c = (unsigned char)s[i];
		dst[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	dst[o] = '\0';
}

int iolat_conf_errf(const struct iolat_conf_at *at, unsigned line, const char *key,
		    const char *fmt, ...)
{
	char msg[256], k[IOLAT_CONF_ECHO_MAX + 8];
	va_list ap;

	if (!at->err || !at->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (key) {
		iolat_conf_echo(k, sizeof(k), key, strlen(key), IOLAT_CONF_ECHO_MAX);
		snprintf(at->err, at->errlen, "%s:%u: key '%s': expected %s", at->file, line, k, msg);
	} else {
		snprintf(at->err, at->errlen, "%s:%u: %s", at->file, line, msg);
	}
	return -EINVAL;
}

void iolat_opt_store_uint(void *base, const struct iolat_opt *o, uint64_t v)
{
	char *f = (char *)base + o->off;

	switch (o->fsize) {
	case 1: { bool b = v != 0; memcpy(f, &b, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(f, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(f, &x, 4); break; }
	default: memcpy(f, &v, 8); break;
	}
}

/* "a, b, a|b or none" for flags "a|b|none": each bit's word, all of them
 * joined, then the word that sets none. */
static void flags_expect(const struct iolat_opt *o, char *buf, size_t len)
{
	char all[128] = "", zero[32] = "";
	size_t used = 0, n_all = 0;
	const char *c = o->choices;

	buf[0] = '\0';
	for (unsigned i = 0; *c; i++) {
		const char *bar = strchr(c, '|');
		int n = bar ? (int)(bar - c) : (int)strlen(c);

		if (!o->flag_bits[i])
			snprintf(zero, sizeof(zero), "%.*s", n, c);
		else if (used < len && n_all < sizeof(all)) {
			used += (size_t)snprintf(buf + used, len - used, "%.*s, ", n, c);
			n_all += (size_t)snprintf(all + n_all, sizeof(all) - n_all, "%s%.*s",
						  n_all ? "|" : "", n, c);
		}
		c = bar ? bar + 1 : c + n;
	}
	if (used < len)
		snprintf(buf + used, len - used, "%s or %s", all, zero);
}

/* Words of o->choices separated by '|' or ',', each OR-ing its flag_bits. */
static int set_flags(const struct iolat_conf_at *at, const struct iolat_opt *o, void *base,
		     const char *key, const char *v)
{
	unsigned f = 0;
	const char *s = v;
	char expect[160];

	while (*s) {
		const char *e = s;
		int idx;

		while (*e && *e != '|' && *e != ',')
			e++;
		idx = e - s < 64 ? iolat_conf_choice_index_n(o->choices, s, (size_t)(e - s)) : -1;
		s = *e ? e + 1 : e;
		if (idx < 0 || (*e && !*s)) {
			flags_expect(o, expect, sizeof(expect));
			return iolat_conf_errf(at, at->line, key, "%s", expect);
		}
		f |= o->flag_bits[idx];
	}
	memcpy((char *)base + o->off, &f, sizeof(f));
	return 0;
}

static int set_str(const struct iolat_conf_at *at, const struct iolat_opt *o, void *base,
		   const char *key, const char *v)
{
	char **f = (char **)((char *)base + o->off);
	char *d;

	if (!*v)
		return iolat_conf_errf(at, at->line, key, "a non-empty value");
	d = strdup(v);
	if (!d) {
		if (at->err && at->errlen)
			snprintf(at->err, at->errlen, "%s:%u: out of memory", at->file, at->line);
		return -ENOMEM;
	}
	free(*f);
	*f = d;
	return 0;
}

static int set_text(const struct iolat_conf_at *at, const struct iolat_opt *o, void *base,
		    const char *key, const char *v, const char *got)
{
	size_t n = strlen(v);

	if (!n || n >= o->fsize)
		return iolat_conf_errf(at, at->line, key, "%s of 1 to %zu bytes (got '%s')",
				       o->expect ? o->expect : "a value", o->fsize - 1, got);
	memcpy((char *)base + o->off, v, n + 1);
	return 0;
}

int iolat_opt_choice(const struct iolat_opt *o, const char *v)
{
	size_t vlen = strlen(v);
	int idx = iolat_conf_choice_index(o->choices, v);

	for (const char *a = o->value_aliases; idx < 0 && a && *a;) {
		const char *eq = strchr(a, '='), *end = strchr(a, '|');
		size_t n = end ? (size_t)(end - a) : strlen(a);

		if (eq && (size_t)(eq - a) == vlen && !strncmp(a, v, vlen))
			return iolat_conf_choice_index_n(o->choices, eq + 1, n - vlen - 1);
		a += n + (end != NULL);
	}
	return idx;
}

static int set_enum(const struct iolat_conf_at *at, const struct iolat_opt *o, void *base,
		    const char *key, const char *v, const char *got)
{
	int idx = iolat_opt_choice(o, v);
	char list[192];

	if (idx < 0) {
		snprintf(list, sizeof(list), "%s", o->choices);
		for (char *c = list; *c; c++)
			if (*c == '|')
				*c = ',';
		return iolat_conf_errf(at, at->line, key, "one of %s (got '%s')", list, got);
	}
	iolat_opt_store_uint(base, o, o->min + (uint64_t)idx);
	return 0;
}

/* "0, 1, a, b or c" for a bool with value words "a|b|c"; "0 or 1" without. */
static void bool_expect(const struct iolat_opt *o, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, o->value_words ? "0, 1" : "0 or 1");

	for (const char *w = o->value_words; w && *w && used < len;) {
		const char *bar = strchr(w, '|');
		int n = bar ? (int)(bar - w) : (int)strlen(w);

		used += (size_t)snprintf(buf + used, len - used, "%s%.*s", bar ? ", " : " or ", n, w);
		w = bar ? bar + 1 : "";
	}
}

/* 0/1 (bool spellings), or one of the table's value words (control=kernel):
 * 1, and the word's position + 1 stored in the int at words_off. */
static int set_bool(const struct iolat_conf_at *at, const struct iolat_opt *o, void *base,
		    const char *key, const char *v, const char *got)
{
	int word = o->value_words ? iolat_conf_choice_index(o->value_words, v) : -1;
	char expect[128];
	bool b;

	if (word >= 0) {
		int pos = word + 1;

		memcpy((char *)base + o->words_off, &pos, sizeof(pos));
		v = "1";
	}
	if (iolat_conf_parse_bool(v, &b)) {
		bool_expect(o, expect, sizeof(expect));
		return iolat_conf_errf(at, at->line, key, "%s (got '%s')", expect, got);
	}
	iolat_opt_store_uint(base, o, b);
	return 0;
}

/* The words a bad number of @o is told, and its parser's verdict on @v. */
static const char *read_number(const struct iolat_opt *o, const char *v, uint64_t *x, int *r)
{
	switch (o->type) {
	case IOLAT_OPT_SIZE:
		*r = iolat_parse_size(v, x);
		return "a size like 4k, 1m, 2g or bytes";
	case IOLAT_OPT_RATE:
		*r = iolat_parse_size(v, x);
		return "a rate in bytes/s like 500k, 10m";
	case IOLAT_OPT_COUNT:
		*r = iolat_parse_size(v, x);
		return "a number like 10, 256 or 1k";
	case IOLAT_OPT_TIME_S:
		*r = iolat_conf_parse_duration(v, NSEC_PER_SEC, x);
		return "a duration like 30s, 500ms, 2m (bare number: seconds)";
	case IOLAT_OPT_TIME_US:
		*r = iolat_conf_parse_duration(v, NSEC_PER_USEC, x);
		return "a duration like 100us, 2ms (bare number: microseconds)";
	case IOLAT_OPT_TARGET:
		*r = iolat_conf_parse_target(v, x);
		return "a latency target like 5ms, 750us or max";
	default:
		*r = -EINVAL;
		return "a number";
	}
}

/* A number of @o's type within its range. */
static int set_number(const struct iolat_conf_at *at, const struct iolat_opt *o, void *base,
		      const char *key, const char *v, const char *got)
{
	uint64_t x = 0;
	int r;
	const char *hint = read_number(o, v, &x, &r);

	if (o->expect)
		hint = o->expect;
	if ((o->type == IOLAT_OPT_SIZE || o->type == IOLAT_OPT_RATE) && strchr(v, ','))
		return iolat_conf_errf(at, at->line, key,
				       "one value (separate read,write values are not supported)");
	if (r)
		return iolat_conf_errf(at, at->line, key, "%s (got '%s')", hint, got);
	if ((o->max && x > o->max) || x < o->min) {
		if (o->expect)
			return iolat_conf_errf(at, at->line, key, "%s (got '%s')", hint, got);
		return iolat_conf_errf(at, at->line, key, "%s of at %s %llu (got '%s')", hint,
				       x < o->min ? "least" : "most",
				       (unsigned long long)(x < o->min ? o->min : o->max), got);
	}
	iolat_opt_store_uint(base, o, x);
	return 0;
}

static int set_uint(const struct iolat_conf_at *at, const struct iolat_opt *o, void *base,
		    const char *key, const char *v, const char *got)
{
	uint64_t x = 0;
	int r = iolat_conf_parse_uint(v, &x);

	if (r == -ERANGE || (r == 0 && (x < o->min || x > o->max)))
		return iolat_conf_errf(at, at->line, key, "an integer from %llu to %llu (got '%s')",
				       (unsigned long long)o->min, (unsigned long long)o->max, got);
	if (r)
		return iolat_conf_errf(at, at->line, key, "an integer (got '%s')", got);
	iolat_opt_store_uint(base, o, x);
	return 0;
}

int iolat_opt_apply(const struct iolat_conf_at *at, const struct iolat_opt *o, void *base,
		    const char *key, const char *v)
{
	char got[IOLAT_CONF_ECHO_MAX + 8];

	if (o->type >= IOLAT_OPT_USER0)
		return IOLAT_OPT_NOT_MINE;
	if (!v) {
		if (o->type != IOLAT_OPT_BOOL)
			return iolat_conf_errf(at, at->line, key, "a value (%s=...)", o->name);
		v = "1";
	}
	iolat_conf_echo(got, sizeof(got), v, strlen(v), IOLAT_CONF_ECHO_MAX);
	switch (o->type) {
	case IOLAT_OPT_STR:
		return set_str(at, o, base, key, v);
	case IOLAT_OPT_TEXT:
		return set_text(at, o, base, key, v, got);
	case IOLAT_OPT_BOOL:
		return set_bool(at, o, base, key, v, got);
	case IOLAT_OPT_UINT:
		return set_uint(at, o, base, key, v, got);
	case IOLAT_OPT_ENUM:
		return set_enum(at, o, base, key, v, got);
	case IOLAT_OPT_FLAGS:
		return set_flags(at, o, base, key, v);
	default:
		return set_number(at, o, base, key, v, got);
	}
}

const char *iolat_opt_type_name(enum iolat_opt_type t)
{
	switch (t) {
	case IOLAT_OPT_STR:     return "text";
	case IOLAT_OPT_TEXT:    return "text";
	case IOLAT_OPT_SIZE:    return "size";
	case IOLAT_OPT_RATE:    return "bytes/s";
	case IOLAT_OPT_COUNT:   return "count";
	case IOLAT_OPT_TIME_S:  return "time(s)";
	case IOLAT_OPT_TIME_US: return "time(us)";
	case IOLAT_OPT_TARGET:  return "target";
	case IOLAT_OPT_BOOL:    return "bool";
	case IOLAT_OPT_UINT:    return "int";
	case IOLAT_OPT_ENUM:    return "choice";
	case IOLAT_OPT_FLAGS:   return "flags";
	default:                return NULL;
	}
}

const struct iolat_opt *iolat_opt_find(const struct iolat_opt *tbl, const char *key)
{
	for (; tbl && tbl->name; tbl++)
		if (!strcmp(key, tbl->name) || (tbl->alias && !strcmp(key, tbl->alias)))
			return tbl;
	return NULL;
}

const char *iolat_opt_suggest(const struct iolat_opt *tbl, const char *key)
{
	struct iolat_suggest sg;

	iolat_suggest_init(&sg, key);
	for (; tbl && tbl->name; tbl++) {
		iolat_suggest_offer(&sg, tbl->name);
		if (tbl->alias)
			iolat_suggest_offer(&sg, tbl->alias);
	}
	return iolat_suggest_best(&sg);
}
