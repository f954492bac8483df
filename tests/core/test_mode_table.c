/* SPDX-License-Identifier: MIT */
/*
 * test_mode_table.c - the modes' one table (src/core/mode.c, iolatency.h's
 * iolat_ctl_mode_*() and iolat_ctl_window_rule()):
 *  - every mode has a name that parses back to it, flags that select it, and
 *    nothing else is a mode (no name, wrong case, 0, past the last);
 *  - the rule each mode announces for a device: mean on rotational devices
 *    and p90 elsewhere in article and kernel, p90 everywhere in adaptive;
 *  - the rule announced is the rule a controller of that mode judges its
 *    windows by, on both kinds of device (windows that only one rule passes).
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include <string.h>

#include "helpers/t_ctl.h"

#define TARGET (5 * T_MS) /* window 100 ms */

static void test_names_flags(void **state)
{
	static const struct { enum iolat_ctl_mode m; const char *name; unsigned flags; } want[] = {
		{ IOLAT_CTL_MODE_ARTICLE, "article", 0 },
		{ IOLAT_CTL_MODE_KERNEL, "kernel", IOLAT_CTL_KERNEL_COMPAT },
		{ IOLAT_CTL_MODE_ADAPTIVE, "adaptive", IOLAT_CTL_ADAPTIVE },
	};
	int n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_string_equal(iolat_ctl_mode_name(want[i].m), want[i].name);
		assert_int_equal(iolat_ctl_mode_parse(want[i].name), want[i].m);
		assert_int_equal(iolat_ctl_mode_flags(want[i].m), want[i].flags);
		assert_int_equal(iolat_ctl_mode_of(want[i].flags), want[i].m);
	}
	for (int m = 1; iolat_ctl_mode_name(m); m++)
		n++;
	assert_int_equal(n, 3);
	assert_null(iolat_ctl_mode_name(IOLAT_CTL_MODE_NONE));
	assert_null(iolat_ctl_mode_name(IOLAT_CTL_MODE_ADAPTIVE + 1));
	assert_null(iolat_ctl_mode_name((enum iolat_ctl_mode)-1));
	assert_int_equal(iolat_ctl_mode_flags(IOLAT_CTL_MODE_NONE), 0);
	assert_int_equal(iolat_ctl_mode_parse("Kernel"), IOLAT_CTL_MODE_NONE);
	assert_int_equal(iolat_ctl_mode_parse(""), IOLAT_CTL_MODE_NONE);
	assert_int_equal(iolat_ctl_mode_parse(NULL), IOLAT_CTL_MODE_NONE);
	/* The timer alone selects the kernel's mode; B1 alone changes no mode. */
	assert_int_equal(iolat_ctl_mode_of(IOLAT_CTL_COMPAT_TIMER), IOLAT_CTL_MODE_KERNEL);
	assert_int_equal(iolat_ctl_mode_of(IOLAT_CTL_COMPAT_B1), IOLAT_CTL_MODE_ARTICLE);
	assert_int_equal(iolat_ctl_mode_of(IOLAT_CTL_BYPASS_SHARE | IOLAT_CTL_ADAPTIVE),
			 IOLAT_CTL_MODE_ADAPTIVE);
}

static void test_rules(void **state)
{
	(void)state;
	assert_int_equal(iolat_ctl_window_rule(IOLAT_CTL_MODE_ARTICLE, 1), IOLAT_RULE_MEAN);
	assert_int_equal(iolat_ctl_window_rule(IOLAT_CTL_MODE_ARTICLE, 0), IOLAT_RULE_P90);
	assert_int_equal(iolat_ctl_window_rule(IOLAT_CTL_MODE_KERNEL, 1), IOLAT_RULE_MEAN);
	assert_int_equal(iolat_ctl_window_rule(IOLAT_CTL_MODE_KERNEL, 0), IOLAT_RULE_P90);
	assert_int_equal(iolat_ctl_window_rule(IOLAT_CTL_MODE_ADAPTIVE, 1), IOLAT_RULE_P90);
	assert_int_equal(iolat_ctl_window_rule(IOLAT_CTL_MODE_ADAPTIVE, 0), IOLAT_RULE_P90);
	/* No mode: the device's io.latency rule (a run without control). */
	assert_int_equal(iolat_ctl_window_rule(IOLAT_CTL_MODE_NONE, 1), IOLAT_RULE_MEAN);
	assert_int_equal(iolat_ctl_window_rule(IOLAT_CTL_MODE_NONE, 0), IOLAT_RULE_P90);
	assert_int_equal(iolat_ctl_window_rule(IOLAT_CTL_MODE_ADAPTIVE, 2), IOLAT_RULE_P90);
	assert_string_equal(iolat_window_rule_name(IOLAT_RULE_MEAN), "mean");
	assert_string_equal(iolat_window_rule_name(IOLAT_RULE_P90), "p90");
}

/*
 * Two windows that the rules judge apart (target 5 ms):
 *  - 19 I/Os at 1 ms and one at 90 ms: mean 5.45 ms (the mean rule
 *    misses), 1 of 20 over the target (the p90 rule passes);
 *  - 18 at 1 ms and two at 5.5 ms: mean 1.45 ms (passes), 2 of 20 over
 *    (misses).
 */
static void test_rule_used_is_rule_announced(void **state)
{
	(void)state;
	for (int m = 1; iolat_ctl_mode_name(m); m++) {
		for (int rot = 0; rot <= 1; rot++) {
			bool mean = iolat_ctl_window_rule(m, rot) == IOLAT_RULE_MEAN;
			struct iolat_ctl *ctl = t_ctl_new(64, rot, iolat_ctl_mode_flags(m));
			struct iolat_group *g = t_grp(ctl, NULL, "g", TARGET);

			if (t_window(g, 19, 1 * T_MS, 1, 90 * T_MS, 0) != !mean)
				fail_msg("mode %s, rotational %d: 1 outlier judged by the other rule",
					 iolat_ctl_mode_name(m), rot);
			t_advance(1 * T_S);   /* past the tick's reach and any scale gate */
			if (t_window(g, 18, 1 * T_MS, 2, 5500 * T_US, 0) != mean)
				fail_msg("mode %s, rotational %d: 2 over judged by the other rule",
					 iolat_ctl_mode_name(m), rot);
			assert_int_equal(t_check_idle(ctl), 0);
			iolat_ctl_destroy(ctl);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_flags),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_rule_used_is_rule_announced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
