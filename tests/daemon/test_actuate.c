/* SPDX-License-Identifier: MIT */
/*
 * test_actuate.c - one cgroup's limits as iolatd keeps them, on a fake v1
 * tree: the administrator's limit found before the first write is kept (the
 * minimum of both is written) and restored at release; a limit the
 * administrator changes meanwhile becomes theirs; writes are at most one
 * per 100 ms and skipped for changes under an eighth; the record callback
 * runs before each write with the new values; a removed cgroup is released
 * without error; a dry run writes nothing. For Linux 6.1's throttle
 * (actuate.h): a kind that appears is first opened (a value that binds
 * nothing, recorded) and gets its value 150 ms later; a lowering is primed
 * (the values in force written again, the lower ones 60-90 ms later, no kind
 * below half its value per write; a commit due later is primed again); a
 * raise goes out at once and cancels a pending lowering; values of ours are
 * rounded up to a multiple of 10, the administrator's are kept as they are.
 * On a kernel whose throttle needs none of that (staged off): every value,
 * a new kind and a lowering by more than half alike, is written at once.
 * Context: single-threaded cmocka program on explicit times.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "daemon/limits/actuate.h"
#include "helpers/t_fakecg.h"

#define MS 1000000ull
#define WBPS "blkio.throttle.write_bps_device"
#define WIOPS "blkio.throttle.write_iops_device"

static struct t_fakecg f;
static struct cgfs_root root;
static struct act a;
static unsigned recorded;
static uint64_t recorded_wbps, recorded_before_wbps;

static void record(void *ctx)
{
	recorded++;
	recorded_wbps = ((struct act *)ctx)->written.v[CG_WBPS];
	recorded_before_wbps = ((struct act *)ctx)->before.v[CG_WBPS];
}

static int setup(void **state)
{
	char why[64];

	t_fakecg_new(&f, 1);
	assert_int_equal(iolatd_cgfs_find_root(f.root, true, &root, why, sizeof(why)), 0);
	t_fakecg_mkdir(&f, "w");
	iolatd_act_init(&a, t_fakecg_path(&f, "w"), makedev(254, 0));
	recorded = 0;
	return 0;
}

static int teardown(void **state)
{
	t_fakecg_free(&f);
	return 0;
}

static struct cg_limits wbps(uint64_t v)
{
	return (struct cg_limits){ { 0, v, 0, 0 } };
}

/* The first limit of an episode: opened at @t, its value 150 ms later. */
static void start_at(const struct cg_limits *want, uint64_t t)
{
	assert_int_equal(iolatd_act_apply(&a, &root, want, t, false, record, &a), 1);
	assert_int_equal(iolatd_act_commit_due(&a, &root, t + 140 * MS, false, record, &a), 0);
	assert_int_equal(iolatd_act_commit_due(&a, &root, t + 150 * MS, false, record, &a), 1);
	assert_int_equal(a.pending, ACT_NONE);
}

static void test_admin_limit_kept_and_restored(void **state)
{
	struct cg_limits want = wbps(300 * MS);

	t_fakecg_write(&f, "w", WBPS, "254:0 100000000\n");
	t_fakecg_write(&f, "w", WIOPS, "254:0 50\n");
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1000 * MS, false, record, &a), 1);
	/* The administrator's 100 MB/s is lower than ours: it stays (nothing to open). */
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 100000000");
	assert_string_equal(t_fakecg_read(&f, "w", WIOPS), "254:0 50");
	assert_int_equal(a.pending, ACT_NONE);
	want = wbps(60 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, record, &a), 1); /* the prime */
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 100000000");
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1270 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 60000000");
	assert_int_equal(recorded, 2);
	assert_int_equal(recorded_wbps, 60 * MS); /* recorded before it went out */
	assert_int_equal(recorded_before_wbps, 100 * MS); /* with what it replaces */
	assert_int_equal(a.before.v[CG_WBPS], 0);         /* and only while it goes out */
	assert_true(a.active);
	assert_int_equal(iolatd_act_release(&a, &root, 1500 * MS, false), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 100000000");
	assert_string_equal(t_fakecg_read(&f, "w", WIOPS), "254:0 50");
	assert_false(a.active);
	assert_int_equal(iolatd_act_limited_ns(&a, 9000 * MS), 500 * MS);
}

static void test_admin_change_is_adopted(void **state)
{
	struct cg_limits want = wbps(30 * MS);

	start_at(&want, 900 * MS);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 30000000");
	/* The administrator writes their own limit over ours. */
	t_fakecg_write(&f, "w", WBPS, "254:0 10000000\n");
	want = wbps(60 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1300 * MS, false, NULL, NULL), 0); /* min is theirs */
	assert_int_equal(a.admin.v[CG_WBPS], 10 * MS);
	assert_int_equal(iolatd_act_release(&a, &root, 1400 * MS, false), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 10000000");
}

/* The adaptive mode's dead band: every change of more than 2 % is written. */
static void test_adaptive_band(void **state)
{
	struct cg_limits want = wbps(80 * MS);

	a.band_pm = ACT_BAND_ADAPTIVE_PM;
	start_at(&want, 1000 * MS);
	want = wbps(81 * MS); /* +1.25 %: under the band */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, NULL, NULL), 0);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 80000000");
	want = wbps(824 * MS / 10); /* +3 %: written at once */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1300 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 82400000");
	want = wbps(7992 * MS / 100); /* -3 %: primed, then written */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1400 * MS, false, NULL, NULL), 1);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1470 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 79920000");
	/* The default band (1/8) would have kept 80 MB/s all along. */
	a.band_pm = 0;
	want = wbps(84 * MS); /* +5 % */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1600 * MS, false, NULL, NULL), 0);
}

static void test_rate_limited_and_hysteresis(void **state)
{
	struct cg_limits want = wbps(80 * MS);

	start_at(&want, 1000 * MS);
	want = wbps(40 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, NULL, NULL), 0); /* < 100 ms */
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 80000000");
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1250 * MS, false, NULL, NULL), 1);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1320 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 40000000");
	want = wbps(44 * MS); /* +10 %: under an eighth */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1450 * MS, false, NULL, NULL), 0);
	want = wbps(46 * MS); /* +15 %: a raise, at once */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1550 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 46000000");
	assert_int_equal(a.writes, 5); /* open, value, prime, commit, raise */
	/* All zero: released at once, whatever the interval. */
	want = wbps(0);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1560 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 0");
	assert_false(a.active);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1700 * MS, false, NULL, NULL), 0);
}

/* A kind that appears binds nothing for 150 ms (the old carry folds), and that is recorded. */
static void test_new_kind_is_opened(void **state)
{
	struct cg_limits want = { { 0, 80 * MS, 0, 201 } };

	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1000 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 1099511627776");
	assert_string_equal(t_fakecg_read(&f, "w", WIOPS), "254:0 16777216");
	assert_int_equal(recorded, 1);
	assert_int_equal(recorded_wbps, ACT_OPEN_BPS); /* a crash now leaves nothing behind */
	assert_int_equal(a.written.v[CG_WBPS], ACT_OPEN_BPS); /* what the file holds */
	/* A new want meanwhile is what the opened kinds get. */
	want.v[CG_WBPS] = 70 * MS;
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1120 * MS, false, record, &a), 0);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1140 * MS, false, record, &a), 0);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1160 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 70000000");
	assert_string_equal(t_fakecg_read(&f, "w", WIOPS), "254:0 210"); /* 201 rounded up */
	assert_int_equal(recorded_wbps, 70 * MS);
	assert_int_equal(a.opens, 1);
	/* Adding reads opens only them: the writes' limits stay in force. */
	want.v[CG_RBPS] = 5 * MS;
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1300 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", "blkio.throttle.read_bps_device"), "254:0 1099511627776");
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 70000000");
}

/* Opened kinds get their values; a kind in force is not lowered at that moment. */
static void test_open_does_not_lower_others(void **state)
{
	struct cg_limits want = wbps(80 * MS);

	start_at(&want, 900 * MS);
	want.v[CG_WIOPS] = 100;
	want.v[CG_WBPS] = 20 * MS;
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, NULL, NULL), 1);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1350 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WIOPS), "254:0 100");
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 80000000");
	/* The next decision lowers it, primed. */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1450 * MS, false, NULL, NULL), 1);
	assert_int_equal(a.pending, ACT_LOWER);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1520 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 40000000");
}

/* A lowering: the prime, then the lower value between 60 and 90 ms later, at most halved. */
static void test_lowering_is_primed(void **state)
{
	struct cg_limits want = wbps(80 * MS);

	start_at(&want, 900 * MS);
	assert_int_equal(recorded, 2);
	want = wbps(10 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, record, &a), 1);
	assert_int_equal(a.pending, ACT_LOWER);
	assert_int_equal(a.primes, 1);
	assert_int_equal(recorded, 2); /* the prime writes what is recorded already */
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 80000000");
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1250 * MS, false, record, &a), 0); /* too early */
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 80000000");
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1265 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 40000000"); /* half, not 10 */
	assert_int_equal(recorded_wbps, 40 * MS);
	/* Each half step is the prime of the next: 40, 20, then 10, 60-90 ms apart. */
	assert_int_equal(a.pending, ACT_LOWER);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1315 * MS, false, record, &a), 0);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1335 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 20000000");
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1405 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 10000000");
	assert_int_equal(a.pending, ACT_NONE);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1500 * MS, false, record, &a), 0);
	assert_int_equal(a.primes, 1);
	assert_int_equal(a.writes, 6); /* open, value, prime, 40, 20, 10 */
	assert_int_equal(recorded, 5);
	/* A half that is not a multiple of 10 is rounded up (so is a want). */
	assert_int_equal(iolatd_act_release(&a, &root, 1600 * MS, false), 1);
	want = wbps(2003);
	start_at(&want, 2000 * MS);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 2010");
	want = wbps(1000);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 2300 * MS, false, record, &a), 1);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 2370 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 1010");
}

/* A commit due past 90 ms would fall after the throttle's slice: primed again instead. */
static void test_late_commit_primes_again(void **state)
{
	struct cg_limits want = wbps(80 * MS);

	start_at(&want, 900 * MS);
	want = wbps(60 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, NULL, NULL), 1);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1300 * MS, false, NULL, NULL), 0);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 80000000");
	assert_int_equal(a.primes, 2);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1350 * MS, false, NULL, NULL), 0); /* 50 ms */
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1375 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 60000000");
}

/* A raise goes out at once, and a lowering no longer wanted is dropped. */
static void test_raise_at_once_cancels_lowering(void **state)
{
	struct cg_limits want = wbps(80 * MS);

	start_at(&want, 900 * MS);
	want = wbps(50 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, NULL, NULL), 1);
	assert_int_equal(a.pending, ACT_LOWER);
	want = wbps(160 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1300 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 160000000");
	assert_int_equal(a.pending, ACT_NONE);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1380 * MS, false, NULL, NULL), 0);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 160000000");
	/* Primed again, then wanted back where it is: nothing follows. */
	want = wbps(100 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1400 * MS, false, NULL, NULL), 1);
	want = wbps(150 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1500 * MS, false, NULL, NULL), 0);
	assert_int_equal(a.pending, ACT_NONE);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1570 * MS, false, NULL, NULL), 0);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 160000000");
}

static void test_cgroup_gone_and_dry_run(void **state)
{
	struct cg_limits want = wbps(80 * MS);

	start_at(&want, 900 * MS);
	t_fakecg_rmdir(&f, "w");
	assert_int_equal(iolatd_act_release(&a, &root, 1200 * MS, false), 0);
	assert_false(a.active);
	assert_true(iolatd_act_apply(&a, &root, &want, 1300 * MS, false, NULL, NULL) < 0);

	t_fakecg_mkdir(&f, "d");
	iolatd_act_init(&a, t_fakecg_path(&f, "d"), makedev(254, 0));
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1000 * MS, true, NULL, NULL), 1);
	assert_true(a.active);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1150 * MS, true, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "d", WBPS), "");
	assert_int_equal(iolatd_act_release(&a, &root, 1200 * MS, true), 1);
	assert_string_equal(t_fakecg_read(&f, "d", WBPS), "");
}

static void test_direct_writes_at_once(void **state)
{
	struct cg_limits want = wbps(400 * MS + 3);

	a.staged = false;
	/* A new kind: its value at once, no opening, nothing pending. */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1000 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 400000010");
	assert_int_equal(a.pending, ACT_NONE);
	assert_int_equal(a.opens + a.primes, 0);
	assert_int_equal(recorded, 1);
	/* A lowering to a tenth: written whole at once, not primed nor halved. */
	want = wbps(40 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1100 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 40000000");
	assert_int_equal(a.pending, ACT_NONE);
	assert_int_equal(a.opens + a.primes, 0);
	assert_int_equal(recorded, 2);
	assert_int_equal(iolatd_act_commit_due(&a, &root, 1180 * MS, false, record, &a), 0);
	/* Still at most one write per 100 ms. */
	want = wbps(20 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1150 * MS, false, record, &a), 0);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 40000000");
	assert_int_equal(iolatd_act_release(&a, &root, 1300 * MS, false), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_admin_limit_kept_and_restored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_admin_change_is_adopted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_limited_and_hysteresis, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adaptive_band, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_gone_and_dry_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_kind_is_opened, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_does_not_lower_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lowering_is_primed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_commit_primes_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raise_at_once_cancels_lowering, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_writes_at_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
