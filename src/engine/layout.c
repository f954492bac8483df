/* SPDX-License-Identifier: MIT */
/*
 * layout.c - creates and fills job files (see layout.h): fallocate 64 MiB
 * at a time just ahead of 1 MiB buffered writes of
 * pseudo-random data or verify blocks, written back 32 MiB at a time as they
 * go (a stop request is seen between writes), fdatasync, and
 * POSIX_FADV_DONTNEED so the first reads of a run are not served from the
 * page cache.
 * Owns no state; any thread may call it.
 */
#include "engine/layout.h"
#include "engine/verify.h"
#include "util/rng.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAYOUT_CHUNK (1u << 20)
#define LAYOUT_SYNC_STEP (32u << 20)   /* written back as the layout goes */
#define LAYOUT_RESERVE_STEP (64ull << 20) /* fallocate()d just ahead of the writes */

static void fill_random(unsigned char *buf, size_t len, uint64_t seed)
{
	uint64_t s = seed;

	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t z = iolat_splitmix64(&s);

		memcpy(buf + i, &z, 8);
	}
}

static int write_all(int fd, const unsigned char *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t r = pwrite(fd, buf, len, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		buf += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

static bool stopped(const atomic_bool *stop)
{
	return stop && atomic_load_explicit(stop, memory_order_relaxed);
}

/*
 * Keep the dirty data of a layout bounded: at every LAYOUT_SYNC_STEP written,
 * start writing that step back and wait for the step before it. The final
 * fdatasync then has at most two steps to flush, so a stop request is seen
 * within the time the device takes to write one step, and a big layout does
 * not fill the page cache of a shared machine.
 */
static void pace_writeback(int fd, uint64_t from, uint64_t written_to)
{
	uint64_t done = written_to - from;

	if (done % LAYOUT_SYNC_STEP)
		return;
	sync_file_range(fd, (off_t)(written_to - LAYOUT_SYNC_STEP), LAYOUT_SYNC_STEP,
			SYNC_FILE_RANGE_WRITE);
	if (done >= 2 * LAYOUT_SYNC_STEP)
		sync_file_range(fd, (off_t)(written_to - 2 * LAYOUT_SYNC_STEP), LAYOUT_SYNC_STEP,
				SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				SYNC_FILE_RANGE_WAIT_AFTER);
}

/* One layout in progress. */
struct lay {
	int fd;
	uint64_t size;           /* the target size */
	uint64_t reserved;       /* fallocate()d up to here */
	bool no_fallocate;       /* the filesystem has none: plain writes / ftruncate */
	const atomic_bool *stop;
};

/*
 * Reserve the blocks up to @upto, a step at a time just ahead of the writes
 * (not the whole file at once: a stopped layout then has little to free, and
 * the caller's statvfs check already refused a file that cannot fit).
 */
static int reserve_to(struct lay *l, uint64_t upto)
{
	while (!l->no_fallocate && l->reserved < upto && l->reserved < l->size) {
		uint64_t n = l->size - l->reserved < LAYOUT_RESERVE_STEP ? l->size - l->reserved
									 : LAYOUT_RESERVE_STEP;

		if (fallocate(l->fd, 0, (off_t)l->reserved, (off_t)n) < 0) {
			if (errno == ENOSPC || errno == EFBIG || errno == EINTR || errno == EIO)
				return -errno;
			l->no_fallocate = true;   /* EOPNOTSUPP and friends */
			break;
		}
		l->reserved += n;
	}
	return 0;
}

static int fill_range(struct lay *l, uint64_t from, bool verify)
{
	unsigned char *buf = NULL;
	uint64_t to = l->size;
	int ret = 0;

	if (posix_memalign((void **)&buf, 4096, LAYOUT_CHUNK))
		return -ENOMEM;
	if (!verify)
		fill_random(buf, LAYOUT_CHUNK, from ^ 0x696f6c6174ull);
	if (verify)
		from &= ~(uint64_t)(IOLAT_ENG_VERIFY_BLOCK - 1);
	for (uint64_t off = from; off < to && !ret; off += LAYOUT_CHUNK) {
		size_t n = to - off < LAYOUT_CHUNK ? (size_t)(to - off) : LAYOUT_CHUNK;

		if (stopped(l->stop)) {
			ret = -EINTR;
			break;
		}
		ret = reserve_to(l, off + n);
		if (ret)
			break;
		if (verify) {
			/* A tail shorter than a block gets random bytes. */
			size_t whole = n - n % IOLAT_ENG_VERIFY_BLOCK;

			iolat_eng_verify_fill(buf, whole, off, 0);
			if (whole < n)
				fill_random(buf + whole, n - whole, off);
		}
		ret = write_all(l->fd, buf, n, off);
		if (!ret)
			pace_writeback(l->fd, from, off + n);
	}
	free(buf);
	return ret;
}

/* Without FILL: reserve the blocks (a step at a time, looking at @stop), set the size. */
static int reserve_range(struct lay *l)
{
	int ret = 0;

	while (!ret && !l->no_fallocate && l->reserved < l->size) {
		if (stopped(l->stop))
			return -EINTR;
		ret = reserve_to(l, l->reserved + LAYOUT_RESERVE_STEP);
	}
	return ret;
}

static int layout_blockdev(int fd, uint64_t size)
{
	uint64_t bytes = 0;

	if (ioctl(fd, BLKGETSIZE64, &bytes) < 0)
		return -errno;
	return bytes >= size ? 0 : -ENOSPC;
}

int iolat_eng_layout_file(const char *path, uint64_t size, unsigned flags, int *created,
			  const atomic_bool *stop)
{
	bool verify = flags & IOLAT_ENG_LAYOUT_VERIFY;
	bool fill = verify || (flags & IOLAT_ENG_LAYOUT_FILL);
	bool force = verify || (flags & IOLAT_ENG_LAYOUT_FORCE);
	uint64_t from;
	struct stat st;
	bool made_it = false;
	struct lay l;
	int fd, ret = 0;

	if (created)
		*created = 0;
	if (!size)
		return -EINVAL;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		made_it = fd >= 0;
		if (made_it && created)
			*created = 1;
	}
	if (fd < 0) {
		/* A read-only block device or file may still be big enough. */
		if (errno == EACCES || errno == EROFS || errno == EPERM) {
			ret = -errno;
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			    (uint64_t)st.st_size >= size && !force)
				return 0;
			return ret;
		}
		return -errno;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (S_ISBLK(st.st_mode)) {
		ret = layout_blockdev(fd, size);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out;
	}
	if ((uint64_t)st.st_size >= size && !force)
		goto out;
	from = force ? 0 : (uint64_t)st.st_size;
	l = (struct lay){ .fd = fd, .size = size, .reserved = (uint64_t)st.st_size, .stop = stop };
	ret = fill ? fill_range(&l, from, verify) : reserve_range(&l);
	if (ret < 0)
		goto out;
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size < size && ftruncate(fd, (off_t)size) < 0) {
		ret = -errno;
		goto out;
	}
	if (stopped(stop)) {
		ret = -EINTR;
		goto out;
	}
	if (fdatasync(fd) < 0) {
		ret = -errno;
		goto out;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
out:
	close(fd);
	if (ret < 0 && !created && made_it)
		unlink(path);   /* nobody else knows it was made: do not leave it */
	return ret;
}
