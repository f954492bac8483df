/* SPDX-License-Identifier: MIT */
/*
 * test_devpath.c - the disk a unit's IODeviceLatencyTargetSec= path names,
 * as iolatd resolves it without the host's /dev (its unit's PrivateDevices=
 * yes): on a fake sysfs (vdzz 254:0 with its partition vdzz1 254:1, sdzz
 * 8:16: names no real /dev has) and a fake udev database, /dev/disk/by-id/... and /dev/mapper/... are
 * found through udev's "S:" symlink lines, /dev/block/MAJ:MIN by its
 * numbers, /dev/vdzz by the kernel's name, a partition (by name or by udev
 * link) becomes its disk, a file on a filesystem its filesystem's disk, and
 * a name nobody knows is -ENODEV (never some other disk).
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/tree/devpath.h"

static char top[64], sysfs[128], udev[128];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mk(const char *fmt, const char *a)
{
	char path[512];

	snprintf(path, sizeof(path), fmt, top, a);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int setup(void **state)
{
	char path[512];

	snprintf(top, sizeof(top), "/tmp/iolatd-devpath-XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(sysfs, sizeof(sysfs), "%s/sys", top);
	snprintf(udev, sizeof(udev), "%s/udev", top);
	mk("%s/%s", "sys");
	mk("%s/%s", "udev");
	mk("%s/sys/%s", "dev");
	mk("%s/sys/%s", "class");
	mk("%s/sys/class/%s", "block");
	/* The disk and its partition as sysfs lays them out (dev/block/254:1 is vdzz/vdzz1). */
	mk("%s/sys/%s", "vdzz");
	mk("%s/sys/vdzz/%s", "vdzz1");
	mk("%s/sys/%s", "sdzz");
	snprintf(path, sizeof(path), "%s/sys/vdzz/dev", top);
	put(path, "254:0\n");
	snprintf(path, sizeof(path), "%s/sys/vdzz/vdzz1/dev", top);
	put(path, "254:1\n");
	snprintf(path, sizeof(path), "%s/sys/vdzz/vdzz1/partition", top);
	put(path, "1\n");
	snprintf(path, sizeof(path), "%s/sys/sdzz/dev", top);
	put(path, "8:16\n");
	mk("%s/sys/dev/%s", "block");
	assert_int_equal(symlink("../../vdzz", strcat(strcpy(path, sysfs), "/dev/block/254:0")), 0);
	assert_int_equal(symlink("../../vdzz/vdzz1", strcat(strcpy(path, sysfs), "/dev/block/254:1")), 0);
	assert_int_equal(symlink("../../sdzz", strcat(strcpy(path, sysfs), "/dev/block/8:16")), 0);
	assert_int_equal(symlink("../../vdzz", strcat(strcpy(path, sysfs), "/class/block/vdzz")), 0);
	assert_int_equal(symlink("../../vdzz/vdzz1", strcat(strcpy(path, sysfs), "/class/block/vdzz1")), 0);
	assert_int_equal(symlink("../../sdzz", strcat(strcpy(path, sysfs), "/class/block/sdzz")), 0);
	/* udev's records: the symlinks it made for each device. */
	snprintf(path, sizeof(path), "%s/b254:0", udev);
	put(path, "S:disk/by-path/virtio-pci-0000:00:04.0\nS:disk/by-id/virtio-data0\nI:1234\nE:ID_SERIAL=data0\n");
	snprintf(path, sizeof(path), "%s/b254:1", udev);
	put(path, "S:disk/by-uuid/1111-2222\nS:disk/by-id/virtio-data0-part1\n");
	snprintf(path, sizeof(path), "%s/b8:16", udev);
	put(path, "S:disk/by-id/ata-OTHER\nS:mapper/not-really\n");
	snprintf(path, sizeof(path), "%s/c4:64", udev); /* a character device: never a disk */
	put(path, "S:disk/by-id/virtio-data0-char\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static dev_t disk_of(const char *path)
{
	dev_t d = makedev(999, 999);

	assert_int_equal(iolatd_devpath_disk(path, sysfs, udev, &d), 0);
	return d;
}

static void test_udev_links(void **state)
{
	assert_true(disk_of("/dev/disk/by-id/virtio-data0") == makedev(254, 0));
	assert_true(disk_of("/dev/disk/by-path/virtio-pci-0000:00:04.0") == makedev(254, 0));
	assert_true(disk_of("/dev/disk/by-id/ata-OTHER") == makedev(8, 16));
	assert_true(disk_of("/dev/mapper/not-really") == makedev(8, 16));
	/* A partition's link: the disk it is on. */
	assert_true(disk_of("/dev/disk/by-uuid/1111-2222") == makedev(254, 0));
	assert_true(disk_of("/dev/disk/by-id/virtio-data0-part1") == makedev(254, 0));
}

static void test_names_and_numbers(void **state)
{
	assert_true(disk_of("/dev/vdzz") == makedev(254, 0));
	assert_true(disk_of("/dev/vdzz1") == makedev(254, 0));
	assert_true(disk_of("/dev/sdzz") == makedev(8, 16));
	assert_true(disk_of("/dev/block/8:16") == makedev(8, 16));
	assert_true(disk_of("/dev/block/254:1") == makedev(254, 0));
}

static void test_unknown(void **state)
{
	dev_t d;

	assert_int_equal(iolatd_devpath_disk("/dev/disk/by-id/nobody", sysfs, udev, &d), -ENODEV);
	assert_int_equal(iolatd_devpath_disk("/dev/disk/by-id/virtio-data0-char", sysfs, udev, &d), -ENODEV);
	assert_int_equal(iolatd_devpath_disk("/dev/nosuch", sysfs, udev, &d), -ENODEV);
	assert_int_equal(iolatd_devpath_disk("/dev/block/8:x", sysfs, udev, &d), -ENODEV);
	assert_int_equal(iolatd_devpath_disk("relative/path", sysfs, udev, &d), -ENODEV);
	/* Without udev's database, a link is not guessed. */
	assert_int_equal(iolatd_devpath_disk("/dev/disk/by-id/virtio-data0", sysfs, "/nonexistent", &d), -ENODEV);
}

/* A file on a filesystem (systemd takes its filesystem's device): this test's own directory. */
static void test_file_on_a_filesystem(void **state)
{
	struct stat st;
	dev_t d;

	assert_int_equal(stat(top, &st), 0);
	if (major(st.st_dev) == 0)
		skip(); /* tmpfs and the like: no block device behind it */
	assert_int_equal(iolatd_devpath_disk(top, "/sys", udev, &d), 0);
	assert_int_equal(major(d), major(st.st_dev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_udev_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_and_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_on_a_filesystem, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
