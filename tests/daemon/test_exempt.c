/* SPDX-License-Identifier: MIT */
/*
 * test_exempt.c - the groups iolatd never limits (src/daemon/tree/exempt.c): its
 * own cgroup read from /proc/self/cgroup (v1's blkio line, v2's "0::"
 * line), systemd-journald.service, and exempt= (paths and unit names); a
 * configured group or a parent of one never is. On a fake v1 tree with a
 * reader that misses, the writer beside it is limited and iolatd.service,
 * systemd-journald.service and an exempt backup cgroup writing as hard are
 * not; the status lists them with their reason. On a fake v2 tree a limited
 * parent of iolatd's own cgroup is said once (io.max covers it).
 * Context: single-threaded cmocka program on a virtual clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "daemon/control.h"
#include "daemon/tree/exempt.h"
#include "helpers/t_daemon.h"

#define MS 1000000ull

static uint64_t vnow;
static uint64_t vclock_now(void *ctx) { return vnow; }
static const struct iolat_clock vclock = { vclock_now, NULL };

static struct t_fakecg f;
static char sysfs[300], run[1100], selfcg[1100], conf[4096], err[IOLATD_ERR_MAX], logbuf[8192];
static struct iolatd_config cfg;

static void keep_log(void *ctx, const char *line)
{
	if (strlen(logbuf) + strlen(line) + 2 < sizeof(logbuf)) {
		strcat(logbuf, line);
		strcat(logbuf, "\n");
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* /proc/self/cgroup's format: v1 lines (blkio shares a hierarchy) and v2's. */
static void test_self_from_proc(void **state)
{
	char path[300], out[IOLATD_PATH_MAX];

	(void)state;
	t_fakecg_new(&f, 1);
	snprintf(path, sizeof(path), "%s/cgroup", f.root);
	write_file(path, "12:memory:/m\n5:cpu,blkio,cpuacct:/system.slice/iolatd.service\n"
			 "1:name=systemd:/x\n0::/system.slice/iolatd.service/v2\n");
	assert_int_equal(iolatd_exempt_self(path, 1, out, sizeof(out)), 0);
	assert_string_equal(out, "system.slice/iolatd.service");
	assert_int_equal(iolatd_exempt_self(path, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "system.slice/iolatd.service/v2");
	write_file(path, "0::/\n");
	assert_int_equal(iolatd_exempt_self(path, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "");                         /* at the root: nothing */
	assert_int_equal(iolatd_exempt_self(path, 1, out, sizeof(out)), 0);
	assert_string_equal(out, "");                         /* no blkio line */
	assert_true(iolatd_exempt_self("/nonexistent/cgroup", 2, out, sizeof(out)) < 0);
	t_fakecg_free(&f);
}

/* Paths match whole, unit names any cgroup of that name; configured groups and their parents never. */
static void test_who_is_exempt(void **state)
{
	struct iolatd_config c;

	(void)state;
	assert_int_equal(iolatd_config_parse("t.conf", "[global]\ndevice=vda\nexempt=backup.service,app/agent\n"
					     "[group:system.slice/web.service]\ntarget=1ms\n", &c, err, sizeof(err)), 0);
	assert_int_equal(iolatd_exempt_why(&c, "system.slice/iolatd.service", "system.slice/iolatd.service"),
			 EXEMPT_SELF);
	assert_int_equal(iolatd_exempt_why(&c, "", "system.slice/systemd-journald.service"), EXEMPT_JOURNALD);
	assert_int_equal(iolatd_exempt_why(&c, "", "system.slice/backup.service"), EXEMPT_CONFIG);
	assert_int_equal(iolatd_exempt_why(&c, "", "app/agent"), EXEMPT_CONFIG);
	assert_int_equal(iolatd_exempt_why(&c, "", "other/app/agent"), EXEMPT_NONE);
	assert_int_equal(iolatd_exempt_why(&c, "", "system.slice/cron.service"), EXEMPT_NONE);
	/* the configured group and its parent: never, whatever names them */
	assert_int_equal(iolatd_exempt_why(&c, "system.slice", "system.slice"), EXEMPT_NONE);
	assert_int_equal(iolatd_exempt_why(&c, "system.slice/web.service", "system.slice/web.service"),
			 EXEMPT_NONE);
	assert_string_equal(iolatd_exempt_name(EXEMPT_SELF), "self");
	assert_string_equal(iolatd_exempt_name(EXEMPT_JOURNALD), "journald");
	assert_string_equal(iolatd_exempt_name(EXEMPT_CONFIG), "config");
}

/* A fake tree of @version with the cgroups @dirs (NULL-ended), then iolatd over it. */
static struct iolatd *start(int version, const char *const *dirs, const char *self_line, const char *extra)
{
	struct iolatd_opts o;

	t_fakecg_new(&f, version);
	for (; *dirs; dirs++)
		t_fakecg_mkdir(&f, *dirs);
	snprintf(sysfs, sizeof(sysfs), "%s", t_fakecg_sysfs_dev(&f, "254:0", false));
	snprintf(run, sizeof(run), "%s/run", f.root);
	assert_int_equal(mkdir(run, 0755), 0);
	snprintf(selfcg, sizeof(selfcg), "%s/self_cgroup", f.root);
	write_file(selfcg, self_line);
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\nsystemd=0\n"
		 "cgroup_root=%s\n%s[group:app/reader]\ntarget=1ms\n", f.root, extra);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	vnow = 100 * 1000 * MS;
	logbuf[0] = '\0';
	o = t_daemon_opts(run, sysfs, &vclock, keep_log);
	o.self_cgroup = selfcg;
	return t_daemon_start(&cfg, &o);
}

/* @ms in 10 ms steps: the reader misses (3 ms for 1 ms), each of @writers writes 1 MiB a step. */
static void drive(struct iolatd *d, unsigned ms, const char *const *writers, unsigned n)
{
	for (unsigned t = 0; t < ms; t += 10) {
		vnow += 10 * MS;
		for (int i = 0; i < 5; i++)
			iolatd_observe(d, t_daemon_ino(&f, "app/reader"), makedev(254, 0), 3 * MS, 4096, false, 0,
				       vnow);
		for (unsigned w = 0; w < n; w++)
			for (int i = 0; i < 10; i++)
				iolatd_observe(d, t_daemon_ino(&f, writers[w]), makedev(254, 0), 4 * MS, 1 << 20,
					       true, 0, vnow);
		iolatd_period(d, vnow);
	}
}

/* The limit written in @rel's @file for 254:0 (0: none). */
static unsigned long long limit(const char *rel, const char *file)
{
	const char *s = strstr(t_fakecg_read(&f, rel, file), "254:0 ");

	return s ? strtoull(s + 6, NULL, 10) : 0;
}

static bool status_has(const char *text)
{
	return t_run_status_has(run, text);
}

static void test_exempt_never_limited_v1(void **state)
{
	static const char *const writers[] = {
		"app/writer", "app/iolatd.service", "app/systemd-journald.service", "app/backup",
	};
	struct iolatd *d;

	(void)state;
	d = start(1, (const char *const[]){ "app", "app/reader", writers[0], writers[1], writers[2], writers[3],
					    NULL }, "4:blkio:/app/iolatd.service\n", "exempt=app/backup\n");
	drive(d, 5000, writers, 4);
	assert_true(limit("app/writer", "blkio.throttle.write_bps_device") > 0);
	for (unsigned w = 1; w < 4; w++) {
		assert_int_equal(limit(writers[w], "blkio.throttle.write_bps_device"), 0);
		assert_int_equal(limit(writers[w], "blkio.throttle.write_iops_device"), 0);
	}
	iolatd_write_status(d, vnow);
	assert_true(status_has("exempt path=app/iolatd.service reason=self"));
	assert_true(status_has("exempt path=app/systemd-journald.service reason=journald"));
	assert_true(status_has("exempt path=app/backup reason=config"));
	assert_false(status_has("group path=app/iolatd.service "));
	assert_non_null(strstr(logbuf, "own cgroup app/iolatd.service: exempt, never limited"));
	assert_non_null(strstr(logbuf, "app/systemd-journald.service: exempt (the system's logger): never limited"));
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
	t_fakecg_free(&f);
}

/* v2: app/b, the reader's sibling, is limited; iolatd's own cgroup elsewhere, then below app/b. */
static void test_v2_parent_of_self_said_once(void **state)
{
	static const char *const tree[] = { "app", "app/reader", "app/b", "app/b/iolatd.service", NULL };
	struct iolatd *d;
	const char *first;

	(void)state;
	d = start(2, tree, "0::/elsewhere/iolatd.service\n", "");
	/* app/b is the reader's sibling; iolatd's own cgroup is not below it: nothing said. */
	drive(d, 3000, (const char *const[]){ "app/b" }, 1);
	assert_true(limit("app/b", "io.max") > 0 || strstr(t_fakecg_read(&f, "app/b", "io.max"), "wbps="));
	assert_null(strstr(logbuf, "which is exempt"));
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
	t_fakecg_free(&f);
	/* The same with iolatd's own cgroup below app/b: said once. */
	d = start(2, tree, "0::/app/b/iolatd.service\n", "");
	drive(d, 3000, (const char *const[]){ "app/b" }, 1);
	first = strstr(logbuf, "app/b: limited: on cgroup v2 its limit also covers app/b/iolatd.service");
	assert_non_null(first);
	first = strstr(first, "its limit");
	assert_non_null(first);
	assert_null(strstr(first + 1, "its limit also covers"));
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
	t_fakecg_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_from_proc),
		cmocka_unit_test(test_who_is_exempt),
		cmocka_unit_test(test_exempt_never_limited_v1),
		cmocka_unit_test(test_v2_parent_of_self_said_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
