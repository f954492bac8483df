/* SPDX-License-Identifier: MIT */
/*
 * test_fuzz_regressions.c - every input the fuzzers (fuzz/) found wrong,
 * replayed as plain cmocka tests with the same driver code compiled without
 * libFuzzer, plus a replay of the seed corpus (fuzz/corpus/fuzz_ctl/) when the
 * test runs from the repository root. Each regression says what it broke and
 * how the core was fixed. Context: single-threaded cmocka program.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "iolatency.h"
#include "core/scale.h"

/* The driver is not part of any library: compile it into this test. */
#include "../../fuzz/ctl_driver.c"

static void replay_ctl(const uint8_t *data, size_t size)
{
	char msg[512];
	int ret = ctl_driver_run(data, size, 0, msg, sizeof(msg));

	if (ret) {
		/* Print the steps, then fail with the broken invariant. */
		ctl_driver_run(data, size, CTL_DRIVER_TRACE, msg, sizeof(msg));
		fail_msg("%s", msg);
	}
}

/*
 * fuzz_ctl: iolat_ctl_set_nr_requests(2^31), then a missed window. The
 * parent's cookie stepped down by qd/4 from 1000000 and wrapped to 3.7e9,
 * which children read as a scale-UP: throttling inverted. Fixed in
 * src/core/scale.c: iolat_cookie_step() saturates at 0, and
 * iolat_depth_step() grows in 64 bits (qd near UINT32_MAX wrapped it too).
 */
static const uint8_t ctl_huge_qd_cookie_wrap[] = {
	0x2a, 0x00, 0x08, 0x00, 0x00, 0x14, 0x00, 0x00, 0xe3, 0xe3, 0xea, 0xff, 0xe3, 0xd0, 0x1e,
	0x00, 0x00, 0x00, 0x0d, 0x0d, 0x0d, 0xff, 0xfe, 0x24, 0x0b, 0xef, 0xff, 0x00, 0x00, 0xf4,
};

static void test_ctl_huge_qd_cookie_wrap(void **state)
{
	(void)state;
	replay_ctl(ctl_huge_qd_cookie_wrap, sizeof(ctl_huge_qd_cookie_wrap));
}

static void test_scale_steps_saturate(void **state)
{
	(void)state;
	/* Down from the default with a huge qd: stays at or below the default. */
	assert_true(iolat_cookie_step(IOLAT_DEFAULT_COOKIE, 1u << 31, false) <=
		    IOLAT_DEFAULT_COOKIE);
	assert_int_equal(iolat_cookie_step(IOLAT_DEFAULT_COOKIE, UINT32_MAX, false), 0);
	/* The usual steps are unchanged: qd 64 -> down by 16, up by 4. */
	assert_int_equal(iolat_cookie_step(IOLAT_DEFAULT_COOKIE, 64, false),
			 IOLAT_DEFAULT_COOKIE - 16);
	assert_int_equal(iolat_cookie_step(IOLAT_DEFAULT_COOKIE - 16, 64, true),
			 IOLAT_DEFAULT_COOKIE - 12);
	/* Growing near UINT32_MAX never wraps to a smaller depth. */
	assert_int_equal(iolat_depth_step(4270000000u, UINT32_MAX, true), UINT32_MAX);
	assert_int_equal(iolat_depth_step(8, 64, true), 12);
	assert_int_equal(iolat_depth_step(8, 64, false), 4);
}

/*
 * fuzz_duration: "\t0\t" and "750 " were refused (-EINVAL) while "5ms " was
 * accepted: trailing blanks after a bare number were taken for an empty
 * unit. Fixed in src/core/duration.c: only blanks left means no unit.
 */
static void test_duration_trailing_blanks(void **state)
{
	static const struct {
		const char *s;
		int ret;
		uint64_t ns;
	} cases[] = {
		{ "\t0\t", 0, 0 },
		{ "750 ", 0, 750000 },
		{ "750\t \t", 0, 750000 },
		{ " 1.5 ", 0, 1500 },
		{ "5ms ", 0, 5000000 },
		{ "5 ms", -EINVAL, 0 },      /* a blank between number and unit: refused */
		{ " ", -EINVAL, 0 },
		{ ". ", -EINVAL, 0 },
		{ "max ", -EINVAL, 0 },      /* "max" takes leading blanks only */
		{ " max", 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ns = 12345;
		int ret = iolat_parse_duration(cases[i].s, &ns);

		if (ret != cases[i].ret || (ret == 0 && ns != cases[i].ns))
			fail_msg("\"%s\": %d/%llu, want %d/%llu", cases[i].s, ret,
				 (unsigned long long)ns, cases[i].ret,
				 (unsigned long long)cases[i].ns);
	}
}

/*
 * fuzz_duration: "\t18446744073709551.615" (bare microseconds) parsed to
 * UINT64_MAX ns, but "18446744073709551615ns" was refused: the digit loop
 * refused any 20-digit number above (UINT64_MAX - 9) / 10 * 10. Fixed in
 * src/core/duration.c: an exact overflow check per digit.
 */
static void test_duration_u64_max_round_trip(void **state)
{
	uint64_t ns = 0;

	(void)state;
	assert_int_equal(iolat_parse_duration("\t18446744073709551.615", &ns), 0);
	assert_true(ns == UINT64_MAX);
	ns = 0;
	assert_int_equal(iolat_parse_duration("18446744073709551615ns", &ns), 0);
	assert_true(ns == UINT64_MAX);
	assert_int_equal(iolat_parse_duration("18446744073709551610ns", &ns), 0);
	assert_true(ns == UINT64_MAX - 5);
	assert_int_equal(iolat_parse_duration("18446744073709551616ns", &ns), -EINVAL);
	assert_int_equal(iolat_parse_duration("18446744073709551620ns", &ns), -EINVAL);
	assert_int_equal(iolat_parse_duration("18446744073709551.616", &ns), -EINVAL);
	assert_int_equal(iolat_parse_duration("99999999999999999999999ns", &ns), -EINVAL);
}

/* Every seed of fuzz/corpus/fuzz_ctl/ still passes (skipped outside the repo root). */
static void test_ctl_seed_corpus(void **state)
{
	const char *dir = "fuzz/corpus/fuzz_ctl";
	DIR *dp = opendir(dir);
	struct dirent *de;
	unsigned n = 0;

	(void)state;
	if (!dp)
		skip();
	while ((de = readdir(dp))) {
		char path[512];
		uint8_t buf[1 << 16];
		size_t len;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		print_message("replay %s (%zu bytes)\n", path, len);
		replay_ctl(buf, len);
		n++;
	}
	closedir(dp);
	assert_true(n > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctl_huge_qd_cookie_wrap),
		cmocka_unit_test(test_scale_steps_saturate),
		cmocka_unit_test(test_duration_trailing_blanks),
		cmocka_unit_test(test_duration_u64_max_round_trip),
		cmocka_unit_test(test_ctl_seed_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
