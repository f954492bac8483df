/* SPDX-License-Identifier: MIT */
/*
 * Tests of the undoable layout (src/job/fileprep.c) and the preflight plan
 * it runs (src/job/preflight.c): a layout that fails on its third file
 * removes the file it created and truncates the file it extended back to its
 * old size; a layout stopped by its flag does the same at once; a layout that
 * succeeds keeps the files until undone. Real files in a temporary directory.
 * Context: single-threaded test program.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "engine/layout.h"
#include "run/fileprep.h"
#include "run/preflight.h"

#define OLD_SIZE 4096u

struct t_dir {
	char dir[64], created[96], extended[96], unreachable[128];
	char notes[2048];
};

static void t_note(void *ctx, const char *line)
{
	struct t_dir *t = ctx;
	size_t n = strlen(t->notes);

	snprintf(t->notes + n, sizeof(t->notes) - n, "%s\n", line);
}

static int64_t t_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* A directory with one existing 4 KiB file; a plan: create, extend, fail. */
static void t_setup(struct t_dir *t, struct iolat_pf_file files[3], struct iolat_preflight *pf)
{
	int fd;

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/iolat-fileprep-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->created, sizeof(t->created), "%s/new", t->dir);
	snprintf(t->extended, sizeof(t->extended), "%s/old", t->dir);
	snprintf(t->unreachable, sizeof(t->unreachable), "%s/no/such/dir/file", t->dir);
	fd = open(t->extended, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, OLD_SIZE), 0);
	close(fd);
	memset(files, 0, 3 * sizeof(files[0]));
	files[0] = (struct iolat_pf_file){ .path = t->created, .need = 2u << 20, .layout = true,
					   .layout_flags = IOLAT_ENG_LAYOUT_FILL };
	files[1] = (struct iolat_pf_file){ .path = t->extended, .exists = true, .have = OLD_SIZE,
					   .need = 3u << 20, .layout = true,
					   .layout_flags = IOLAT_ENG_LAYOUT_FILL };
	files[2] = (struct iolat_pf_file){ .path = t->unreachable, .need = 1u << 20, .layout = true };
	pf->files = files;
	pf->nr_files = 3;
}

static void t_teardown(struct t_dir *t)
{
	unlink(t->created);
	unlink(t->extended);
	rmdir(t->dir);
}

static void test_failure_undoes(void **state)
{
	struct t_dir t;
	struct iolat_pf_file files[3];
	struct iolat_preflight pf;
	struct iolat_fileprep fp;
	char err[256];
	int ret;

	(void)state;
	t_setup(&t, files, &pf);
	ret = iolat_fileprep_layout(&fp, &pf, NULL, t_note, &t, err, sizeof(err));
	assert_int_equal(ret, -ENOENT);
	assert_non_null(strstr(err, "no/such/dir/file: cannot lay out"));
	assert_int_equal(t_size(t.created), -1);              /* removed */
	assert_int_equal(t_size(t.extended), OLD_SIZE);       /* truncated back */
	assert_non_null(strstr(t.notes, "removed"));
	assert_non_null(strstr(t.notes, "truncated"));
	iolat_fileprep_free(&fp);
	t_teardown(&t);
}

static void test_stop_undoes(void **state)
{
	struct t_dir t;
	struct iolat_pf_file files[3];
	struct iolat_preflight pf;
	struct iolat_fileprep fp;
	atomic_bool stop;
	char err[256];

	(void)state;
	t_setup(&t, files, &pf);
	pf.nr_files = 2;            /* no failing file: only the stop ends it */
	atomic_init(&stop, true);
	assert_int_equal(iolat_fileprep_layout(&fp, &pf, &stop, t_note, &t, err, sizeof(err)),
			 -EINTR);
	assert_non_null(strstr(err, "layout interrupted"));
	assert_int_equal(t_size(t.created), -1);
	assert_int_equal(t_size(t.extended), OLD_SIZE);
	iolat_fileprep_free(&fp);
	t_teardown(&t);
}

static void test_success_keeps_until_undone(void **state)
{
	struct t_dir t;
	struct iolat_pf_file files[3];
	struct iolat_preflight pf;
	struct iolat_fileprep fp;
	atomic_bool stop;
	char err[256];

	(void)state;
	t_setup(&t, files, &pf);
	pf.nr_files = 2;
	atomic_init(&stop, false);
	assert_int_equal(iolat_fileprep_layout(&fp, &pf, &stop, t_note, &t, err, sizeof(err)), 0);
	assert_int_equal(t_size(t.created), 2u << 20);
	assert_int_equal(t_size(t.extended), 3u << 20);
	assert_non_null(strstr(t.notes, "laying out"));
	assert_non_null(strstr(t.notes, "(2.00 MiB)"));
	iolat_fileprep_undo(&fp, t_note, &t);
	assert_int_equal(t_size(t.created), -1);
	assert_int_equal(t_size(t.extended), OLD_SIZE);
	iolat_fileprep_free(&fp);
	t_teardown(&t);
}

static void test_format_bytes(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(iolat_format_bytes(0, b, sizeof(b)), "0 B");
	assert_string_equal(iolat_format_bytes(512, b, sizeof(b)), "512 B");
	assert_string_equal(iolat_format_bytes(64 * 1024, b, sizeof(b)), "64.0 KiB");
	assert_string_equal(iolat_format_bytes(1280ull << 20, b, sizeof(b)), "1.25 GiB");
	assert_string_equal(iolat_format_bytes(1ull << 50, b, sizeof(b)), "1.00 PiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failure_undoes),
		cmocka_unit_test(test_stop_undoes),
		cmocka_unit_test(test_success_keeps_until_undone),
		cmocka_unit_test(test_format_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
