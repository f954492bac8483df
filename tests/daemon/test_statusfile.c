/* SPDX-License-Identifier: MIT */
/*
 * test_statusfile.c - the status file's reader: records and fields parse,
 * values are found by key, the first record must be the daemon's, and a
 * damaged line is refused with its number.
 * Context: single-threaded cmocka program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/status/statusfile.h"

static void test_parse(void **state)
{
	struct status_file s;
	char why[128];

	assert_int_equal(iolatd_status_parse("iolatd pid=7 cgroup=v1 root=/sys/fs/cgroup/blkio\n\n"
				      "group path=a/b dev=254:0 depth=max\ngroup path=a/c depth=4\n",
				      &s, why, sizeof(why)), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.recs[0].kind, "iolatd");
	assert_string_equal(iolatd_status_get(&s.recs[0], "root"), "/sys/fs/cgroup/blkio");
	assert_string_equal(iolatd_status_get(&s.recs[1], "path"), "a/b");
	assert_string_equal(iolatd_status_get(&s.recs[2], "depth"), "4");
	assert_null(iolatd_status_get(&s.recs[2], "dev"));
	iolatd_status_free(&s);
}

static void test_refused(void **state)
{
	struct status_file s;
	char why[128];

	assert_int_equal(iolatd_status_parse("group path=a\n", &s, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not an iolatd status file"));
	assert_int_equal(iolatd_status_parse("iolatd pid=1\ngroup path=a junk\n", &s, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "line 2"));
	assert_int_equal(iolatd_status_parse("", &s, why, sizeof(why)), -EINVAL);
	assert_int_equal(iolatd_status_read("/nonexistent/status", &s, why, sizeof(why)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
