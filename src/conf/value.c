/* SPDX-License-Identifier: MIT */
/*
 * value.c - the value grammar (value.h): sizes, counts, integers, reals,
 * booleans, durations and choices, for every configuration of the project.
 * Durations are core/duration.c's grammar (the project's one duration
 * parser), reached through iolatency_internal.h.
 * Context: any thread; no global state.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_parse_duration_unit() */
#include "conf/value.h"

bool iolat_conf_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool iolat_conf_is_digit(char c)
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

	while (iolat_conf_is_digit(*s)) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		s++;
		any = true;
	}
	if (*s == '.') {
		s++;
		while (iolat_conf_is_digit(*s)) {
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

/* The value of hexadecimal digit @c, or -1. */
static int hex_digit(char c)
{
	return iolat_conf_is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 :
	       (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
}

int iolat_conf_parse_uint(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) && hex_digit(s[2]) >= 0) {
		base = 16;
		s += 2;
	}
	if (!iolat_conf_is_digit(*s) && base == 10)
		return -EINVAL;
	for (int d; *s && (d = hex_digit(*s)) >= 0 && (unsigned)d < base; s++) {
		if (v > (UINT64_MAX - (unsigned)d) / base)
			return -ERANGE;
		v = v * base + (unsigned)d;
	}
	if (*s)
		return -EINVAL;
	*out = v;
	return 0;
}

int iolat_conf_parse_bool(const char *s, bool *out)
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

int iolat_conf_choice_index_n(const char *choices, const char *word, size_t wl)
{
	int idx = 0;

	for (const char *c = choices; c && *c; idx++) {
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

int iolat_conf_choice_index(const char *choices, const char *word)
{
	return iolat_conf_choice_index_n(choices, word, strlen(word));
}

int iolat_conf_parse_real(const char *s, double *out)
{
	char *end;
	double d;

	if (!*s || iolat_conf_is_space(*s))
		return -EINVAL;
	d = strtod(s, &end);   /* an underflow reads as the nearest value: no error */
	if (end == s || *end || !isfinite(d))
		return -EINVAL;
	*out = d;
	return 0;
}

int iolat_conf_parse_duration(const char *s, uint64_t bare_unit_ns, uint64_t *ns)
{
	return iolat_parse_duration_unit(s, bare_unit_ns, ns);
}

int iolat_conf_parse_target(const char *s, uint64_t *ns)
{
	return iolat_parse_duration(s, ns);
}
