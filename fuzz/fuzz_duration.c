/* SPDX-License-Identifier: MIT */
/*
 * fuzz_duration.c - libFuzzer target for iolat_parse_duration(): arbitrary
 * bytes (NUL-terminated copy) must never crash it, and its answer must match
 * an independent reference parser written here with 128-bit arithmetic.
 * Every accepted value must also round-trip: "<v>ns", "<v>ns" with blanks
 * around it, and (when v is a whole number of microseconds) the bare number
 * of microseconds parse back to v. Context: libFuzzer's one thread.
 *
 * The reference states the accepted language (docs/reliability.md):
 * optional leading blanks (space, tab); then "max" exactly (0), or digits
 * with an optional '.' fraction (at least one digit in all; fraction digits
 * after the 9th are ignored), then an optional unit ns|nsec|us|usec|µs|ms|
 * msec|s|sec|m|min|h|d in any ASCII case (none: microseconds) and optional
 * trailing blanks; the value
 * truncated to whole ns must fit in 64 bits.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef unsigned __int128 u128;

static const struct {
	const char *name;
	uint64_t ns;
} ref_units[] = {
	{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 }, { "\xc2\xb5s", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 }, { "s", 1000000000ull },
	{ "sec", 1000000000ull }, { "m", 60000000000ull }, { "min", 60000000000ull },
	{ "h", 3600000000000ull }, { "d", 86400000000000ull },
};

/* Does @name (lower case) equal the @n bytes at @p in any ASCII case? */
static int ref_unit_is(const char *name, const char *p, size_t n)
{
	if (strlen(name) != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c + ('a' - 'A'));
		if (c != name[i])
			return 0;
	}
	return 1;
}

/* Returns 0 and *ns, or -EINVAL. */
static int ref_parse(const char *s, uint64_t *ns)
{
	const char *p = s, *end;
	u128 whole = 0, frac = 0, div = 1, mult = 1000, v;
	int digits = 0, nwhole = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!strcmp(p, "max")) {
		*ns = 0;
		return 0;
	}
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (whole || *p != '0')
			nwhole++;
		if (nwhole > 21)
			return -EINVAL; /* far past 2^64 either way */
		whole = whole * 10 + (unsigned)(*p - '0');
	}
	if (*p == '.') {
		int nfrac = 0;

		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (nfrac++ < 9) {
				frac = frac * 10 + (unsigned)(*p - '0');
				div *= 10;
			}
		}
	}
	if (!digits)
		return -EINVAL;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end > p) {
		size_t n = (size_t)(end - p), i;

		for (i = 0; i < sizeof(ref_units) / sizeof(ref_units[0]); i++)
			if (ref_unit_is(ref_units[i].name, p, n))
				break;
		if (i == sizeof(ref_units) / sizeof(ref_units[0]))
			return -EINVAL;
		mult = ref_units[i].ns;
	}
	v = whole * mult + frac * mult / div;
	if (v > UINT64_MAX)
		return -EINVAL;
	*ns = (uint64_t)v;
	return 0;
}

static void expect_parse(const char *s, uint64_t want, const char *why)
{
	uint64_t got = ~0ull;
	int ret = iolat_parse_duration(s, &got);

	if (ret || got != want) {
		fprintf(stderr, "fuzz_duration: %s: \"%s\" gave %d/%" PRIu64 ", want %" PRIu64 "\n",
			why, s, ret, got, want);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	char buf[64];
	uint64_t ns = 0xdeadbeef, ref = 0;
	int ret, rret;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	ret = iolat_parse_duration(s, &ns);
	rret = ref_parse(s, &ref);
	if (ret != 0 && ret != -EINVAL) {
		fprintf(stderr, "fuzz_duration: \"%s\": return %d\n", s, ret);
		abort();
	}
	if (ret == -EINVAL && ns != 0xdeadbeef) {
		fprintf(stderr, "fuzz_duration: \"%s\": -EINVAL but *ns written\n", s);
		abort();
	}
	if (ret != rret) {
		fprintf(stderr, "fuzz_duration: \"%s\": parser %d, reference %d (%" PRIu64 ")\n",
			s, ret, rret, ref);
		abort();
	}
	if (ret == 0) {
		if (ns != ref) {
			fprintf(stderr, "fuzz_duration: \"%s\": %" PRIu64 ", reference %" PRIu64 "\n",
				s, ns, ref);
			abort();
		}
		snprintf(buf, sizeof(buf), "%" PRIu64 "ns", ns);
		expect_parse(buf, ns, "round trip in ns");
		snprintf(buf, sizeof(buf), " \t%" PRIu64 "ns\t ", ns);
		expect_parse(buf, ns, "round trip with blanks");
		if (ns % 1000 == 0) {
			snprintf(buf, sizeof(buf), "%" PRIu64, ns / 1000);
			expect_parse(buf, ns, "round trip as bare microseconds");
		}
	}
	free(s);
	return 0;
}
