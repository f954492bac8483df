/* SPDX-License-Identifier: MIT */
/*
 * test_mode.c - the controller mode a run uses (src/job/mode.c): the job
 * file's control=article|kernel|adaptive (control=0/1 unchanged), the older
 * kernel_compat=1, the command line's --control / --kernel-compat, which
 * wins over what, the flags of each mode, and the one-line error for a bad
 * value.
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "iolatency.h"
#include "job/jobfile.h"

static struct iolat_jobfile *parse_ok(const char *global)
{
	char text[256], err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_jobfile *jf = NULL;

	snprintf(text, sizeof(text), "[global]\n%s\n[j]\nrw=read\n", global);
	if (iolat_jobfile_parse_buf(text, strlen(text), "t.fio", &jf, err, sizeof(err)))
		fail_msg("parse failed: %s", err);
	return jf;
}

static void test_job_file_modes(void **state)
{
	static const struct { const char *line; bool control; int mode; } cases[] = {
		{ "", true, IOLAT_CTL_MODE_NONE },
		{ "control=1", true, IOLAT_CTL_MODE_NONE },
		{ "control=0", false, IOLAT_CTL_MODE_NONE },
		{ "control=article", true, IOLAT_CTL_MODE_ARTICLE },
		{ "control=kernel", true, IOLAT_CTL_MODE_KERNEL },
		{ "control=adaptive", true, IOLAT_CTL_MODE_ADAPTIVE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct iolat_jobfile *jf = parse_ok(cases[i].line);

		assert_int_equal(jf->global.control, cases[i].control);
		assert_int_equal(jf->global.mode, cases[i].mode);
		iolat_jobfile_free(jf);
	}
}

static void test_pick_and_flags(void **state)
{
	struct iolat_jobfile *plain = parse_ok(""), *kc = parse_ok("kernel_compat=1");
	struct iolat_jobfile *ad = parse_ok("control=adaptive");

	(void)state;
	/* Nothing said: the caller's default (the CLI's), else article. */
	assert_int_equal(iolat_mode_pick(plain, 0, -1, 0), IOLAT_CTL_MODE_ARTICLE);
	assert_int_equal(iolat_mode_pick(plain, 0, -1, IOLAT_CTL_MODE_ADAPTIVE), IOLAT_CTL_MODE_ADAPTIVE);
	/* The job file over the default; control=MODE over kernel_compat=1. */
	assert_int_equal(iolat_mode_pick(kc, 0, -1, IOLAT_CTL_MODE_ADAPTIVE), IOLAT_CTL_MODE_KERNEL);
	assert_int_equal(iolat_mode_pick(ad, 0, -1, IOLAT_CTL_MODE_ARTICLE), IOLAT_CTL_MODE_ADAPTIVE);
	/* The command line over the job file. */
	assert_int_equal(iolat_mode_pick(ad, 0, 1, 0), IOLAT_CTL_MODE_KERNEL);
	assert_int_equal(iolat_mode_pick(kc, IOLAT_CTL_MODE_ARTICLE, -1, 0), IOLAT_CTL_MODE_ARTICLE);
	assert_int_equal(iolat_mode_pick(plain, IOLAT_CTL_MODE_ADAPTIVE, 1, 0), IOLAT_CTL_MODE_ADAPTIVE);
	assert_int_equal(iolat_ctl_mode_flags(IOLAT_CTL_MODE_ARTICLE), 0);
	assert_int_equal(iolat_ctl_mode_flags(IOLAT_CTL_MODE_KERNEL), IOLAT_CTL_KERNEL_COMPAT);
	assert_int_equal(iolat_ctl_mode_flags(IOLAT_CTL_MODE_ADAPTIVE), IOLAT_CTL_ADAPTIVE);
	assert_string_equal(iolat_ctl_mode_name(IOLAT_CTL_MODE_ADAPTIVE), "adaptive");
	assert_int_equal(iolat_ctl_mode_parse("adaptive"), IOLAT_CTL_MODE_ADAPTIVE);
	assert_int_equal(iolat_ctl_mode_parse("Adaptive"), IOLAT_CTL_MODE_NONE);
	assert_int_equal(iolat_ctl_mode_parse(NULL), IOLAT_CTL_MODE_NONE);
	iolat_jobfile_free(plain);
	iolat_jobfile_free(kc);
	iolat_jobfile_free(ad);
}

static void test_bad_value(void **state)
{
	static const char text[] = "[global]\ncontrol=fast\n[j]\n";
	struct iolat_jobfile *jf = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];

	(void)state;
	assert_int_equal(iolat_jobfile_parse_buf(text, strlen(text), "t.fio", &jf, err, sizeof(err)),
			 -EINVAL);
	assert_null(jf);
	assert_string_equal(err, "t.fio:2: key 'control': expected 0, 1, article, kernel or "
				 "adaptive (got 'fast')");
}

/*
 * control='s value words live in the option table (data, no special case by
 * name): each word's position + 1 must be the mode iolat_ctl_mode_parse() gives
 * for it, and every mode must be spelled there.
 */
static void test_table_words_are_the_modes(void **state)
{
	const struct iolat_opt *o = iolat_jobfile_options();
	char words[64];
	int n = 0;

	(void)state;
	while (o->name && strcmp(o->name, "control"))
		o++;
	assert_non_null(o->name);
	assert_non_null(o->value_words);
	snprintf(words, sizeof(words), "%s", o->value_words);
	for (char *w = strtok(words, "|"); w; w = strtok(NULL, "|")) {
		n++;
		assert_int_equal(iolat_ctl_mode_parse(w), n);
		assert_string_equal(iolat_ctl_mode_name(n), w);
	}
	assert_int_equal(n, IOLAT_CTL_MODE_ADAPTIVE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_file_modes),
		cmocka_unit_test(test_pick_and_flags),
		cmocka_unit_test(test_bad_value),
		cmocka_unit_test(test_table_words_are_the_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
