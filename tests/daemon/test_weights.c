/* SPDX-License-Identifier: MIT */
/*
 * test_weights.c - iolatd's weights on a virtual clock over fake cgroup and
 * sysfs trees: where the kernel's own weights are in force on the disk (the
 * BFQ scheduler in queue/scheduler, on v1 and v2; io.cost enabled for the
 * disk in the v2 root's io.cost.qos) iolatd stands aside - said once in the
 * log, weights=kernel and kernel_weights= in the status - and acts again
 * when they go (said too); io.cost enabled for another disk, or disabled,
 * is not in force; without weights configured nothing is said; latency
 * targets still act while iolatd stands aside;
 * --check-config warns of it (a warning: iolatd would start); budgets
 * written, a sibling that comes back budgeted within a few rounds, one
 * whose direction only the throttle's counters show yet budgeted on it, and
 * one that stops leaving its share at once unless I/O of it is outstanding.
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

#include "daemon/checkconf.h"
#include "daemon/control.h"
#include "daemon/sys/cgroupfs.h"
#include "daemon/tree/kweights.h"
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

/* ---- budgets: a fake disk that obeys the limits written ---- */

#define CAP_BPS (400ull << 20)   /* the fake disk: 400 MiB/s, shared max-min fair */
#define IO_BYTES (64u << 10)

static struct {
	const char *rel;
	bool busy;
	double credit;            /* bytes it may still complete */
	unsigned long long bytes, ios; /* served, since the start */
	unsigned blind_ms;        /* its completions not seen by BPF for this long */
} wr[2] = { { .rel = "app/a", .busy = true }, { .rel = "app/b", .busy = true } };
static unsigned long long served_s[2]; /* served per group over the last second */

/* The wbps written for 254:0 on @rel (v2 io.max, v1 blkio.throttle.write_bps_device); 0: none. */
static uint64_t wbps(const char *rel)
{
	const char *line;

	if (f.version == 1) {
		line = strstr(t_fakecg_read(&f, rel, "blkio.throttle.write_bps_device"), "254:0 ");
		return line ? strtoull(line + 6, NULL, 10) : 0;
	}
	line = strstr(t_fakecg_read(&f, rel, "io.max"), "254:0 ");
	if (!line || !(line = strstr(line, "wbps=")) || !strncmp(line + 5, "max", 3))
		return 0;
	return strtoull(line + 5, NULL, 10);
}

/*
 * @ms of two writers on the fake disk, 10 ms steps: each gets the lower of
 * its limit in force and a max-min fair part of CAP_BPS; completions fed as
 * BPF would, the throttle's counters (io.stat, blkio recursive) set as the
 * kernel would. served_s: each writer's bytes over the last second of it.
 */
static void drive(struct iolatd *d, unsigned ms)
{
	uint64_t app_ino = t_daemon_ino(&f, "app");

	for (unsigned t = 0; t < ms; t += 10) {
		double lim[2], give[2] = { 0, 0 }, left = (double)CAP_BPS / 100;
		int want = 0;

		for (int g = 0; g < 2; g++) {
			uint64_t l = wbps(wr[g].rel);

			lim[g] = !wr[g].busy ? 0 : l ? (double)l / 100 : 1e18;
			want += lim[g] > 0;
		}
		for (int round = 0; round < 2 && want; round++) /* max-min: the smaller first */
			for (int g = 0; g < 2; g++) {
				double fair = left / want, x;

				if (lim[g] <= 0 || give[g] > 0 || (round == 0 && lim[g] > fair))
					continue;
				x = lim[g] < fair ? lim[g] : fair;
				give[g] = x;
				left -= x;
				want--;
			}
		vnow += 10 * MS;
		for (int g = 0; g < 2; g++) {
			uint64_t ino = t_daemon_ino(&f, wr[g].rel);

			wr[g].credit += give[g];
			while (wr[g].credit >= IO_BYTES) {
				wr[g].credit -= IO_BYTES;
				wr[g].bytes += IO_BYTES;
				wr[g].ios++;
				if (t + 1000 >= ms)
					served_s[g] += IO_BYTES;
				if (!wr[g].blind_ms)
					iolatd_observe(d, ino, makedev(254, 0), 2 * MS, IO_BYTES, true,
						       0, vnow);
			}
			wr[g].blind_ms = wr[g].blind_ms > 10 ? wr[g].blind_ms - 10 : 0;
			t_fakecg_set_served(&f, wr[g].rel, "254:0", 0, wr[g].bytes, 0, wr[g].ios);
		}
		t_fakecg_set_served(&f, "app", "254:0", 0, wr[0].bytes + wr[1].bytes, 0, wr[0].ios + wr[1].ios);
		(void)app_ino;
		if (t + 1000 == ms || (ms < 1000 && t == 0))
			served_s[0] = served_s[1] = 0;
		iolatd_period(d, vnow);
	}
}

static void reset_writers(void)
{
	for (int g = 0; g < 2; g++) {
		wr[g].busy = true;
		wr[g].credit = 0;
		wr[g].bytes = wr[g].ios = 0;
		wr[g].blind_ms = 0;
	}
}

/*
 * A writer never seen before starts, and for its first 500 ms only the
 * throttle's counters show its bytes (BPF has seen none of its completions,
 * so the direction mix knows nothing of it): within 400 ms it has a write
 * budget, the whole of its part for now, not none. (v2: io.stat counts a
 * cgroup that was never limited; v1 from 6.10 does not, and there BPF's
 * completions are what shows it.)
 */
static void test_budget_before_the_mix_knows(void **state)
{
	struct iolatd *d;

	reset_writers();
	set_scheduler("[mq-deadline] kyber bfq none");
	wr[1].busy = false;
	d = start(WEIGHTED);
	drive(d, 3000);
	assert_int_equal(wbps("app/a"), 0); /* alone: no budget */
	wr[1].busy = true;
	wr[1].blind_ms = 500;
	drive(d, 400);
	assert_true(wbps("app/a") > 0);
	assert_true(wbps("app/b") > 0);
	drive(d, 3000);
	assert_true((double)wbps("app/a") / (double)wbps("app/b") > 2.7);
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/*
 * A writer that stops, all of its bytes seen complete: a's budget goes within
 * 500 ms (b served nothing for 200 ms with nothing outstanding: stopped, not
 * at the period's end). One whose last bytes BPF never saw complete (still
 * outstanding, as a writer held in the device) is starved, not stopped: a
 * keeps its budget 500 ms on, and loses it only at a period's end.
 */
static void test_stop_frees_the_share_at_once(void **state)
{
	struct iolatd *d;

	reset_writers();
	set_scheduler("[mq-deadline] kyber bfq none");
	d = start(WEIGHTED);
	drive(d, 4000);
	assert_true(wbps("app/a") > 0 && wbps("app/b") > 0);
	wr[1].busy = false;
	drive(d, 500);
	assert_int_equal(wbps("app/a"), 0);
	wr[1].busy = true;
	drive(d, 4000);
	assert_true(wbps("app/a") > 0 && wbps("app/b") > 0);
	wr[1].blind_ms = 300;   /* its last 300 ms of bytes never complete for BPF */
	drive(d, 300);
	wr[1].busy = false;
	drive(d, 500);
	assert_true(wbps("app/a") > 0);
	drive(d, 2000);
	assert_int_equal(wbps("app/a"), 0);
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/*
 * Two busy writers weighted 300:100 under one parent: budgets are written
 * (io.max wbps on v2, blkio.throttle.write_bps_device on v1) near 3:1 and
 * the disk's time follows (each one's share of the last second within
 * +-10 % of its weight's); an administrator's own limit on b stays the
 * bound where it is lower; b stops: a, alone, has no budget within 2 s (the
 * core's UINT64_MAX: removed); b comes back: both budgeted again within
 * 400 ms; BFQ
 * switched on: every budget removed within a second, none written while
 * it is; switched off: budgets again; stop: nothing of iolatd's left, the
 * administrator's limit put back.
 */
static void test_budgets(void **state)
{
	struct iolatd *d;
	double share_a;
	unsigned writes;

	reset_writers();
	set_scheduler("[mq-deadline] kyber bfq none");
	d = start(WEIGHTED);
	drive(d, 8000);
	assert_true(wbps("app/a") > 0 && wbps("app/b") > 0);
	assert_true((double)wbps("app/a") / (double)wbps("app/b") > 2.7);
	assert_true((double)wbps("app/a") / (double)wbps("app/b") < 3.3);
	share_a = (double)served_s[0] / (double)(served_s[0] + served_s[1]);
	if (share_a < 0.75 * 0.9 || share_a > 0.75 * 1.1)
		fail_msg("a's share of the disk %.3f, want 0.75 +-10 %%", share_a);
	assert_true(status_has("group path=app/a dev=254:0 configured=1 "));
	assert_true(status_has(" weight=300 weight_from=config weighted=1 weight_active=1 hweight_ppm=750000 "));
	assert_true(status_has(" weight=100 weight_from=config weighted=1 weight_active=1 hweight_ppm=250000 "));
	assert_true(status_has("weights=iolatd kernel_weights=none kernel_weights_on=0 weighted=1 capacity_bps="));

	/* a budget that keeps still is not rewritten: at most one write a second per cgroup */
	writes = 0;
	{
		struct iolatd_counters c0, c1;

		iolatd_counters(d, &c0);
		drive(d, 3000);
		iolatd_counters(d, &c1);
		writes = (unsigned)(c1.writes - c0.writes);
	}
	assert_true(writes <= 2 * 3);

	/* b stops: a is the lone active child, unlimited: its budget goes */
	wr[1].busy = false;
	drive(d, 3000);
	assert_int_equal(wbps("app/a"), 0);
	/* b back: budgets again, within a few rounds (b is activated at its
	 * first bytes, not at the period's end) */
	wr[1].busy = true;
	drive(d, 400);
	assert_true(wbps("app/a") > 0 && wbps("app/b") > 0);
	drive(d, 3600);
	assert_true(wbps("app/a") > 0 && wbps("app/b") > 0);

	/* BFQ: iolatd stands aside, every budget removed, none written while it is in force */
	set_scheduler("mq-deadline kyber [bfq] none");
	drive(d, 1100);
	assert_int_equal(wbps("app/a"), 0);
	assert_int_equal(wbps("app/b"), 0);
	drive(d, 3000);
	assert_int_equal(wbps("app/a"), 0);
	assert_int_equal(wbps("app/b"), 0);
	assert_true(status_has("weights=kernel kernel_weights=bfq kernel_weights_on=1"));
	set_scheduler("[mq-deadline] kyber bfq none");
	drive(d, 4000);
	assert_true(wbps("app/a") > 0 && wbps("app/b") > 0);

	iolatd_stop(d, vnow);
	assert_int_equal(wbps("app/a"), 0);
	assert_int_equal(wbps("app/b"), 0);
	iolatd_destroy(d);
}

/*
 * Standing aside leaves the latency targets acting: a (target 1 ms, its
 * completions at 2 ms: every window missed) clamps its sibling b under BFQ
 * as without it; no weight budget is written (a has a target: never
 * budgeted; b's limit is the latency controller's alone, the same with or
 * without weights configured).
 */
static void test_targets_act_while_standing_aside(void **state)
{
	struct iolatd *d;
	uint64_t b_bfq;

	reset_writers();
	set_scheduler("mq-deadline kyber [bfq] none");
	d = start("[global]\ncontrol=article\n[group:app/a]\ntarget=1ms\nweight=300\n[group:app/b]\nweight=100\n");
	drive(d, 6000);
	b_bfq = wbps("app/b");
	assert_true(b_bfq > 0);                 /* clamped for a's target */
	assert_int_equal(wbps("app/a"), 0);
	assert_true(status_has("weights=kernel kernel_weights=bfq"));
	iolatd_stop(d, vnow);
	assert_int_equal(wbps("app/b"), 0);
	iolatd_destroy(d);
}

/* Weights configured but control=0 (measure only), or no weight at all: no budget is ever written. */
static void test_no_budgets_without_weights_or_control(void **state)
{
	struct iolatd *d;

	reset_writers();
	d = start("[group:app/a]\ntarget=max\n[group:app/b]\ntarget=max\nweight=100\n[global]\ncontrol=0\n");
	drive(d, 5000);
	assert_int_equal(wbps("app/a"), 0);
	assert_int_equal(wbps("app/b"), 0);
	assert_true(status_has("weights=off kernel_weights=none"));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
}

/* A reload that drops the weights removes the budgets; one that brings them back writes them again. */
static void test_reload_drops_budgets(void **state)
{
	struct iolatd_config cfg;
	struct iolatd *d;
	char conf[2048];

	reset_writers();
	d = start(WEIGHTED);
	drive(d, 8000);
	assert_true(wbps("app/a") > 0 && wbps("app/b") > 0);
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\nsystemd=0\n"
		 "cgroup_root=%s\n[group:app/a]\ntarget=50ms\n", f.root);
	assert_int_equal(iolatd_config_parse("w.conf", conf, &cfg, err, sizeof(err)), 0);
	assert_int_equal(iolatd_reload(d, &cfg, err, sizeof(err)), 0);
	drive(d, 200);                    /* the next round: gone */
	assert_int_equal(wbps("app/a"), 0);
	assert_int_equal(wbps("app/b"), 0);
	drive(d, 1000);
	assert_int_equal(wbps("app/a"), 0);
	assert_int_equal(wbps("app/b"), 0);
	assert_true(status_has("weights=off "));
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\nsystemd=0\n"
		 "cgroup_root=%s\n%s", f.root, WEIGHTED);
	assert_int_equal(iolatd_config_parse("w.conf", conf, &cfg, err, sizeof(err)), 0);
	assert_int_equal(iolatd_reload(d, &cfg, err, sizeof(err)), 0);
	drive(d, 8000);
	assert_true(wbps("app/a") > 0 && wbps("app/b") > 0);
	iolatd_stop(d, vnow);
	assert_int_equal(wbps("app/a"), 0);
	iolatd_destroy(d);
}

/* Weights all at 100, given only by a reload: still weights (equal shares), budgets written. */
static void test_equal_weights_by_reload(void **state)
{
	struct iolatd_config cfg;
	struct iolatd *d;
	char conf[2048];
	double r;

	reset_writers();
	d = start("[group:app/a]\ntarget=50ms\n");
	drive(d, 4000);
	assert_int_equal(wbps("app/a"), 0);
	assert_int_equal(wbps("app/b"), 0);
	snprintf(conf, sizeof(conf), "[global]\ndevice=254:0\nnr_requests=64\nrotational=0\nsystemd=0\n"
		 "cgroup_root=%s\n[group:app/a]\nweight=100\n[group:app/b]\nweight=100\n", f.root);
	assert_int_equal(iolatd_config_parse("w.conf", conf, &cfg, err, sizeof(err)), 0);
	assert_int_equal(iolatd_reload(d, &cfg, err, sizeof(err)), 0);
	drive(d, 8000);
	assert_true(wbps("app/a") > 0 && wbps("app/b") > 0);
	r = (double)wbps("app/a") / (double)wbps("app/b");
	assert_true(r > 0.9 && r < 1.1);
	assert_true(status_has(" weight=100 weight_from=config weighted=1 weight_active=1 hweight_ppm=500000 "));
	iolatd_stop(d, vnow);
	iolatd_destroy(d);
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
		cmocka_unit_test_setup_teardown(test_budgets, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_budgets, setup_v1, teardown),
		cmocka_unit_test_setup_teardown(test_budget_before_the_mix_knows, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_stop_frees_the_share_at_once, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_stop_frees_the_share_at_once, setup_v1, teardown),
		cmocka_unit_test_setup_teardown(test_no_budgets_without_weights_or_control, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_targets_act_while_standing_aside, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_reload_drops_budgets, setup_v2, teardown),
		cmocka_unit_test_setup_teardown(test_equal_weights_by_reload, setup_v1, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
