/* SPDX-License-Identifier: MIT */
/*
 * test_cgroupfs.c - the block throttle's files on a fake cgroupfs tree:
 * v2 io.max lines and v1 blkio.throttle.* lines are read for the right
 * device only ("max" and absence are "none"), written in the kernel's
 * formats (0 removes on v1, "max" on v2), and a kind left out is not
 * touched; the hierarchy's version is recognised from the root; devices
 * are parsed as MAJ:MIN; a v2 cgroup has the io controller only when its
 * cgroup.controllers says so (v1: always); what a cgroup was served is read
 * from v2 io.stat and v1's recursive rwstat files for the right device, a
 * damaged line or a missing file is an error with nothing half-filled.
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/sys/cgroupfs.h"
#include "helpers/t_fakecg.h"

static struct cgfs_root root_of(struct t_fakecg *f)
{
	struct cgfs_root r;
	char why[128];

	assert_int_equal(iolatd_cgfs_find_root(f->root, true, &r, why, sizeof(why)), 0);
	assert_int_equal(r.version, f->version);
	return r;
}

static void test_v2_read_write(void **state)
{
	struct t_fakecg f;
	struct cgfs_root r;
	struct cg_limits l;
	bool only[CG_NR_LIMITS] = { false, true, false, false };

	t_fakecg_new(&f, 2);
	r = root_of(&f);
	t_fakecg_mkdir(&f, "a");
	t_fakecg_write(&f, "a", "io.max", "8:16 rbps=1000 wbps=max riops=max wiops=7\n"
					  "254:0 rbps=max wbps=2097152 riops=50 wiops=max\n");
	assert_int_equal(iolatd_cgfs_read_limits(&r, t_fakecg_path(&f, "a"), makedev(254, 0), &l), 0);
	assert_int_equal(l.v[CG_RBPS], 0);
	assert_int_equal(l.v[CG_WBPS], 2097152);
	assert_int_equal(l.v[CG_RIOPS], 50);
	assert_int_equal(l.v[CG_WIOPS], 0);
	assert_int_equal(iolatd_cgfs_read_limits(&r, t_fakecg_path(&f, "a"), makedev(8, 16), &l), 0);
	assert_int_equal(l.v[CG_RBPS], 1000);
	assert_int_equal(l.v[CG_WIOPS], 7);
	assert_int_equal(iolatd_cgfs_read_limits(&r, t_fakecg_path(&f, "a"), makedev(8, 0), &l), 0);
	for (int k = 0; k < CG_NR_LIMITS; k++)
		assert_int_equal(l.v[k], 0);

	l = (struct cg_limits){ { 0, 5000000, 0, 300 } };
	assert_int_equal(iolatd_cgfs_write_limits(&r, t_fakecg_path(&f, "a"), makedev(254, 0), &l, NULL), 0);
	assert_string_equal(t_fakecg_read(&f, "a", "io.max"),
			    "254:0 rbps=max wbps=5000000 riops=max wiops=300");
	assert_int_equal(iolatd_cgfs_write_limits(&r, t_fakecg_path(&f, "a"), makedev(254, 0), &l, only), 0);
	assert_string_equal(t_fakecg_read(&f, "a", "io.max"), "254:0 wbps=5000000");
	assert_int_equal(iolatd_cgfs_write_limits(&r, t_fakecg_path(&f, "gone"), makedev(254, 0), &l, NULL), -ENOENT);
	t_fakecg_free(&f);
}

static void test_v1_read_write(void **state)
{
	struct t_fakecg f;
	struct cgfs_root r;
	struct cg_limits l;
	bool only[CG_NR_LIMITS] = { true, false, false, false };

	t_fakecg_new(&f, 1);
	r = root_of(&f);
	t_fakecg_mkdir(&f, "w");
	t_fakecg_write(&f, "w", "blkio.throttle.write_bps_device", "8:0 100\n254:0 104857600\n");
	t_fakecg_write(&f, "w", "blkio.throttle.read_iops_device", "254:0 99\n");
	assert_int_equal(iolatd_cgfs_read_limits(&r, t_fakecg_path(&f, "w"), makedev(254, 0), &l), 0);
	assert_int_equal(l.v[CG_WBPS], 104857600);
	assert_int_equal(l.v[CG_RIOPS], 99);
	assert_int_equal(l.v[CG_RBPS], 0);
	assert_int_equal(l.v[CG_WIOPS], 0);

	l = (struct cg_limits){ { 0, 7340032, 0, 120 } };
	assert_int_equal(iolatd_cgfs_write_limits(&r, t_fakecg_path(&f, "w"), makedev(254, 0), &l, NULL), 0);
	assert_string_equal(t_fakecg_read(&f, "w", "blkio.throttle.write_bps_device"), "254:0 7340032");
	assert_string_equal(t_fakecg_read(&f, "w", "blkio.throttle.write_iops_device"), "254:0 120");
	assert_string_equal(t_fakecg_read(&f, "w", "blkio.throttle.read_bps_device"), "254:0 0");
	/* Only read_bps: the others keep what they hold. */
	l.v[CG_RBPS] = 4096;
	assert_int_equal(iolatd_cgfs_write_limits(&r, t_fakecg_path(&f, "w"), makedev(254, 0), &l, only), 0);
	assert_string_equal(t_fakecg_read(&f, "w", "blkio.throttle.read_bps_device"), "254:0 4096");
	assert_string_equal(t_fakecg_read(&f, "w", "blkio.throttle.write_bps_device"), "254:0 7340032");
	assert_string_equal(t_fakecg_read(&f, "w", "blkio.throttle.read_iops_device"), "254:0 0");
	t_fakecg_free(&f);
}

static void test_root_and_devices(void **state)
{
	struct cgfs_root r;
	char why[128], buf[32];
	dev_t dev;

	assert_int_equal(iolatd_cgfs_find_root("/nonexistent/cg", true, &r, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "/nonexistent/cg"));
	assert_int_equal(iolatd_cgfs_parse_device("259:3", &dev), 0);
	assert_int_equal(major(dev), 259);
	assert_int_equal(minor(dev), 3);
	iolatd_cgfs_devstr(dev, buf, sizeof(buf));
	assert_string_equal(buf, "259:3");
	assert_int_equal(iolatd_cgfs_parse_device("259:3x", &dev) == 0, 0);
	assert_int_equal(iolatd_cgfs_parse_device("no-such-disk-here", &dev), -ENODEV);
	assert_int_equal(iolatd_cgfs_parse_device("../etc", &dev), -EINVAL);
	assert_string_equal(iolatd_cg_limit_name(CG_WIOPS), "wiops");
}

static void test_has_io(void **state)
{
	struct t_fakecg f;
	struct cgfs_root r;

	t_fakecg_new(&f, 2);
	r = root_of(&f);
	t_fakecg_mkdir(&f, "with");
	t_fakecg_write(&f, "with", "cgroup.controllers", "cpu io memory\n");
	t_fakecg_mkdir(&f, "without");
	t_fakecg_write(&f, "without", "cgroup.controllers", "cpu iox memory\n");
	t_fakecg_mkdir(&f, "none");
	assert_true(iolatd_cgfs_has_io(&r, t_fakecg_path(&f, "with")));
	assert_false(iolatd_cgfs_has_io(&r, t_fakecg_path(&f, "without")));
	assert_false(iolatd_cgfs_has_io(&r, t_fakecg_path(&f, "none"))); /* no file: none */
	t_fakecg_free(&f);
	t_fakecg_new(&f, 1);
	r = root_of(&f);
	t_fakecg_mkdir(&f, "v1");
	assert_true(iolatd_cgfs_has_io(&r, t_fakecg_path(&f, "v1")));
	t_fakecg_free(&f);
}

static void test_served_v2(void **state)
{
	struct t_fakecg f;
	struct cgfs_root r;
	struct cg_served sv;

	t_fakecg_new(&f, 2);
	r = root_of(&f);
	t_fakecg_mkdir(&f, "b");
	t_fakecg_write(&f, "b", "io.stat", "8:16 rbytes=5 wbytes=6 rios=7 wios=8 dbytes=0 dios=0\n"
					  "254:0 rbytes=4096 wbytes=3145728 rios=1 wios=6 dbytes=0 dios=0 "
					  "cost.usage=12\n");
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), 0);
	assert_true(sv.found);
	assert_int_equal(sv.bytes[0], 4096);
	assert_int_equal(sv.bytes[1], 3145728);
	assert_int_equal(sv.ios[0], 1);
	assert_int_equal(sv.ios[1], 6);
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(8, 16), &sv), 0);
	assert_int_equal(sv.bytes[1], 6);
	assert_int_equal(sv.ios[1], 8);
	/* 254:01 is not 254:0; no line for the device: nothing served yet. */
	t_fakecg_write(&f, "b", "io.stat", "254:01 rbytes=9 wbytes=9 rios=9 wios=9\n");
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), 0);
	assert_false(sv.found);
	assert_int_equal(sv.bytes[0] + sv.bytes[1] + sv.ios[0] + sv.ios[1], 0);
	/* A number that is not one: an error, nothing half-filled. */
	t_fakecg_write(&f, "b", "io.stat", "254:0 rbytes=12 wbytes=-3 rios=1 wios=1\n");
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), -EINVAL);
	assert_int_equal(sv.bytes[0], 0);
	t_fakecg_write(&f, "b", "io.stat", "254:0 rbytes=12 wbytes=99999999999999999999999 rios=1 wios=1\n");
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), -EINVAL);
	t_fakecg_write(&f, "b", "io.stat", "254:0 rbytes= wbytes=1 rios=1 wios=1\n");
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), -EINVAL);
	/* The helper writes what the kernel writes. */
	t_fakecg_set_served(&f, "b", "254:0", 1, 2, 3, 4);
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), 0);
	assert_int_equal(sv.bytes[0] * 1000 + sv.bytes[1] * 100 + sv.ios[0] * 10 + sv.ios[1], 1234);
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "gone"), makedev(254, 0), &sv), -ENOENT);
	t_fakecg_free(&f);
}

static void test_served_v1(void **state)
{
	struct t_fakecg f;
	struct cgfs_root r;
	struct cg_served sv;

	t_fakecg_new(&f, 1);
	r = root_of(&f);
	t_fakecg_mkdir(&f, "b");
	/* A cgroup that did nothing yet. */
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), 0);
	assert_false(sv.found);
	/* The kernel's layout: other devices, Sync/Async/Discard/Total lines, a last Total. */
	t_fakecg_write(&f, "b", "blkio.throttle.io_service_bytes_recursive",
		       "8:0 Read 11\n8:0 Write 12\n8:0 Total 23\n254:0 Read 213516288\n254:0 Write 9844867072\n"
		       "254:0 Sync 14528745472\n254:0 Async 1113890816\n254:0 Discard 5584252928\n"
		       "254:0 Total 15642636288\nTotal 15642636311\n");
	t_fakecg_write(&f, "b", "blkio.throttle.io_serviced_recursive",
		       "254:0 Read 15102\n254:0 Write 17372\n254:0 Sync 32045\n254:0 Async 989\n"
		       "254:0 Discard 560\n254:0 Total 33034\nTotal 33034\n");
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), 0);
	assert_true(sv.found);
	assert_int_equal(sv.bytes[0], 213516288);
	assert_int_equal(sv.bytes[1], 9844867072ull);
	assert_int_equal(sv.ios[0], 15102);
	assert_int_equal(sv.ios[1], 17372);
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(8, 0), &sv), 0);
	assert_int_equal(sv.bytes[0], 11);
	assert_int_equal(sv.ios[0], 0); /* no line in the requests' file */
	/* The recursive files are read: the cgroup's own (non-recursive) are not. */
	t_fakecg_write(&f, "b", "blkio.throttle.io_service_bytes", "254:0 Read 1\n254:0 Write 1\nTotal 2\n");
	t_fakecg_set_served(&f, "b", "254:0", 10, 20, 30, 40);
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), 0);
	assert_int_equal(sv.bytes[1], 20);
	assert_int_equal(sv.ios[1], 40);
	/* Damaged: a device line without a number, a number that is not one. */
	t_fakecg_write(&f, "b", "blkio.throttle.io_serviced_recursive", "254:0 Read\n");
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), -EINVAL);
	assert_int_equal(sv.bytes[1], 0);
	t_fakecg_write(&f, "b", "blkio.throttle.io_serviced_recursive", "254:0 Write 12x\n");
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), -EINVAL);
	/* A file missing: its errno. */
	assert_int_equal(unlink(t_fakecg_path(&f, "b/blkio.throttle.io_serviced_recursive")), 0);
	assert_int_equal(iolatd_cgfs_read_served(&r, t_fakecg_path(&f, "b"), makedev(254, 0), &sv), -ENOENT);
	t_fakecg_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2_read_write),
		cmocka_unit_test(test_v1_read_write),
		cmocka_unit_test(test_root_and_devices),
		cmocka_unit_test(test_has_io),
		cmocka_unit_test(test_served_v2),
		cmocka_unit_test(test_served_v1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
