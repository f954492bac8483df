/* SPDX-License-Identifier: MIT */
/*
 * jobfile_value.c - the value parsers of the job file: sizes, integers, booleans,
 * choices (durations are core's iolat_parse_duration_unit()).
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
#include "job/suggest.h"

/* ------------------------------------------------------------------------ */
/* Value parsers                                                            */

bool jf_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool jf_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool word_eq(const char *a, const char *b)   /* case-insensitive */
{
	while (*a && *b && lower(*a) == lower(*b)) {
		a++;
		b++;
	}
	return *a == '\0' && *b == '\0';
}

/*
 * A decimal number with an optional fraction: "12", "1.5". Stores the integer
 * part, the fraction digits (at most 9, the rest ignored) as a numerator over
 * 10^*frac_digits, and the end. -EINVAL if no digit, -ERANGE on overflow.
 */
static int parse_decimal(const char *s, uint64_t *ip, uint64_t *frac, unsigned *frac_digits,
			 const char **end)
{
	uint64_t v = 0, f = 0;
	unsigned nf = 0;
	bool any = false;

	while (jf_is_digit(*s)) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		s++;
		any = true;
	}
	if (*s == '.') {
		s++;
		while (jf_is_digit(*s)) {
			if (nf < 9) {
				f = f * 10 + (uint64_t)(*s - '0');
				nf++;
			}
			s++;
			any = true;
		}
	}
	if (!any)
		return -EINVAL;
	*ip = v;
	*frac = f;
	*frac_digits = nf;
	*end = s;
	return 0;
}

/* v = ip * mult + frac * mult / 10^nf, checked. */
static int scale_decimal(uint64_t ip, uint64_t frac, unsigned nf, uint64_t mult, uint64_t *out)
{
	uint64_t pow10 = 1;

	if (mult && ip > UINT64_MAX / mult)
		return -ERANGE;
	uint64_t v = ip * mult;
	for (unsigned i = 0; i < nf; i++)
		pow10 *= 10;
	/* frac < 10^9 and mult may be large: split mult to avoid overflow */
	uint64_t fq = mult / pow10, fr = mult % pow10;
	uint64_t add = frac * fq + (frac * fr) / pow10;
	if (frac && fq && frac > UINT64_MAX / fq)
		return -ERANGE;
	if (v > UINT64_MAX - add)
		return -ERANGE;
	*out = v + add;
	return 0;
}

int iolat_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t ip, frac, mult = 1, v;
	unsigned nf;
	const char *p;

	if (!s || !bytes)
		return -EINVAL;
	if (parse_decimal(s, &ip, &frac, &nf, &p))
		return -EINVAL;
	if (*p) {
		switch (lower(*p)) {
		case 'b': mult = 1; break;
		case 'k': mult = 1ull << 10; break;
		case 'm': mult = 1ull << 20; break;
		case 'g': mult = 1ull << 30; break;
		case 't': mult = 1ull << 40; break;
		case 'p': mult = 1ull << 50; break;
		default: return -EINVAL;
		}
		const char *rest = p + 1;
		if (mult == 1) {
			if (*rest)
				return -EINVAL;
		} else if (*rest && !word_eq(rest, "b") && !word_eq(rest, "ib")) {
			return -EINVAL;
		}
	}
	if (scale_decimal(ip, frac, nf, mult, &v))
		return -EINVAL;
	*bytes = v;
	return 0;
}

int jf_parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!jf_is_digit(*s))
		return -EINVAL;
	for (; jf_is_digit(*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (*s)
		return -EINVAL;
	*out = v;
	return 0;
}

int jf_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < 4; i++) {
		if (word_eq(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (word_eq(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Position of @word in the '|'-separated @choices, or -1. */
int jf_choice_index(const char *choices, const char *word)
{
	int idx = 0;
	size_t wl = strlen(word);

	for (const char *c = choices; *c; idx++) {
		const char *bar = strchr(c, '|');
		size_t n = bar ? (size_t)(bar - c) : strlen(c);
		if (n == wl && strncmp(c, word, n) == 0)
			return idx;
		if (!bar)
			break;
		c = bar + 1;
	}
	return -1;
}
