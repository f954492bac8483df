/* SPDX-License-Identifier: MIT */
/*
 * test_parse_duration.c - iolat_parse_duration(), table-driven: units ns, us,
 * ms, s; decimal fractions; a bare number is microseconds (as the kernel's
 * io.latency file, CONTROLLER.md 4); "max" is 0 (no target); empty, junk,
 * negative and overflowing input give -EINVAL and leave the output alone.
 * Context: single-threaded cmocka program.
 */
#include "helpers/t_ctl.h"

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
		cmocka_unit_test(test_parse_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
