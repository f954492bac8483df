/* SPDX-License-Identifier: MIT */
/*
 * Tests of scenario keys in job files (src/job/jobfile_scen.c, jobfile_scenreg.c): a scenario
 * registered with its rw= words and its own key table is parsed like the
 * job table's keys (values checked, the last one winning, [global]'s
 * inherited by the jobs below, defaults with line 0, each key only in its
 * sections, did-you-mean, `help keys`); a file's scenario is found, and one
 * that mixes it with plain jobs is refused, and `iolat sim --parse-only`
 * hands a scenario's file to its check; registration refuses clashes and
 * non-numeric keys; the job layer's plain rw= words are unchanged.
 * Context: single-threaded test program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "job/jobfile.h"
#include "run/run_sim.h"

static const char *const words[] = { "toyweb", "toyhog", NULL };

static const struct iolat_opt keys[] = {
	{ .name = "toy_mem", .type = IOLAT_OPT_SIZE, .where = IOLAT_OPT_IN_GLOBAL,
	  .help = "toy: memory" },
	{ .name = "toy_mode", .type = IOLAT_OPT_ENUM, .where = IOLAT_OPT_IN_GLOBAL, .min = 0,
	  .choices = "a|b|c", .def = "b", .help = "toy: mode" },
	{ .name = "toy_rate", .type = IOLAT_OPT_UINT, .where = IOLAT_OPT_IN_GLOBAL | IOLAT_OPT_IN_JOB,
	  .min = 1, .max = 50, .def = "7", .help = "toy: rate" },
	{ .name = "toy_low", .type = IOLAT_OPT_SIZE, .where = IOLAT_OPT_IN_GROUP, .help = "toy: low" },
	{ .name = NULL },
};

static int checks;

static int toy_check(const struct iolat_jobfile *jf, char *err, size_t len)
{
	checks++;
	return 0;
}

static const struct iolat_jobfile_scen toy = {
	.name = "toy", .what = "the toy scenario", .workloads = words,
	.rw_help = "toyweb, toyhog: the toy scenario", .keys = keys, .check = toy_check,
};

static int setup(void **state)
{
	return iolat_jobfile_register_scen(&toy);
}

static struct iolat_jobfile *parse(const char *text, char *err, int *ret)
{
	struct iolat_jobfile *jf = NULL;

	*ret = iolat_jobfile_parse_buf(text, strlen(text), "t.ini", &jf, err, IOLAT_JOBFILE_ERR_MAX);
	return jf;
}

static uint64_t value(const struct iolat_scen_vals *v, const char *key, unsigned *line)
{
	uint64_t x = 99;

	assert_int_equal(iolat_scen_value(v, key, &x, line), 0);
	return x;
}

static void test_values_and_inheritance(void **state)
{
	char err[IOLAT_JOBFILE_ERR_MAX];
	const struct iolat_jobfile_scen *s = NULL;
	unsigned line = 0;
	int ret;
	struct iolat_jobfile *jf = parse("[global]\ntoy_mem=2g\ntoy_rate=3\n"
					 "[group:w]\ntoy_low=1m\n"
					 "[web]\nrw=toyweb\ngroup=w\n"
					 "[hog]\nrw=toyhog\ntoy_rate=9\ntoy_rate=11\n", err, &ret);

	assert_int_equal(ret, 0);
	assert_ptr_equal(jf->jobs[0].scen, &toy);
	assert_string_equal(jf->jobs[0].workload, "toyweb");
	assert_int_equal(jf->jobs[0].rw, IOLAT_RW_READ);
	assert_string_equal(jf->jobs[1].workload, "toyhog");
	assert_int_equal(value(&jf->global.scen_vals, "toy_mem", &line), 2ull << 30);
	assert_int_equal(line, 2);
	/* a default: its value, line 0 */
	assert_int_equal(value(&jf->global.scen_vals, "toy_mode", &line), 1);
	assert_int_equal(line, 0);
	/* [global]'s inherited; the job's own, the last one winning */
	assert_int_equal(value(&jf->jobs[0].scen_vals, "toy_rate", &line), 3);
	assert_int_equal(line, 3);
	assert_int_equal(value(&jf->jobs[1].scen_vals, "toy_rate", &line), 11);
	assert_int_equal(line, 12);
	assert_int_equal(value(&jf->groups[0].scen_vals, "toy_low", NULL), 1ull << 20);
	/* an unknown key */
	assert_int_equal(iolat_scen_value(&jf->global.scen_vals, "toy_none", &(uint64_t){ 0 }, NULL),
			 -ENOENT);
	assert_int_equal(iolat_jobfile_scenario(jf, &s, err, sizeof(err)), 0);
	assert_ptr_equal(s, &toy);
	/* iolat sim --parse-only hands such a file to the scenario's check */
	checks = 0;
	assert_int_equal(iolat_sim_check(jf, &(struct iolat_sim_opts){ .control = -1 }, err,
					 sizeof(err)), 0);
	assert_int_equal(checks, 1);
	iolat_jobfile_free(jf);
}

static void test_plain_rw_and_override(void **state)
{
	char err[IOLAT_JOBFILE_ERR_MAX];
	const struct iolat_jobfile_scen *s = &toy;
	int ret;
	struct iolat_jobfile *jf = parse("[a]\nrw=toyweb\nrw=randwrite\n", err, &ret);

	assert_int_equal(ret, 0);
	assert_null(jf->jobs[0].scen);
	assert_null(jf->jobs[0].workload);
	assert_int_equal(jf->jobs[0].rw, IOLAT_RW_RANDWRITE);
	assert_int_equal(iolat_jobfile_scenario(jf, &s, err, sizeof(err)), 0);
	assert_null(s);
	assert_string_equal(iolat_rw_name(IOLAT_RW_RANDRW), "randrw");
	assert_string_equal(iolat_rw_name((enum iolat_rw)6), "?");   /* plain I/O only */
	iolat_jobfile_free(jf);
}

static void expect_error(const char *text, const char *msg)
{
	char err[IOLAT_JOBFILE_ERR_MAX] = "";
	int ret;
	struct iolat_jobfile *jf = parse(text, err, &ret);

	assert_int_equal(ret, -EINVAL);
	assert_null(jf);
	if (!strstr(err, msg))
		fail_msg("message '%s' lacks '%s'", err, msg);
}

static void test_errors(void **state)
{
	expect_error("[a]\nrw=toywbe\n", "t.ini:2: key 'rw': expected one of read,write,randread,"
		     "randwrite,rw,randrw");
	expect_error("[a]\nrw=toywbe\n", "toyweb,toyhog");
	expect_error("[a]\ntoy_rate=0\n", "t.ini:2: key 'toy_rate': expected an integer from 1 to 50");
	expect_error("[global]\ntoy_mode=d\n[a]\n", "key 'toy_mode': expected one of a,b,c (got 'd')");
	expect_error("[a]\ntoy_mem=1g\n", "t.ini:2: key 'toy_mem': expected only in [global]");
	expect_error("[global]\ntoy_low=1g\n[a]\n", "key 'toy_low': expected only in a [group:PATH]");
	expect_error("[group:g]\ntoy_rate=3\n[a]\n", "key 'toy_rate': expected only target");
	expect_error("[a]\ntoy_rat=3\n", "did you mean 'toy_rate'?");
}

static void test_mixed_file_refused(void **state)
{
	char err[IOLAT_JOBFILE_ERR_MAX];
	const struct iolat_jobfile_scen *s = &toy;
	int ret;
	struct iolat_jobfile *jf = parse("[web]\nrw=toyweb\n[x]\nrw=randread\n", err, &ret);

	assert_int_equal(ret, 0);
	assert_int_equal(iolat_jobfile_scenario(jf, &s, err, sizeof(err)), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err, "t.ini:1: key 'rw': rw=toyweb belongs to the toy scenario, "
				    "which cannot share a file with ordinary jobs ([x] at line 3)"));
	iolat_jobfile_free(jf);
}

static void test_registration_refuses(void **state)
{
	static const char *const clash_word[] = { "randread", NULL };
	static const char *const fine_word[] = { "toyother", NULL };
	static const struct iolat_opt clash_key[] = {
		{ .name = "bs", .type = IOLAT_OPT_UINT, .where = IOLAT_OPT_IN_JOB }, { .name = NULL } };
	static const struct iolat_opt clash_other[] = {
		{ .name = "toy_rate", .type = IOLAT_OPT_UINT, .where = IOLAT_OPT_IN_JOB },
		{ .name = NULL } };
	static const struct iolat_opt text_key[] = {
		{ .name = "toy_text", .type = IOLAT_OPT_STR, .where = IOLAT_OPT_IN_JOB }, { .name = NULL } };
	static const struct iolat_opt bad_def[] = {
		{ .name = "toy_d", .type = IOLAT_OPT_UINT, .where = IOLAT_OPT_IN_JOB, .max = 5, .def = "9" },
		{ .name = NULL } };
	static const struct iolat_opt none[] = { { .name = NULL } };
	struct iolat_jobfile_scen s = { .name = "x", .what = "x", .workloads = clash_word, .keys = none };

	assert_int_equal(iolat_jobfile_register_scen(&s), -EINVAL);   /* a plain rw= word */
	s.workloads = words;
	assert_int_equal(iolat_jobfile_register_scen(&s), -EINVAL);   /* toy's words */
	s.workloads = fine_word;
	s.keys = clash_key;
	assert_int_equal(iolat_jobfile_register_scen(&s), -EINVAL);   /* a job key */
	s.keys = clash_other;
	assert_int_equal(iolat_jobfile_register_scen(&s), -EINVAL);   /* toy's key */
	s.keys = text_key;
	assert_int_equal(iolat_jobfile_register_scen(&s), -EINVAL);   /* not a number */
	s.keys = bad_def;
	assert_int_equal(iolat_jobfile_register_scen(&s), -EINVAL);   /* its default */
	assert_int_equal(iolat_jobfile_register_scen(&toy), 0);       /* again: nothing */
}

static void test_help_keys(void **state)
{
	int n = iolat_jobfile_format_keys(NULL, 0);
	char *buf = malloc((size_t)n + 1);

	assert_non_null(buf);
	assert_int_equal(iolat_jobfile_format_keys(buf, (size_t)n + 1), n);
	assert_non_null(strstr(buf, "(readwrite = rw); toyweb, toyhog: the toy scenario "
				    "[read|write|randread|randwrite|rw|randrw|toyweb|toyhog]\n"));
	assert_non_null(strstr(buf, "\ntoy_rate         int       global,job  7        toy: rate\n"));
	assert_non_null(strstr(buf, "\ntoy_low          size      group       -        toy: low\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_and_inheritance),
		cmocka_unit_test(test_plain_rw_and_override),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_mixed_file_refused),
		cmocka_unit_test(test_registration_refuses),
		cmocka_unit_test(test_help_keys),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
