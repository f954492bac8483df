/* SPDX-License-Identifier: MIT */
/*
 * test_stat_line.c - the io.stat-style line, iolat_group_format_stat()
 * (docs/controller.md R15):
 * "depth=<n|max> avg_lat=<us> win=<ms> missed=<n> total=<n> use_delay=<n>
 * delay=<ns>" - depth "max" when unlimited; avg_lat the HDD EMA in whole µs;
 * missed/total of the current, partial window; returns the length it needed
 * and truncates like snprintf.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include <string.h>

#include "helpers/t_ctl.h"

static void assert_line(const struct iolat_group *g, const char *want)
{
	char buf[256];
	int n = iolat_group_format_stat(g, buf, sizeof(buf));

	if (strcmp(buf, want))
		print_error("got  \"%s\"\nwant \"%s\"\n", buf, want);
	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

static void test_fresh_and_ssd(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *g = t_grp(ctl, NULL, "g", 0);

	assert_line(g, "depth=max avg_lat=0 win=100 missed=0 total=0 use_delay=0 delay=0");
	assert_int_equal(iolat_group_set_target(g, 20 * T_MS), 0);
	assert_line(g, "depth=max avg_lat=0 win=320 missed=0 total=0 use_delay=0 delay=0");
	t_fill(g, 2, 1 * T_MS, 0);
	t_fill(g, 1, 20 * T_MS, 0);
	assert_line(g, "depth=max avg_lat=0 win=320 missed=1 total=3 use_delay=0 delay=0");
	iolat_ctl_destroy(ctl);
}

static void test_hdd_avg(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 1, 0);
	struct iolat_group *g = t_grp(ctl, NULL, "g", 5 * T_MS);

	/* EMA 5860 ns, 11711 ns, 17554 ns (docs/controller.md C9): printed in whole µs. */
	assert_true(t_window(g, 4, 4 * T_MS, 0, 0, 0));
	assert_line(g, "depth=max avg_lat=5 win=100 missed=0 total=0 use_delay=0 delay=0");
	assert_true(t_window(g, 4, 4 * T_MS, 0, 0, 0));
	assert_true(t_window(g, 4, 4 * T_MS, 0, 0, 0));
	assert_line(g, "depth=max avg_lat=17 win=100 missed=0 total=0 use_delay=0 delay=0");
	iolat_ctl_destroy(ctl);
}

static void test_throttled(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(2, 0, 0);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 10 * T_MS);

	t_miss(fast);
	assert_true(t_window(slow, 10, 100 * T_US, 0, 0, 0));
	for (int k = 0; k < 2; k++) {
		t_miss(fast);
		t_poke(slow);
	}
	(void)t_close(slow);
	t_fill(slow, 3, 2 * T_MS, IOLAT_IO_SWAP);
	assert_line(slow, "depth=1 avg_lat=0 win=160 missed=0 total=0 use_delay=1 delay=24000000");
	iolat_ctl_destroy(ctl);
}

static void test_truncation(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *g = t_grp(ctl, NULL, "g", 0);
	const char *full = "depth=max avg_lat=0 win=100 missed=0 total=0 use_delay=0 delay=0";
	char buf[11];

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(iolat_group_format_stat(g, buf, 10), (int)strlen(full));
	assert_string_equal(buf, "depth=max");
	assert_int_equal(buf[10], 'x');
	assert_int_equal(iolat_group_format_stat(g, NULL, 0), (int)strlen(full));
	assert_int_equal(iolat_group_format_stat(NULL, buf, sizeof(buf)), -EINVAL);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_and_ssd),
		cmocka_unit_test(test_hdd_avg),
		cmocka_unit_test(test_throttled),
		cmocka_unit_test(test_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
