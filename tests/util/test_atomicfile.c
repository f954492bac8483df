/* SPDX-License-Identifier: MIT */
/*
 * test_atomicfile.c - iolat_atomic_open()/iolat_atomic_commit()
 * (src/util/atomicfile.c) on real files: a commit replaces the file whole
 * (synced or not) and leaves no temporary; while the new content is being
 * written the old file is still what a reader sees; a failed write (the
 * caller's error) leaves the old file and no temporary; a path in a missing
 * directory and one too long are refused before anything is written.
 * Context: single-threaded cmocka program; files under a mkdtemp directory,
 * removed on every path.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/atomicfile.h"
#include "util/readfile.h"

static char dir[64];

/* The files the tests make in the directory (a temporary left behind would
 * fail the rmdir). */
static const char *const names[] = { "state", "status" };

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/iolat-atomic-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char path[128];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	return rmdir(dir);
}

/* The content of @path, "" when it is missing (the caller frees). */
static char *content(const char *path)
{
	char *buf = NULL;
	size_t len = 0;

	if (iolat_read_file(path, 1 << 20, &buf, &len))
		return strdup("");
	return buf;
}

static void expect(const char *path, const char *want)
{
	char *got = content(path);

	assert_string_equal(got, want);
	free(got);
}

/* Replace @path with @text (synced or not); while it is written, a reader
 * still sees @before; after, @text and no temporary. */
static void replace(const char *path, bool sync, const char *text, const char *before)
{
	struct iolat_atomic_file af;
	char tmp[140];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(iolat_atomic_open(&af, path, sync), 0);
	fputs(text, af.f);
	fflush(af.f);
	expect(path, before);
	assert_int_equal(iolat_atomic_commit(&af, 0), 0);
	expect(path, text);
	assert_int_equal(access(tmp, F_OK), -1);
}

static void test_replace(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/state", dir);
	replace(path, false, "first\n", "");
	replace(path, false, "second, unsynced\n", "first\n");
	replace(path, true, "third, synced", "second, unsynced\n");
}

static void test_failed_write_keeps_the_old(void **state)
{
	struct iolat_atomic_file af;
	char path[128], tmp[140];

	(void)state;
	snprintf(path, sizeof(path), "%s/status", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	replace(path, false, "old", "");
	assert_int_equal(iolat_atomic_open(&af, path, true), 0);
	fputs("half of the new", af.f);
	assert_int_equal(iolat_atomic_commit(&af, -EIO), -EIO);
	expect(path, "old");
	assert_int_equal(access(tmp, F_OK), -1);
	assert_null(af.f);
}

static void test_refused(void **state)
{
	struct iolat_atomic_file af;
	char path[128], *longp;

	(void)state;
	snprintf(path, sizeof(path), "%s/missing/dir/file", dir);
	assert_int_equal(iolat_atomic_open(&af, path, false), -ENOENT);
	assert_null(af.f);
	assert_int_equal(iolat_atomic_commit(&af, -ENOENT), -ENOENT);
	longp = malloc(PATH_MAX + 10);
	assert_non_null(longp);
	memset(longp, 'a', PATH_MAX + 9);
	longp[PATH_MAX + 9] = '\0';
	assert_int_equal(iolat_atomic_open(&af, longp, false), -ENAMETOOLONG);
	free(longp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_failed_write_keeps_the_old),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
