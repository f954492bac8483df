/* SPDX-License-Identifier: MIT */
/*
 * test_helpers.c - the engine helpers: crc32c against published check values
 * and a bit-at-a-time reference, verify blocks (round trip, each kind of
 * corruption named), device info from a fake sysfs tree (disk, partition,
 * unknown device) and from a real path, the file layout helper, aligned
 * buffers and the engine registry.
 * Context: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/crc32c.h"
#include "engine/devinfo.h"
#include "engine/engine.h"
#include "engine/registry.h"
#include "engine/layout.h"
#include "engine/verify.h"
#include "engine/t_engine.h"

static char g_dir[PATH_MAX];

/* snprintf that must not truncate. */
static void t_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < len);
}

/* The definition, one bit at a time. */
static uint32_t crc_ref(const unsigned char *p, size_t len)
{
	uint32_t c = ~0u;

	while (len--) {
		c ^= *p++;
		for (int i = 0; i < 8; i++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
	}
	return ~c;
}

static void t_crc32c_vectors(void **state)
{
	static const struct { const char *in; size_t len; uint32_t crc; } cases[] = {
		{ "123456789", 9, 0xE3069283u },   /* the CRC catalogue check value */
		{ "", 0, 0x00000000u },
		{ "a", 1, 0xC1D04330u },
	};
	unsigned char zeros[32] = { 0 }, ones[32], inc[32], dec[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(iolat_eng_crc32c(0, cases[i].in, cases[i].len), cases[i].crc);
	/* RFC 3720 (iSCSI) B.4 test patterns. */
	memset(ones, 0xff, sizeof(ones));
	for (int i = 0; i < 32; i++) {
		inc[i] = (unsigned char)i;
		dec[i] = (unsigned char)(31 - i);
	}
	assert_int_equal(iolat_eng_crc32c(0, zeros, 32), 0x8A9136AAu);
	assert_int_equal(iolat_eng_crc32c(0, ones, 32), 0x62A8AB43u);
	assert_int_equal(iolat_eng_crc32c(0, inc, 32), 0x46DD794Eu);
	assert_int_equal(iolat_eng_crc32c(0, dec, 32), 0x113FDB5Cu);
}

static void t_crc32c_reference_and_chaining(void **state)
{
	unsigned char buf[1031];
	uint64_t rng = 5;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)t_rand(&rng);
	/* Every length and misalignment against the definition. */
	for (size_t off = 0; off < 9; off++)
		for (size_t len = 0; off + len <= sizeof(buf); len += 1 + len / 7)
			assert_int_equal(iolat_eng_crc32c(0, buf + off, len), crc_ref(buf + off, len));
	for (size_t cut = 0; cut <= sizeof(buf); cut += 61)
		assert_int_equal(iolat_eng_crc32c(iolat_eng_crc32c(0, buf, cut), buf + cut,
						  sizeof(buf) - cut),
				 iolat_eng_crc32c(0, buf, sizeof(buf)));
}

static void t_verify_roundtrip_and_corruption(void **state)
{
	const size_t len = 8192;
	unsigned char *buf = iolat_eng_buf_alloc(len), *copy = malloc(len);
	struct iolat_eng_verify_err err;
	uint64_t gen = 0;
	char msg[256];

	assert_non_null(buf);
	assert_non_null(copy);
	assert_int_equal(iolat_eng_verify_fill(buf, len, 1 << 20, 77), 0);
	memcpy(copy, buf, len);
	assert_int_equal(iolat_eng_verify_check(buf, len, 1 << 20, 77, &gen, NULL), 0);
	assert_int_equal(gen, 77);
	assert_int_equal(iolat_eng_verify_check(buf, len, 1 << 20, IOLAT_ENG_VERIFY_ANY_GEN, NULL,
						NULL), 0);
	/* A block read from the wrong place. */
	assert_int_equal(iolat_eng_verify_check(buf, len, (1 << 20) + 512, 77, NULL, &err),
			 -EILSEQ);
	assert_string_equal(err.what, "offset");
	/* An old generation. */
	assert_int_equal(iolat_eng_verify_check(buf, len, 1 << 20, 78, NULL, &err), -EILSEQ);
	assert_string_equal(err.what, "generation");
	assert_int_equal(err.found, 77);
	/* One flipped payload byte in the third block. */
	buf[2 * 512 + 300] ^= 1;
	assert_int_equal(iolat_eng_verify_check(buf, len, 1 << 20, 77, NULL, &err), -EILSEQ);
	assert_string_equal(err.what, "crc");
	assert_int_equal(err.offset, (1 << 20) + 1024);
	iolat_eng_verify_format(&err, msg, sizeof(msg));
	assert_non_null(strstr(msg, "offset 1049600"));
	assert_non_null(strstr(msg, "bad crc"));
	/* Zeros (a hole) have no magic. */
	memset(buf, 0, len);
	assert_int_equal(iolat_eng_verify_check(buf, len, 0, 0, NULL, &err), -EILSEQ);
	assert_string_equal(err.what, "magic");
	/* Unaligned requests are refused. */
	assert_int_equal(iolat_eng_verify_fill(buf, 100, 0, 0), -EINVAL);
	assert_int_equal(iolat_eng_verify_check(copy, 512, 7, 0, NULL, NULL), -EINVAL);
	iolat_eng_buf_free(buf);
	free(copy);
}

static void t_mkfile(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	t_fmt(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void t_mkdirs(const char *path)
{
	char tmp[PATH_MAX * 2];

	t_fmt(tmp, sizeof(tmp), "mkdir -p '%s'", path);
	assert_int_equal(system(tmp), 0);
}

static void t_devinfo_fake_sysfs(void **state)
{
	char root[PATH_MAX * 2], disk[PATH_MAX * 2], part[PATH_MAX * 3], link[PATH_MAX * 2];
	struct iolat_eng_devinfo di;

	t_fmt(root, sizeof(root), "%s/sys", g_dir);
	t_fmt(disk, sizeof(disk), "%s/devices/pci0/block/sdz", root);
	t_fmt(part, sizeof(part), "%s/sdz3", disk);
	t_mkdirs(part);
	t_fmt(link, sizeof(link), "%s/queue", disk);
	t_mkdirs(link);
	t_mkdirs(root);
	t_fmt(link, sizeof(link), "%s/dev/block", root);
	t_mkdirs(link);
	t_mkfile(disk, "queue/nr_requests", "1024\n");
	t_mkfile(disk, "queue/rotational", "0\n");
	t_mkfile(disk, "queue/logical_block_size", "4096\n");
	t_mkfile(part, "partition", "3\n");
	t_mkfile(disk, "dev", "8:0\n");
	t_mkfile(part, "dev", "8:3\n");
	t_fmt(link, sizeof(link), "%s/dev/block/8:0", root);
	assert_int_equal(symlink("../../devices/pci0/block/sdz", link), 0);
	t_fmt(link, sizeof(link), "%s/dev/block/8:3", root);
	assert_int_equal(symlink("../../devices/pci0/block/sdz/sdz3", link), 0);

	/* The whole disk. */
	assert_int_equal(iolat_eng_devinfo_dev(root, 8, 0, &di), 0);
	assert_true(di.found);
	assert_int_equal(di.nr_requests, 1024);
	assert_int_equal(di.rotational, 0);
	assert_int_equal(di.logical_block_size, 4096);
	assert_string_equal(di.disk, "sdz");
	assert_int_equal(di.disk_major, 8);
	assert_int_equal(di.disk_minor, 0);
	/* A partition reads its disk's queue, and names its disk (the block throttle's unit). */
	memset(&di, 0x55, sizeof(di));
	assert_int_equal(iolat_eng_devinfo_dev(root, 8, 3, &di), 0);
	assert_int_equal(di.nr_requests, 1024);
	assert_int_equal(di.rotational, 0);
	assert_string_equal(di.disk, "sdz");
	assert_int_equal(di.disk_major, 8);
	assert_int_equal(di.disk_minor, 0);
	/* No such device (overlayfs, tmpfs): the fallbacks. */
	assert_int_equal(iolat_eng_devinfo_dev(root, 0, 42, &di), -ENODEV);
	assert_false(di.found);
	assert_int_equal(di.nr_requests, 64);
	assert_int_equal(di.rotational, 1);
	assert_int_equal(di.logical_block_size, 0);
	assert_int_equal(di.disk_major, 0);
	/* A garbage attribute falls back alone. */
	t_mkfile(disk, "queue/nr_requests", "lots\n");
	assert_int_equal(iolat_eng_devinfo_dev(root, 8, 0, &di), 0);
	assert_int_equal(di.nr_requests, 64);
	assert_int_equal(di.rotational, 0);
}

static void t_devinfo_real_paths(void **state)
{
	char path[PATH_MAX + 32];
	uint32_t nr = 0;
	int rot = -1, ret;

	/* Whatever this machine is, the answer is sane and consistent. */
	ret = iolat_eng_device_info(g_dir, &nr, &rot);
	assert_true(ret == 0 || ret == -ENODEV);
	assert_true(nr > 0);
	assert_true(rot == 0 || rot == 1);
	print_message("%s: nr_requests=%u rotational=%d (%s)\n", g_dir, nr, rot,
		      ret == 0 ? "sysfs" : "fallback");
	/* A file still to be created: its directory's device. */
	t_fmt(path, sizeof(path), "%s/not-yet", g_dir);
	uint32_t nr2 = 0;
	int rot2 = -1;

	assert_int_equal(iolat_eng_device_info(path, &nr2, &rot2), ret);
	assert_int_equal(nr2, nr);
	assert_int_equal(rot2, rot);
	/* tmpfs-like filesystems have no queue: fallbacks, -ENODEV. */
	if (access("/dev/shm", W_OK) == 0) {
		ret = iolat_eng_device_info("/dev/shm", &nr, &rot);
		if (ret == -ENODEV) {
			assert_int_equal(nr, 64);
			assert_int_equal(rot, 1);
		}
	}
	assert_int_equal(iolat_eng_device_info("/no/such/dir/file", &nr, &rot), -ENOENT);
	assert_int_equal(nr, 64);
}

static void t_layout(void **state)
{
	char path[PATH_MAX + 32];
	const uint64_t size = (3u << 20) + 4096;
	unsigned char *buf = iolat_eng_buf_alloc(65536);
	struct stat st;
	int created, fd;

	assert_non_null(buf);
	t_fmt(path, sizeof(path), "%s/layout", g_dir);
	assert_int_equal(iolat_eng_layout_file(path, 0, 0, NULL, NULL), -EINVAL);
	assert_int_equal(iolat_eng_layout_file(path, size, IOLAT_ENG_LAYOUT_VERIFY, &created, NULL), 0);
	assert_int_equal(created, 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((uint64_t)st.st_size, size);
	/* Really written: blocks allocated, the content verifies, generation 0. */
	assert_true((uint64_t)st.st_blocks * 512 >= size);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	for (uint64_t off = 0; off < size; off += 65536) {
		ssize_t n = pread(fd, buf, 65536, (off_t)off);

		assert_true(n > 0);
		assert_int_equal(iolat_eng_verify_check(buf, (size_t)n, off, 0, NULL, NULL), 0);
	}
	close(fd);
	/* Big enough already: left alone (same mtime, same content). */
	struct stat st2;

	assert_int_equal(iolat_eng_layout_file(path, size / 2, IOLAT_ENG_LAYOUT_FILL, &created, NULL), 0);
	assert_int_equal(created, 0);
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(st2.st_size, st.st_size);
	assert_int_equal(st2.st_mtim.tv_nsec, st.st_mtim.tv_nsec);
	/* Extended with FILL: the old part is kept, the new part is data. */
	assert_int_equal(iolat_eng_layout_file(path, size + 65536, IOLAT_ENG_LAYOUT_FILL, NULL, NULL), 0);
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal((uint64_t)st2.st_size, size + 65536);
	fd = open(path, O_RDONLY);
	assert_int_equal(pread(fd, buf, 4096, 0), 4096);
	assert_int_equal(iolat_eng_verify_check(buf, 4096, 0, 0, NULL, NULL), 0);
	assert_int_equal(pread(fd, buf, 4096, (off_t)size), 4096);
	bool nonzero = false;

	for (int i = 0; i < 4096; i++)
		nonzero |= buf[i] != 0;
	assert_true(nonzero);
	close(fd);
	unlink(path);
	/* A directory that does not exist. */
	t_fmt(path, sizeof(path), "%s/no/such", g_dir);
	assert_int_equal(iolat_eng_layout_file(path, 4096, 0, NULL, NULL), -ENOENT);
	iolat_eng_buf_free(buf);
}

static void t_registry_and_buffers(void **state)
{
	const struct iolat_engine_ops *ops;
	bool psync = false, null = false, uring = false;
	void *p;

	for (unsigned i = 0; (ops = iolat_eng_registry(i)); i++) {
		psync |= !strcmp(ops->name, "psync");
		null |= !strcmp(ops->name, "null");
		uring |= !strcmp(ops->name, "uring");
		assert_true(iolat_eng_available(ops->name) == !(ops->flags & IOLAT_ENG_F_NOT_BUILT));
		assert_ptr_equal(iolat_eng_lookup(ops->name, strlen(ops->name)), ops);
	}
	assert_true(psync && null && uring);   /* uring is named even when not built */
	assert_ptr_equal(iolat_eng_lookup("io_uring", 8), iolat_eng_lookup("uring", 5));
	assert_null(iolat_eng_lookup("sync", 4));
	assert_true(iolat_eng_available(iolat_eng_default_name()));
#ifdef CONFIG_HAVE_LIBURING
	assert_true(iolat_eng_available("uring"));
	assert_true(iolat_eng_available("io_uring"));
	assert_string_equal(iolat_eng_default_name(), "uring");
#else
	assert_false(iolat_eng_available("uring"));
	assert_string_equal(iolat_eng_default_name(), "psync");
#endif
	assert_false(iolat_eng_available("sync"));
	assert_false(iolat_eng_available(NULL));
	p = iolat_eng_buf_alloc(12345);
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % IOLAT_ENG_BUF_ALIGN, 0);
	iolat_eng_buf_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_crc32c_vectors),
		cmocka_unit_test(t_crc32c_reference_and_chaining),
		cmocka_unit_test(t_verify_roundtrip_and_corruption),
		cmocka_unit_test(t_devinfo_fake_sysfs),
		cmocka_unit_test(t_devinfo_real_paths),
		cmocka_unit_test(t_layout),
		cmocka_unit_test(t_registry_and_buffers),
	};
	char cmd[PATH_MAX + 32];
	int ret = t_tmpdir(g_dir, sizeof(g_dir), "helpers");

	if (ret < 0) {
		printf("skip: cannot create a test directory: %s\n", strerror(-ret));
		return T_EXIT_SKIP;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", g_dir);
	return ret ? 1 : 0;
}
