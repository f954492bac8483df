/* SPDX-License-Identifier: MIT */
/*
 * test_discover.c - the controlled part of the cgroup tree on a fake tree:
 * a configured group brings its ancestors and every sibling; siblings that
 * appear and disappear are reported (children before parents on removal);
 * a cgroup recreated under the same name is a new node; cgroups below a
 * node are attributed to it; cgroups elsewhere are not; a configured group
 * not created yet still brings its siblings.
 * Context: single-threaded cmocka program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/config/config.h"
#include "daemon/tree/discover.h"
#include "helpers/t_fakecg.h"

static struct t_fakecg f;
static struct discover disc;
static struct iolatd_config cfg;
static char log_buf[4096];

static void added(void *ctx, int i)
{
	strcat(log_buf, "+");
	strcat(log_buf, disc.nodes[i].rel);
	strcat(log_buf, " ");
}

static void removed(void *ctx, int i)
{
	strcat(log_buf, "-");
	strcat(log_buf, disc.nodes[i].rel);
	strcat(log_buf, " ");
}

static const struct disc_ops ops = { .added = added, .removed = removed };

static int scan(void)
{
	log_buf[0] = '\0';
	return iolatd_disc_scan(&disc, &cfg, &ops);
}

static int setup(void **state)
{
	struct cgfs_root root;
	char why[64], err[256];

	t_fakecg_new(&f, 1);
	assert_int_equal(iolatd_cgfs_find_root(f.root, true, &root, why, sizeof(why)), 0);
	iolatd_disc_init(&disc, &root);
	assert_int_equal(iolatd_config_parse("t", "[global]\ndevice=vda\n[group:sys/app/reader]\ntarget=1ms\n",
					     &cfg, err, sizeof(err)), 0);
	t_fakecg_mkdir(&f, "sys");
	t_fakecg_mkdir(&f, "sys/app");
	t_fakecg_mkdir(&f, "other");
	return 0;
}

static int teardown(void **state)
{
	t_fakecg_free(&f);
	return 0;
}

static int node_of(const char *rel)
{
	return iolatd_disc_lookup(&disc, iolatd_cgfs_ino(t_fakecg_path(&f, rel)));
}

static void test_siblings_come_and_go(void **state)
{
	t_fakecg_mkdir(&f, "sys/app/reader");
	t_fakecg_mkdir(&f, "sys/app/writer");
	assert_int_equal(scan(), 4);
	assert_string_equal(log_buf, "+sys +sys/app +sys/app/reader +sys/app/writer ");
	assert_int_equal(scan(), 4);
	assert_string_equal(log_buf, "");

	t_fakecg_mkdir(&f, "sys/app/backup");
	assert_int_equal(scan(), 5);
	assert_string_equal(log_buf, "+sys/app/backup ");
	t_fakecg_rmdir(&f, "sys/app/writer");
	assert_int_equal(scan(), 4);
	assert_string_equal(log_buf, "-sys/app/writer ");
	assert_int_equal(iolatd_disc_find(&disc, "sys/app/writer"), -1);
	assert_true(iolatd_disc_find(&disc, "sys/app/backup") >= 0);
	assert_int_equal(disc.nodes[iolatd_disc_find(&disc, "sys/app/backup")].parent, iolatd_disc_find(&disc, "sys/app"));
}

static void test_recreated_is_new(void **state)
{
	t_fakecg_mkdir(&f, "sys/app/reader");
	t_fakecg_mkdir(&f, "sys/app/writer");
	t_fakecg_mkdir(&f, "sys/app/writer/sub"); /* keeps the inode from being reused */
	scan();
	t_fakecg_rmdir(&f, "sys/app/writer/sub");
	t_fakecg_rmdir(&f, "sys/app/writer");
	t_fakecg_mkdir(&f, "sys/app/spare");      /* may take the old inode: not our business */
	t_fakecg_mkdir(&f, "sys/app/writer");
	assert_int_equal(scan(), 5);
	assert_non_null(strstr(log_buf, "-sys/app/writer "));
	assert_non_null(strstr(log_buf, "+sys/app/writer "));
	assert_true(strstr(log_buf, "-sys/app/writer ") < strstr(log_buf, "+sys/app/writer "));
}

static void test_descendants_attributed(void **state)
{
	t_fakecg_mkdir(&f, "sys/app/reader");
	t_fakecg_mkdir(&f, "sys/app/writer");
	t_fakecg_mkdir(&f, "sys/app/writer/job1");
	t_fakecg_mkdir(&f, "sys/app/writer/job1/step");
	t_fakecg_mkdir(&f, "sys/svc");
	scan();
	assert_int_equal(node_of("sys/app/writer/job1/step"), iolatd_disc_find(&disc, "sys/app/writer"));
	assert_int_equal(node_of("sys/app/writer/job1"), iolatd_disc_find(&disc, "sys/app/writer"));
	assert_int_equal(node_of("sys/app/reader"), iolatd_disc_find(&disc, "sys/app/reader"));
	/* Under an ancestor but beside the configured parent: the ancestor's. */
	assert_int_equal(node_of("sys/svc"), iolatd_disc_find(&disc, "sys"));
	assert_int_equal(node_of("other"), -1);
	assert_int_equal(iolatd_disc_lookup(&disc, 1), -1);
	/* Removing a node with children reports the children first. */
	t_fakecg_rmdir(&f, "sys/app/writer/job1/step");
	t_fakecg_rmdir(&f, "sys/app/writer/job1");
	scan();
	assert_int_equal(node_of("sys/app/writer"), iolatd_disc_find(&disc, "sys/app/writer"));
	iolatd_disc_clear(&disc, &ops);
	assert_string_equal(log_buf + strlen(log_buf) - strlen("-sys "), "-sys ");
}

static void test_configured_group_not_there_yet(void **state)
{
	t_fakecg_mkdir(&f, "sys/app/writer");
	assert_int_equal(scan(), 3);
	assert_string_equal(log_buf, "+sys +sys/app +sys/app/writer ");
	t_fakecg_mkdir(&f, "sys/app/reader");
	assert_int_equal(scan(), 4);
	assert_string_equal(log_buf, "+sys/app/reader ");
	/* Its parent removed: everything below goes, children first. */
	t_fakecg_rmdir(&f, "sys/app/reader");
	t_fakecg_rmdir(&f, "sys/app/writer");
	t_fakecg_rmdir(&f, "sys/app");
	assert_int_equal(scan(), 1);
	assert_int_equal(strlen(log_buf), strlen("-sys/app/reader -sys/app/writer -sys/app "));
	assert_non_null(strstr(log_buf, "-sys/app/reader "));
	assert_non_null(strstr(log_buf, "-sys/app/writer "));
	assert_string_equal(log_buf + strlen(log_buf) - strlen("-sys/app "), "-sys/app ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_siblings_come_and_go, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recreated_is_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_descendants_attributed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configured_group_not_there_yet, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
