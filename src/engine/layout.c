/* SPDX-License-Identifier: MIT */
/*
 * layout.c - creates and fills job files (see layout.h): fallocate first so
 * that a full filesystem fails at once, then 1 MiB buffered writes of
 * pseudo-random data or verify blocks, fdatasync, and POSIX_FADV_DONTNEED
 * so the first reads of a run are not served from the page cache.
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

static int fill_range(int fd, uint64_t from, uint64_t to, bool verify, const atomic_bool *stop)
{
	unsigned char *buf = NULL;
	int ret = 0;

	if (posix_memalign((void **)&buf, 4096, LAYOUT_CHUNK))
		return -ENOMEM;
	if (!verify)
		fill_random(buf, LAYOUT_CHUNK, from ^ 0x696f6c6174ull);
	if (verify)
		from &= ~(uint64_t)(IOLAT_ENG_VERIFY_BLOCK - 1);
	for (uint64_t off = from; off < to && !ret; off += LAYOUT_CHUNK) {
		size_t n = to - off < LAYOUT_CHUNK ? (size_t)(to - off) : LAYOUT_CHUNK;

		if (stopped(stop)) {
			ret = -EINTR;
			break;
		}

		if (verify) {
			/* A tail shorter than a block gets random bytes. */
			size_t whole = n - n % IOLAT_ENG_VERIFY_BLOCK;

			iolat_eng_verify_fill(buf, whole, off, 0);
			if (whole < n)
				fill_random(buf + whole, n - whole, off);
		}
		ret = write_all(fd, buf, n, off);
	}
	free(buf);
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
	int fd, ret = 0;

	if (created)
		*created = 0;
	if (!size)
		return -EINVAL;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 && created)
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

	ret = fallocate(fd, 0, 0, (off_t)size);
	if (ret < 0) {
		ret = -errno;
		if (ret == -ENOSPC || ret == -EFBIG)
			goto out;
		/* No fallocate here (EOPNOTSUPP and friends): set the size. */
		ret = 0;
		if ((uint64_t)st.st_size < size && ftruncate(fd, (off_t)size) < 0) {
			ret = -errno;
			goto out;
		}
	}
	if (fill) {
		ret = fill_range(fd, from, size, verify, stop);
		if (ret < 0)
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
	if (ret < 0 && created && *created) {
		unlink(path);
		*created = 0;
	}
	return ret;
}
