/* SPDX-License-Identifier: MIT */
/*
 * test_prom.c - iolatd's metrics on a virtual clock and a fake v1 tree
 * (app/reader with a 1 ms target that misses, app/writer beside it doing
 * I/O and so clamped, app/idle beside them doing nothing):
 * - a 60 s scrape loses nothing: between two scrapes 60 s apart, the
 *   counters (requests and bytes by direction, the histogram's count, sum
 *   and buckets, windows, time limited, unattributed bytes) grew by exactly
 *   what was fed, though the daemon's own "last second" figures only ever
 *   cover one second;
 * - the histogram is cumulative, ends with +Inf equal to _count, and puts a
 *   latency on a bucket's edge in that bucket (le is "less or equal");
 * - series only for the configured group and the group limited for it: the
 *   idle sibling and the parent have none;
 * - build_info, process_start_time_seconds and device="vda" are there;
 * - the textfile the daemon writes passes scripts/promcheck.py and, where
 *   installed, promtool check metrics;
 * - with weights configured (weight=), the weights' gauges: per exported
 *   group its weight, hweight (a ratio), share, use, donation and budget
 *   (+Inf: unlimited), per disk the capacity estimate and whether the
 *   kernel's own weights are in force; none of them without weights.
 * Context: single-threaded cmocka program.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/control.h"
#include "daemon/status/prom.h"
#include "daemon/status/statusfile.h"
#include "daemon/sys/cgroupfs.h"
#include "helpers/t_fakecg.h"
#include "util/version.h"

#define MS 1000000ull
#define VERSION_TEXT IOLAT_VERSION_STRING

static uint64_t vnow;
static uint64_t vclock_now(void *ctx) { return vnow; }
static const struct iolat_clock vclock = { vclock_now, NULL };

static struct t_fakecg f;
static char sysfs[300], run[1100], textfile[1200], conf[4096], err[IOLATD_ERR_MAX];
static struct iolatd_config cfg;

static void quiet_log(void *ctx, const char *line) {}

static int setup(void **state)
{
	FILE *fp;

	t_fakecg_new(&f, 1);
	snprintf(sysfs, sizeof(sysfs), "%s", t_fakecg_sysfs_dev(&f, "254:0", false));
	snprintf(run, sizeof(run), "%s/dev/block/254:0/uevent", sysfs);
	fp = fopen(run, "w");
	assert_non_null(fp);
	fputs("MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n", fp);
	fclose(fp);
	snprintf(run, sizeof(run), "%s/run", f.root);
	snprintf(textfile, sizeof(textfile), "%s/iolatd.prom", run);
	assert_int_equal(mkdir(run, 0755), 0);
	t_fakecg_mkdir(&f, "app");
	t_fakecg_mkdir(&f, "app/reader");
	t_fakecg_mkdir(&f, "app/writer");
	t_fakecg_mkdir(&f, "app/idle");
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\ncontrol=article\n"
		 "cgroup_root=%s\ntextfile=%s\n[group:app/reader]\ntarget=1ms\n", f.root, textfile);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	vnow = 100 * 1000 * MS;
	return 0;
}

static int teardown(void **state)
{
	t_fakecg_free(&f);
	return 0;
}

static struct iolatd *start(void)
{
	struct iolatd_opts o = { .run_dir = run, .clock = &vclock, .log = quiet_log, .allow_plain_root = true,
				 .sysfs_root = sysfs };
	struct iolatd *d = NULL;

	assert_int_equal(iolatd_create(&cfg, &o, &d, err, sizeof(err)), 0);
	return d;
}

/* What was fed: per group, reads, writes, their bytes, the latency sum. */
struct fed {
	uint64_t reads, writes, rbytes, wbytes, lat_ns, unattr_bytes;
};
static struct fed reader, writer, other;

static void observe(struct iolatd *d, const char *rel, struct fed *x, uint64_t lat, uint64_t bytes, bool write)
{
	uint64_t cgid = rel ? iolatd_cgfs_ino(t_fakecg_path(&f, rel)) : 1; /* 1: no cgroup of the tree */

	iolatd_observe(d, cgid, makedev(254, 0), lat, bytes, write, 0, vnow);
	if (!rel) {
		x->unattr_bytes += bytes;
		return;
	}
	*(write ? &x->writes : &x->reads) += 1;
	*(write ? &x->wbytes : &x->rbytes) += bytes;
	x->lat_ns += lat;
}

/* @ms of traffic in 10 ms steps: reads of app/reader at 2 ms (a miss) and 1.024 ms (an edge), writes. */
static void drive(struct iolatd *d, unsigned ms)
{
	for (unsigned t = 0; t < ms; t += 10) {
		vnow += 10 * MS;
		for (int i = 0; i < 4; i++)
			observe(d, "app/reader", &reader, 2 * MS, 4096, false);
		observe(d, "app/reader", &reader, 1024000, 8192, (t / 10) % 2 == 1);
		for (int i = 0; i < 10; i++)
			observe(d, "app/writer", &writer, 4 * MS, 1 << 20, true);
		observe(d, NULL, &other, 1 * MS, 65536, false);
		iolatd_period(d, vnow);
	}
}

/* The metrics now: the status file written at this instant, as the textfile gets it. */
static char *scrape(struct iolatd *d)
{
	char path[1200], why[256];
	struct status_file s;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	assert_int_equal(iolatd_write_status(d, vnow), 0);
	snprintf(path, sizeof(path), "%s/status", run);
	assert_int_equal(iolatd_status_read(path, &s, why, sizeof(why)), 0);
	m = open_memstream(&text, &len);
	assert_non_null(m);
	assert_int_equal(iolatd_prom_write(&s, m), 0);
	fclose(m);
	iolatd_status_free(&s);
	return text;
}

/* The value of the sample named exactly @series ("name{labels}"); fails the test when absent. */
static double value(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	fail_msg("no sample %s", series);
	return 0;
}

static double delta(const char *a, const char *b, const char *series)
{
	return value(b, series) - value(a, series);
}

#define R "group=\"app/reader\",device=\"vda\""
#define W "group=\"app/writer\",device=\"vda\""
#define HIST "iolatd_group_latency_seconds"

static void test_scrape_loses_nothing(void **state)
{
	struct iolatd *d = start();
	struct fed r0, w0, o0;
	char *a, *b;

	drive(d, 2000);
	a = scrape(d);
	r0 = reader, w0 = writer, o0 = other;
	drive(d, 60000);
	b = scrape(d);
	assert_int_equal(delta(a, b, "iolatd_group_requests_total{" R ",direction=\"read\"}"), reader.reads - r0.reads);
	assert_int_equal(delta(a, b, "iolatd_group_requests_total{" R ",direction=\"write\"}"), reader.writes - r0.writes);
	assert_int_equal(delta(a, b, "iolatd_group_bytes_total{" R ",direction=\"read\"}"), reader.rbytes - r0.rbytes);
	assert_int_equal(delta(a, b, "iolatd_group_bytes_total{" R ",direction=\"write\"}"), reader.wbytes - r0.wbytes);
	assert_int_equal(delta(a, b, "iolatd_group_bytes_total{" W ",direction=\"write\"}"), writer.wbytes - w0.wbytes);
	assert_int_equal(delta(a, b, "iolatd_group_requests_total{" W ",direction=\"read\"}"), 0);
	assert_int_equal(delta(a, b, "iolatd_device_unattributed_bytes_total{device=\"vda\"}"),
			 other.unattr_bytes - o0.unattr_bytes);
	/* The histogram: every request of the 60 s, 1.024 ms on its edge, 2 ms in the next bucket. */
	uint64_t n = reader.reads + reader.writes - r0.reads - r0.writes;
	assert_int_equal(delta(a, b, HIST "_count{" R "}"), n);
	assert_int_equal(delta(a, b, HIST "_bucket{" R ",le=\"+Inf\"}"), n);
	assert_int_equal(delta(a, b, HIST "_bucket{" R ",le=\"0.002048\"}"), n);
	assert_int_equal(delta(a, b, HIST "_bucket{" R ",le=\"0.001024\"}"), n / 5);
	assert_int_equal(delta(a, b, HIST "_bucket{" R ",le=\"0.000512\"}"), 0);
	assert_true(fabs(delta(a, b, HIST "_sum{" R "}") - (double)(reader.lat_ns - r0.lat_ns) * 1e-9) < 1e-6);
	assert_int_equal(value(b, HIST "_count{" R "}"), reader.reads + reader.writes);
	/* The reader missed all along; the writer was limited for all of the 60 s. */
	assert_true(delta(a, b, "iolatd_group_windows_total{" R ",result=\"missed\"}") >= 60);
	assert_true(fabs(delta(a, b, "iolatd_group_limited_seconds_total{" W "}") - 60.0) < 0.001);
	assert_int_equal(value(b, "iolatd_group_limited{" W "}"), 1);
	free(a);
	free(b);
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* How many samples (lines not starting with '#'). */
static unsigned samples(const char *text)
{
	unsigned n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += *p != '#' && *p != '\n';
	return n;
}

static void test_series_and_format(void **state)
{
	struct iolatd *d = start();
	char cmd[1400], *text;

	drive(d, 3000);
	text = scrape(d);
	assert_true(value(text, "iolatd_build_info{version=\"" VERSION_TEXT "\"}") == 1);
	assert_true(fabs(value(text, "process_start_time_seconds") - (double)time(NULL)) < 60);
	assert_true(value(text, "iolatd_device_info{device=\"vda\",major_minor=\"254:0\",rule=\"p90\"}") == 1);
	/* Only the configured group and the one limited for it: not the idle sibling, not the parent. */
	assert_null(strstr(text, "group=\"app/idle\""));
	assert_null(strstr(text, "group=\"app\","));
	assert_non_null(strstr(text, "{" R));
	assert_non_null(strstr(text, "{" W));
	/* Histogram order: cumulative buckets, then +Inf, _sum, _count. */
	assert_true(value(text, HIST "_bucket{" R ",le=\"0.001024\"}") <=
		    value(text, HIST "_bucket{" R ",le=\"0.002048\"}"));
	assert_non_null(strstr(text, HIST "_bucket{" R ",le=\"+Inf\"}"));
	/*
	 * The count documented in docs/iolatd.md: 5 for the daemon, 3 per device,
	 * 38 per exported group and device (+4 while limited), 4 per cgroup
	 * carrying a limit (here app/writer itself).
	 */
	assert_int_equal(samples(text), 5 + 3 + 38 + (38 + 4) + 4);
	free(text);
	/* The textfile the daemon wrote with that status: the format checked. */
	snprintf(cmd, sizeof(cmd), "python3 scripts/promcheck.py '%s'", textfile);
	assert_int_equal(system(cmd), 0);
	if (system("command -v promtool >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof(cmd), "promtool check metrics <'%s'", textfile);
		assert_int_equal(system(cmd), 0);
	} else {
		printf("promtool not installed: the textfile checked by scripts/promcheck.py only\n");
	}
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* The samples of family @name (its lines "name{" or "name "). */
static unsigned family_samples(const char *text, const char *name)
{
	size_t n = strlen(name);
	unsigned c = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		c += !strncmp(p, name, n) && (p[n] == '{' || p[n] == ' ');
	return c;
}

static const char *const weight_families[] = {
	"iolatd_group_weight", "iolatd_group_hweight_ratio", "iolatd_group_share_bytes_per_second",
	"iolatd_group_use_bytes_per_second", "iolatd_group_donated_bytes_per_second",
	"iolatd_group_weight_budget_bytes_per_second",
};

static void test_weight_series(void **state)
{
	struct iolatd *d = start();
	char cmd[1400], *text;

	/* without weights: no weights' series (and the count of test_series_and_format holds) */
	drive(d, 3000);
	text = scrape(d);
	for (size_t i = 0; i < sizeof(weight_families) / sizeof(weight_families[0]); i++)
		assert_int_equal(family_samples(text, weight_families[i]), 0);
	assert_int_equal(family_samples(text, "iolatd_device_capacity_bytes_per_second"), 0);
	free(text);
	iolatd_stop(d, vnow);
	iolatd_destroy(d);

	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\ncontrol=article\n"
		 "cgroup_root=%s\ntextfile=%s\n[group:app/reader]\ntarget=1ms\n[group:app/writer]\nweight=300\n"
		 "[group:app/idle]\nweight=50\n", f.root, textfile);
	assert_int_equal(iolatd_config_parse("t.conf", conf, &cfg, err, sizeof(err)), 0);
	d = start();
	drive(d, 5000);
	text = scrape(d);
	/* the three configured groups, each with the six */
	for (size_t i = 0; i < sizeof(weight_families) / sizeof(weight_families[0]); i++)
		assert_int_equal(family_samples(text, weight_families[i]), 3);
	assert_true(value(text, "iolatd_group_weight{" W "}") == 300);
	assert_true(value(text, "iolatd_group_weight{" R "}") == 100);
	assert_true(value(text, "iolatd_group_weight{group=\"app/idle\",device=\"vda\"}") == 50);
	assert_true(value(text, "iolatd_group_hweight_ratio{" W "}") > 0 &&
		    value(text, "iolatd_group_hweight_ratio{" W "}") <= 1);
	assert_true(value(text, "iolatd_group_use_bytes_per_second{" W "}") > 0);
	assert_true(value(text, "iolatd_device_capacity_bytes_per_second{device=\"vda\"}") > 0);
	assert_true(value(text, "iolatd_device_kernel_weights{device=\"vda\"}") == 0);
	/* unlimited is +Inf: the budget of the group with a target (never budgeted) */
	assert_non_null(strstr(text, "iolatd_group_weight_budget_bytes_per_second{" R "} +Inf\n"));
	assert_true(value(text, "iolatd_group_weight_budget_bytes_per_second{" W "}") > 0);
	free(text);
	snprintf(cmd, sizeof(cmd), "python3 scripts/promcheck.py '%s'", textfile);
	assert_int_equal(system(cmd), 0);
	if (system("command -v promtool >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof(cmd), "promtool check metrics <'%s'", textfile);
		assert_int_equal(system(cmd), 0);
	}
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scrape_loses_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_series_and_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_weight_series, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
