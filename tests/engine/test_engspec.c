/* SPDX-License-Identifier: MIT */
/*
 * test_engspec.c - typed engine specs (src/engine/engspec.c, engopt.c) and
 * the spec a job file's ioengine= and ENGINE.OPTION keys make
 * (src/job/jobfile_engopt.c): a name is read once into the registry's
 * engines (the default one when none is named: the first built, the same
 * as iolat_eng_default_name()), wrong names are refused with their
 * message, options are read once into typed values that a merge (--faults)
 * overrides key by key, a spec prints itself back, an engine remembers the
 * spec it was made from; a job without ioengine= gets the default engine,
 * a faulty job its keys typed ([global]'s inherited, the last value
 * winning), a sim job none.
 * Context: single-threaded.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/eng_faulty.h"
#include "engine/engine.h"
#include "engine/engspec.h"
#include "engine/registry.h"
#include "job/jobfile.h"

static const struct iolat_eng_opt *opt_of(const struct iolat_eng_opt *tbl, const char *name,
					  unsigned *index)
{
	const struct iolat_eng_opt *o = iolat_eng_opt_find(tbl, name, strlen(name));

	assert_non_null(o);
	*index = (unsigned)(o - tbl);
	return o;
}

static void test_names(void **state)
{
	struct iolat_eng_spec s;
	char err[256], name[64];

	(void)state;
	assert_int_equal(iolat_eng_spec_parse(NULL, &s, err, sizeof(err)), 0);
	assert_string_equal(s.engine->name, iolat_eng_default_name());
	assert_null(s.wrapper);
	assert_int_equal(s.opts.set, 0);
	assert_int_equal(iolat_eng_spec_parse("", &s, err, sizeof(err)), 0);
	assert_string_equal(s.engine->name, iolat_eng_default_name());

	assert_int_equal(iolat_eng_spec_parse("faulty:io_uring", &s, err, sizeof(err)), 0);
	assert_string_equal(s.engine->name, "uring");
	assert_string_equal(s.wrapper->name, "faulty");
	assert_ptr_equal(iolat_eng_spec_outer(&s), s.wrapper);
	iolat_eng_spec_name(&s, name, sizeof(name));
	assert_string_equal(name, "faulty:uring");

	assert_int_equal(iolat_eng_spec_parse("null", &s, err, sizeof(err)), 0);
	assert_ptr_equal(iolat_eng_spec_outer(&s), s.engine);
	assert_true(iolat_eng_spec_diskless(&s));
	assert_int_equal(iolat_eng_spec_parse("faulty:psync", &s, err, sizeof(err)), 0);
	assert_false(iolat_eng_spec_diskless(&s));

	assert_int_equal(iolat_eng_spec_parse("nope", &s, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "unknown I/O engine 'nope'");
	assert_int_equal(iolat_eng_spec_parse("faulty", &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "(a wrapper: use faulty:<engine>)"));
	assert_int_equal(iolat_eng_spec_parse("psync:null", &s, err, sizeof(err)), -ENOENT);
	assert_int_equal(iolat_eng_spec_parse("faulty:", &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "faulty: name the engine to wrap (faulty:psync)");
	/* one wrapper at most */
	assert_int_equal(iolat_eng_spec_parse("faulty:faulty:null", &s, err, sizeof(err)), -ENOENT);
}

/* Options typed once; a merge wins key by key; a spec prints itself back. */
static void test_options(void **state)
{
	const struct iolat_eng_opt *tbl = iolat_eng_options("faulty");
	struct iolat_eng_spec s;
	struct iolat_eng_optset over = { 0 };
	char err[256], text[256];
	unsigned i_rate, i_ms, i_kind;

	(void)state;
	opt_of(tbl, "rate", &i_rate);
	opt_of(tbl, "ms", &i_ms);
	opt_of(tbl, "kind", &i_kind);
	assert_int_equal(iolat_eng_spec_parse("faulty:null", &s, err, sizeof(err)), 0);
	assert_int_equal(iolat_eng_spec_options(&s, "kind=short+eio,rate=0.5,ms=7,rate=0.25", err,
						sizeof(err)), 0);
	assert_true(s.opts.set & (1ull << i_rate));
	assert_true(s.opts.v[i_rate].d == 0.25);          /* the last value wins */
	assert_int_equal(s.opts.v[i_ms].u, 7);             /* as written: the scale comes later */
	assert_int_equal(s.opts.v[i_kind].w, IOLAT_FAULT_EIO | IOLAT_FAULT_SHORT);
	iolat_eng_spec_format(&s, text, sizeof(text));
	assert_string_equal(text, "faulty:null kind=eio+short,rate=0.25,ms=7");

	assert_int_equal(iolat_eng_optset_parse(tbl, &over, "ms=9,seed=3", err, sizeof(err)), 0);
	iolat_eng_optset_merge(&s.opts, &over);
	iolat_eng_spec_format(&s, text, sizeof(text));
	assert_string_equal(text, "faulty:null kind=eio+short,rate=0.25,ms=9,seed=3");
	/* As snprintf: the length needed, what fits. */
	assert_int_equal(iolat_eng_spec_format(&s, text, 12), (int)strlen("faulty:null kind=eio+short,"
								     "rate=0.25,ms=9,seed=3"));
	assert_string_equal(text, "faulty:null");

	assert_int_equal(iolat_eng_spec_options(&s, "rate=2", err, sizeof(err)), -EINVAL);
	assert_memory_equal(err, "faulty: bad value in 'rate=2' (kind=", 36);
	assert_int_equal(iolat_eng_spec_options(&s, "frob=1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown option 'frob'"));
	/* An engine without options takes none, and says nothing. */
	assert_int_equal(iolat_eng_spec_parse("psync", &s, err, sizeof(err)), 0);
	assert_int_equal(iolat_eng_spec_options(&s, "x=1", err, sizeof(err)), 0);
	assert_int_equal(s.opts.set, 0);
}

/* An engine made from a spec keeps it; its name is the spec's. */
static void test_engine_from_spec(void **state)
{
	struct iolat_eng_spec s;
	struct iolat_eng *e = NULL;
	char err[256], text[256];

	(void)state;
	assert_int_equal(iolat_eng_spec_parse("faulty:null", &s, err, sizeof(err)), 0);
	assert_int_equal(iolat_eng_spec_options(&s, "kind=eio,count=3", err, sizeof(err)), 0);
	assert_int_equal(iolat_eng_create_spec(&s, NULL, &e, err, sizeof(err)), 0);
	assert_string_equal(iolat_eng_name(e), "faulty:null");
	iolat_eng_spec_format(iolat_eng_spec_of(e), text, sizeof(text));
	assert_string_equal(text, "faulty:null kind=eio,count=3");
	iolat_eng_destroy(e);
}

static struct iolat_jobfile *parse_ok(const char *text)
{
	char err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_jobfile *jf = NULL;

	if (iolat_jobfile_parse_buf(text, strlen(text), "t.fio", &jf, err, sizeof(err)))
		fail_msg("parse: %s", err);
	return jf;
}

/* The spec each job gets at its end. */
static void test_job_spec(void **state)
{
	static const char text[] =
		"[global]\nfaulty.kind=eio\nfaulty.seed=5\nsize=1m\n"
		"[plain]\nfilename=/nonexistent\n"
		"[faulty]\nioengine=faulty:null\nfaulty.rate=0.75\nfaulty.rate=0.125\n"
		"[sim]\nioengine=sim\n";
	const struct iolat_eng_opt *tbl = iolat_eng_options("faulty");
	struct iolat_jobfile *jf = parse_ok(text);
	char buf[256];
	unsigned i_rate, i_kind;

	(void)state;
	opt_of(tbl, "rate", &i_rate);
	opt_of(tbl, "kind", &i_kind);
	assert_int_equal(jf->nr_jobs, 3);
	/* no ioengine=: the default engine, resolved once */
	assert_null(jf->jobs[0].engine);
	assert_non_null(jf->jobs[0].spec);
	assert_string_equal(jf->jobs[0].spec->engine->name, iolat_eng_default_name());
	assert_null(jf->jobs[0].spec->wrapper);
	assert_int_equal(jf->jobs[0].spec->opts.set, 0);   /* the faulty keys are not its */
	/* faulty: [global]'s kind and seed inherited, its own rate, the last one */
	assert_string_equal(jf->jobs[1].spec->wrapper->name, "faulty");
	assert_string_equal(jf->jobs[1].spec->engine->name, "null");
	assert_int_equal(jf->jobs[1].spec->opts.v[i_kind].w, IOLAT_FAULT_EIO);
	assert_true(jf->jobs[1].spec->opts.v[i_rate].d == 0.125);
	iolat_eng_spec_format(jf->jobs[1].spec, buf, sizeof(buf));
	assert_string_equal(buf, "faulty:null kind=eio,rate=0.125,seed=5");
	/* the simulated device: no engine */
	assert_null(jf->jobs[2].spec);
	iolat_jobfile_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_engine_from_spec),
		cmocka_unit_test(test_job_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
