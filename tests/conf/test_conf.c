/* SPDX-License-Identifier: MIT */
/*
 * test_conf.c - the configuration grammar (src/conf) on its own: the INI
 * reader's lines, comments, sections and keys, its own problems and a user
 * that reads on past them; the value grammar's integers, reals, booleans and
 * durations; an option table read by the generic code (every typed kind,
 * ranges, the table's own words for a bad value, its owner's types left to
 * it); keys found and suggested.
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

#include "conf/ini.h"
#include "conf/opt.h"
#include "conf/suggest.h"
#include "conf/value.h"

/* What the reader handed over, one line of text per call. */
struct seen {
	char log[1024];
	size_t used;
	unsigned problems;
	struct iolat_conf_at *at;
};

static int on_section(void *ctx, const char *name, size_t n)
{
	struct seen *s = ctx;

	s->used += (size_t)snprintf(s->log + s->used, sizeof(s->log) - s->used, "%u [%.*s]\n",
				    s->at->line, (int)n, name);
	return 0;
}

static int on_key(void *ctx, const char *k, size_t kn, const char *v, size_t vn)
{
	struct seen *s = ctx;

	s->used += (size_t)snprintf(s->log + s->used, sizeof(s->log) - s->used, "%u %.*s%s%.*s\n",
				    s->at->line, (int)kn, k, v ? "=" : "", (int)vn, v ? v : "");
	return 0;
}

static int on_problem(void *ctx, int err)
{
	struct seen *s = ctx;

	s->problems++;
	s->used += (size_t)snprintf(s->log + s->used, sizeof(s->log) - s->used, "! %s\n", s->at->err);
	return 0;   /* read on */
}

static void test_ini_reader(void **state)
{
	static const char text[] = "\xEF\xBB\xBF; top\n  [ global ];c\nbs = 4k ; four\nbare\n"
				   "url=a;b#c\n\n[x\n[y] z\n=1\nk=\n#\n[j]\tx=1\n";
	static const struct iolat_ini_ops ops = {
		.section = on_section, .key = on_key, .problem = on_problem,
	};
	char err[256];
	struct iolat_conf_at at = { .file = "f.ini", .err = err, .errlen = sizeof(err) };
	struct seen s = { .at = &at };

	assert_int_equal(iolat_ini_read(&at, text, sizeof(text) - 1, &ops, &s), 0);
	assert_string_equal(s.log,
		"2 [global]\n3 bs=4k\n4 bare\n5 url=a;b#c\n"
		"! f.ini:7: section '[x': expected ']'\n"
		"! f.ini:8: section '[y] z': expected nothing after ']'\n"
		"! f.ini:9: '=1': expected key=value\n"
		"10 k=\n"
		"! f.ini:12: section '[j]?x=1': expected nothing after ']'\n");
	assert_int_equal(s.problems, 4);
	assert_int_equal(at.line, 12);
}

static void test_ini_stops_without_problem_callback(void **state)
{
	static const struct iolat_ini_ops ops = { .section = on_section, .key = on_key };
	char err[256];
	struct iolat_conf_at at = { .file = "f.ini", .err = err, .errlen = sizeof(err) };
	struct seen s = { .at = &at };

	assert_int_equal(iolat_ini_read(&at, "[a]\nk\0=1\nnext=2\n", 15, &ops, &s), -EINVAL);
	assert_string_equal(err, "f.ini:2: expected text, found a NUL byte");
	assert_string_equal(s.log, "1 [a]\n");
}

static void test_values(void **state)
{
	uint64_t u;
	double d;
	bool b;

	assert_int_equal(iolat_conf_parse_uint("0x1F", &u), 0);
	assert_int_equal(u, 31);
	assert_int_equal(iolat_conf_parse_uint("010", &u), 0);
	assert_int_equal(u, 10);
	assert_int_equal(iolat_conf_parse_uint("18446744073709551616", &u), -ERANGE);
	assert_int_equal(iolat_conf_parse_uint("0x", &u), -EINVAL);
	assert_int_equal(iolat_conf_parse_uint("12g", &u), -EINVAL);
	assert_int_equal(iolat_conf_parse_real("1e-3", &d), 0);
	assert_true(d == 0.001);
	assert_int_equal(iolat_conf_parse_real("inf", &d), -EINVAL);
	assert_int_equal(iolat_conf_parse_real(" 1", &d), -EINVAL);
	assert_int_equal(iolat_conf_parse_real("", &d), -EINVAL);
	assert_int_equal(iolat_conf_parse_bool("Off", &b), 0);
	assert_false(b);
	assert_int_equal(iolat_conf_parse_bool("2", &b), -EINVAL);
	assert_int_equal(iolat_parse_size("1.5m", &u), 0);
	assert_int_equal(u, 3ull << 19);
	assert_int_equal(iolat_conf_parse_duration("2", 1000000000ull, &u), 0);
	assert_int_equal(u, 2000000000ull);
	assert_int_equal(iolat_conf_parse_duration("max", 1000, &u), -EINVAL);
	assert_int_equal(iolat_conf_parse_target("max", &u), 0);
	assert_int_equal(u, 0);
	assert_int_equal(iolat_conf_parse_target("750", &u), 0);
	assert_int_equal(u, 750000);
	assert_int_equal(iolat_conf_choice_index("a|bb|c", "bb"), 1);
	assert_int_equal(iolat_conf_choice_index("a|bb|c", "b"), -1);
}

struct t_cfg {
	char name[8];
	uint32_t depth;
	uint64_t rate, wait_ns, target_ns;
	bool on;
	int word;
	uint16_t kind;
	unsigned flags;
};

#define F(f) .off = offsetof(struct t_cfg, f), .fsize = sizeof(((struct t_cfg *)0)->f)
static const unsigned t_bits[] = { 1, 2, 0 };
static const struct iolat_opt table[] = {
	{ .name = "name", .type = IOLAT_OPT_TEXT, F(name) },
	{ .name = "depth", .alias = "qd", .type = IOLAT_OPT_COUNT, F(depth), .min = 1, .max = 4096 },
	{ .name = "limit", .type = IOLAT_OPT_COUNT, F(depth), .min = 1, .max = 8,
	  .expect = "a limit 1..8" },
	{ .name = "rate", .type = IOLAT_OPT_RATE, F(rate) },
	{ .name = "wait", .type = IOLAT_OPT_TIME_S, F(wait_ns) },
	{ .name = "target", .type = IOLAT_OPT_TARGET, F(target_ns) },
	{ .name = "on", .type = IOLAT_OPT_BOOL, F(on), .value_words = "x|y",
	  .words_off = offsetof(struct t_cfg, word) },
	{ .name = "kind", .type = IOLAT_OPT_ENUM, F(kind), .min = 1, .choices = "ab|cd",
	  .value_aliases = "alias=cd" },
	{ .name = "flags", .type = IOLAT_OPT_FLAGS, F(flags), .choices = "p|q|none", .flag_bits = t_bits },
	{ .name = "mine", .type = IOLAT_OPT_USER0 },
	{ .name = NULL },
};

static char err[256];
static struct t_cfg cfg;

static int apply(const char *key, const char *v)
{
	struct iolat_conf_at at = { .file = "t.conf", .line = 7, .err = err, .errlen = sizeof(err) };
	const struct iolat_opt *o = iolat_opt_find(table, key);

	err[0] = '\0';
	assert_non_null(o);
	return iolat_opt_apply(&at, o, &cfg, key, v);
}

static void test_table_reads_values(void **state)
{
	assert_int_equal(apply("name", "disk"), 0);
	assert_string_equal(cfg.name, "disk");
	assert_int_equal(apply("qd", "1k"), 0);
	assert_int_equal(cfg.depth, 1024);
	assert_int_equal(apply("rate", "1.5m"), 0);
	assert_int_equal(cfg.rate, 3ull << 19);
	assert_int_equal(apply("wait", "90"), 0);
	assert_int_equal(cfg.wait_ns, 90000000000ull);
	assert_int_equal(apply("target", "max"), 0);
	assert_int_equal(cfg.target_ns, 0);
	assert_int_equal(apply("on", NULL), 0);   /* a bare boolean key */
	assert_true(cfg.on);
	assert_int_equal(apply("on", "y"), 0);
	assert_true(cfg.on && cfg.word == 2);
	assert_int_equal(apply("kind", "alias"), 0);
	assert_int_equal(cfg.kind, 2);
	assert_int_equal(apply("flags", "q,p"), 0);
	assert_int_equal(cfg.flags, 3);
	assert_int_equal(apply("mine", "1"), IOLAT_OPT_NOT_MINE);
}

static void test_table_says_what_was_expected(void **state)
{
	static const struct { const char *key, *v, *msg; } bad[] = {
		{ "name", "toolonger", "t.conf:7: key 'name': expected a value of 1 to 7 bytes (got 'toolonger')" },
		{ "depth", "0", "t.conf:7: key 'depth': expected a number like 10, 256 or 1k of at least 1 (got '0')" },
		{ "depth", "8k", "t.conf:7: key 'depth': expected a number like 10, 256 or 1k of at most 4096 (got '8k')" },
		{ "limit", "9", "t.conf:7: key 'limit': expected a limit 1..8 (got '9')" },
		{ "limit", "two", "t.conf:7: key 'limit': expected a limit 1..8 (got 'two')" },
		{ "rate", "1,2", "t.conf:7: key 'rate': expected one value (separate read,write values are not supported)" },
		{ "wait", "soon", "t.conf:7: key 'wait': expected a duration like 30s, 500ms, 2m (bare number: seconds) (got 'soon')" },
		{ "on", "z", "t.conf:7: key 'on': expected 0, 1, x or y (got 'z')" },
		{ "kind", "ef", "t.conf:7: key 'kind': expected one of ab,cd (got 'ef')" },
		{ "flags", "p|", "t.conf:7: key 'flags': expected p, q, p|q or none" },
		{ "rate", NULL, "t.conf:7: key 'rate': expected a value (rate=...)" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(apply(bad[i].key, bad[i].v), -EINVAL);
		if (strcmp(err, bad[i].msg))
			fail_msg("case %zu: got '%s', want '%s'", i, err, bad[i].msg);
	}
}

static void test_find_and_suggest(void **state)
{
	assert_ptr_equal(iolat_opt_find(table, "qd"), &table[1]);
	assert_null(iolat_opt_find(table, "dpeth"));
	assert_string_equal(iolat_opt_suggest(table, "dpeth"), "depth");
	assert_string_equal(iolat_opt_suggest(table, "tagret"), "target");
	assert_null(iolat_opt_suggest(table, "colour"));
	assert_null(iolat_opt_suggest(table, "q"));        /* a whole other word, not a typo */
	assert_int_equal(iolat_edit_distance("ab", "ba", 3), 1);
	assert_string_equal(iolat_opt_type_name(IOLAT_OPT_COUNT), "count");
	assert_null(iolat_opt_type_name(IOLAT_OPT_USER0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ini_reader),
		cmocka_unit_test(test_ini_stops_without_problem_callback),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_table_reads_values),
		cmocka_unit_test(test_table_says_what_was_expected),
		cmocka_unit_test(test_find_and_suggest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
