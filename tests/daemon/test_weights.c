/* SPDX-License-Identifier: MIT */
/*
 * test_weights.c - iolatd's weights on a virtual clock over fake cgroup and
 * sysfs trees: where the kernel's own weights are in force on the disk (the
 * BFQ scheduler in queue/scheduler, on v1 and v2; io.cost enabled for the
 * disk in the v2 root's io.cost.qos) iolatd stands aside - said once in the
 * log, weights=kernel and kernel_weights= in the status - and acts again
 * when they go (said too); io.cost enabled for another disk, or disabled,
 * is not in force; without weights configured nothing is said;
 * --check-config warns of it (a warning: iolatd would start).
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
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

#include "daemon/cgroupfs.h"
#include "daemon/checkconf.h"
#include "daemon/control.h"
#include "daemon/kweights.h"
#include "helpers/t_daemon.h"

#define MS 1000000ull

static uint64_t vnow;
static uint64_t vclock_now(void *ctx) { return vnow; }
static const struct iolat_clock vclock = { vclock_now, NULL };

static struct t_fakecg f;
static char sysfs[300], run[1100], err[IOLATD_ERR_MAX];
static char logbuf[16384];

static void keep_log(void *ctx, const char *line)
{
	if (strlen(logbuf) + strlen(line) + 2 < sizeof(logbuf)) {
		strcat(logbuf, line);
		strcat(logbuf, "\n");
	}
}

static int setup_version(int version)
{
	char q[400];

	t_fakecg_new(&f, version);
	snprintf(sysfs, sizeof(sysfs), "%s", t_fakecg_sysfs_dev(&f, "254:0", false));
	snprintf(q, sizeof(q), "%s/dev/block/254:0/queue", sysfs);
	assert_int_equal(mkdir(q, 0755), 0);
	snprintf(run, sizeof(run), "%s/run", f.root);
	assert_int_equal(mkdir(run, 0755), 0);
	t_fakecg_mkdir(&f, "app");
	t_fakecg_mkdir(&f, "app/a");
	t_fakecg_mkdir(&f, "app/b");
	logbuf[0] = '\0';
	vnow = 100 * 1000 * MS;
	return 0;
}

static int setup_v1(void **state)
{
	return setup_version(1);
}

static int setup_v2(void **state)
{
	return setup_version(2);
}

static int teardown(void **state)
{
	t_fakecg_free(&f);
	return 0;
}

static void set_scheduler(const char *line)
{
	char p[400];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/dev/block/254:0/queue/scheduler", sysfs);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fprintf(fp, "%s\n", line);
	fclose(fp);
}

static struct iolatd *start(const char *groups)
{
	struct iolatd_opts o = t_daemon_opts(run, sysfs, &vclock, keep_log);
	struct iolatd_config cfg;
	char conf[4096];

	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\nsystemd=0\n"
		 "cgroup_root=%s\n%s", f.root, groups);
	assert_int_equal(iolatd_config_parse("w.conf", conf, &cfg, err, sizeof(err)), 0);
	return t_daemon_start(&cfg, &o);
}

static void seconds(struct iolatd *d, unsigned n)
{
	for (unsigned i = 0; i < n * 10; i++) {
		vnow += 100 * MS;
		iolatd_period(d, vnow);
	}
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static bool status_has(const char *text)
{
	return t_run_status_has(run, text);
}

static const char *const WEIGHTED = "[group:app/a]\nweight=300\n[group:app/b]\nweight=100\n";
static const char *const STANDS_ASIDE = "disk 254:0 (254:0): the kernel's own weights are in force (";

/* BFQ on the disk: iolatd stands aside, said once; the scheduler switched away: it acts again, said. */
static void test_bfq_stands_aside(void **state)
{
	struct iolatd *d;

	set_scheduler("mq-deadline kyber [bfq] none");
	d = start(WEIGHTED);
	assert_true(status_has("weights=kernel kernel_weights=bfq"));
	assert_non_null(strstr(logbuf, "disk 254:0 (254:0): the kernel's own weights are in force (its scheduler is "
				       "bfq): iolatd stands aside and writes no weight budget there"));
	seconds(d, 5);
	assert_int_equal(count(logbuf, STANDS_ASIDE), 1);   /* once, not once a second */

	set_scheduler("[mq-deadline] kyber bfq none");
	seconds(d, 1);
	assert_true(status_has("weights=iolatd kernel_weights=none"));
	assert_non_null(strstr(logbuf, "disk 254:0 (254:0): the kernel's own weights are no longer in force: "
				       "iolatd's weights act on it again"));
	set_scheduler("mq-deadline kyber [bfq] none");   /* back: said again */
	seconds(d, 1);
	assert_int_equal(count(logbuf, STANDS_ASIDE), 2);
	assert_true(status_has("weights=kernel kernel_weights=bfq"));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* No weight configured: the kernel's weights are shown (weights=kernel: theirs on this disk), nothing said. */
static void test_no_weights_nothing_said(void **state)
{
	struct iolatd *d;

	set_scheduler("mq-deadline kyber [bfq] none");
	d = start("[group:app/a]\ntarget=1ms\n");
	seconds(d, 2);
	assert_true(status_has("weights=kernel kernel_weights=bfq"));
	assert_null(strstr(logbuf, "the kernel's own weights"));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* io.cost (v2): enabled for this disk in the root's io.cost.qos; another disk's or enable=0 is not. */
static void test_iocost_stands_aside(void **state)
{
	struct iolatd *d;

	t_fakecg_write(&f, "", "io.cost.qos", "8:0 enable=1 ctrl=auto rpct=95.00 rlat=10000 wpct=95.00 "
		       "wlat=20000 min=50.00 max=150.00\n254:0 enable=0 ctrl=auto rpct=0.00 rlat=250000 "
		       "wpct=0.00 wlat=250000 min=1.00 max=10000.00\n");
	set_scheduler("[none] mq-deadline");
	d = start(WEIGHTED);
	assert_true(status_has("weights=iolatd kernel_weights=none"));
	assert_null(strstr(logbuf, STANDS_ASIDE));

	t_fakecg_write(&f, "", "io.cost.qos", "8:0 enable=1 ctrl=auto\n254:0 enable=1 ctrl=user rpct=95.00 "
		       "rlat=5000 wpct=95.00 wlat=5000 min=50.00 max=150.00\n");
	seconds(d, 1);
	assert_true(status_has("weights=kernel kernel_weights=iocost"));
	assert_non_null(strstr(logbuf, "(io.cost is enabled for it in io.cost.qos): iolatd stands aside"));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* The detector alone: v1 has no io.cost; a missing scheduler file is no BFQ. */
static void test_detector(void **state)
{
	struct cgfs_root r1 = { .version = 1 }, r2 = { .version = 2 };

	snprintf(r1.path, sizeof(r1.path), "%s", f.root);
	snprintf(r2.path, sizeof(r2.path), "%s", f.root);
	t_fakecg_write(&f, "", "io.cost.qos", "254:0 enable=1\n");
	assert_int_equal(iolatd_kweights_of(sysfs, &r2, makedev(254, 0)), KWEIGHTS_IOCOST);
	assert_int_equal(iolatd_kweights_of(sysfs, &r1, makedev(254, 0)), KWEIGHTS_NONE);
	assert_int_equal(iolatd_kweights_of(sysfs, &r2, makedev(254, 1)), KWEIGHTS_NONE);
	t_fakecg_write(&f, "", "io.cost.qos", "254:01 enable=1\n2254:0 enable=1\n");
	assert_int_equal(iolatd_kweights_of(sysfs, &r2, makedev(254, 0)), KWEIGHTS_NONE);
	set_scheduler("bfq [mq-deadline]");
	assert_int_equal(iolatd_kweights_of(sysfs, &r1, makedev(254, 0)), KWEIGHTS_NONE);
	set_scheduler("[bfq] mq-deadline");
	assert_int_equal(iolatd_kweights_of(sysfs, &r1, makedev(254, 0)), KWEIGHTS_BFQ);
	assert_string_equal(iolatd_kweights_name(KWEIGHTS_IOCOST), "iocost");
}

static char reported[4096];
static void keep_report(void *ctx, int priority, const char *line)
{
	if (strlen(reported) + strlen(line) + 2 < sizeof(reported)) {
		strcat(reported, line);
		strcat(reported, "\n");
	}
}

/* --check-config: weights given on a disk with the kernel's own in force is a warning (not an error). */
static void test_check_config_warns(void **state)
{
	struct iolatd_check_env env = { .sysfs_root = sysfs, .allow_plain_root = true, .report = keep_report };
	struct iolatd_config cfg;
	char conf[2048];

	t_fakecg_write(&f, "", "io.cost.qos", "254:0 enable=1 ctrl=auto\n");
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nsystemd=0\ncgroup_root=%s\n%s", f.root, WEIGHTED);
	assert_int_equal(iolatd_config_parse("w.conf", conf, &cfg, err, sizeof(err)), 0);
	reported[0] = '\0';
	assert_int_equal(iolatd_check_config(&cfg, &env), 0);
	/* (the fake tree's groups have no io controller: warned about too) */
	assert_non_null(strstr(reported, "\nw.conf:5: warning: device '254:0': the kernel's own weights are in force "
				 "(io.cost is enabled for it in io.cost.qos): iolatd stands aside there and writes no "
				 "weight budget (weight= is the kernel's to enforce on it; targets still act)\n"));
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nsystemd=0\ncgroup_root=%s\n[group:app/a]\ntarget=1ms\n",
		 f.root);
	assert_int_equal(iolatd_config_parse("w.conf", conf, &cfg, err, sizeof(err)), 0);
	reported[0] = '\0';
	assert_int_equal(iolatd_check_config(&cfg, &env), 0);
	assert_null(strstr(reported, "the kernel's own weights"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bfq_stands_aside, setup_v1, teardown),
		cmocka_unit_test_setup_teardown(test_bfq_stands_aside, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_no_weights_nothing_said, setup_v1, teardown),
		cmocka_unit_test_setup_teardown(test_iocost_stands_aside, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_detector, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_check_config_warns, setup_v2, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
