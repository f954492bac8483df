/* SPDX-License-Identifier: MIT */
/*
 * test_jobcg.c - cgroup='s checks and cgroups on fake trees (src/run/jobcg.c;
 * the real v1 path is tests/cli/run_cgroup.sh): the hierarchy is v1 with
 * blkio when mounted, else cgroup2 offering io, else a refusal; the process's
 * cgroup is read from /proc/self/cgroup's format; on v2 jobs naming
 * different cgroups (or one naming none) are refused, as are a missing
 * parent, a parent not enabling io and a cgroup that enables controllers for
 * its children, each with FILE:LINE and a hint; v1 takes a cgroup per job;
 * make creates only the missing parts and remove takes away exactly those;
 * cgroup_write_bps= writes the block throttle's line for the disk of the
 * job's file into the cgroup (v1 and v2 files), takes it off after from a
 * cgroup that existed, and is refused for a cgroup with a cap on the disk
 * already, two caps in one cgroup, or without cgroup=.
 * Context: single-threaded cmocka program; the checks need root (skipped otherwise).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/devinfo.h"
#include "job/jobfile.h"
#include "run/jobcg.h"

static char top[256], mounts[300], self[300], err[1024];

static void put(const char *rel, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static bool exists(const char *rel)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	return access(path, F_OK) == 0;
}

/* A v2 root at top/v2 offering io and enabling it for its children; a v1 blkio root at top/v1. */
static int setup(void **state)
{
	snprintf(top, sizeof(top), "%s/iolat-jobcg-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(top));
	dir("v2");
	put("v2/cgroup.controllers", "cpu io memory\n");
	put("v2/cgroup.subtree_control", "io memory\n");
	dir("v1");
	snprintf(mounts, sizeof(mounts), "%s/mounts", top);
	snprintf(self, sizeof(self), "%s/self", top);
	put("self", "5:blkio:/x/y\n0::/user.slice/s.scope\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void use_v2(void)
{
	char text[600];

	snprintf(text, sizeof(text), "cgroup %s/cpu cgroup rw,cpu 0 0\ncgroup2 %s/v2 cgroup2 rw 0 0\n", top, top);
	put("mounts", text);
}

static void use_v1(void)
{
	char text[600];

	snprintf(text, sizeof(text), "cgroup2 %s/v2 cgroup2 rw 0 0\ncgroup %s/v1 cgroup rw,nosuid,blkio 0 0\n", top, top);
	put("mounts", text);
}

/* Check the job file @text on the tree; its return, with err holding the message. */
static int check(const char *text, struct iolat_jobcg *c)
{
	struct iolat_jobfile *jf = NULL;
	int ret;

	err[0] = '\0';
	assert_int_equal(iolat_jobfile_parse_buf(text, strlen(text), "t.fio", &jf, err, sizeof(err)), 0);
	ret = iolat_jobcg_check(c, jf, mounts, self, err, sizeof(err));
	iolat_jobfile_free(jf);
	return ret;
}

static bool says(const char *what)
{
	if (strstr(err, what))
		return true;
	print_error("message '%s' lacks '%s'\n", err, what);
	return false;
}

static void skip_unless_root(void)
{
	if (geteuid() != 0)
		skip();
}

static void test_v2_one_cgroup_for_all(void **state)
{
	struct iolat_jobcg c;

	skip_unless_root();
	use_v2();
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=web\n[b]\nfilename=/g\ncgroup=web\n", &c), 0);
	assert_int_equal(c.version, 2);
	assert_string_equal(c.home, "user.slice/s.scope");
	assert_int_equal(c.n, 1);
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=web\n[b]\nfilename=/g\ncgroup=db\n", &c), -EINVAL);
	assert_true(says("t.fio:6: key 'cgroup': job 'b': 'db', job 'a': 'web': on cgroup v2 a cgroup takes "
			 "whole processes"));
	assert_true(says("give every job the same cgroup="));
	/* A job without cgroup= would be moved with the process all the same. */
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=web\n[b]\nfilename=/g\n", &c), -EINVAL);
	assert_true(says("job 'b': '', job 'a': 'web'"));
	/* No job names one: nothing to do, nothing checked. */
	assert_int_equal(check("[a]\nfilename=/f\n", &c), 0);
	assert_int_equal(c.version, 0);
}

static void test_v2_parents(void **state)
{
	struct iolat_jobcg c;

	skip_unless_root();
	use_v2();
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=q/leaf\n", &c), -ENOENT);
	assert_true(says("t.fio:3: key 'cgroup': job 'a': ") && says("/v2/q does not exist") &&
		    says("echo +io > "));
	dir("v2/p");
	put("v2/p/cgroup.subtree_control", "\n");
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=p/leaf\n", &c), -EINVAL);
	assert_true(says("/v2/p does not enable io for its children") && says("cgroup.subtree_control"));
	put("v2/p/cgroup.subtree_control", "io\n");
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=p/leaf\n", &c), 0);
	/* An existing cgroup that enables controllers below it may hold no process. */
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=p\n", &c), -EINVAL);
	assert_true(says("/v2/p enables controllers for its children") && says("name a leaf"));
}

static void test_v1_and_none(void **state)
{
	struct iolat_jobcg c;

	skip_unless_root();
	use_v1();
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=web\n[b]\nfilename=/g\ncgroup=db\n[c]\nfilename=/h\n"
			       "cgroup=web\n", &c), 0);
	assert_int_equal(c.version, 1);
	assert_string_equal(c.home, "x/y");
	assert_int_equal(c.n, 2);
	assert_string_equal(c.cg[0].rel, "web");
	assert_string_equal(c.cg[1].rel, "db");
	put("mounts", "proc /proc proc rw 0 0\n");
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=web\n", &c), -ENOENT);
	assert_true(says("t.fio:3: key 'cgroup': job 'a': no cgroup hierarchy with the block I/O controller"));
	/* cgroup2 without io (a hybrid host's controller-less tree) is no hierarchy for this. */
	put("v2/cgroup.controllers", "cpu memory\n");
	use_v2();
	assert_int_equal(check("[a]\nfilename=/f\ncgroup=web\n", &c), -ENOENT);
}

static void test_make_and_remove_what_was_made(void **state)
{
	struct iolat_jobcg c;

	skip_unless_root();
	use_v1();
	dir("v1/a");
	assert_int_equal(check("[j]\nfilename=/f\ncgroup=a/b/c\n[k]\nfilename=/g\ncgroup=a\n", &c), 0);
	assert_int_equal(iolat_jobcg_make(&c, err, sizeof(err)), 0);
	assert_true(exists("v1/a/b/c"));
	assert_string_equal(c.cg[0].made, "a/b");
	assert_string_equal(c.cg[1].made, "");
	iolat_jobcg_remove(&c, NULL, NULL);
	assert_false(exists("v1/a/b"));
	assert_true(exists("v1/a"));   /* it was there before */
	/* A part that cannot be made: one line naming it. */
	put("v1/file", "");
	assert_int_equal(check("[j]\nfilename=/f\ncgroup=file/x\n", &c), 0);
	assert_int_equal(iolat_jobcg_make(&c, err, sizeof(err)), -ENOTDIR);
	assert_true(says("cannot create cgroup ") && says("/v1/file/x"));
	iolat_jobcg_remove(&c, NULL, NULL);
}

/* The text of @rel under the tree ("" when unreadable). */
static const char *text_of(const char *rel)
{
	static char buf[256];
	char path[600];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	buf[0] = '\0';
	if ((f = fopen(path, "r"))) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void test_write_cap(void **state)
{
	struct iolat_eng_devinfo di;
	struct iolat_jobcg c;
	char job[1200], want[96];
	struct iolat_jobfile *jf = NULL;

	/* Without cgroup= there is nothing to cap: a parse error with the line. */
	const char *nocg = "[a]\nfilename=/f\ncgroup_write_bps=10m\n";

	assert_int_equal(iolat_jobfile_parse_buf(nocg, strlen(nocg), "t.fio", &jf, err, sizeof(err)), -EINVAL);
	assert_true(says("t.fio:3: key 'cgroup_write_bps': expected a cgroup= to cap"));
	skip_unless_root();
	iolat_eng_devinfo_path(top, &di);
	if (!di.disk_major && !di.disk_minor)
		skip();   /* the temp dir is on no disk (tmpfs): nothing to cap */
	use_v1();
	snprintf(job, sizeof(job), "[w]\nfilename=%s/f\ncgroup=capped\ncgroup_write_bps=10m\n"
		 "[r]\nfilename=%s/g\ncgroup=plain\n", top, top);
	assert_int_equal(check(job, &c), 0);
	assert_int_equal(c.cg[0].write_bps, 10u << 20);
	assert_int_equal(c.cg[1].write_bps, 0);
	assert_int_equal(iolat_jobcg_make(&c, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%u:%u %u", di.disk_major, di.disk_minor, 10u << 20);
	assert_string_equal(text_of("v1/capped/blkio.throttle.write_bps_device"), want);
	assert_false(exists("v1/plain/blkio.throttle.write_bps_device"));
	iolat_jobcg_remove(&c, NULL, NULL);
	/* The fake tree's files keep the directory: removal needs a real cgroupfs. */
	assert_int_equal(unlink(strcat(strcpy(job, top), "/v1/capped/blkio.throttle.write_bps_device")), 0);
	assert_int_equal(rmdir(strcat(strcpy(job, top), "/v1/capped")), 0);
	/* An existing cgroup without a cap on the disk: capped for the run, back to none after. */
	dir("v1/old");
	snprintf(job, sizeof(job), "[w]\nfilename=%s/f\ncgroup=old\ncgroup_write_bps=10m\n", top);
	assert_int_equal(check(job, &c), 0);
	assert_int_equal(iolat_jobcg_make(&c, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%u:%u %u", di.disk_major, di.disk_minor, 10u << 20);
	assert_string_equal(text_of("v1/old/blkio.throttle.write_bps_device"), want);
	iolat_jobcg_remove(&c, NULL, NULL);
	assert_true(exists("v1/old"));
	snprintf(want, sizeof(want), "%u:%u 0", di.disk_major, di.disk_minor);
	assert_string_equal(text_of("v1/old/blkio.throttle.write_bps_device"), want);
	/* One with a cap on the disk already: refused (it could not be put back as it was). */
	snprintf(want, sizeof(want), "%u:%u 5000\n", di.disk_major, di.disk_minor);
	put("v1/old/blkio.throttle.write_bps_device", want);
	assert_int_equal(check(job, &c), -EEXIST);
	assert_true(says("t.fio:4: key 'cgroup_write_bps': job 'w': ") && says("/v1/old has a write cap on") &&
		    says(" 5000'"));
	/* Two caps for one cgroup. */
	snprintf(job, sizeof(job), "[w]\nfilename=%s/f\ncgroup=new\ncgroup_write_bps=10m\n"
		 "[x]\nfilename=%s/g\ncgroup=new\ncgroup_write_bps=20m\n", top, top);
	assert_int_equal(check(job, &c), -EINVAL);
	assert_true(says("t.fio:8: key 'cgroup_write_bps': job 'x': cgroup 'new' has another cap"));
	/* v2: io.max's wbps; "wbps=max" is no cap. */
	use_v2();
	dir("v2/capped");
	snprintf(want, sizeof(want), "%u:%u rbps=max wbps=max riops=max wiops=max\n", di.disk_major, di.disk_minor);
	put("v2/capped/io.max", want);
	snprintf(job, sizeof(job), "[w]\nfilename=%s/f\ncgroup=capped\ncgroup_write_bps=1m\n", top);
	assert_int_equal(check(job, &c), 0);
	assert_int_equal(iolat_jobcg_make(&c, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%u:%u wbps=%u", di.disk_major, di.disk_minor, 1u << 20);
	assert_string_equal(text_of("v2/capped/io.max"), want);
	c.process_moved = false;   /* the fake tree's cgroup.procs moved nobody */
	iolat_jobcg_remove(&c, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v2_one_cgroup_for_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_parents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_and_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_make_and_remove_what_was_made, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_cap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
