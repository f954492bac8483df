/* SPDX-License-Identifier: MIT */
/*
 * duration.c - parsing of latency targets and durations: "5ms", "750us",
 * "2s", "1500ns", "1.5ms", a bare number (microseconds, as the kernel's
 * io.latency file takes), "max" (no target). Pure C, no locale.
 * Context: any thread.
 */
#include <errno.h>
#include <string.h>

#include "iolatency.h"

struct unit {
	const char *name;
	uint64_t ns;
};

static const struct unit units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "usec", 1000 }, { "\xc2\xb5s", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 }, { "s", 1000000000ull },
	{ "sec", 1000000000ull }, { "m", 60000000000ull }, { "min", 60000000000ull },
	{ "h", 3600000000000ull },
};

int iolat_parse_duration(const char *s, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, frac_div = 1, mult = 1000, v;
	const char *p = s;
	bool digits = false;

	if (!s || !ns)
		return -EINVAL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!strcmp(p, "max")) {
		*ns = 0;
		return 0;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		uint64_t d = (uint64_t)(*p - '0');

		/* Exact: every value up to UINT64_MAX ns parses back ("...615ns"). */
		if (whole > (UINT64_MAX - d) / 10)
			return -EINVAL;
		whole = whole * 10 + d;
		digits = true;
	}
	if (*p == '.') {
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
	if (*p) {
		size_t i;
		size_t n = strlen(p);

		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		/* Only trailing blanks: a bare number ("750 "), as "5ms " takes them. */
		if (n) {
			for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
				if (strlen(units[i].name) == n && !strncmp(p, units[i].name, n))
					break;
			if (i == sizeof(units) / sizeof(units[0]))
				return -EINVAL;
			mult = units[i].ns;
		}
	}
	if (whole > UINT64_MAX / mult)
		return -EINVAL;
	v = whole * mult;
	/* frac < frac_div <= 1e9: both products stay below 2^64. */
	v += frac * (mult / frac_div) + frac * (mult % frac_div) / frac_div;
	if (v < whole * mult)
		return -EINVAL;
	*ns = v;
	return 0;
}
