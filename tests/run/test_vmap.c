/* SPDX-License-Identifier: MIT */
/*
 * test_vmap.c - the runner's verify map (src/run/vmap.c, iolat_vmap_*):
 * the record of which write each block of a file must hold, and the
 * read-back that checks it. On a real temp file laid out as verify blocks:
 *  - writes reported successful read back with their generation; blocks no
 *    write touched read back as laid out (generation 0);
 *  - a lost write (reported successful, never written), a stale block and a
 *    flipped byte are caught, and named;
 *  - a failed write, a partial one and two overlapping writes leave their
 *    blocks unspecified (not checked), until a later clean write;
 *  - with several threads writing overlapping ranges at once (real pwrite),
 *    nothing is reported bad;
 *  - without a laid-out format only written blocks are checked.
 * Threads: main; the concurrency test adds writer threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/layout.h"
#include "engine/verify.h"
#include "helpers/t_stress.h"
#include "run/vmap.h"

#define BLK 4096u
#define NBLK 256u               /* a 1 MiB file */

struct fx {
	char path[256];
	int fd;
	struct iolat_vmap *m;
	unsigned char *buf;
};

static int setup(void **state)
{
	static struct fx f;
	const char *dir = getenv("TMPDIR");
	int fd;

	memset(&f, 0, sizeof(f));
	snprintf(f.path, sizeof(f.path), "%s/iolat-vmap-XXXXXX", dir && *dir ? dir : "/var/tmp");
	fd = mkstemp(f.path);
	if (fd < 0)
		return -1;
	close(fd);
	if (iolat_eng_layout_file(f.path, (uint64_t)NBLK * BLK, IOLAT_ENG_LAYOUT_VERIFY, NULL, NULL))
		return -1;
	f.fd = open(f.path, O_RDWR);
	f.buf = malloc(4 * BLK);
	if (f.fd < 0 || !f.buf || iolat_vmap_create(0, (uint64_t)NBLK * BLK, BLK, true, &f.m))
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	iolat_vmap_destroy(f->m);
	close(f->fd);
	unlink(f->path);
	free(f->buf);
	return 0;
}

/* One write as the runner brackets it; @really: pwrite the data. */
static void do_write(struct fx *f, unsigned blk, unsigned n, uint64_t gen, bool really, bool ok)
{
	uint64_t off = (uint64_t)blk * BLK, t;

	assert_int_equal(iolat_eng_verify_fill(f->buf, (size_t)n * BLK, off, gen), 0);
	t = iolat_vmap_write_begin(f->m, off, n * BLK);
	if (really)
		assert_int_equal(pwrite(f->fd, f->buf, (size_t)n * BLK, (off_t)off), (ssize_t)n * BLK);
	iolat_vmap_write_end(f->m, off, n * BLK, t, gen, ok);
}

static struct iolat_vmap_stats check(struct fx *f)
{
	struct iolat_vmap_stats st;

	assert_int_equal(iolat_vmap_check(f->m, f->fd, &st), 0);
	assert_int_equal(st.block_size, BLK);
	return st;
}

static void test_create_refuses(void **state)
{
	struct iolat_vmap *m;

	(void)state;
	assert_int_equal(iolat_vmap_create(0, 1 << 20, 1000, true, &m), -EINVAL);
	assert_int_equal(iolat_vmap_create(0, 1 << 20, 256, true, &m), -EINVAL);
	assert_int_equal(iolat_vmap_create(512, 1 << 20, 4096, true, &m), -EINVAL);
	assert_int_equal(iolat_vmap_create(0, 0, 4096, true, &m), -EINVAL);
	assert_null(m);
}

static void test_clean_writes(void **state)
{
	struct fx *f = *state;
	struct iolat_vmap_stats st;

	st = check(f);   /* nothing written: all as laid out */
	assert_int_equal(st.blocks_checked, NBLK);
	assert_int_equal(st.blocks_written, 0);
	assert_int_equal(st.blocks_bad, 0);
	do_write(f, 3, 2, 101, true, true);
	do_write(f, 10, 1, 102, true, true);
	do_write(f, 3, 1, 103, true, true);   /* a rewrite: the newer generation wins */
	st = check(f);
	assert_int_equal(st.blocks_checked, NBLK);
	assert_int_equal(st.blocks_written, 3);
	assert_int_equal(st.blocks_bad, 0);
	assert_int_equal(st.blocks_unspecified, 0);
}

static void test_lost_write_caught(void **state)
{
	struct fx *f = *state;
	struct iolat_vmap_stats st;

	do_write(f, 5, 1, 201, true, true);
	do_write(f, 5, 1, 202, false, true);   /* reported successful, never written */
	st = check(f);
	assert_int_equal(st.blocks_bad, 1);
	if (!strstr(st.first_bad, "offset 20480") || !strstr(st.first_bad, "generation"))
		fail_msg("first_bad: %s", st.first_bad);
}

static void test_corruption_caught(void **state)
{
	struct fx *f = *state;
	struct iolat_vmap_stats st;
	unsigned char c;

	do_write(f, 7, 1, 301, true, true);
	assert_int_equal(pread(f->fd, &c, 1, 7 * BLK + 1000), 1);
	c ^= 0x40;
	assert_int_equal(pwrite(f->fd, &c, 1, 7 * BLK + 1000), 1);
	/* And a block no write touched, overwritten behind the map's back. */
	assert_int_equal(iolat_eng_verify_fill(f->buf, BLK, 9 * BLK, 999), 0);
	assert_int_equal(pwrite(f->fd, f->buf, BLK, 9 * BLK), BLK);
	st = check(f);
	assert_int_equal(st.blocks_bad, 2);
	if (!strstr(st.first_bad, "offset 28672 (written)"))
		fail_msg("first_bad: %s", st.first_bad);
}

static void test_unspecified(void **state)
{
	struct fx *f = *state;
	struct iolat_vmap_stats st;
	uint64_t t1, t2;

	/* A failed write that wrote half of what it meant to: anything goes. */
	do_write(f, 20, 2, 401, false, false);
	assert_int_equal(pwrite(f->fd, f->buf, BLK, 20 * BLK), BLK);
	/* A write that covers part of a block only (unaligned, not verify data). */
	t1 = iolat_vmap_write_begin(f->m, 30 * BLK + 512, 1024);
	assert_int_equal(pwrite(f->fd, "junk", 4, 30 * BLK + 512), 4);
	iolat_vmap_write_end(f->m, 30 * BLK + 512, 1024, t1, 0, true);
	/* Two writes in flight at once: either may land last. */
	assert_int_equal(iolat_eng_verify_fill(f->buf, BLK, 40 * BLK, 402), 0);
	t1 = iolat_vmap_write_begin(f->m, 40 * BLK, BLK);
	t2 = iolat_vmap_write_begin(f->m, 40 * BLK, BLK);
	iolat_vmap_write_end(f->m, 40 * BLK, BLK, t2, 403, true);
	assert_int_equal(pwrite(f->fd, f->buf, BLK, 40 * BLK), BLK);   /* 402 landed last */
	iolat_vmap_write_end(f->m, 40 * BLK, BLK, t1, 402, true);
	st = check(f);
	assert_int_equal(st.blocks_bad, 0);
	assert_int_equal(st.blocks_unspecified, 4);
	assert_int_equal(st.blocks_checked, NBLK - 4);

	/* A clean write makes each block checkable again. */
	do_write(f, 20, 2, 404, true, true);
	do_write(f, 30, 1, 405, true, true);
	do_write(f, 40, 1, 406, true, true);
	st = check(f);
	assert_int_equal(st.blocks_unspecified, 0);
	assert_int_equal(st.blocks_bad, 0);
	assert_int_equal(st.blocks_written, 4);
}

/* ---- writers racing on overlapping ranges ---- */

#define RACE_THREADS 4

struct racer {
	struct fx *f;
	unsigned id, n;
};

static void *racer_main(void *arg)
{
	struct racer *rc = arg;
	struct fx *f = rc->f;
	unsigned char *buf = malloc(4 * BLK);
	uint64_t seed = 0x1234567ull * (rc->id + 1);

	for (unsigned i = 0; i < rc->n && buf; i++) {
		unsigned blk = t_stress_below(&seed, 32), n = 1 + t_stress_below(&seed, 4);
		uint64_t gen = ((uint64_t)(rc->id + 1) << 32) | (i + 1), off = (uint64_t)blk * BLK, t;
		bool fails = t_stress_below(&seed, 10) == 0;
		ssize_t w;

		iolat_eng_verify_fill(buf, (size_t)n * BLK, off, gen);
		t = iolat_vmap_write_begin(f->m, off, n * BLK);
		/* A failing write may still write a part: here its first block. */
		w = pwrite(f->fd, buf, fails ? BLK : (size_t)n * BLK, (off_t)off);
		iolat_vmap_write_end(f->m, off, n * BLK, t, gen, !fails && w == (ssize_t)(n * BLK));
	}
	free(buf);
	return NULL;
}

static void test_racing_writers(void **state)
{
	struct fx *f = *state;
	struct racer rc[RACE_THREADS];
	pthread_t th[RACE_THREADS];
	struct iolat_vmap_stats st;
	unsigned n = t_stress_under_tsan() ? 2000 : 20000;

	for (unsigned i = 0; i < RACE_THREADS; i++) {
		rc[i] = (struct racer){ .f = f, .id = i, .n = n };
		assert_int_equal(pthread_create(&th[i], NULL, racer_main, &rc[i]), 0);
	}
	for (unsigned i = 0; i < RACE_THREADS; i++)
		pthread_join(th[i], NULL);
	st = check(f);
	print_message("racing writers: %llu blocks checked (%llu written), %llu unspecified\n",
		      (unsigned long long)st.blocks_checked, (unsigned long long)st.blocks_written,
		      (unsigned long long)st.blocks_unspecified);
	if (st.blocks_bad)
		fail_msg("%llu bad blocks: %s", (unsigned long long)st.blocks_bad, st.first_bad);
	assert_int_equal(st.blocks_checked + st.blocks_unspecified, NBLK);
	assert_true(st.blocks_written > 0);
}

static void test_unformatted(void **state)
{
	struct fx *f = *state;
	struct iolat_vmap_stats st;

	/* Forget the layout: as on a block device, only written blocks count. */
	iolat_vmap_destroy(f->m);
	assert_int_equal(iolat_vmap_create(0, (uint64_t)NBLK * BLK, BLK, false, &f->m), 0);
	st = check(f);
	assert_int_equal(st.blocks_checked, 0);
	do_write(f, 100, 2, 501, true, true);
	do_write(f, 200, 1, 502, false, false);
	st = check(f);
	assert_int_equal(st.blocks_checked, 2);
	assert_int_equal(st.blocks_written, 2);
	assert_int_equal(st.blocks_unspecified, 1);
	assert_int_equal(st.blocks_bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_refuses),
		cmocka_unit_test_setup_teardown(test_clean_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_write_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corruption_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unspecified, setup, teardown),
		cmocka_unit_test_setup_teardown(test_racing_writers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unformatted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
