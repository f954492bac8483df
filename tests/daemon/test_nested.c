/* SPDX-License-Identifier: MIT */
/*
 * test_nested.c - iolatd on nested cgroups (issue 20, defect 1), on a
 * virtual clock and fake trees: a reader app/main (1 ms target) missing
 * beside a writer two levels down, app/batch/a. On cgroup v1 the blkio
 * throttle is flat (a parent's limit does not bind its children), so the
 * clamped app/batch's budget must be written where the tasks are: on
 * app/batch/a, whether the children are declared in the configuration or
 * not; two writers under it share the budget by what they use, re-divided
 * as that moves. On v2 io.max is hierarchical: the limit goes on app/batch.
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/control.h"
#include "daemon/sys/cgroupfs.h"
#include "helpers/t_daemon.h"

#define MS 1000000ull
#define WBPS "blkio.throttle.write_bps_device"
#define WIOPS "blkio.throttle.write_iops_device"
#define RBPS "blkio.throttle.read_bps_device"

static uint64_t vnow;
static uint64_t vclock_now(void *ctx) { return vnow; }
static const struct iolat_clock vclock = { vclock_now, NULL };

static struct t_fakecg f;
static char sysfs[300];
static char run[1100], err[IOLATD_ERR_MAX];
static struct iolatd_config cfg;

static char logbuf[8192];
static void quiet_log(void *ctx, const char *line)
{
	if (strlen(logbuf) + strlen(line) + 2 < sizeof(logbuf)) {
		strcat(logbuf, line);
		strcat(logbuf, "\n");
	}
}

static void tree(int version, const char *extra_conf)
{
	char conf[4096];

	t_fakecg_new(&f, version);
	snprintf(sysfs, sizeof(sysfs), "%s", t_fakecg_sysfs_dev(&f, "254:0", false));
	snprintf(run, sizeof(run), "%s/run", f.root);
	assert_int_equal(mkdir(run, 0755), 0);
	t_fakecg_mkdir(&f, "app");
	t_fakecg_mkdir(&f, "app/main");
	t_fakecg_mkdir(&f, "app/batch");
	t_fakecg_mkdir(&f, "app/batch/a");
	t_fakecg_mkdir(&f, "app/batch/b");
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\n"
		 "cgroup_root=%s\n[group:app/main]\ntarget=1ms\n%s", f.root, extra_conf);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	vnow = 100 * 1000 * MS;
	logbuf[0] = '\0';
}

static int teardown(void **state)
{
	t_fakecg_free(&f);
	return 0;
}

static struct iolatd *start(void)
{
	struct iolatd_opts o = t_daemon_opts(run, sysfs, &vclock, quiet_log);

	return t_daemon_start(&cfg, &o);
}

static uint64_t ino(const char *rel)
{
	return t_daemon_ino(&f, rel);
}

/*
 * @ms of traffic in 10 ms steps: the reader at 3 ms (a miss), writer a with
 * @na and writer b with @nb 1 MiB writes per step, each taking 4 ms. A
 * writer held by a limit does no more than its limit lets through: @obey.
 */
static uint64_t limit(const char *rel, const char *file);
static void drive(struct iolatd *d, unsigned ms, int na, int nb, bool obey)
{
	for (unsigned t = 0; t < ms; t += 10) {
		int n[2] = { na, nb };
		const char *w[2] = { "app/batch/a", "app/batch/b" };

		vnow += 10 * MS;
		for (int i = 0; i < 5; i++)
			iolatd_observe(d, ino("app/main"), makedev(254, 0), 3 * MS, 4096, false, 0, vnow);
		for (int j = 0; j < 2; j++) {
			uint64_t cap = obey ? limit(w[j], WBPS) : 0;
			int m = n[j];

			if (cap && (uint64_t)m << 20 > cap / 100)
				m = (int)(cap / 100 >> 20) + ((t / 10) % 4 == 0); /* about cap per second */
			for (int i = 0; i < m; i++)
				iolatd_observe(d, ino(w[j]), makedev(254, 0), 4 * MS, 1 << 20, true, 0, vnow);
		}
		iolatd_period(d, vnow);
	}
}

static uint64_t limit(const char *rel, const char *file)
{
	const char *s = strstr(t_fakecg_read(&f, rel, file), "254:0 ");

	return s ? strtoull(s + 6, NULL, 10) : 0;
}

/* The status file's line for @kind path=@rel, in a static buffer ("" if none). */
static const char *status_line(const char *kind, const char *rel)
{
	static char line[4096];
	char path[1200], want[600];
	FILE *fp;
	bool found = false;

	snprintf(path, sizeof(path), "%s/status", run);
	snprintf(want, sizeof(want), "%s path=%s ", kind, rel);
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (!found && fgets(line, sizeof(line), fp))
		found = !strncmp(line, want, strlen(want));
	fclose(fp);
	return found ? line : "";
}

/* Children not declared: app/batch is clamped, its budget lands on app/batch/a. */
static void test_v1_writer_two_levels_down(void **state)
{
	struct iolatd *d;

	tree(1, "");
	d = start();
	drive(d, 3000, 10, 0, false);
	assert_true(limit("app/batch/a", WBPS) > 0);
	/* 1 MiB writes: the bytes bind, no IOPS limit (iolatd_rate_split) */
	assert_int_equal(limit("app/batch/a", WIOPS), 0);
	assert_int_equal(limit("app/batch", WBPS), 0);     /* a limit there binds nothing on v1 */
	assert_int_equal(limit("app/batch/b", WBPS), 0);   /* no I/O: nothing to carry */
	assert_int_equal(limit("app/main", WBPS), 0);
	assert_int_equal(limit("app/batch/a", RBPS), 0);   /* never seen reading */
	assert_non_null(strstr(status_line("group", "app/batch"), " limited=1 "));
	assert_non_null(strstr(status_line("group", "app/batch"), " carriers=1 "));
	assert_non_null(strstr(status_line("limit", "app/batch/a"), " for=app/batch "));
	assert_int_equal(iolatd_stop(d, vnow), 0);
	assert_int_equal(limit("app/batch/a", WBPS), 0);
	assert_int_equal(limit("app/batch/a", WIOPS), 0);
	iolatd_destroy(d);
}

/* Children declared: app/batch's own I/O is 0 (all of it is app/batch/a's), still limited. */
static void test_v1_declared_children(void **state)
{
	struct iolatd *d;

	tree(1, "[group:app/batch/a]\ntarget=max\n");
	d = start();
	drive(d, 3000, 10, 0, false);
	assert_true(limit("app/batch/a", WBPS) > 0);
	assert_int_equal(limit("app/batch", WBPS), 0);
	assert_int_equal(iolatd_stop(d, vnow), 0);
	assert_int_equal(limit("app/batch/a", WBPS), 0);
	iolatd_destroy(d);
}

/* Two writers under app/batch: the budget is divided, re-divided as their use moves. */
static void test_v1_budget_shared_by_use(void **state)
{
	struct iolatd *d;
	uint64_t a1, b1, a2, b2;

	tree(1, "");
	d = start();
	drive(d, 2500, 10, 10, true);
	a1 = limit("app/batch/a", WBPS);
	b1 = limit("app/batch/b", WBPS);
	assert_true(a1 > 0 && b1 > 0);
	/* Both use all they get: equal parts, within a quarter. */
	assert_true(a1 * 4 >= b1 * 3 && b1 * 4 >= a1 * 3);
	/* b nearly stops: a gets most of the budget. */
	drive(d, 1500, 10, 0, true);
	vnow += 0; /* b idle */
	a2 = limit("app/batch/a", WBPS);
	b2 = limit("app/batch/b", WBPS);
	assert_true(a2 > 0);
	assert_true(b2 == 0 || a2 > 2 * b2);
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

/* v2: io.max is hierarchical; the limit goes on app/batch itself. */
static void test_v2_limit_on_the_clamped_parent(void **state)
{
	struct iolatd *d;

	tree(2, "");
	d = start();
	drive(d, 3000, 10, 0, false);
	assert_non_null(strstr(t_fakecg_read(&f, "app/batch", "io.max"), "254:0 rbps=max wbps="));
	assert_string_equal(t_fakecg_read(&f, "app/batch/a", "io.max"), "");
	assert_int_equal(iolatd_stop(d, vnow), 0);
	assert_string_equal(t_fakecg_read(&f, "app/batch", "io.max"),
			    "254:0 rbps=max wbps=max riops=max wiops=max");
	iolatd_destroy(d);
}

/* v2 without io enabled for app/batch (no io.max): one clear line, nothing else changes. */
static void test_v2_io_not_enabled(void **state)
{
	struct iolatd *d;
	char path[1200];

	tree(2, "");
	snprintf(path, sizeof(path), "%s/io.max", t_fakecg_path(&f, "app/batch"));
	assert_int_equal(unlink(path), 0);
	d = start();
	drive(d, 3000, 10, 0, false);
	assert_non_null(strstr(logbuf, "app/batch: cannot write limits: no io.max: the io controller is not "
					"enabled in its parent's cgroup.subtree_control"));
	assert_null(strstr(strstr(logbuf, "no io.max") + 1, "no io.max")); /* once */
	assert_string_equal(t_fakecg_read(&f, "app/main", "io.max"), "");
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_v1_writer_two_levels_down, teardown),
		cmocka_unit_test_teardown(test_v1_declared_children, teardown),
		cmocka_unit_test_teardown(test_v1_budget_shared_by_use, teardown),
		cmocka_unit_test_teardown(test_v2_limit_on_the_clamped_parent, teardown),
		cmocka_unit_test_teardown(test_v2_io_not_enabled, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
