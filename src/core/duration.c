/* SPDX-License-Identifier: MIT */
/*
 * duration.c - parsing of latency targets and durations: "5ms", "750us",
 * "2s", "1500ns", "1.5ms", a bare number (microseconds, as the kernel's
 * io.latency file takes), "max" (no target); and, for the job file's
 * durations, iolat_parse_duration_unit() with the bare number's unit chosen
 * by the caller (runtime=30 is seconds). The project's one duration parser.
 * Pure C, no locale.
 * Context: any thread.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "iolatency.h"
#include "iolatency_internal.h"
#include "util/units.h"

struct unit {
	const char *name;
	uint64_t ns;
};

/* Compared without regard to ASCII case ("5MS" is 5 ms). */
static const struct unit units[] = {
	{ "ns", 1 }, { "nsec", 1 },
	{ "us", NSEC_PER_USEC }, { "usec", NSEC_PER_USEC }, { "\xc2\xb5s", NSEC_PER_USEC },
	{ "ms", NSEC_PER_MSEC }, { "msec", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC }, { "sec", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC }, { "d", 86400 * NSEC_PER_SEC },
};

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Does the unit @name equal the @n bytes at @p, ignoring ASCII case? */
static bool unit_eq(const char *name, const char *p, size_t n)
{
	if (strlen(name) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(p[i]) != name[i])
			return false;
	return true;
}

/* The unit's factor for the suffix at @p (trailing blanks ignored); @bare
 * for none; 0 for an unknown suffix. */
static uint64_t unit_of(const char *p, uint64_t bare)
{
	size_t n = strlen(p);

	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	/* Only trailing blanks: a bare number ("750 "), as "5ms " takes them. */
	if (!n)
		return bare;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (unit_eq(units[i].name, p, n))
			return units[i].ns;
	return 0;
}

int iolat_parse_duration_unit(const char *s, uint64_t bare_unit_ns, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, frac_div = 1, mult, v;
	const char *p = s;
	bool digits = false;

	if (!s || !ns || !bare_unit_ns)
		return -EINVAL;
	while (*p == ' ' || *p == '\t')
		p++;
	for (; *p >= '0' && *p <= '9'; p++) {
		uint64_t d = (uint64_t)(*p - '0');

		/* Exact: every value up to UINT64_MAX ns parses back ("...615ns"). */
		if (whole > (UINT64_MAX - d) / 10)
			return -EINVAL;
		whole = whole * 10 + d;
		digits = true;
	}
	if (*p == '.') {
		/* Digits past the ninth are read and ignored (below 1 ns at "s"). */
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (frac_div < 1000000000ull) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				frac_div *= 10;
			}
			digits = true;
		}
	}
	if (!digits)
		return -EINVAL;
	mult = unit_of(p, bare_unit_ns);
	if (!mult || whole > UINT64_MAX / mult)
		return -EINVAL;
	v = whole * mult;
	/* frac < frac_div <= 1e9: both products stay below 2^64. */
	v += frac * (mult / frac_div) + frac * (mult % frac_div) / frac_div;
	if (v < whole * mult)
		return -EINVAL;
	*ns = v;
	return 0;
}

int iolat_parse_duration(const char *s, uint64_t *ns)
{
	const char *p = s;

	if (!s || !ns)
		return -EINVAL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!strcmp(p, "max")) {
		*ns = 0;
		return 0;
	}
	return iolat_parse_duration_unit(p, NSEC_PER_USEC, ns);
}
