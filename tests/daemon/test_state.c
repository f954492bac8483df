/* SPDX-License-Identifier: MIT */
/*
 * test_state.c - the record of written limits and the clean-up at start: a
 * record round-trips; clean-up restores the administrator's value for every
 * kind still holding what was written, leaves a kind someone changed since,
 * skips a cgroup that is gone, and removes the record; a kill between a
 * recorded write and the write leaves the value before it, also restored; a
 * record of the first format (no "before" values) still reads; a damaged
 * record is refused and kept; an empty set removes the file.
 * Context: single-threaded cmocka program on a fake v1 tree.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/limits/state.h"
#include "helpers/t_fakecg.h"

#define WBPS "blkio.throttle.write_bps_device"
#define WIOPS "blkio.throttle.write_iops_device"
#define RBPS "blkio.throttle.read_bps_device"

static struct t_fakecg f;
static struct cgfs_root root;
static char run[1100];
static char why[256];

static int setup(void **state)
{
	t_fakecg_new(&f, 1);
	assert_int_equal(iolatd_cgfs_find_root(f.root, true, &root, why, sizeof(why)), 0);
	snprintf(run, sizeof(run), "%s/run", f.root);
	assert_int_equal(mkdir(run, 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	t_fakecg_free(&f);
	return 0;
}

static struct state_rec rec(const char *rel, uint64_t admin_wbps, uint64_t wbps, uint64_t wiops)
{
	struct state_rec r = { .dev = makedev(254, 0) };

	snprintf(r.cgdir, sizeof(r.cgdir), "%s", t_fakecg_path(&f, rel));
	r.admin.v[CG_WBPS] = admin_wbps;
	r.written.v[CG_WBPS] = wbps;
	r.written.v[CG_WIOPS] = wiops;
	return r;
}

static void test_round_trip(void **state)
{
	struct state_rec in[2], out[4];

	in[0] = rec("a", 5, 6, 7);
	in[0].before.v[CG_WBPS] = 8;
	in[1] = rec("b", 0, 1ull << 40, 0);
	in[1].dev = makedev(8, 16);
	assert_int_equal(iolatd_state_save(run, in, 2), 0);
	assert_int_equal(iolatd_state_load(run, out, 4, why, sizeof(why)), 2);
	for (int i = 0; i < 2; i++) {
		assert_string_equal(in[i].cgdir, out[i].cgdir);
		assert_int_equal(in[i].dev, out[i].dev);
		assert_memory_equal(&in[i].admin, &out[i].admin, sizeof(in[i].admin));
		assert_memory_equal(&in[i].written, &out[i].written, sizeof(in[i].written));
		assert_memory_equal(&in[i].before, &out[i].before, sizeof(in[i].before));
	}
	assert_int_equal(iolatd_state_save(run, NULL, 0), 0);
	assert_int_equal(iolatd_state_load(run, out, 4, why, sizeof(why)), 0);
}

static void test_cleanup_restores_what_is_ours(void **state)
{
	struct state_rec recs[3];

	t_fakecg_mkdir(&f, "w");
	t_fakecg_mkdir(&f, "x");
	/* w: both kinds still as written; the admin had 900 on write_bps. */
	t_fakecg_write(&f, "w", WBPS, "254:0 300\n");
	t_fakecg_write(&f, "w", WIOPS, "254:0 40\n");
	recs[0] = rec("w", 900, 300, 40);
	/* x: write_bps changed by someone since (777): left alone. */
	t_fakecg_write(&f, "x", WBPS, "254:0 777\n");
	t_fakecg_write(&f, "x", WIOPS, "254:0 55\n");
	recs[1] = rec("x", 0, 300, 55);
	/* gone: a cgroup removed meanwhile. */
	recs[2] = rec("gone", 0, 300, 0);
	assert_int_equal(iolatd_state_save(run, recs, 3), 0);

	assert_int_equal(iolatd_state_cleanup(run, &root, why, sizeof(why)), 3);
	assert_string_equal(t_fakecg_read(&f, "w", WBPS), "254:0 900");
	assert_string_equal(t_fakecg_read(&f, "w", WIOPS), "254:0 0");
	assert_string_equal(t_fakecg_read(&f, "x", WBPS), "254:0 777\n");
	assert_string_equal(t_fakecg_read(&f, "x", WIOPS), "254:0 0");
	assert_string_equal(t_fakecg_read(&f, "w", RBPS), ""); /* never written: untouched */
	assert_int_equal(iolatd_state_load(run, recs, 3, why, sizeof(why)), 0);
	/* Nothing recorded: nothing to do. */
	assert_int_equal(iolatd_state_cleanup(run, &root, why, sizeof(why)), 0);
}

/*
 * The daemon recorded a write of 200 over its own 300 and was killed before
 * making it: the file still holds 300, and that is put back too. A record of
 * the first format (no "before" group) reads with none.
 */
static void test_cleanup_after_a_kill_before_the_write(void **state)
{
	struct state_rec r[1];
	char path[1200];
	FILE *fp;

	t_fakecg_mkdir(&f, "k");
	t_fakecg_write(&f, "k", WBPS, "254:0 300\n");
	r[0] = rec("k", 900, 200, 0);
	r[0].before.v[CG_WBPS] = 300;
	assert_int_equal(iolatd_state_save(run, r, 1), 0);
	assert_int_equal(iolatd_state_cleanup(run, &root, why, sizeof(why)), 1);
	assert_string_equal(t_fakecg_read(&f, "k", WBPS), "254:0 900");

	snprintf(path, sizeof(path), "%s/%s", run, STATE_FILE);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "iolatd-limits 1\n%s\t254:0\t0 900 0 0\t0 900 0 0\n", t_fakecg_path(&f, "k"));
	fclose(fp);
	assert_int_equal(iolatd_state_load(run, r, 1, why, sizeof(why)), 1);
	assert_int_equal(r[0].written.v[CG_WBPS], 900);
	assert_int_equal(r[0].before.v[CG_WBPS], 0);
}

static void test_damaged_record_kept(void **state)
{
	char path[1200];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", run, STATE_FILE);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("iolatd-limits 1\n/x\t254:0\t1 2 3\n", fp);
	fclose(fp);
	assert_int_equal(iolatd_state_cleanup(run, &root, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, ":2: damaged record"));
	assert_int_equal(access(path, F_OK), 0);
	fp = fopen(path, "w");
	fputs("something else\n", fp);
	fclose(fp);
	assert_int_equal(iolatd_state_cleanup(run, &root, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, ":1: not an iolatd record file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cleanup_restores_what_is_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cleanup_after_a_kill_before_the_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_record_kept, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
