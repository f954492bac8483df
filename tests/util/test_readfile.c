/* SPDX-License-Identifier: MIT */
/*
 * test_readfile.c - iolat_read_file() (src/util/readfile.c) on real files:
 * an empty file, a file that crosses the buffer's doublings, one exactly at
 * the cap and one byte over it, a pipe (no size known ahead), NULs kept,
 * a directory and a missing file refused with their errors.
 * Context: single-threaded cmocka program; files under a mkdtemp directory,
 * removed on every path.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/readfile.h"

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/iolat-readfile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write @n bytes of a known pattern (with NULs) to DIR/@name; its path in @path. */
static void write_pattern(const char *name, size_t n, char *path, size_t plen)
{
	FILE *f;

	snprintf(path, plen, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fputc((int)(i % 251), f);
	assert_int_equal(fclose(f), 0);
}

static void check_pattern(const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)text[i] != i % 251)
			fail_msg("byte %zu is %u, expected %zu", i, (unsigned char)text[i], i % 251);
	assert_int_equal(text[n], '\0');
}

static void test_sizes(void **state)
{
	static const size_t sizes[] = { 0, 1, 63, 64, 65, 4096, 100000 };
	char path[128], *text;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		write_pattern("f", sizes[i], path, sizeof(path));
		assert_int_equal(iolat_read_file(path, 1 << 20, &text, &len), 0);
		assert_int_equal(len, sizes[i]);
		check_pattern(text, len);
		free(text);
	}
}

static void test_cap(void **state)
{
	char path[128], *text = (char *)1;
	size_t len = 7;

	(void)state;
	write_pattern("cap", 5000, path, sizeof(path));
	assert_int_equal(iolat_read_file(path, 5000, &text, &len), 0);
	assert_int_equal(len, 5000);
	free(text);
	assert_int_equal(iolat_read_file(path, 4999, &text, &len), -EFBIG);
	assert_null(text);
	assert_int_equal(len, 0);
}

static void test_pipe(void **state)
{
	char path[128], *text;
	size_t len;
	FILE *f;

	(void)state;
	f = popen("head -c 70000 /dev/zero | tr '\\0' 'x'", "r");
	assert_non_null(f);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(f));
	assert_int_equal(iolat_read_file(path, 1 << 20, &text, &len), 0);
	pclose(f);
	assert_int_equal(len, 70000);
	assert_int_equal(strspn(text, "x"), 70000);
	free(text);
}

static void test_refused(void **state)
{
	char path[128], *text;
	size_t len;

	(void)state;
	assert_int_equal(iolat_read_file(dir, 1 << 20, &text, &len), -EISDIR);
	assert_null(text);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(iolat_read_file(path, 1 << 20, &text, &len), -ENOENT);
	assert_null(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
