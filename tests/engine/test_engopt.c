/* SPDX-License-Identifier: MIT */
/*
 * test_engopt.c - engine option tables (src/engine/engopt.c) on a table made
 * here: every option gets its default before the string is read; integers
 * are bounded as written and then scaled; reals are bounded; a choice stores
 * its value; flags join names with '+' or '|' and "none" is 0; empty
 * segments are skipped; each error class has its message (needs a value,
 * unknown option, bad value) and the "set" mask says which options were
 * written. The help line is built from the table (flags without "none",
 * "(join with '+')"). The faulty engine's table parses its own defaults,
 * and every one of its options is in the help the registry gives. One value
 * checked alone (iolat_eng_opt_check) agrees with the parser, and the
 * "expected" phrase (iolat_eng_opt_expect) is made from the table.
 * Context: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/registry.h"
#include "engine/engopt.h"

struct t_opts {
	uint64_t n, ns;
	double p;
	unsigned mode, bits;
};

static const struct iolat_eng_opt_choice modes[] = {
	{ "slow", 1 }, { "fast", 2 }, { NULL, 0 },
};
static const struct iolat_eng_opt_choice bits[] = {
	{ "a", 1 }, { "b", 2 }, { "c", 4 }, { "none", 0 }, { NULL, 0 },
};

#define TOPT(f) .off = offsetof(struct t_opts, f)
static const struct iolat_eng_opt table[] = {
	{ .name = "n", .type = IOLAT_EOPT_U64, TOPT(n), .min = 2, .max = 10, .def = "3" },
	{ .name = "ms", .type = IOLAT_EOPT_U64, TOPT(ns), .max = 1000, .scale = 1000000,
	  .def = "5" },
	{ .name = "p", .type = IOLAT_EOPT_DOUBLE, TOPT(p), .dmin = 0, .dmax = 1, .def = "0.5",
	  .value_word = "P" },
	{ .name = "mode", .type = IOLAT_EOPT_CHOICE, TOPT(mode), .choices = modes, .def = "slow" },
	{ .name = "bits", .type = IOLAT_EOPT_FLAGS, TOPT(bits), .choices = bits, .def = "none" },
	{ .name = NULL },
};

static int parse(const char *s, struct t_opts *o, uint64_t *set, char *err, size_t len)
{
	memset(o, 0xff, sizeof(*o));
	err[0] = '\0';
	return iolat_eng_opts_parse(table, o, s, set, err, len);
}

static void t_defaults_and_values(void **state)
{
	struct t_opts o;
	uint64_t set;
	char err[128];

	assert_int_equal(parse(NULL, &o, &set, err, sizeof(err)), 0);
	assert_true(o.n == 3 && o.ns == 5000000 && o.p == 0.5 && o.mode == 1 && o.bits == 0);
	assert_true(set == 0);
	assert_int_equal(parse("n=10,ms=2,p=1,mode=fast,bits=a+c", &o, &set, err, sizeof(err)), 0);
	assert_true(o.n == 10 && o.ns == 2000000 && o.p == 1.0 && o.mode == 2 && o.bits == 5);
	assert_true(set == 0x1f);
	assert_int_equal(parse(",bits=b|c,,n=0x4,", &o, &set, err, sizeof(err)), 0);
	assert_true(o.bits == 6 && o.n == 4 && o.mode == 1);
	assert_true(set == ((1u << 4) | (1u << 0)));
	assert_int_equal(parse("bits=none", &o, &set, err, sizeof(err)), 0);
	assert_int_equal(o.bits, 0);
	/* the configuration grammar's integers: decimal (a leading 0 is no octal) or 0x hex */
	assert_int_equal(parse("n=010", &o, &set, err, sizeof(err)), 0);
	assert_int_equal(o.n, 10);
	assert_int_equal(parse("n=0xA", &o, &set, err, sizeof(err)), 0);
	assert_int_equal(o.n, 10);
}

static void t_errors(void **state)
{
	static const struct { const char *s, *msg; } bad[] = {
		{ "n", "option 'n' needs a value" },
		{ "x=1", "unknown option 'x'" },
		{ "mdoe=slow", "unknown option 'mdoe'; did you mean 'mode'?" },
		{ "n=1", "bad value in 'n=1'" },          /* below min */
		{ "n=11", "bad value in 'n=11'" },        /* above max */
		{ "n=-3", "bad value in 'n=-3'" },
		{ "n=", "bad value in 'n='" },
		{ "n=3x", "bad value in 'n=3x'" },
		{ "ms=1001", "bad value in 'ms=1001'" },
		{ "p=1.5", "bad value in 'p=1.5'" },
		{ "p=nan", "bad value in 'p=nan'" },
		{ "mode=medium", "bad value in 'mode=medium'" },
		{ "bits=a+d", "bad value in 'bits=a+d'" },
		{ "mode=slow,n", "option 'n' needs a value" },
	};
	struct t_opts o;
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i].s, &o, NULL, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted", bad[i].s);
		if (strcmp(err, bad[i].msg))
			fail_msg("'%s': message '%s', want '%s'", bad[i].s, err, bad[i].msg);
	}
}

static void t_help_and_find(void **state)
{
	char buf[256], small[8];
	int n = iolat_eng_opts_help(table, buf, sizeof(buf));

	assert_string_equal(buf, "n=N, ms=N, p=P, mode=slow|fast, bits=a|b|c (join with '+')");
	assert_int_equal(n, (int)strlen(buf));
	assert_int_equal(iolat_eng_opts_help(table, small, sizeof(small)), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_ptr_equal(iolat_eng_opt_find(table, "mode=x", 4), &table[3]);
	assert_null(iolat_eng_opt_find(table, "mod", 3));
}

static void t_faulty_table(void **state)
{
	const struct iolat_eng_opt *tbl = iolat_eng_options("faulty");
	char help[512], err[128];
	_Alignas(max_align_t) unsigned char opts[256];   /* room for any engine's options */

	assert_non_null(tbl);
	assert_null(iolat_eng_options("psync"));
	assert_int_equal(iolat_eng_opts_parse(tbl, opts, "", NULL, err, sizeof(err)), 0);
	iolat_eng_opts_help(tbl, help, sizeof(help));
	assert_string_equal(iolat_eng_options_help("faulty"), help);
	assert_null(iolat_eng_options_help("psync"));
	for (const struct iolat_eng_opt *o = tbl; o->name; o++) {
		char key[40];

		snprintf(key, sizeof(key), "%s=", o->name);
		assert_non_null(strstr(help, key));
		assert_non_null(o->help);
	}
}

/* One value checked alone agrees with the parser on every option, and the
 * "expected" phrase names the bounds and choices of the table. */
static void t_check_and_expect(void **state)
{
	static const struct { const char *opt, *val; } cases[] = {
		{ "n", "2" }, { "n", "10" }, { "n", "1" }, { "n", "11" }, { "n", "-3" }, { "n", "" },
		{ "ms", "1000" }, { "ms", "1001" }, { "p", "0" }, { "p", "1.5" }, { "p", "x" },
		{ "mode", "fast" }, { "mode", "Fast" }, { "bits", "a+b|c" }, { "bits", "a+" },
		{ "bits", "none" }, { "bits", "d" },
	};
	char buf[160], err[128];
	struct t_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct iolat_eng_opt *opt = iolat_eng_opt_find(table, cases[i].opt,
								     strlen(cases[i].opt));

		snprintf(buf, sizeof(buf), "%s=%s", cases[i].opt, cases[i].val);
		assert_non_null(opt);
		assert_int_equal(iolat_eng_opt_check(opt, cases[i].val) == 0,
				 parse(buf, &o, NULL, err, sizeof(err)) == 0);
	}
	iolat_eng_opt_expect(&table[0], buf, sizeof(buf));
	assert_string_equal(buf, "an integer from 2 to 10");
	iolat_eng_opt_expect(&table[2], buf, sizeof(buf));
	assert_string_equal(buf, "a number from 0 to 1");
	iolat_eng_opt_expect(&table[3], buf, sizeof(buf));
	assert_string_equal(buf, "one of slow or fast");
	iolat_eng_opt_expect(&table[4], buf, sizeof(buf));
	assert_string_equal(buf, "a, b or c, several joined with '+', or none");
	/* As snprintf: the length needed, whatever fits. */
	assert_int_equal(iolat_eng_opt_expect(&table[4], buf, 4),
			 (int)strlen("a, b or c, several joined with '+', or none"));
	assert_string_equal(buf, "a, ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_defaults_and_values),
		cmocka_unit_test(t_errors),
		cmocka_unit_test(t_help_and_find),
		cmocka_unit_test(t_faulty_table),
		cmocka_unit_test(t_check_and_expect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
