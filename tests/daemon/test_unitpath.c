/* SPDX-License-Identifier: MIT */
/*
 * test_unitpath.c - a unit's cgroup found by its name in a cgroup tree
 * (src/daemon/tree/unitpath.c), on a tree of plain directories: a service in
 * system.slice, one deep in a user's app slice, a slice itself, a name seen
 * twice (ambiguous: nothing chosen), none, a file of that name (not a
 * cgroup), deeper than the search goes, and names that are no unit's.
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
#include <unistd.h>
#include <cmocka.h>

#include "daemon/tree/unitpath.h"

static char root[64];

static void mk(const char *rel)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	assert_int_equal(mkdir(p, 0755), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/iolat-unitpath-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	mk("system.slice/web.service");
	mk("system.slice/backup.service");
	mk("user.slice/user-1000.slice/user@1000.service/app.slice/editor.service");
	mk("a.slice/twice.service");
	mk("b.slice/twice.service");
	mk("a.slice/b.slice/c.slice/d.slice/e.slice/deep.service");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void test_found(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(iolatd_unitpath_find(root, "web.service", out, sizeof(out)), 0);
	assert_string_equal(out, "system.slice/web.service");
	assert_int_equal(iolatd_unitpath_find(root, "editor.service", out, sizeof(out)), 0);
	assert_string_equal(out, "user.slice/user-1000.slice/user@1000.service/app.slice/editor.service");
	assert_int_equal(iolatd_unitpath_find(root, "system.slice", out, sizeof(out)), 0);
	assert_string_equal(out, "system.slice");
}

static void test_not_chosen(void **state)
{
	char out[256], path[256];
	FILE *f;

	(void)state;
	assert_int_equal(iolatd_unitpath_find(root, "twice.service", out, sizeof(out)), -EEXIST);
	assert_int_equal(iolatd_unitpath_find(root, "nope.service", out, sizeof(out)), -ENOENT);
	/* Six levels down: past the search. */
	assert_int_equal(iolatd_unitpath_find(root, "deep.service", out, sizeof(out)), -ENOENT);
	/* A file is no cgroup. */
	snprintf(path, sizeof(path), "%s/system.slice/file.service", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(iolatd_unitpath_find(root, "file.service", out, sizeof(out)), -ENOENT);
	assert_int_equal(iolatd_unitpath_find(root, "web", out, sizeof(out)), -EINVAL);
	assert_int_equal(iolatd_unitpath_find(root, "a/web.service", out, sizeof(out)), -EINVAL);
	assert_int_equal(iolatd_unitpath_find(root, "web.service", out, 8), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found),
		cmocka_unit_test(test_not_chosen),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
