/* SPDX-License-Identifier: MIT */
/*
 * test_parse_duration.c - iolat_parse_duration(), table-driven: units ns, us,
 * ms, s; decimal fractions; a bare number is microseconds (as the kernel's
 * io.latency file, docs/controller.md R16); "max" is 0 (no target); empty, junk,
 * negative and overflowing input give -EINVAL and leave the output alone.
 * iolat_parse_duration_unit(), the same parser for the job file's durations:
 * the bare number's unit is the caller's, units up to days, any case, no "max".
 * Context: single-threaded cmocka program.
 */
#include "helpers/t_ctl.h"
#include "iolatency_internal.h"

struct dur_case {
	const char *s;
	int ret;
	uint64_t ns;
};

static const struct dur_case cases[] = {
	{ "5ms", 0, 5000000 },
	{ "750us", 0, 750000 },
	{ "2s", 0, 2000000000 },
	{ "1500ns", 0, 1500 },
	{ "1.5ms", 0, 1500000 },
	{ "0.5s", 0, 500000000 },
	{ "2.25us", 0, 2250 },
	{ "100", 0, 100000 },          /* bare: microseconds */
	{ "1", 0, 1000 },
	{ "1.5", 0, 1500 },
	{ "0", 0, 0 },
	{ "0ms", 0, 0 },
	{ "max", 0, 0 },
	{ "18446744073709551us", 0, 18446744073709551000ull },
	{ "18446744073709551.615us", 0, UINT64_MAX },
	{ "", -EINVAL, 0 },
	{ "ms", -EINVAL, 0 },
	{ ".", -EINVAL, 0 },
	{ "abc", -EINVAL, 0 },
	{ "5xs", -EINVAL, 0 },
	{ "5ms5", -EINVAL, 0 },
	{ "5 ms x", -EINVAL, 0 },
	{ "1.2.3ms", -EINVAL, 0 },
	{ "-5ms", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "+", -EINVAL, 0 },
	{ "maxx", -EINVAL, 0 },
	{ "max5", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "99999999999999999999", -EINVAL, 0 },       /* > 2^64 */
	{ "99999999999999999999999ns", -EINVAL, 0 },
	{ "18446744073709552", -EINVAL, 0 },          /* x 1000 overflows */
	{ "18446744073709552us", -EINVAL, 0 },
	{ "18446744073709551.616us", -EINVAL, 0 },
	{ "18446744074s", -EINVAL, 0 },
};

static void test_parse_table(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct dur_case *c = &cases[i];
		uint64_t ns = 0xdeadbeef;
		int r = iolat_parse_duration(c->s, &ns);

		if (r != c->ret || (r == 0 && ns != c->ns))
			print_error("\"%s\": ret %d ns %llu, want %d %llu\n", c->s, r,
				    (unsigned long long)ns, c->ret, (unsigned long long)c->ns);
		assert_int_equal(r, c->ret);
		assert_int_equal(ns, r == 0 ? c->ns : 0xdeadbeef);
	}
}

static void test_parse_unit(void **state)
{
	(void)state;
	static const struct { const char *s; uint64_t bare, v; } ok[] = {
		{ "30s", 1000000000ull, 30000000000ull }, { "30", 1000000000ull, 30000000000ull },
		{ "500ms", 1000000000ull, 500000000ull }, { "2m", 1000000000ull, 120000000000ull },
		{ "1h", 1, 3600000000000ull }, { "1d", 1, 86400000000000ull },
		{ "250us", 1, 250000 }, { "250usec", 1, 250000 }, { "10ns", 1, 10 },
		{ "1.5s", 1, 1500000000ull }, { "0.25ms", 1, 250000 }, { "100", 1000, 100000 },
		{ "2min", 1, 120000000000ull }, { "3sec", 1, 3000000000ull }, { "7MS", 1, 7000000 },
		{ "0", 1000000000ull, 0 },
	};
	static const char *const bad[] = { "", "s", "-1s", "1y", "1 s", "1.s.", "99999999999999999999s",
					   "300000000000d", "max" };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 0;
		if (iolat_parse_duration_unit(ok[i].s, ok[i].bare, &v) != 0)
			fail_msg("'%s' rejected", ok[i].s);
		if (v != ok[i].v)
			fail_msg("'%s' -> %llu, want %llu", ok[i].s, (unsigned long long)v,
				 (unsigned long long)ok[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 7;
		if (iolat_parse_duration_unit(bad[i], 1000, &v) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	}
}

static void test_parse_null(void **state)
{
	uint64_t ns;

	assert_int_equal(iolat_parse_duration(NULL, &ns), -EINVAL);
	assert_int_equal(iolat_parse_duration("5ms", NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_unit),
		cmocka_unit_test(test_parse_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
