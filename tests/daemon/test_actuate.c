/* SPDX-License-Identifier: MIT */
/*
 * test_actuate.c - one cgroup's limits as iolatd keeps them, on a fake v1
 * tree: the administrator's limit found before the first write is kept (the
 * minimum of both is written) and restored at release; a limit the
 * administrator changes meanwhile becomes theirs; writes are at most one
 * per 100 ms and skipped for changes under an eighth; the record callback
 * runs before each write with the new values; a removed cgroup is released
 * without error; a dry run writes nothing.
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

#include "daemon/actuate.h"
#include "helpers/t_fakecg.h"

#define MS 1000000ull
#define WBPS "blkio.throttle.write_bps_device"
#define WIOPS "blkio.throttle.write_iops_device"

static struct t_fakecg f;
static struct cgfs_root root;
static struct act a;
static unsigned recorded;
static uint64_t recorded_wbps;

static void record(void *ctx)
{
	recorded++;
	recorded_wbps = ((struct act *)ctx)->written.v[CG_WBPS];
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

static void test_admin_limit_kept_and_restored(void **state)
{
	struct cg_limits want = wbps(300 * MS);

	t_fakecg_write(&f, "w", WBPS, "254:0 100000000\n");
	t_fakecg_write(&f, "w", WIOPS, "254:0 50\n");
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1000 * MS, false, record, &a), 1);
	/* The administrator's 100 MB/s is lower than ours: it stays. */
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 100000000");
	assert_string_equal(t_fakecg_read(&f, "w", WIOPS), "254:0 50");
	want = wbps(20 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, record, &a), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 20000000");
	assert_int_equal(recorded, 2);
	assert_int_equal(recorded_wbps, 20 * MS); /* recorded before it went out */
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

	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1000 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 30000000");
	/* The administrator writes their own limit over ours. */
	t_fakecg_write(&f, "w", WBPS, "254:0 10000000\n");
	want = wbps(60 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, NULL, NULL), 0); /* min is theirs */
	assert_int_equal(a.admin.v[CG_WBPS], 10 * MS);
	assert_int_equal(iolatd_act_release(&a, &root, 1300 * MS, false), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 10000000");
}

static void test_rate_limited_and_hysteresis(void **state)
{
	struct cg_limits want = wbps(80 * MS);

	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1000 * MS, false, NULL, NULL), 1);
	want = wbps(40 * MS);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1050 * MS, false, NULL, NULL), 0); /* < 100 ms */
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 80000000");
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1100 * MS, false, NULL, NULL), 1);
	want = wbps(44 * MS); /* +10 %: under an eighth */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1300 * MS, false, NULL, NULL), 0);
	want = wbps(46 * MS); /* +15 % */
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1400 * MS, false, NULL, NULL), 1);
	assert_int_equal(a.writes, 3);
	/* All zero: released at once, whatever the interval. */
	want = wbps(0);
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1410 * MS, false, NULL, NULL), 1);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 0");
}

static void test_cgroup_gone_and_dry_run(void **state)
{
	struct cg_limits want = wbps(80 * MS);

	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1000 * MS, false, NULL, NULL), 1);
	t_fakecg_rmdir(&f, "w");
	assert_int_equal(iolatd_act_release(&a, &root, 1100 * MS, false), 0);
	assert_false(a.active);
	assert_true(iolatd_act_apply(&a, &root, &want, 1200 * MS, false, NULL, NULL) < 0);

	t_fakecg_mkdir(&f, "d");
	iolatd_act_init(&a, t_fakecg_path(&f, "d"), makedev(254, 0));
	assert_int_equal(iolatd_act_apply(&a, &root, &want, 1000 * MS, true, NULL, NULL), 1);
	assert_true(a.active);
	assert_string_equal(t_fakecg_read(&f, "d", WBPS), "");
	assert_int_equal(iolatd_act_release(&a, &root, 1100 * MS, true), 1);
	assert_string_equal(t_fakecg_read(&f, "d", WBPS), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_admin_limit_kept_and_restored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_admin_change_is_adopted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_limited_and_hysteresis, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_gone_and_dry_run, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
