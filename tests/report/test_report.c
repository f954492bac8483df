/* SPDX-License-Identifier: MIT */
/*
 * Tests of the results collector (src/job/report.c) with a real controller on
 * a fake clock: subtree totals per group, the root row, errors, samples and
 * the minimum depth, the table (columns, auto-scaled latencies), JSON (checked
 * by a small validator here, and by python3 -m json.tool when present), the
 * CSV header and rows, write_log's files, and byte-identical output for
 * identical inputs.
 * Context: single-threaded test program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "iolatency.h"
#include "job/jobfile.h"
#include "report/report.h"

#define MS 1000000ull
#define SEC 1000000000ull

static const char jobtext[] =
	"[global]\nsize=1g\n"
	"[group:main]\ntarget=5ms\n"
	"[group:system/fbpkg]\n"
	"[web]\ngroup=main\nrw=randread\n"
	"[download]\ngroup=system/fbpkg\nrw=write\nbs=1m\n"
	"[\"odd\\name]\nrw=randrw\n";

static uint64_t fake_now;
static uint64_t t_clock(void *ctx)
{
	(void)ctx;
	return fake_now;
}

/* ---- a minimal JSON validator (RFC 8259 syntax) ---- */

static const char *j_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *j_value(const char *p, int depth);

static const char *j_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *j_number(const char *p)
{
	const char *s = p;
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p > s ? p : NULL;
}

static const char *j_value(const char *p, int depth)
{
	if (depth > 64)
		return NULL;
	p = j_ws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		bool obj = *p == '{';
		p = j_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				p = j_string(j_ws(p));
				if (!p)
					return NULL;
				p = j_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = j_value(p, depth + 1);
			if (!p)
				return NULL;
			p = j_ws(p);
			if (*p == ',') {
				p++;
				continue;
			}
			return *p == close ? p + 1 : NULL;
		}
	}
	if (*p == '"')
		return j_string(p);
	if (!strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (!strncmp(p, "null", 4))
		return p + 4;
	return j_number(p);
}

static bool t_json_valid(const char *s)
{
	const char *e = j_value(s, 0);
	return e && *j_ws(e) == '\0';
}

/* ---- the scenario ---- */

struct t_out {
	char *table, *json, *csv0;
	size_t table_len, json_len, csv0_len;
};

static struct iolat_jobfile *t_jf(void)
{
	struct iolat_jobfile *jf = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];
	if (iolat_jobfile_parse_buf(jobtext, strlen(jobtext), "r.fio", &jf, err, sizeof(err)))
		fail_msg("%s", err);
	return jf;
}

/* Runs a fixed scenario; returns the report (finished) and the controller (destroyed). */
static struct iolat_report *t_scenario(struct iolat_jobfile *jf, bool bind)
{
	struct iolat_clock clk = { .now_ns = t_clock };
	struct iolat_ctl_config cc = { .nr_requests = 32, .clock = &clk };
	struct iolat_ctl *ctl = NULL;
	struct iolat_group *g[3] = { NULL };
	struct iolat_report *r = NULL;
	struct iolat_report_cfg rc = { .jf = jf, .label = "with io.latency", .sample_interval_ns = 100 * MS };

	fake_now = 1000 * SEC;
	assert_int_equal(iolat_report_create(&rc, &r), 0);
	if (bind) {
		assert_int_equal(iolat_ctl_create(&cc, &ctl), 0);
		for (unsigned i = 0; i < jf->nr_groups; i++) {
			int p = jf->groups[i].parent;
			assert_int_equal(iolat_group_create(ctl, p < 0 ? NULL : g[p], jf->groups[i].name, &g[i]), 0);
			if (jf->groups[i].target_ns)
				assert_int_equal(iolat_group_set_target(g[i], jf->groups[i].target_ns), 0);
			assert_int_equal(iolat_report_bind_group(r, i, g[i]), 0);
		}
	}
	iolat_report_start(r, fake_now);
	for (int s = 0; s < 10; s++) {
		for (int k = 0; k < 100; k++) {
			uint64_t lat = (uint64_t)(50 + k * 7 + s * 13) * 1000;   /* 50us .. ~860us */
			iolat_report_add_io(r, 0, false, 4096, lat, 0);
			if (k % 10 == 0)
				iolat_report_add_io(r, 1, true, 1 << 20, lat * 20, 0);
			if (k % 25 == 0)
				iolat_report_add_io(r, 2, k % 50 == 0, 4096, lat, 0);
		}
		if (s == 5)
			iolat_report_add_io(r, 1, true, 1 << 20, 0, -EIO);
		fake_now += 100 * MS;
		if (s != 9)
			assert_int_equal(iolat_report_sample(r, fake_now), 0);
	}
	iolat_report_add_io(r, 99, false, 1, 1, 0);   /* an unknown job is ignored */
	assert_int_equal(iolat_report_finish(r, fake_now), 0);
	if (ctl)
		iolat_ctl_destroy(ctl);   /* the report no longer touches it */
	return r;
}

static char *t_capture(const struct iolat_report *r, int what, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	if (what == 0)
		assert_int_equal(iolat_report_write_table(r, f), 0);
	else if (what == 1)
		assert_int_equal(iolat_report_write_json(r, f), 0);
	else
		assert_int_equal(iolat_report_write_csv(r, (unsigned)(what - 2), f), 0);
	fclose(f);
	return buf;
}

static void test_rows(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jf();
	struct iolat_report *r = t_scenario(jf, true);
	struct iolat_report_row row;

	assert_int_equal(iolat_report_root_index(r), 3);
	assert_int_equal(iolat_report_nr_rows(r), 4);   /* main, system, system/fbpkg, (root) */
	assert_int_equal(iolat_report_duration_ns(r), 1 * SEC);

	assert_int_equal(iolat_report_row(r, 0, &row), 0);
	assert_string_equal(row.name, "main");
	assert_int_equal(row.target_ns, 5 * MS);
	assert_int_equal(row.ios_read, 1000);
	assert_int_equal(row.ios_write, 0);
	assert_int_equal(row.bytes_read, 1000 * 4096);
	assert_true(row.iops > 999.9 && row.iops < 1000.1);
	assert_int_equal(row.lat_min_ns, 50000);
	assert_int_equal(row.lat_max_ns, (50 + 99 * 7 + 9 * 13) * 1000);
	assert_true(row.lat_p50_ns > row.lat_min_ns && row.lat_p50_ns < row.lat_p99_ns);
	assert_true(row.bound);
	assert_int_equal(row.depth_final, IOLAT_DEPTH_MAX);
	assert_int_equal(row.depth_min, IOLAT_DEPTH_MAX);
	assert_true(strstr(row.io_stat, "depth=max") != NULL);

	/* system holds its child's I/O (subtree totals) */
	assert_int_equal(iolat_report_row(r, 1, &row), 0);
	assert_string_equal(row.name, "system");
	assert_int_equal(row.ios_write, 100);
	assert_int_equal(row.bytes_write, 100ull << 20);
	assert_int_equal(row.errors, 1);
	assert_int_equal(row.target_ns, 0);
	assert_int_equal(iolat_report_row(r, 2, &row), 0);
	assert_string_equal(row.name, "system/fbpkg");
	assert_int_equal(row.ios_write, 100);
	assert_int_equal(row.errors, 1);
	assert_true(row.mib_s > 99.9 && row.mib_s < 100.1);

	/* the root row counts only the job without a group */
	assert_int_equal(iolat_report_row(r, 3, &row), 0);
	assert_string_equal(row.name, "(root)");
	assert_int_equal(row.ios_read + row.ios_write, 40);
	assert_int_equal(row.ios_write, 20);
	assert_false(row.bound);             /* not bound in this scenario */
	assert_string_equal(row.io_stat, "");
	assert_int_equal(iolat_report_row(r, 4, &row), -EINVAL);

	iolat_report_destroy(r);
	iolat_jobfile_free(jf);
}

static void test_table_and_json(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jf();
	struct iolat_report *r = t_scenario(jf, true);
	struct t_out o;

	o.table = t_capture(r, 0, &o.table_len);
	o.json = t_capture(r, 1, &o.json_len);
	/* table: heading, header with every column, one line a row */
	assert_int_equal(strncmp(o.table, "== with io.latency ==\n", 22), 0);
	static const char *const cols[] = { "group", "IOPS", "MiB/s", "p50", "p90", "p99", "max",
					    "depth", "depth_min", "throttled", "windows ok/x", "scale -/+",
					    "errors" };
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		assert_non_null(strstr(o.table, cols[i]));
	assert_non_null(strstr(o.table, "\nmain "));
	assert_non_null(strstr(o.table, "\nsystem/fbpkg "));
	assert_non_null(strstr(o.table, "\n(root) "));
	assert_non_null(strstr(o.table, "us "));    /* microsecond latencies */
	assert_non_null(strstr(o.table, "ms "));    /* millisecond latencies (download) */
	assert_non_null(strstr(o.table, "max "));   /* unlimited depth */
	unsigned lines = 0;
	for (char *c = o.table; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 6);

	/* JSON: valid, schema 2, escapes, both rows and jobs */
	if (!t_json_valid(o.json))
		fail_msg("invalid JSON:\n%s", o.json);
	assert_non_null(strstr(o.json, "\"schema_version\": 2,"));
	assert_non_null(strstr(o.json, "\"interrupted\": false,"));
	assert_non_null(strstr(o.json, "\"name\": \"\\\"odd\\\\name\""));
	assert_non_null(strstr(o.json, "\"depth_final\": -1,"));   /* unlimited, as in the CSV */
	assert_non_null(strstr(o.json, "\"io_stat\": \"depth=max"));
	assert_non_null(strstr(o.json, "\"target_us\": 5000.000"));
	assert_non_null(strstr(o.json, "\"duration_s\": 1.000000"));
	assert_non_null(strstr(o.json, "\"group\": \"(root)\""));

	/* python's parser agrees, when python3 is installed */
	if (system("command -v python3 >/dev/null 2>&1") == 0) {
		char path[] = "/tmp/iolat-report-json-XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, o.json, o.json_len), (ssize_t)o.json_len);
		close(fd);
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "python3 -m json.tool %s >/dev/null", path);
		assert_int_equal(system(cmd), 0);
		unlink(path);
	}
	free(o.table);
	free(o.json);
	iolat_report_destroy(r);
	iolat_jobfile_free(jf);
}

static void test_unbound(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jf();
	struct iolat_report *r = t_scenario(jf, false);
	size_t len;
	char *table = t_capture(r, 0, &len), *json = t_capture(r, 1, &len);

	assert_true(t_json_valid(json));
	assert_null(strstr(json, "depth_final"));
	assert_non_null(strstr(json, "\"controlled\": false"));
	assert_non_null(strstr(table, "        -"));
	free(table);
	free(json);
	iolat_report_destroy(r);
	iolat_jobfile_free(jf);
}

static void test_csv(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jf();
	struct iolat_report *r = t_scenario(jf, true);
	size_t len;
	char *csv = t_capture(r, 2, &len);
	char header[256];

	snprintf(header, sizeof(header), "%s\n", iolat_report_csv_header());
	assert_string_equal(iolat_report_csv_header(),
			    "time_s,ios,iops,mib_s,p50_us,p90_us,p99_us,max_us,depth,inflight,"
			    "use_delay,scale_events,throttled_ms,windows_missed,group");
	assert_int_equal(strncmp(csv, header, strlen(header)), 0);
	unsigned lines = 0;
	for (char *c = csv; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 11);   /* header + 10 intervals (9 samples + finish) */
	assert_non_null(strstr(csv, "\n0.100,100,1000.0,3.906,"));
	assert_non_null(strstr(csv, ",-1,0,0,0,0.000,0,"));   /* depth max = -1 */
	{
		/* every data line ends with the row's group path */
		struct iolat_report_row row;
		char tail[IOLAT_GROUP_PATH_MAX + 4];
		unsigned with = 0;

		assert_int_equal(iolat_report_row(r, 0, &row), 0);   /* t_capture(r, 2): row 0 */
		snprintf(tail, sizeof(tail), ",%s\n", row.name);
		for (char *c = strstr(csv, tail); c; c = strstr(c + 1, tail))
			with++;
		assert_int_equal(with, 10);
	}
	free(csv);

	/* the unbound root row leaves the controller columns empty */
	csv = t_capture(r, 5, &len);
	assert_non_null(strstr(csv, ",,,,,,(root)\n"));
	free(csv);
	assert_int_equal(iolat_report_write_csv(r, 9, stdout), -EINVAL);
	iolat_report_destroy(r);
	iolat_jobfile_free(jf);
}

static void test_deterministic(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jf();
	struct iolat_report *a = t_scenario(jf, true), *b = t_scenario(jf, true);

	for (int what = 0; what < 6; what++) {
		size_t la, lb;
		char *x = t_capture(a, what, &la), *y = t_capture(b, what, &lb);
		assert_int_equal(la, lb);
		assert_memory_equal(x, y, la);
		free(x);
		free(y);
	}
	iolat_report_destroy(a);
	iolat_report_destroy(b);
	iolat_jobfile_free(jf);
}

static void test_write_log(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jf();
	struct iolat_report *r = t_scenario(jf, true);
	char dir[] = "/tmp/iolat-log-XXXXXX", path[256], err[256];
	unsigned flags = 0;
	static const char *const files[] = { "main.csv", "system.csv", "system.fbpkg.csv", "root.csv",
					      "plot.gp" };

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(iolat_report_write_log(r, path, &flags, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char p[300];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", path, files[i]);
		if (stat(p, &st) != 0 || st.st_size == 0)
			fail_msg("%s missing", p);
		unlink(p);
	}
	if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
		if (!(flags & IOLAT_LOG_PLOTTED))
			fail_msg("gnuplot present but no plots (flags %#x)", flags);
		char p[300];
		snprintf(p, sizeof(p), "%s/latency.png", path);
		assert_int_equal(access(p, R_OK), 0);
		unlink(p);
		snprintf(p, sizeof(p), "%s/depth.png", path);
		assert_int_equal(access(p, R_OK), 0);
		unlink(p);
	} else {
		assert_true(flags & IOLAT_LOG_NO_GNUPLOT);
	}
	/* without gnuplot on PATH: skipped and said so */
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(iolat_report_write_log(r, path, &flags, err, sizeof(err)), 0);
	assert_int_equal(flags, IOLAT_LOG_NO_GNUPLOT);
	if (old) {
		setenv("PATH", old, 1);
		free(old);
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char p[300];
		snprintf(p, sizeof(p), "%s/%s", path, files[i]);
		unlink(p);
	}
	rmdir(path);
	/* a path under a regular file fails with a message */
	snprintf(path, sizeof(path), "%s/file", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(iolat_report_write_log(r, path, &flags, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, "not a directory"));
	unlink(path);
	rmdir(dir);
	iolat_report_destroy(r);
	iolat_jobfile_free(jf);
}

static void test_format_latency(void **state)
{
	(void)state;
	static const struct { uint64_t ns; const char *s; } cases[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1.0us" }, { 812049, "812.0us" },
		{ 999949, "999.9us" }, { 1000000, "1.00ms" }, { 12345678, "12.35ms" },
		{ 3210000000ull, "3.210s" },
	};
	char buf[32];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(iolat_format_latency(cases[i].ns, buf, sizeof(buf)), cases[i].s);
}

struct t_thr {
	struct iolat_report *r;
	unsigned job;
};

static void *t_adder(void *arg)
{
	struct t_thr *t = arg;
	for (unsigned i = 0; i < 20000; i++) {
		iolat_report_add_io(t->r, t->job, i & 1, 4096, 1000 + i, 0);
		if (t->job == 0 && i % 1000 == 0)
			iolat_report_sample(t->r, fake_now + i);   /* the runner thread samples meanwhile */
	}
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	struct iolat_jobfile *jf = t_jf();
	struct iolat_report *r = NULL;
	struct iolat_report_cfg rc = { .jf = jf };
	pthread_t th[4];
	struct t_thr arg[4];
	struct iolat_report_row row;

	fake_now = 0;
	assert_int_equal(iolat_report_create(&rc, &r), 0);
	iolat_report_start(r, 0);
	for (int i = 0; i < 4; i++) {
		arg[i] = (struct t_thr){ .r = r, .job = (unsigned)(i % 2) };
		assert_int_equal(pthread_create(&th[i], NULL, t_adder, &arg[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(iolat_report_finish(r, 100 * SEC), 0);
	assert_int_equal(iolat_report_row(r, 0, &row), 0);          /* main: job 0, two threads */
	assert_int_equal(row.ios_read + row.ios_write, 40000);
	assert_int_equal(iolat_report_row(r, 1, &row), 0);          /* system: job 1, two threads */
	assert_int_equal(row.ios_read + row.ios_write, 40000);
	iolat_report_destroy(r);
	iolat_jobfile_free(jf);
}

static void test_create_errors(void **state)
{
	(void)state;
	struct iolat_report *r = (struct iolat_report *)0x1;
	struct iolat_report_cfg rc = { 0 };
	assert_int_equal(iolat_report_create(&rc, &r), -EINVAL);
	assert_null(r);
	assert_int_equal(iolat_report_create(NULL, &r), -EINVAL);
	iolat_report_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_table_and_json),
		cmocka_unit_test(test_unbound),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_write_log),
		cmocka_unit_test(test_format_latency),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_create_errors),
	};
	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
