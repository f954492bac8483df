/* SPDX-License-Identifier: MIT */
/*
 * test_units.c - systemd units as iolatd's groups, with a fake systemctl
 * (a script printing canned `systemctl show` output) over a fake v1 tree:
 * [group:web.service] follows system.slice/web.service, also after the unit
 * restarts (a new cgroup inode); db.service's IODeviceLatencyTargetSec= on
 * the controlled disk makes it a protected group with that target; a unit
 * that does not exist and one that does not run are waited for, one line
 * each, shown in status, and strict=1 refuses them; one that starts later
 * is taken within 10 s; an unreadable property changes nothing (a reload is
 * refused, the running resolution kept); with systemctl not answering, a
 * unit's cgroup is found by its name (an ambiguous name is waited for). A
 * target naming the disk by a udev link (/dev/disk/by-id/..., not in
 * iolatd's private /dev) is resolved through udev's database. On cgroup v2
 * with the kernel's own io.latency (the file in the unit's cgroup), units'
 * targets are left to the kernel: said once, unit_targets=kernel in the
 * status. Units' IOWeight= and IODeviceWeight= (on the controlled disk)
 * make weighted groups: IODeviceWeight= over IOWeight= on its disk, a
 * configured group's weight= over both (said), the unit's weights on a
 * configured group that gives none, unset weights ("[not set]", the raw
 * UINT64_MAX of older systemctl) nothing. The parser and the time spans
 * are tested on their own.
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

#include "daemon/control.h"
#include "daemon/sys/cgroupfs.h"
#include "daemon/tree/sdunit.h"
#include "helpers/t_daemon.h"

#define MS 1000000ull

static uint64_t vnow;
static uint64_t vclock_now(void *ctx) { return vnow; }
static const struct iolat_clock vclock = { vclock_now, NULL };

static struct t_fakecg f;
static char run[1100], err[IOLATD_ERR_MAX], sysfs[300], fake[1200], show[1200], devnode[1200];
static char logbuf[16384];
static const char *udev_data; /* iolatd_opts.udev_data of start() */
static char udev_dir[64];     /* a fake udev database, removed by teardown */

static void keep_log(void *ctx, const char *line)
{
	if (strlen(logbuf) + strlen(line) + 2 < sizeof(logbuf)) {
		strcat(logbuf, line);
		strcat(logbuf, "\n");
	}
}

static void write_file(const char *path, const char *text, int mode)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	chmod(path, (mode_t)mode);
}

/* What the fake systemctl prints: web runs, gone is unknown, idle does not run, db has a target. */
static void set_show(const char *idle_cgroup, const char *db_target)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "Id=web.service\nLoadState=loaded\nControlGroup=/system.slice/web.service\n"
		 "IODeviceLatencyTargetUSec=\n\n"
		 "Id=gone.service\nLoadState=not-found\nControlGroup=\n\n"
		 "Id=idle.service\nLoadState=loaded\nControlGroup=%s\n\n"
		 "Id=db.service\nLoadState=loaded\nControlGroup=/system.slice/db.service\n"
		 "IODeviceLatencyTargetUSec=%s\n", idle_cgroup, db_target);
	write_file(show, text, 0644);
}

static int setup_version(int version)
{
	char script[1400];

	t_fakecg_new(&f, version);
	snprintf(sysfs, sizeof(sysfs), "%s", t_fakecg_sysfs_dev(&f, "254:0", false));
	snprintf(run, sizeof(run), "%s/run", f.root);
	assert_int_equal(mkdir(run, 0755), 0);
	t_fakecg_mkdir(&f, "system.slice");
	t_fakecg_mkdir(&f, "system.slice/web.service");
	t_fakecg_mkdir(&f, "system.slice/db.service");
	t_fakecg_mkdir(&f, "system.slice/backup.service");
	snprintf(show, sizeof(show), "%s/show.out", f.root);
	snprintf(fake, sizeof(fake), "%s/systemctl", f.root);
	snprintf(script, sizeof(script), "#!/bin/sh\n[ \"$1\" = show ] || exit 1\ncat '%s'\n", show);
	write_file(fake, script, 0755);
	/* The disk as systemd names it: a block node for 254:0 (root), else its name. */
	snprintf(devnode, sizeof(devnode), "%s/vdz", f.root);
	if (mknod(devnode, S_IFBLK | 0600, makedev(254, 0)))
		snprintf(devnode, sizeof(devnode), "/dev/254:0");
	logbuf[0] = '\0';
	udev_data = NULL;
	vnow = 100 * 1000 * MS;
	return 0;
}

static int setup(void **state)
{
	return setup_version(1);
}

static int setup_v2(void **state)
{
	return setup_version(2);
}

static int teardown(void **state)
{
	char rec[128];

	if (udev_dir[0]) {
		snprintf(rec, sizeof(rec), "%s/b254:0", udev_dir);
		unlink(rec);
		rmdir(udev_dir);
		udev_dir[0] = '\0';
	}
	t_fakecg_free(&f);
	return 0;
}

static int start(const char *groups, struct iolatd **d)
{
	struct iolatd_opts o = t_daemon_opts(run, sysfs, &vclock, keep_log);
	struct iolatd_config cfg;
	char conf[4096];

	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\ncgroup_root=%s\n%s", f.root, groups);
	assert_int_equal(iolatd_config_parse("u.conf", conf, &cfg, err, sizeof(err)), 0);
	o.systemctl = fake;
	o.udev_data = udev_data;
	*d = NULL;
	return iolatd_create(&cfg, &o, d, err, sizeof(err));
}

static bool status_has(const char *text)
{
	return t_run_status_has(run, text);
}

static void seconds(struct iolatd *d, unsigned n)
{
	for (unsigned i = 0; i < n * 10; i++) {
		vnow += 100 * MS;
		iolatd_period(d, vnow);
	}
}

static void test_units_resolved_waited_and_targets(void **state)
{
	struct iolatd *d;
	char target[1300];

	snprintf(target, sizeof(target), "%s 25ms", devnode);
	set_show("", target);
	assert_int_equal(start("[group:web.service]\ntarget=2ms\n[group:gone.service]\ntarget=1ms\n"
			       "[group:idle.service]\ntarget=1ms\n", &d), 0);
	assert_true(status_has("group path=system.slice/web.service dev=254:0 configured=1 unit=web.service target_us=2000 "));
	assert_true(status_has("group path=system.slice/db.service dev=254:0 configured=1 unit=db.service target_us=25000 "));
	assert_true(status_has("group path=system.slice/backup.service dev=254:0 configured=0 "));
	assert_true(status_has("waiting path=gone.service unit=gone.service reason=no_such_unit"));
	assert_true(status_has("waiting path=idle.service unit=idle.service reason=not_running_-no_cgroup-"));
	assert_non_null(strstr(logbuf, "group gone.service: no such unit: waiting for it"));
	assert_non_null(strstr(logbuf, "group idle.service: not running (no cgroup): waiting for it"));

	/* web.service restarts: a new cgroup under the same name is followed. */
	t_fakecg_rmdir(&f, "system.slice/web.service");
	seconds(d, 1);
	assert_false(status_has("group path=system.slice/web.service "));
	t_fakecg_mkdir(&f, "system.slice/web.service");
	seconds(d, 1);
	assert_true(status_has("group path=system.slice/web.service dev=254:0 configured=1 unit=web.service target_us=2000 "));

	/* idle.service starts: taken at the next look at the units (10 s). */
	t_fakecg_mkdir(&f, "system.slice/idle.service");
	set_show("/system.slice/idle.service", target);
	seconds(d, 11);
	assert_true(status_has("group path=system.slice/idle.service dev=254:0 configured=1 unit=idle.service target_us=1000 "));
	assert_false(status_has("waiting path=idle.service"));

	/* An unreadable property: nothing changes. */
	set_show("/system.slice/idle.service", "/dev/vdz soon");
	seconds(d, 11);
	assert_true(status_has("group path=system.slice/db.service dev=254:0 configured=1 unit=db.service target_us=25000 "));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* IODeviceLatencyTargetSec=/dev/disk/by-id/...: no such node in iolatd's /dev; udev's record says which disk. */
static void test_unit_target_by_udev_link(void **state)
{
	char rec[128];
	struct iolatd *d;

	snprintf(udev_dir, sizeof(udev_dir), "/tmp/iolatd-udev-XXXXXX");
	assert_non_null(mkdtemp(udev_dir));
	snprintf(rec, sizeof(rec), "%s/b254:0", udev_dir);
	write_file(rec, "S:disk/by-path/virtio-pci-0000:00:05.0\nS:disk/by-id/virtio-iolatd-test\n", 0644);
	udev_data = udev_dir;
	set_show("", "/dev/disk/by-id/virtio-iolatd-test 25ms");
	assert_int_equal(start("[group:web.service]\ntarget=2ms\n", &d), 0);
	assert_true(status_has("group path=system.slice/db.service dev=254:0 configured=1 unit=db.service target_us=25000 "));
	assert_true(status_has("unit_targets=iolatd"));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);

	/* A link udev does not know: ignored, and said. */
	set_show("", "/dev/disk/by-id/virtio-someone-else 25ms");
	logbuf[0] = '\0';
	assert_int_equal(start("[group:web.service]\ntarget=2ms\n", &d), 0);
	assert_true(status_has("group path=system.slice/db.service dev=254:0 configured=0 "));
	assert_non_null(strstr(logbuf, "db.service: IODeviceLatencyTargetSec=/dev/disk/by-id/virtio-someone-else: "
				       "not a disk iolatd controls: ignored"));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* cgroup v2 with the kernel's io.latency: systemd writes the unit's target there, the kernel acts. */
static void test_kernel_io_latency_keeps_units(void **state)
{
	char target[1300];
	struct iolatd *d;
	const char *said;

	snprintf(target, sizeof(target), "%s 25ms", devnode);
	set_show("", target);
	assert_int_equal(start("[group:web.service]\ntarget=2ms\n", &d), 0);
	assert_true(status_has("group path=system.slice/db.service dev=254:0 configured=1 unit=db.service target_us=25000 "));
	assert_true(status_has("unit_targets=iolatd"));
	assert_null(strstr(logbuf, "the kernel has io.latency"));

	t_fakecg_write(&f, "system.slice/db.service", "io.latency", "");
	seconds(d, 11);
	assert_true(status_has("group path=system.slice/db.service dev=254:0 configured=0 "));
	assert_true(status_has("group path=system.slice/web.service dev=254:0 configured=1 unit=web.service target_us=2000 "));
	assert_true(status_has("unit_targets=kernel"));
	said = strstr(logbuf, "the kernel has io.latency (");
	assert_non_null(said);
	assert_non_null(strstr(said, "system.slice/db.service/io.latency): units' IODeviceLatencyTargetSec= are left to it"));
	seconds(d, 22);
	assert_null(strstr(said + 1, "the kernel has io.latency")); /* one line, not one per look */
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/*
 * Units' weights: db has IOWeight=500 and IODeviceWeight=800 on the disk,
 * web (configured without weight=) IOWeight=200, backup (configured with
 * weight=300) IOWeight=50, batch a weight on another disk only, idle none
 * set (both spellings). Precedence: weight= in the configuration, then the
 * unit's IODeviceWeight= for that disk, then its IOWeight=, then 100.
 */
static void test_unit_weights(void **state)
{
	char text[4096];
	struct iolatd *d;

	t_fakecg_mkdir(&f, "system.slice/batch.service");
	t_fakecg_mkdir(&f, "system.slice/idle.service");
	snprintf(text, sizeof(text),
		 "Id=web.service\nLoadState=loaded\nControlGroup=/system.slice/web.service\nIOWeight=200\n\n"
		 "Id=db.service\nLoadState=loaded\nControlGroup=/system.slice/db.service\nIOWeight=500\n"
		 "IODeviceWeight=%s 800\n\n"
		 "Id=backup.service\nLoadState=loaded\nControlGroup=/system.slice/backup.service\nIOWeight=50\n\n"
		 "Id=batch.service\nLoadState=loaded\nControlGroup=/system.slice/batch.service\n"
		 "IOWeight=[not set]\nIODeviceWeight=/dev/other 300\n\n"
		 "Id=idle.service\nLoadState=loaded\nControlGroup=/system.slice/idle.service\n"
		 "IOWeight=18446744073709551615\nIODeviceWeight=\n", devnode);
	write_file(show, text, 0644);
	assert_int_equal(start("[group:web.service]\ntarget=2ms\n[group:system.slice/backup.service]\nweight=300\n",
			       &d), 0);
	assert_true(status_has("group path=system.slice/web.service dev=254:0 configured=1 unit=web.service target_us=2000 "));
	assert_true(status_has(" weight=200 weight_from=unit "));
	assert_true(status_has("group path=system.slice/db.service dev=254:0 configured=1 unit=db.service target_us=0 "));
	assert_true(status_has(" weight=800 weight_from=unit "));
	assert_true(status_has(" weight=300 weight_from=config "));
	assert_false(status_has(" weight=50 "));
	assert_false(status_has(" weight=500 "));
	assert_non_null(strstr(logbuf, "backup.service: IOWeight=/IODeviceWeight= ignored: the configuration gives its "
				       "cgroup system.slice/backup.service weight=300"));
	assert_non_null(strstr(logbuf, "batch.service: IODeviceWeight=/dev/other: not a disk iolatd controls: ignored"));
	assert_true(status_has("group path=system.slice/batch.service dev=254:0 configured=0 "));
	assert_true(status_has("group path=system.slice/idle.service dev=254:0 configured=0 "));
	assert_true(status_has("weights=iolatd kernel_weights=none"));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);

	/* systemd=0: no unit's weight is read */
	logbuf[0] = '\0';
	assert_int_equal(start("[global]\nsystemd=0\n[group:system.slice/backup.service]\ntarget=1ms\n", &d), 0);
	assert_false(status_has("group path=system.slice/db.service dev=254:0 configured=1 "));
	assert_true(status_has("weights=off kernel_weights=none"));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

static void test_strict_refuses_units_without_cgroup(void **state)
{
	struct iolatd *d;

	set_show("", "");
	assert_int_equal(start("[global]\nstrict=1\n[group:idle.service]\ntarget=1ms\n", &d), -EINVAL);
	assert_non_null(strstr(err, "u.conf: group idle.service: not running (no cgroup) (strict=1"));
	assert_null(d);
}

/* systemctl gives no answer: a unit is found by its cgroup's name, an ambiguous one waited for. */
static void test_units_found_by_name_without_systemd(void **state)
{
	struct iolatd *d;

	write_file(fake, "#!/bin/sh\nexit 1\n", 0755);
	t_fakecg_mkdir(&f, "a.slice");
	t_fakecg_mkdir(&f, "a.slice/db.service");
	assert_int_equal(start("[group:web.service]\ntarget=2ms\n[group:db.service]\ntarget=1ms\n", &d), 0);
	assert_true(status_has("group path=system.slice/web.service dev=254:0 configured=1 unit=web.service target_us=2000 "));
	assert_non_null(strstr(logbuf, "group web.service: systemctl show did not answer: its cgroup "
				       "system.slice/web.service found by name"));
	assert_true(status_has("waiting path=db.service unit=db.service reason="));
	assert_true(status_has("reason=systemd_silent,_several_cgroups_of_that_name"));
	/* The ambiguity resolved: taken at the next look at the units (10 s). */
	t_fakecg_rmdir(&f, "a.slice/db.service");
	seconds(d, 11);
	assert_true(status_has("group path=system.slice/db.service dev=254:0 configured=1 unit=db.service target_us=1000 "));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

static void test_parse_show_and_timespans(void **state)
{
	struct sdunit u[4];
	uint64_t ns;

	assert_int_equal(iolatd_sdunit_parse_show("Id=a.service\nIODeviceLatencyTargetUSec=/dev/sda 1s 500ms\n"
					   "IODeviceLatencyTargetUSec=/dev/sdb 750us\n\nId=b.slice\n", u, 4, err,
					   sizeof(err)), 2);
	assert_int_equal(u[0].nr_targets, 2);
	assert_int_equal(u[0].target[0].ns, 1500000000ull);
	assert_string_equal(u[0].target[1].dev, "/dev/sdb");
	assert_int_equal(u[0].target[1].ns, 750000);
	assert_string_equal(u[1].id, "b.slice");
	assert_int_equal(iolatd_sdunit_parse_show("Id=a.service\nIODeviceLatencyTargetUSec=/dev/sda soon\n", u, 4, err,
					   sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'soon' is not a time span"));
	assert_int_equal(iolatd_sdunit_parse_show("garbage\n", u, 4, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 1: expected KEY=VALUE"));
	assert_int_equal(iolatd_sdunit_parse_timespan("2min 3s", &ns), 0);
	assert_int_equal(ns, 123000000000ull);
	assert_int_equal(iolatd_sdunit_parse_timespan("", &ns), -EINVAL);
	/* each part in the configuration grammar's durations, with its unit */
	assert_int_equal(iolatd_sdunit_parse_timespan("1h 2min 1.5ms", &ns), 0);
	assert_int_equal(ns, 3720001500000ull);
	assert_int_equal(iolatd_sdunit_parse_timespan("5", &ns), -EINVAL);
	assert_int_equal(iolatd_sdunit_parse_timespan("5 ms", &ns), -EINVAL);
	assert_int_equal(iolatd_sdunit_parse_timespan("5parsecs", &ns), -EINVAL);
	assert_true(iolatd_sdunit_is_name("web.service") && iolatd_sdunit_is_name("user-1000.slice"));
	/* weights: unset in both spellings, a number, per device; anything else refused */
	assert_int_equal(iolatd_sdunit_parse_show("Id=a.service\nIOWeight=[not set]\n\nId=b.service\n"
					   "IOWeight=18446744073709551615\n\nId=c.service\nIOWeight=10000\n"
					   "IODeviceWeight=/dev/sda 1\nIODeviceWeight=/dev/disk/by-id/x y 250\n",
					   u, 4, err, sizeof(err)), 3);
	assert_int_equal(u[0].weight, 0);
	assert_int_equal(u[1].weight, 0);
	assert_int_equal(u[2].weight, 10000);
	assert_int_equal(u[2].nr_weights, 2);
	assert_string_equal(u[2].dev_weight[0].dev, "/dev/sda");
	assert_int_equal(u[2].dev_weight[0].weight, 1);
	assert_string_equal(u[2].dev_weight[1].dev, "/dev/disk/by-id/x y");
	assert_int_equal(u[2].dev_weight[1].weight, 250);
	assert_int_equal(iolatd_sdunit_parse_show("Id=a.service\nIOWeight=10001\n", u, 4, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "IOWeight=10001: expected a weight 1..10000 or [not set]"));
	assert_int_equal(iolatd_sdunit_parse_show("Id=a.service\nIOWeight=0\n", u, 4, err, sizeof(err)), -EINVAL);
	assert_int_equal(iolatd_sdunit_parse_show("Id=a.service\nIOWeight=-5\n", u, 4, err, sizeof(err)), -EINVAL);
	assert_int_equal(iolatd_sdunit_parse_show("Id=a.service\nIODeviceWeight=/dev/sda\n", u, 4, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "IODeviceWeight=/dev/sda: expected DEVICE WEIGHT (1..10000)"));
	assert_int_equal(iolatd_sdunit_parse_show("Id=a.service\nIODeviceWeight=/dev/sda 0\n", u, 4, err, sizeof(err)),
			 -EINVAL);
	assert_false(iolatd_sdunit_is_name("system.slice/web.service") || iolatd_sdunit_is_name("web"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_units_resolved_waited_and_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unit_target_by_udev_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_io_latency_keeps_units, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_unit_weights, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strict_refuses_units_without_cgroup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_units_found_by_name_without_systemd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_show_and_timespans, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
