/* SPDX-License-Identifier: MIT */
/*
 * test_control.c - iolatd's controller loop on a virtual clock and a fake v1
 * tree (app/reader with a 1 ms target, app/writer beside it; control=article
 * but where the adaptive mode is named): a reader that
 * misses clamps the writer, whose limits are its allowed depth times its own
 * per-slot throughput (Little's law) and fall on every scale step, below the
 * administrator's own limit, never on the reader; every write is recorded
 * first; stop puts back the administrator's limit and removes the record
 * and the status file; a daemon killed without stop leaves a record that
 * the next start uses to remove its limits; a reload that clears the target
 * releases the writer without losing the controllers; a writer cgroup
 * removed while limited is dropped; a dry run writes nothing; bad device or
 * root refuse to start with one line; a lost BPF measurement removes every
 * limit and writes none until it is back; a second daemon on the same run
 * directory is refused before it touches anything; a configured group
 * without its cgroup is a warning and a "waiting" status (an error with
 * strict=1); a plain directory for cgroup_root, a bio-based or missing
 * device are refused with one line; what the throttle's own counters say
 * each limited or protected group was served over a period is in the
 * status (unknown when they go backwards, one line when they cannot be read);
 * in the adaptive mode, a reader whose submitted bytes do not complete is
 * stalled, not idle: the writer's limit holds; a reader that comes back
 * has the recalled limit written at once, not at the next round;
 * a run directory on a controlled disk is warned about at start.
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
#include "daemon/limits/actuate.h"
#include "daemon/sys/cgroupfs.h"
#include "helpers/t_daemon.h"

#define MS 1000000ull
#define WBPS "blkio.throttle.write_bps_device"
#define WIOPS "blkio.throttle.write_iops_device"
#define ADMIN_WBPS 900000000000ull
#define SLOT_BPS ((1ull << 20) * 1000 / 4) /* 1 MiB per 4 ms */

static uint64_t vnow;
static uint64_t vclock_now(void *ctx) { return vnow; }
static const struct iolat_clock vclock = { vclock_now, NULL };

static struct t_fakecg f;
static char sysfs[300];
static char run[1100], conf[4096], err[IOLATD_ERR_MAX];
static struct iolatd_config cfg;
static unsigned nlogs;

static char logbuf[8192];
static void quiet_log(void *ctx, const char *line)
{
	nlogs++;
	if (strlen(logbuf) + strlen(line) + 2 < sizeof(logbuf)) {
		strcat(logbuf, line);
		strcat(logbuf, "\n");
	}
}

static int setup(void **state)
{
	t_fakecg_new(&f, 1);
	snprintf(sysfs, sizeof(sysfs), "%s", t_fakecg_sysfs_dev(&f, "254:0", false));
	t_fakecg_sysfs_dev(&f, "254:16", false);
	snprintf(run, sizeof(run), "%s/run", f.root);
	assert_int_equal(mkdir(run, 0755), 0);
	t_fakecg_mkdir(&f, "app");
	t_fakecg_mkdir(&f, "app/reader");
	t_fakecg_mkdir(&f, "app/writer");
	t_fakecg_write(&f, "app/writer", WBPS, "254:0 900000000000\n");
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\ncontrol=article\n"
		 "cgroup_root=%s\n[group:app/reader]\ntarget=1ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	vnow = 100 * 1000 * MS;
	nlogs = 0;
	logbuf[0] = '\0';
	return 0;
}

static int teardown(void **state)
{
	t_fakecg_free(&f);
	return 0;
}

static struct iolatd *start(bool dry_run)
{
	struct iolatd_opts o = t_daemon_opts(run, sysfs, &vclock, quiet_log);

	o.dry_run = dry_run;
	return t_daemon_start(&cfg, &o);
}

static uint64_t ino(const char *rel)
{
	return t_daemon_ino(&f, rel);
}

/* @ms of traffic in 10 ms steps: the reader at @reader_lat (0: idle), the writer at 4 ms. */
static void drive(struct iolatd *d, unsigned ms, uint64_t reader_lat)
{
	for (unsigned t = 0; t < ms; t += 10) {
		vnow += 10 * MS;
		for (int i = 0; reader_lat && i < 5; i++)
			iolatd_observe(d, ino("app/reader"), makedev(254, 0), reader_lat, 4096, false, 0, vnow);
		for (int i = 0; i < 10; i++)
			iolatd_observe(d, ino("app/writer"), makedev(254, 0), 4 * MS, 1 << 20, true, 0, vnow);
		iolatd_period(d, vnow);
	}
}

/* The value for 254:0 in @rel's @file; 0 when none. */
static uint64_t limit(const char *rel, const char *file)
{
	const char *s = strstr(t_fakecg_read(&f, rel, file), "254:0 ");

	return s ? strtoull(s + 6, NULL, 10) : 0;
}

/* The writer's "depth=" in the status file (0 for max, written -1), and its use_delay. */
static unsigned status_depth(int *use_delay)
{
	char path[1200], line[2048];
	int depth = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/status", run);
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, "group path=app/writer ")) {
			sscanf(strstr(line, " depth=") + 7, "%d", &depth);
			if (use_delay)
				sscanf(strstr(line, " delay_used=") + 12, "%d", use_delay);
		}
	fclose(fp);
	return depth < 0 ? 0 : (unsigned)depth;
}

static bool record_exists(void)
{
	char path[1200];

	snprintf(path, sizeof(path), "%s/limits", run);
	return access(path, F_OK) == 0;
}

static void test_clamps_writer_by_littles_law(void **state)
{
	struct iolatd *d = start(false);
	uint64_t prev = UINT64_MAX;
	unsigned steps = 0;

	assert_false(record_exists());
	for (int s = 0; s < 40; s++) {
		drive(d, 100, 3 * MS);
		if (limit("app/writer", WBPS) < prev && limit("app/writer", WBPS) < ADMIN_WBPS) {
			prev = limit("app/writer", WBPS);
			steps++;
		}
	}
	/* 4 s of misses, a scale event per 500 ms: at depth 1 and below by now. */
	assert_true(steps >= 6);
	assert_int_equal(status_depth(NULL), 1);
	assert_true(limit("app/writer", WBPS) < SLOT_BPS);
	assert_true(limit("app/writer", WBPS) >= (1 << 20));
	assert_int_equal(limit("app/reader", WBPS), 0);
	assert_string_equal(t_fakecg_read(&f, "app/reader", WIOPS), "");
	assert_true(record_exists());

	assert_int_equal(iolatd_stop(d, vnow), 0);
	assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
	assert_int_equal(limit("app/writer", WIOPS), 0);
	assert_false(record_exists());
	iolatd_destroy(d);
}

static void test_limit_is_depth_times_slot(void **state)
{
	struct iolatd *d = start(false);
	unsigned checked = 0, last = 0;

	/*
	 * The status file is written at whole seconds, with that instant's
	 * decision; a lower limit goes out 60-90 ms later (primed, actuate.h),
	 * rounded up to a multiple of 10; a new kind is opened for 150 ms first.
	 */
	for (int s = 0; s < 8; s++) {
		unsigned depth, iops;
		int use_delay;

		drive(d, 1000, 3 * MS);
		depth = status_depth(&use_delay);
		drive(d, 100, 3 * MS);
		if (!depth || limit("app/writer", WBPS) == ACT_OPEN_BPS)
			continue; /* not clamped yet, or just opened */
		if (use_delay > 0) { /* the step of that second, or the next one's 100 ms later */
			assert_int_equal(depth, 1);
			iops = 250 >> use_delay < 10 ? 10 : 250 >> use_delay;
			unsigned next = 250 >> (use_delay + 1) < 10 ? 10 : 250 >> (use_delay + 1);
			assert_true(limit("app/writer", WIOPS) == (iops + 9) / 10 * 10 ||
				    limit("app/writer", WIOPS) == (next + 9) / 10 * 10);
			continue;
		}
		/* That second's depth, or the next step's (half), 100 ms later. */
		assert_true(limit("app/writer", WIOPS) == depth * 250 || limit("app/writer", WIOPS) == (depth * 125 + 9) / 10 * 10);
		assert_true(limit("app/writer", WBPS) == depth * SLOT_BPS ||
			    limit("app/writer", WBPS) == depth * SLOT_BPS / 2);
		assert_true(!last || depth < last);
		last = depth;
		checked++;
	}
	assert_true(checked >= 3);
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

static void test_restart_after_kill_removes_stale(void **state)
{
	struct iolatd *d = start(false);

	drive(d, 2000, 3 * MS);
	assert_true(limit("app/writer", WIOPS) > 0);
	iolatd_destroy(d); /* killed: nothing removed */
	assert_true(limit("app/writer", WIOPS) > 0);
	assert_true(record_exists());
	d = start(false);
	assert_int_equal(limit("app/writer", WIOPS), 0);
	assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
	assert_false(record_exists());
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

static void test_reload_releases_and_keeps_state(void **state)
{
	struct iolatd *d = start(false);
	struct iolatd_config next;
	struct iolatd_counters c;
	char text[4096];

	drive(d, 2000, 3 * MS);
	assert_true(limit("app/writer", WIOPS) > 0);
	/* A reload changing the device is refused and changes nothing. */
	snprintf(text, sizeof(text), "[global]\ndevice=254:1\ncgroup_root=%s\n[group:app/reader]\ntarget=1ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t2.conf", text, &next, err, sizeof(err)), 0);
	assert_int_equal(iolatd_reload(d, &next, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "restart"));
	/* A looser target on a new group keeps everything; clearing the reader's releases. */
	snprintf(text, sizeof(text), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\ncontrol=article\ncgroup_root=%s\n"
		 "[group:app/reader]\ntarget=max\n[group:app/writer]\ntarget=50ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t3.conf", text, &next, err, sizeof(err)), 0);
	assert_int_equal(iolatd_reload(d, &next, err, sizeof(err)), 0);
	drive(d, 300, 3 * MS);
	assert_int_equal(limit("app/writer", WIOPS), 0);
	assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
	iolatd_counters(d, &c);
	assert_int_equal(c.nodes, 3);
	assert_int_equal(c.limits_active, 0);
	assert_true(c.observed > 0);
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

static void test_writer_removed_while_limited(void **state)
{
	struct iolatd *d = start(false);
	struct iolatd_counters c;

	drive(d, 2000, 3 * MS);
	assert_true(limit("app/writer", WIOPS) > 0);
	t_fakecg_rmdir(&f, "app/writer");
	vnow += 1000 * MS;
	iolatd_period(d, vnow);
	iolatd_counters(d, &c);
	assert_int_equal(c.nodes, 2);
	assert_int_equal(c.limits_active, 0);
	assert_false(record_exists());
	/* Its completions still in flight are not attributed. */
	iolatd_observe(d, 12345, makedev(254, 0), MS, 4096, true, 0, vnow);
	iolatd_counters(d, &c);
	assert_int_equal(c.unattributed, 1);
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

static void test_dry_run_writes_nothing(void **state)
{
	struct iolatd *d = start(true);
	struct iolatd_counters c;

	drive(d, 2000, 3 * MS);
	iolatd_counters(d, &c);
	assert_true(c.limits_active > 0);
	assert_int_equal(limit("app/writer", WIOPS), 0);
	assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
	assert_false(record_exists());
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* Two disks, two controllers: misses on one clamp the writer on that one only. */
static void test_two_disks_independent(void **state)
{
	struct iolatd *d;
	struct iolatd_counters c;
	dev_t devs[4];
	const char *line;

	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0,254:16\nnr_requests=64\nrotational=0\ncontrol=article\n"
		 "cgroup_root=%s\n[group:app/reader]\ntarget=1ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	t_fakecg_write(&f, "app/writer", WBPS, "");
	d = start(false);
	assert_int_equal(iolatd_devices(d, devs, 4), 2);
	for (int t = 0; t < 200; t++) {
		vnow += 10 * MS;
		for (int i = 0; i < 5; i++)
			iolatd_observe(d, ino("app/reader"), makedev(254, 16), 3 * MS, 4096, false, 0, vnow);
		for (int i = 0; i < 10; i++) {
			iolatd_observe(d, ino("app/writer"), makedev(254, 16), 4 * MS, 1 << 20, true, 0, vnow);
			iolatd_observe(d, ino("app/writer"), makedev(254, 0), 4 * MS, 1 << 20, true, 0, vnow);
		}
		/* A disk we do not control is ignored. */
		iolatd_observe(d, ino("app/writer"), makedev(8, 0), 4 * MS, 1 << 20, true, 0, vnow);
		iolatd_period(d, vnow);
	}
	line = t_fakecg_read(&f, "app/writer", WIOPS);
	assert_non_null(strstr(line, "254:16 "));
	assert_null(strstr(line, "254:0 "));
	iolatd_counters(d, &c);
	assert_int_equal(c.limits_active, 1);
	assert_int_equal(c.observed, 200 * 25);
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

/* The same on a cgroup v2 tree: io.max lines, "max" when released. */
static void test_v2_io_max(void **state)
{
	struct iolatd *d;
	const char *line;
	uint64_t wbps = 0;

	t_fakecg_free(&f);
	t_fakecg_new(&f, 2);
	snprintf(sysfs, sizeof(sysfs), "%s", t_fakecg_sysfs_dev(&f, "254:0", false));
	snprintf(run, sizeof(run), "%s/run", f.root);
	assert_int_equal(mkdir(run, 0755), 0);
	t_fakecg_mkdir(&f, "app");
	t_fakecg_mkdir(&f, "app/reader");
	t_fakecg_mkdir(&f, "app/writer");
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\ncontrol=article\n"
		 "cgroup_root=%s\n[group:app/reader]\ntarget=1ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	d = start(false);
	drive(d, 2000, 3 * MS);
	line = t_fakecg_read(&f, "app/writer", "io.max");
	assert_non_null(strstr(line, "254:0 rbps=max wbps="));
	assert_int_equal(sscanf(strstr(line, "wbps=") + 5, "%" SCNu64, &wbps), 1);
	assert_true(wbps > 0 && wbps < 64 * SLOT_BPS);
	assert_non_null(strstr(line, " riops=max wiops="));
	assert_string_equal(t_fakecg_read(&f, "app/reader", "io.max"), "");
	assert_int_equal(iolatd_stop(d, vnow), 0);
	assert_string_equal(t_fakecg_read(&f, "app/writer", "io.max"),
			    "254:0 rbps=max wbps=max riops=max wiops=max");
	iolatd_destroy(d);
}

/* The status file's "source=" word for the BPF measurement ("ok" or "lost"). */
static bool status_says(const char *word)
{
	char path[1200];
	FILE *fp;
	char line[2048];
	bool found = false;

	snprintf(path, sizeof(path), "%s/status", run);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp))
		found |= strstr(line, word) != NULL;
	fclose(fp);
	return found;
}

/* Measurement lost while the writer is clamped: every limit goes at once
 * (the administrator's is back), none is written while it stays lost, the
 * status says so; when it is back, misses clamp the writer again. */
static void test_measurement_lost_and_back(void **state)
{
	struct iolatd *d = start(false);

	drive(d, 5000, 3 * MS);
	assert_true(limit("app/writer", WBPS) < SLOT_BPS);
	assert_true(status_says("source=ok"));

	assert_int_equal(iolatd_source_lost(d, vnow), 0);
	assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
	assert_int_equal(limit("app/writer", WIOPS), 0);
	assert_true(status_says("source=lost"));
	for (int i = 0; i < 300; i++) {        /* 3 s without measurements */
		vnow += 10 * MS;
		iolatd_period(d, vnow);
		assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
		assert_int_equal(limit("app/writer", WIOPS), 0);
	}
	assert_true(status_says("source=lost"));
	assert_false(record_exists());

	iolatd_set_source_lost(d, false);
	drive(d, 5000, 3 * MS);
	assert_true(limit("app/writer", WBPS) < SLOT_BPS);
	assert_true(status_says("source=ok"));
	assert_int_equal(iolatd_stop(d, vnow), 0);
	assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
	iolatd_destroy(d);
}

static void test_refuses_bad_device_or_root(void **state)
{
	struct iolatd_opts o = { .run_dir = run, .clock = &vclock, .log = quiet_log,
				 .allow_plain_root = true,
				 .sysfs_root = sysfs };
	struct iolatd *d = NULL;

	snprintf(cfg.devices[0], sizeof(cfg.devices[0]), "no-such-disk");
	assert_int_equal(iolatd_create(&cfg, &o, &d, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "device 'no-such-disk'"));
	snprintf(cfg.devices[0], sizeof(cfg.devices[0]), "254:0");
	assert_true(strlen(f.root) + 6 < sizeof(cfg.cgroup_root));
	strcpy(cfg.cgroup_root, f.root);
	strcat(cfg.cgroup_root, "/nope");
	assert_int_equal(iolatd_create(&cfg, &o, &d, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "nope"));
	o.run_dir = "/nonexistent/run";
	assert_int_equal(iolatd_create(&cfg, &o, &d, err, sizeof(err)), -ENOENT);
	assert_null(d);
}

/* A second daemon on the same run dir is refused before it touches anything. */
static void test_second_instance_refused(void **state)
{
	struct iolatd_opts o = { .run_dir = run, .clock = &vclock, .log = quiet_log, .allow_plain_root = true,
				 .sysfs_root = sysfs };
	struct iolatd *d = start(false), *d2 = NULL;
	uint64_t before;

	drive(d, 2000, 3 * MS);
	before = limit("app/writer", WIOPS);
	assert_true(before > 0);
	assert_int_equal(iolatd_create(&cfg, &o, &d2, err, sizeof(err)), -EBUSY);
	assert_null(d2);
	assert_non_null(strstr(err, "in use by iolatd pid"));
	assert_non_null(strstr(err, "/lock"));
	/* The first one's limit and record are untouched. */
	assert_int_equal(limit("app/writer", WIOPS), before);
	assert_true(record_exists());
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
	/* Once it is gone, a start takes the run dir. */
	assert_int_equal(iolatd_create(&cfg, &o, &d2, err, sizeof(err)), 0);
	iolatd_stop(d2, vnow);
	iolatd_destroy(d2);
}

static bool status_has(const char *text)
{
	return t_run_status_has(run, text);
}

/* A configured group without its cgroup: a warning naming the file and line, "waiting" in status. */
static void test_missing_group_warns_then_found(void **state)
{
	struct iolatd *d;

	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\ncgroup_root=%s\n[group:app/reader]\ntarget=1ms\n"
		 "[group:app/mian]\ntarget=2ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	d = start(false);
	assert_non_null(strstr(logbuf, "t.conf:6: group app/mian: no cgroup "));
	assert_non_null(strstr(logbuf, "waiting for it to appear"));
	assert_true(status_has("waiting path=app/mian"));
	t_fakecg_mkdir(&f, "app/mian");
	vnow += 1000 * MS;
	iolatd_period(d, vnow);
	assert_non_null(strstr(logbuf, "group app/mian: cgroup "));
	assert_false(status_has("waiting path=app/mian"));
	assert_true(status_has("group path=app/mian "));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* What protects nothing is refused at start, with one line, before anything is touched. */
static void test_silent_configs_refused(void **state)
{
	struct iolatd_opts o = { .run_dir = run, .clock = &vclock, .log = quiet_log, .sysfs_root = sysfs };
	struct iolatd *d = NULL;

	/* strict=1 and a misspelt group */
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nstrict=1\ncgroup_root=%s\n[group:app/mian]\n"
		 "target=1ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	o.allow_plain_root = true;
	assert_int_equal(iolatd_create(&cfg, &o, &d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:5: group app/mian: no cgroup "));
	assert_non_null(strstr(err, "strict=1"));
	/* a plain directory for cgroup_root */
	cfg.strict = false;
	o.allow_plain_root = false;
	assert_int_equal(iolatd_create(&cfg, &o, &d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a cgroup filesystem"));
	/* a bio-based device, and one that does not exist */
	o.allow_plain_root = true;
	t_fakecg_sysfs_dev(&f, "251:0", true);
	snprintf(cfg.devices[0], sizeof(cfg.devices[0]), "251:0");
	assert_int_equal(iolatd_create(&cfg, &o, &d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "device '251:0': bio-based"));
	snprintf(cfg.devices[0], sizeof(cfg.devices[0]), "254:99");
	assert_int_equal(iolatd_create(&cfg, &o, &d, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "device '254:99': no such block device"));
	assert_null(d);
	assert_false(record_exists());
}

/*
 * @ms in 10 ms steps: the reader at @reader_lat; the writer does what its
 * write limit lets through (10 x 1 MiB a step while it has none), each
 * write taking 4 ms; @other_mib MiB a step from a cgroup outside the tree.
 */
static void drive_obeying(struct iolatd *d, unsigned ms, uint64_t reader_lat, unsigned other_mib)
{
	static double credit;

	for (unsigned t = 0; t < ms; t += 10) {
		uint64_t lim = limit("app/writer", WBPS);

		vnow += 10 * MS;
		for (int i = 0; i < 5; i++)
			iolatd_observe(d, ino("app/reader"), makedev(254, 0), reader_lat, 4096, false, 0, vnow);
		credit = lim && lim < ADMIN_WBPS ? credit + (double)lim / 100 : 10.0 * (1 << 20);
		for (; credit >= (1 << 20); credit -= 1 << 20)
			iolatd_observe(d, ino("app/writer"), makedev(254, 0), 4 * MS, 1 << 20, true, 0, vnow);
		for (unsigned i = 0; i < other_mib; i++)
			iolatd_observe(d, 999999999, makedev(254, 0), 4 * MS, 1 << 20, true, 0, vnow);
		iolatd_period(d, vnow);
	}
}

/*
 * Issue 20, defect 4: a run in which the writer's limit had no effect (it
 * kept writing 1000 MiB/s under it) while the reader missed for 30 s used
 * to leave use_delay so high that, once the writer did obey its limit and
 * the reader was fine, the writer stayed at the 1 MiB/s floor for more than
 * 20 s. The limit that does not hold is reported (status holds=0, a log
 * line), and the writer is let back up within 3 s.
 */
static void test_no_starvation_after_ineffective_limit(void **state)
{
	struct iolatd *d = start(false);
	uint64_t floor = 1 << 20, back = 0;

	drive(d, 30000, 3 * MS); /* ignores its limits */
	assert_non_null(strstr(logbuf, "app/writer 254:0: the limit does not hold"));
	assert_true(status_has("group path=app/writer dev=254:0 ") && status_has(" holds=0 "));
	for (unsigned ms = 0; ms < 10000 && !back; ms += 100) {
		drive_obeying(d, 100, 200000, 0);
		if (limit("app/writer", WBPS) == ADMIN_WBPS || limit("app/writer", WBPS) > 8 * floor)
			back = ms + 100;
	}
	assert_true(back > 0 && back <= 3000);
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/*
 * The reader misses because of I/O from a cgroup outside the configured
 * tree while the writer sits at the floor doing next to nothing: not the
 * writer's doing. Said in the log and the status; the writer's use_delay
 * acted on stops growing once at the floor.
 */
static void test_misses_from_elsewhere(void **state)
{
	struct iolatd *d = start(false);
	char line[64];
	int delay1 = -1, delay2 = -1;

	drive_obeying(d, 10000, 3 * MS, 0); /* the writer clamped down to the floor */
	assert_int_equal(limit("app/writer", WBPS), ((1 << 20) + 9) / 10 * 10); /* a multiple of 10 */
	drive_obeying(d, 3000, 3 * MS, 20); /* now another tenant writes; the writer barely moves */
	assert_non_null(strstr(logbuf, "app/reader 254:0: missing its target while the groups clamped"));
	assert_true(status_has("group path=app/reader dev=254:0 ") && status_has(" misses_from_elsewhere=1 "));
	status_depth(&delay1);
	drive_obeying(d, 5000, 3 * MS, 20);
	status_depth(&delay2);
	assert_true(delay1 >= 0 && delay2 == delay1);
	snprintf(line, sizeof(line), "%" PRIu64, limit("app/writer", WBPS));
	assert_string_equal(line, "1048580"); /* the floor, rounded up to a multiple of 10 */
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/*
 * control=adaptive: the core's rate, split by direction. The writer alone
 * does ~1 GiB/s of writes: its first limit is 0.9 x that, on writes only;
 * the reader keeps missing whatever the writer is held to (the fake tree
 * obeys no limit), so futility stops the lowering once it spanned a halving
 * (a plateau is narrower): the limit comes back to the first level and holds
 * still. When the reader goes idle, it is lifted.
 */
static void test_adaptive_rate(void **state)
{
	struct iolatd *d;
	uint64_t first = 0, lowest = UINT64_MAX, last = 0;
	unsigned changes = 0;

	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\n"
		 "control=adaptive\ncgroup_root=%s\n[group:app/reader]\ntarget=1ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	d = start(false);
	for (int s = 0; s < 60; s++) {
		uint64_t w;

		drive(d, 100, 3 * MS);
		w = limit("app/writer", WBPS);
		/* Opened (ACT_OPEN_BPS), and the halves down from the first want: not the mode's yet. */
		if (w == ADMIN_WBPS || !w || (!first && w >= (1ull << 31)))
			continue;
		if (!first)
			first = w;
		if (w != last)
			changes++;
		last = w;
		if (w < lowest)
			lowest = w;
	}
	print_message("adaptive: first %" PRIu64 ", lowest %" PRIu64 ", last %" PRIu64 ", %u values\n",
		      first, lowest, last, changes);
	assert_true(first > (1ull << 30) * 8 / 10 && first < (1ull << 30) * 95 / 100);
	assert_true(lowest >= first / 4);       /* futility: lowering stopped after a halving */
	assert_int_equal(last, first);          /* ... and back to the first level */
	assert_true(changes <= 10);             /* held still, not rewritten every period */
	/* 1 MiB writes: the bytes bind; an IOPS limit would count the requests, not the bios */
	assert_int_equal(limit("app/writer", WIOPS), 0);
	assert_int_equal(limit("app/writer", "blkio.throttle.read_bps_device"), 0); /* writes only */
	drive(d, 2500, 0);                      /* the reader goes idle */
	assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

/*
 * control=adaptive, a reader that comes back: its episode ended (idle), the
 * writer runs unlimited; the reader's first late reads recall the last
 * episode's rate, and that limit is written by the same call, not at the
 * next 100 ms round (a round has just gone when the reader comes back).
 * Written at once: a kernel whose throttle needs no priming.
 */
static void test_adaptive_recall_written_at_once(void **state)
{
	struct iolatd_opts o = t_daemon_opts(run, sysfs, &vclock, quiet_log);
	struct iolatd *d;
	unsigned steps = 0;

	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\n"
		 "control=adaptive\ncgroup_root=%s\n[group:app/reader]\ntarget=1ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	o.direct_limits = true; /* a kernel whose throttle needs no priming (this project's disk) */
	d = t_daemon_start(&cfg, &o);
	drive(d, 3000, 3 * MS);
	assert_true(limit("app/writer", WBPS) < ADMIN_WBPS);
	drive(d, 2500, 0);                      /* idle: the episode ends, the writer runs free */
	assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
	while (limit("app/writer", WBPS) == ADMIN_WBPS && steps < 30) {
		drive(d, 10, 3 * MS);           /* back, every read late */
		steps++;
	}
	print_message("recall written after %u ms\n", steps * 10);
	assert_true(steps <= 2);
	assert_true(limit("app/writer", WBPS) < (1ull << 30));
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

/* The status field @key of group @rel, or -1. */
static long long status_num(const char *rel, const char *key)
{
	char path[1200], line[4096], pat[256];
	long long v = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/status", run);
	snprintf(pat, sizeof(pat), "group path=%s ", rel);
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		char k[64], *at;

		snprintf(k, sizeof(k), " %s=", key);
		if (strstr(line, pat) && (at = strstr(line, k)))
			v = strtoll(at + strlen(k), NULL, 10);
	}
	fclose(fp);
	return v;
}

/* @ms in 10 ms steps with the reader missing; the throttle's counters grow by @w (writer) and @r (reader) a step. */
static void drive_served(struct iolatd *d, unsigned ms, uint64_t *wbytes, uint64_t w, uint64_t *rbytes, uint64_t r)
{
	for (unsigned t = 0; t < ms; t += 10) {
		*wbytes += w;
		*rbytes += r;
		t_fakecg_set_served(&f, "app/writer", "254:0", 0, *wbytes, 0, *wbytes >> 20);
		t_fakecg_set_served(&f, "app/reader", "254:0", *rbytes, 0, *rbytes >> 12, 0);
		t_fakecg_set_served(&f, "app", "254:0", *rbytes, *wbytes, 0, 0);
		drive(d, 10, 3 * MS);
	}
}

static void test_served_from_throttle_counters(void **state)
{
	struct iolatd *d = start(false);
	uint64_t wb = 0, rb = 0;

	/* Limited within 2 s; then 5 MB per 10 ms written (500 MB/s), 20 KiB read (2 048 000 B/s). */
	drive_served(d, 2000, &wb, 5000000, &rb, 20480);
	assert_true(limit("app/writer", WBPS) < ADMIN_WBPS);
	drive_served(d, 1000, &wb, 5000000, &rb, 20480);
	assert_int_equal(status_num("app/writer", "served_wbps"), 500000000);
	assert_int_equal(status_num("app/writer", "served_rbps"), 0);
	assert_int_equal(status_num("app/reader", "served_rbps"), 2048000);
	/* Neither limited nor protected: not read. */
	assert_int_equal(status_num("app", "served_wbps"), 0);
	/* Counters that go backwards (the cgroup's stats reset): unknown for a round, then right again. */
	wb = 0;
	drive_served(d, 990, &wb, 5000000, &rb, 20480);
	assert_int_equal(status_num("app/writer", "served_wbps"), 500000000);
	wb = 7; /* a reset just before the round at the next whole second */
	drive_served(d, 10, &wb, 0, &rb, 20480);
	assert_int_equal(status_num("app/writer", "served_wbps"), 0);
	/* A file that cannot be read: one line, unknown, and no crash. */
	assert_int_equal(unlink(t_fakecg_path(&f, "app/writer/blkio.throttle.io_serviced_recursive")), 0);
	drive(d, 2000, 3 * MS);
	assert_non_null(strstr(logbuf, "app/writer 254:0: cannot read what the throttle served it"));
	assert_null(strstr(strstr(logbuf, "cannot read what the throttle") + 10, "cannot read what the throttle"));
	assert_int_equal(status_num("app/writer", "served_wbps"), 0);
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

/* One 10 ms step of the adaptive stall tests: the writer writes 5 MB (and its
 * counters say so) in 10 requests when @disk_serves, nothing otherwise (the
 * whole disk stalls); the reader completes @reads 4 KiB reads at 3 ms and its
 * counters say @rb bytes were submitted. */
static void disk_step(struct iolatd *d, uint64_t *wb, uint64_t rb, unsigned reads, bool disk_serves)
{
	*wb += disk_serves ? 5000000 : 0;
	t_fakecg_set_served(&f, "app/writer", "254:0", 0, *wb, 0, *wb >> 20);
	t_fakecg_set_served(&f, "app/reader", "254:0", rb, 0, rb >> 12, 0);
	t_fakecg_set_served(&f, "app", "254:0", rb, *wb, 0, 0);
	vnow += 10 * MS;
	for (unsigned i = 0; i < reads; i++)
		iolatd_observe(d, ino("app/reader"), makedev(254, 0), 3 * MS, 4096, false, 0, vnow);
	for (int i = 0; i < 10 && disk_serves; i++)
		iolatd_observe(d, ino("app/writer"), makedev(254, 0), 4 * MS, 1 << 20, true, 0, vnow);
	iolatd_period(d, vnow);
}

static void stall_step(struct iolatd *d, uint64_t *wb, uint64_t rb, unsigned reads)
{
	disk_step(d, wb, rb, reads, true);
}

/* control=adaptive, app/reader protected: 3 s of it missing, the writer limited. */
static struct iolatd *start_stall_test(uint64_t *wb, uint64_t *rb)
{
	struct iolatd *d;

	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\n"
		 "control=adaptive\ncgroup_root=%s\n[group:app/reader]\ntarget=1ms\n", f.root);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	d = start(false);
	for (int t = 0; t < 300; t++) {
		*rb += 5 * 4096;
		stall_step(d, wb, *rb, 5);
	}
	assert_true(limit("app/writer", WBPS) < ADMIN_WBPS);
	return d;
}

/*
 * control=adaptive, a reader stalled behind the writer: its counters say 8 KiB
 * were submitted, BPF sees nothing of it complete for 0.3 s while the
 * writer completes, then 1.5 s in which the whole disk completes nothing.
 * That is a stall, not idleness: the writer's limit stays, the status says 2
 * requests outstanding and the reader's windows closed by the stall. Once the
 * reads complete and the reader goes quiet, the limit is lifted as before.
 */
static void test_adaptive_stalled_reader(void **state)
{
	uint64_t wb = 0, rb = 0;
	struct iolatd *d = start_stall_test(&wb, &rb);

	assert_int_equal(status_num("app/reader", "inflight"), 0);
	rb += 2 * 4096; /* two reads submitted that do not complete */
	for (int t = 0; t < 30; t++) {
		stall_step(d, &wb, rb, 0);
		assert_true(limit("app/writer", WBPS) < ADMIN_WBPS);
	}
	for (int t = 0; t < 150; t++) {
		disk_step(d, &wb, rb, 0, false);
		assert_true(limit("app/writer", WBPS) < ADMIN_WBPS);
	}
	iolatd_write_status(d, vnow);
	assert_int_equal(status_num("app/reader", "inflight"), 2);
	assert_int_equal(status_num("app/reader", "inflight_stale"), 0);
	assert_true(status_num("app/reader", "stalled_windows") >= 1);
	stall_step(d, &wb, rb, 2); /* they complete; then the reader is quiet */
	for (int t = 0; t < 300; t++)
		stall_step(d, &wb, rb, 0);
	iolatd_write_status(d, vnow);
	assert_int_equal(status_num("app/reader", "inflight"), 0);
	assert_int_equal(limit("app/writer", WBPS), ADMIN_WBPS);
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

/*
 * control=adaptive, a count that outlives its I/O: the reader's counters say
 * two reads more than BPF ever sees complete, and the reader goes quiet. The
 * count stands still while the writer completes: after 0.5 s it is stale, set
 * to 0 (inflight_stale=1), and the reader is idle, not stalled: the writer's
 * limit is lifted. Before the fix it was held (and cut) for as long as the
 * offset lasted.
 */
static void test_adaptive_stale_count(void **state)
{
	uint64_t wb = 0, rb = 0;
	struct iolatd *d = start_stall_test(&wb, &rb);
	int lifted_at = -1;

	rb += 2 * 4096; /* submitted; their completions never reach iolatd */
	for (int t = 0; t < 40; t++)
		stall_step(d, &wb, rb, 0);
	iolatd_write_status(d, vnow);
	assert_int_equal(status_num("app/reader", "inflight"), 2); /* 0.4 s: believed */
	assert_true(limit("app/writer", WBPS) < ADMIN_WBPS);
	for (int t = 40; t < 300 && lifted_at < 0; t++) {
		stall_step(d, &wb, rb, 0);
		if (limit("app/writer", WBPS) == ADMIN_WBPS)
			lifted_at = t;
	}
	iolatd_write_status(d, vnow);
	assert_int_equal(status_num("app/reader", "inflight"), 0);
	assert_int_equal(status_num("app/reader", "inflight_stale"), 1);
	assert_true(lifted_at > 0 && lifted_at < 250); /* within 2.5 s of going quiet */
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

/* Start on @dev ("MAJ:MIN") with the usual groups; the start-up log in logbuf. */
static void start_on(const char *dev)
{
	struct iolatd *d;

	snprintf(conf, sizeof(conf), "[global]\ndevice=%s\nrotational=0\ncontrol=article\ncgroup_root=%s\n"
		 "[group:app/reader]\ntarget=1ms\n", dev, f.root);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	logbuf[0] = '\0';
	d = start(false);
	assert_int_equal(iolatd_stop(d, vnow), 0);
	iolatd_destroy(d);
}

static void test_run_dir_on_controlled_disk(void **state)
{
	struct stat st;
	char dev[32], line[96];

	assert_int_equal(stat(run, &st), 0);
	snprintf(dev, sizeof(dev), "%u:%u", major(st.st_dev), minor(st.st_dev));
	if (strcmp(dev, "254:0") && strcmp(dev, "254:16"))
		t_fakecg_sysfs_dev(&f, dev, false);
	snprintf(line, sizeof(line), "is on %s, a disk this daemon controls", dev);
	start_on(dev);
	assert_non_null(strstr(logbuf, line));
	assert_non_null(strstr(logbuf, "put it on a tmpfs"));
	start_on(strcmp(dev, "254:16") ? "254:16" : "254:0");
	assert_null(strstr(logbuf, "a disk this daemon controls"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clamps_writer_by_littles_law, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limit_is_depth_times_slot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_after_kill_removes_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload_releases_and_keeps_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_removed_while_limited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_disks_independent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_io_max, setup, teardown),
		cmocka_unit_test_setup_teardown(test_measurement_lost_and_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_bad_device_or_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_instance_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_group_warns_then_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_configs_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_starvation_after_ineffective_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_misses_from_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adaptive_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adaptive_recall_written_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_served_from_throttle_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adaptive_stalled_reader, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adaptive_stale_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_dir_on_controlled_disk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
