/* SPDX-License-Identifier: MIT */
/*
 * test_jobfile_engopt.c - engine options as job-file keys (ENGINE.OPTION,
 * src/job/jobfile_engopt.c): every option the faulty engine's table declares
 * is a key whose default is accepted and whose junk value is refused at its
 * line; the options string a runner hands the engine (in the order written,
 * [global]'s first, the last value of a key winning, --faults appended so
 * that it wins) is what the engine's own parser accepts and reads back; an
 * option of an engine the job does not use, and a [global] one no job below
 * uses, are refused at their line.
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

#include "engine/engine.h"
#include "engine/registry.h"
#include "engine/engopt.h"
#include "job/jobfile.h"

static struct iolat_jobfile *parse(const char *text, char *err, size_t errlen, int *ret)
{
	struct iolat_jobfile *jf = NULL;

	*ret = iolat_jobfile_parse_buf(text, strlen(text), "t.fio", &jf, err, errlen);
	return jf;
}

static struct iolat_jobfile *parse_ok(const char *text)
{
	char err[IOLAT_JOBFILE_ERR_MAX];
	int ret;
	struct iolat_jobfile *jf = parse(text, err, sizeof(err), &ret);

	if (ret)
		fail_msg("parse failed (%d): %s", ret, err);
	return jf;
}

/* The message for @text, which must be refused; "" when it was not. */
static void parse_bad(const char *text, char *err, size_t errlen)
{
	int ret;
	struct iolat_jobfile *jf = parse(text, err, errlen, &ret);

	assert_int_equal(ret, -EINVAL);
	assert_null(jf);
	assert_null(strchr(err, '\n'));
}

/* Each option of the faulty engine's table: its default as a key is taken,
 * and a value no option type accepts is refused at the key's line. */
static void test_every_option_of_the_table(void **state)
{
	const struct iolat_eng_opt *tbl = iolat_eng_options("faulty");
	char text[256], err[IOLAT_JOBFILE_ERR_MAX], want[128], opts[256];
	unsigned n = 0;

	(void)state;
	assert_non_null(tbl);
	for (const struct iolat_eng_opt *o = tbl; o->name; o++, n++) {
		struct iolat_jobfile *jf;

		assert_non_null(o->def);
		snprintf(text, sizeof(text), "[j]\nioengine=faulty:null\nfaulty.%s=%s\n", o->name,
			 o->def);
		jf = parse_ok(text);
		assert_int_equal(jf->jobs[0].nr_engopts, 1);
		iolat_job_engine_options(&jf->jobs[0], "faulty", NULL, opts, sizeof(opts));
		snprintf(want, sizeof(want), "%s=%s", o->name, o->def);
		assert_string_equal(opts, want);
		iolat_jobfile_free(jf);

		snprintf(text, sizeof(text), "[j]\nioengine=faulty:null\nsize=1m\nfaulty.%s=?x\n",
			 o->name);
		parse_bad(text, err, sizeof(err));
		snprintf(want, sizeof(want), "t.fio:4: key 'faulty.%s': expected ", o->name);
		assert_memory_equal(err, want, strlen(want));
		assert_non_null(strstr(err, "(got '?x')"));
	}
	assert_true(n >= 2);
}

/* Order, inheritance, the last value winning, --faults appended. */
static void test_options_string(void **state)
{
	static const char text[] =
		"[global]\n"
		"ioengine=faulty:null\n"
		"faulty.kind=eio\n"
		"faulty.seed=5\n"
		"[a]\n"
		"faulty.rate=0.5\n"
		"faulty.seed=7\n"
		"faulty.rate=0.25\n"
		"[b]\n"
		"ioengine=psync\n"
		"filename=/nonexistent\n"
		"[c]\n";
	struct iolat_jobfile *jf = parse_ok(text);
	char opts[256];
	int n;

	(void)state;
	assert_int_equal(jf->nr_jobs, 3);
	n = iolat_job_engine_options(&jf->jobs[0], "faulty", NULL, opts, sizeof(opts));
	assert_string_equal(opts, "kind=eio,seed=7,rate=0.25");
	assert_int_equal(n, (int)strlen(opts));
	assert_true(jf->jobs[0].engopts[0].inherited);
	assert_false(jf->jobs[0].engopts[2].inherited);
	assert_int_equal(jf->jobs[0].engopts[2].line, 8);
	/* b does not use the faulty engine: the [global] defaults are not its. */
	iolat_job_engine_options(&jf->jobs[1], "psync", "x=1", opts, sizeof(opts));
	assert_string_equal(opts, "x=1");
	iolat_job_engine_options(&jf->jobs[2], "faulty", "seed=9,count=3", opts, sizeof(opts));
	assert_string_equal(opts, "kind=eio,seed=5,seed=9,count=3");
	/* As snprintf: a short buffer gets what fits, the length says what is needed. */
	n = iolat_job_engine_options(&jf->jobs[0], "faulty", NULL, opts, 8);
	assert_int_equal(n, (int)strlen("kind=eio,seed=7,rate=0.25"));
	assert_string_equal(opts, "kind=ei");
	iolat_jobfile_free(jf);
}

/* The string a job hands the engine is what the engine's parser takes, and it
 * reads each value back as the job file wrote it (its last writer winning). */
static void test_engine_takes_the_string(void **state)
{
	static const char text[] =
		"[j]\nioengine=faulty:null\nfaulty.kind=eio+short\nfaulty.rate=0.5\n"
		"faulty.dir=write\nfaulty.ms=7\n";
	const struct iolat_eng_opt *tbl = iolat_eng_options("faulty");
	struct iolat_jobfile *jf = parse_ok(text);
	struct iolat_eng_config cfg = { .name = "faulty:null", .depth = 1 };
	struct iolat_eng *e = NULL;
	char opts[256], msg[IOLAT_ENG_ERRMSG_MAX];
	uint64_t set = 0;
	unsigned char scratch[256] __attribute__((aligned(8)));

	(void)state;
	iolat_job_engine_options(&jf->jobs[0], "faulty", "ms=9", opts, sizeof(opts));
	cfg.options = opts;
	assert_int_equal(iolat_eng_create(&cfg, &e, msg, sizeof(msg)), 0);
	iolat_eng_destroy(e);
	/* Read back through the same table: every key written is marked set. */
	assert_int_equal(iolat_eng_opts_parse(tbl, scratch, opts, &set, msg, sizeof(msg)), 0);
	for (const struct iolat_eng_opt *o = tbl; o->name; o++) {
		bool written = strstr(text, o->name) != NULL;

		assert_int_equal(!!(set & (1ull << (o - tbl))), written);
		if (!strcmp(o->name, "ms")) {
			uint64_t v;

			memcpy(&v, scratch + o->off, sizeof(v));
			assert_int_equal(v, 9 * o->scale);   /* --faults won */
		}
	}
	iolat_jobfile_free(jf);
}

static void test_wrong_engine_and_unused_global(void **state)
{
	char err[IOLAT_JOBFILE_ERR_MAX];

	(void)state;
	/* ioengine= after the key still counts: the check is at the job's end. */
	iolat_jobfile_free(parse_ok("[j]\nfaulty.kind=eio\nioengine=faulty:psync\nfilename=/x\n"));
	parse_bad("[j]\nfaulty.kind=eio\nioengine=psync\nfilename=/x\n", err, sizeof(err));
	assert_non_null(strstr(err, "t.fio:2: key 'faulty.kind': expected ioengine=faulty:<engine> "
				    "in job 'j'"));
	assert_non_null(strstr(err, "ioengine=psync"));
	parse_bad("[global]\nfaulty.count=3\n[j]\nioengine=null\n", err, sizeof(err));
	assert_non_null(strstr(err, "t.fio:2: key 'faulty.count': expected a job below this [global]"));
	/* A [global] default used by one job of two is fine. */
	iolat_jobfile_free(parse_ok("[global]\nfaulty.count=3\n[j]\nioengine=null\n"
				    "[k]\nioengine=faulty:null\n"));
	/* ... but not when the only faulty job sets the key itself. */
	parse_bad("[global]\nfaulty.count=3\n[k]\nioengine=faulty:null\nfaulty.count=4\n",
		  err, sizeof(err));
	assert_non_null(strstr(err, "t.fio:2: key 'faulty.count'"));
	/* Not an engine with options: an unknown key, not an engine option. */
	parse_bad("[j]\nioengine=null\npsync.x=1\n", err, sizeof(err));
	assert_non_null(strstr(err, "t.fio:3: key 'psync.x': expected a known key"));
	parse_bad("[j]\nioengine=faulty:null\nfaulty.sed=1\n", err, sizeof(err));
	assert_non_null(strstr(err, "did you mean 'faulty.seed'?"));
}

/* Mutations of a file full of engine keys never crash (run it under ASan):
 * each either parses or gives one line naming the file. */
static void test_fuzz_engine_keys(void **state)
{
	static const char seed[] =
		"[global]\nfaulty.kind=eio+short\nfaulty.seed=5\n[a]\nioengine=faulty:null\n"
		"faulty.rate=0.5\nfaulty.ms=7\nfaulty.rate=0.25\n[b]\nioengine=faulty:psync\n"
		"filename=/x\nfaulty.dir=write\nfaulty.persist=0\n";
	static const char alphabet[] = "[]=.,+\n faultykindeiorsp:0123456789";
	uint64_t rs = 0x2545f4914f6cdd1dull;
	char buf[512], err[IOLAT_JOBFILE_ERR_MAX];
	unsigned ok = 0;

	(void)state;
	for (unsigned it = 0; it < 5000; it++) {
		size_t len = strlen(seed);
		struct iolat_jobfile *jf = NULL;
		int r;

		memcpy(buf, seed, len);
		for (unsigned m = 0; m < 1 + it % 2; m++) {
			size_t pos;

			rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
			pos = (size_t)(rs % len);
			buf[pos] = alphabet[(rs >> 32) % (sizeof(alphabet) - 1)];
		}
		r = iolat_jobfile_parse_buf(buf, len, "f.fio", &jf, err, sizeof(err));
		if (!r) {
			ok++;
			for (unsigned j = 0; j < jf->nr_jobs; j++)
				iolat_job_engine_options(&jf->jobs[j], "faulty", NULL, NULL, 0);
			iolat_jobfile_free(jf);
			continue;
		}
		assert_true(r == -EINVAL);
		assert_null(strchr(err, '\n'));
		assert_int_equal(strncmp(err, "f.fio:", 6), 0);
	}
	assert_true(ok > 100);   /* the success path is exercised too */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_option_of_the_table),
		cmocka_unit_test(test_options_string),
		cmocka_unit_test(test_engine_takes_the_string),
		cmocka_unit_test(test_wrong_engine_and_unused_global),
		cmocka_unit_test(test_fuzz_engine_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
