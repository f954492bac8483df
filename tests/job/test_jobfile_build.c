/* SPDX-License-Identifier: MIT */
/*
 * Tests of job files built in code (src/job/jobfile_build.c): a built job,
 * group and [global] equal what the parser makes of the same keys (the
 * defaults come from the same code, so a key added to the table with a
 * default reaches built jobs too); the parser's end checks apply to built
 * jobs (one message, -EINVAL); bad groups and names are refused; nothing
 * leaks on any path (run it under ASan).
 * Context: single-threaded test program.
 */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "job/jobfile.h"
#include "job/jobfile_build.h"

static struct iolat_jobfile *parse_ok(const char *text)
{
	struct iolat_jobfile *jf = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];
	int r = iolat_jobfile_parse_buf(text, strlen(text), "t.fio", &jf, err, sizeof(err));

	if (r)
		fail_msg("parse failed (%d): %s", r, err);
	return jf;
}

/*
 * Two jobs, or two [global]s (@where IOLAT_OPT_IN_GLOBAL), are equal in
 * every field of the option table (field by field: a struct's padding may
 * differ); a job's file name as text.
 */
static void assert_same_keys(const void *a, const void *b, unsigned where)
{
	for (const struct iolat_opt *o = iolat_jobfile_options(); o->name; o++) {
		bool job_key = o->where & IOLAT_OPT_IN_JOB;

		if (o->type == IOLAT_OPT_PARAM || !(o->where & where) ||
		    (where == IOLAT_OPT_IN_GLOBAL && job_key))
			continue;
		if (o->type == IOLAT_OPT_STR) {
			const char *x = *(char *const *)((const char *)a + o->off);
			const char *y = *(char *const *)((const char *)b + o->off);

			assert_string_equal(x ? x : "(none)", y ? y : "(none)");
			continue;
		}
		if (memcmp((const char *)a + o->off, (const char *)b + o->off, o->fsize))
			fail_msg("key '%s' differs", o->name);
	}
}

static void assert_same_job(const struct iolat_job *a, const struct iolat_job *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->index, b->index);
	assert_same_keys(a, b, IOLAT_OPT_IN_JOB);
	assert_string_equal(a->engine ? a->engine : "", b->engine ? b->engine : "");
}

static void assert_same_global(const struct iolat_jobfile_global *a,
			       const struct iolat_jobfile_global *b)
{
	assert_same_keys(a, b, IOLAT_OPT_IN_GLOBAL);
	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->seed_set, b->seed_set);
}

static void assert_same_groups(const struct iolat_jobfile *a, const struct iolat_jobfile *b)
{
	assert_int_equal(a->nr_groups, b->nr_groups);
	for (unsigned i = 0; i < a->nr_groups; i++) {
		assert_string_equal(a->groups[i].path, b->groups[i].path);
		assert_string_equal(a->groups[i].name, b->groups[i].name);
		assert_int_equal(a->groups[i].parent, b->groups[i].parent);
		assert_int_equal(a->groups[i].target_ns, b->groups[i].target_ns);
		assert_int_equal(a->groups[i].declared, b->groups[i].declared);
	}
}

/* A job that sets nothing: the table's defaults, as a section with no keys. */
static void test_defaults_match_parser(void **state)
{
	struct iolat_jobfile_builder *b;
	struct iolat_jobfile *built, *parsed = parse_ok("[j]\n");
	char err[IOLAT_JOBFILE_ERR_MAX];

	(void)state;
	assert_int_equal(iolat_jobfile_build_begin("built", err, sizeof(err), &b), 0);
	assert_non_null(iolat_jobfile_build_job(b, "j"));
	assert_int_equal(iolat_jobfile_build_end(b, &built), 0);
	assert_int_equal(built->nr_jobs, 1);
	assert_same_job(&built->jobs[0], &parsed->jobs[0]);
	assert_same_global(&built->global, &parsed->global);
	assert_int_equal(built->jobs[0].group, IOLAT_GROUP_ROOT);
	assert_int_equal(built->nr_groups, 0);
	assert_string_equal(built->file, "built");
	iolat_jobfile_free(built);
	iolat_jobfile_free(parsed);
}

/* The demo's kind of job file: groups with parents, fields set by hand. */
static void test_demo_like_match_parser(void **state)
{
	static const char text[] =
		"[global]\ncontrol=adaptive\ndevice=hdd\n"
		"[group:main]\ntarget=500us\n[group:system/fbpkg]\n"
		"[reader]\ngroup=main\nfilename=/tmp/r\nsize=256m\nrw=randread\nbs=4k\n"
		"runtime=10s\ntime_based=1\ndirect=1\n"
		"[writer]\ngroup=system/fbpkg\nsize=1g\nrw=write\nbs=1m\niodepth=32\n"
		"runtime=10s\ntime_based=1\ndirect=1\nrate=1000000\n";
	struct iolat_jobfile *built, *parsed = parse_ok(text);
	struct iolat_jobfile_builder *b;
	struct iolat_jobfile_global *g;
	char err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_job *j;
	int gm, gw;

	(void)state;
	assert_int_equal(iolat_jobfile_build_begin("built", err, sizeof(err), &b), 0);
	g = iolat_jobfile_build_global(b);
	g->control = true;
	g->mode = IOLAT_CTL_MODE_ADAPTIVE;
	g->device = IOLAT_DEVICE_HDD;
	gm = iolat_jobfile_build_group(b, "main", 500000);
	gw = iolat_jobfile_build_group(b, "system/fbpkg", 0);
	assert_true(gm >= 0 && gw >= 0);
	j = iolat_jobfile_build_job(b, "reader");
	assert_non_null(j);
	assert_int_equal(iolat_jobfile_build_filename(b, j, "/tmp/r"), 0);
	j->group = gm;
	j->size = 256ull << 20;
	j->rw = IOLAT_RW_RANDREAD;
	j->bs = 4096;
	j->runtime_ns = 10000000000ull;
	j->time_based = j->direct = true;
	j = iolat_jobfile_build_job(b, "writer");
	assert_non_null(j);
	j->group = gw;
	j->size = 1ull << 30;
	j->rw = IOLAT_RW_WRITE;
	j->bs = 1u << 20;
	j->iodepth = 32;
	j->runtime_ns = 10000000000ull;
	j->time_based = j->direct = true;
	j->rate_bps = 1000000;
	assert_int_equal(iolat_jobfile_build_end(b, &built), 0);
	assert_int_equal(built->nr_jobs, 2);
	assert_same_job(&built->jobs[0], &parsed->jobs[0]);
	assert_same_job(&built->jobs[1], &parsed->jobs[1]);
	assert_same_groups(built, parsed);
	assert_same_global(&built->global, &parsed->global);
	iolat_jobfile_free(built);
	iolat_jobfile_free(parsed);
}

/* Ends that must fail, each with one message naming what is wrong. */
static void test_end_checks(void **state)
{
	struct iolat_jobfile_builder *b;
	struct iolat_jobfile *jf = (struct iolat_jobfile *)1;
	char err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_job *j;

	(void)state;
	/* no job at all */
	assert_int_equal(iolat_jobfile_build_begin("demo", err, sizeof(err), &b), 0);
	assert_int_equal(iolat_jobfile_build_end(b, &jf), -EINVAL);
	assert_null(jf);
	assert_non_null(strstr(err, "at least one job"));
	/* the parser's checks across a job's keys */
	assert_int_equal(iolat_jobfile_build_begin("demo", err, sizeof(err), &b), 0);
	j = iolat_jobfile_build_job(b, "j");
	assert_non_null(j);
	assert_int_equal(iolat_jobfile_build_filename(b, j, "/tmp/x"), 0);
	j->time_based = true;
	assert_int_equal(iolat_jobfile_build_end(b, &jf), -EINVAL);
	assert_null(jf);
	assert_non_null(strstr(err, "key 'time_based': expected a runtime as well"));
	assert_null(strchr(err, '\n'));
	/* size below bs */
	assert_int_equal(iolat_jobfile_build_begin("demo", err, sizeof(err), &b), 0);
	j = iolat_jobfile_build_job(b, "j");
	j->size = 512;
	assert_int_equal(iolat_jobfile_build_end(b, &jf), -EINVAL);
	assert_non_null(strstr(err, "key 'size'"));
}

/* Bad groups and names fail at once, and the end returns that failure. */
static void test_bad_groups_and_names(void **state)
{
	struct iolat_jobfile_builder *b;
	struct iolat_jobfile *jf = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX], longname[IOLAT_JOB_NAME_MAX + 1];

	(void)state;
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(iolat_jobfile_build_begin("demo", err, sizeof(err), &b), 0);
	assert_int_equal(iolat_jobfile_build_group(b, "/", 0), -EINVAL);
	assert_non_null(strstr(err, "other than the root"));
	assert_true(iolat_jobfile_build_group(b, "a/b", 1000) >= 0);
	assert_int_equal(iolat_jobfile_build_group(b, "a/b", 0), -EINVAL);
	assert_non_null(strstr(err, "each group once"));
	/* a parent made implicitly may still be declared */
	assert_true(iolat_jobfile_build_group(b, "a", 0) >= 0);
	assert_null(iolat_jobfile_build_job(b, ""));
	assert_null(iolat_jobfile_build_job(b, longname));
	assert_non_null(iolat_jobfile_build_job(b, "ok"));
	assert_int_equal(iolat_jobfile_build_end(b, &jf), -EINVAL);   /* the first failure */
	assert_null(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_match_parser),
		cmocka_unit_test(test_demo_like_match_parser),
		cmocka_unit_test(test_end_checks),
		cmocka_unit_test(test_bad_groups_and_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
