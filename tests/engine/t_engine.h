/* SPDX-License-Identifier: MIT */
/*
 * t_engine.h - helpers shared by the engine tests (header-only; each test
 * is its own program): a temporary directory on a real filesystem, a
 * seeded PRNG, a reaper loop that fails instead of hanging.
 * Context: the test's main thread.
 */
#ifndef IOLAT_TESTS_T_ENGINE_H
#define IOLAT_TESTS_T_ENGINE_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exit status the runner reads as "skipped". */
#define T_EXIT_SKIP 77

/*
 * A fresh directory for test files: $IOLAT_TEST_DIR, else $TMPDIR, else
 * /var/tmp (a disk filesystem more often than /tmp). 0 or -errno.
 */
static inline int t_tmpdir(char *out, size_t len, const char *what)
{
	const char *base = getenv("IOLAT_TEST_DIR");

	if (!base || !*base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/var/tmp";
	if ((size_t)snprintf(out, len, "%s/iolat-%s-XXXXXX", base, what) >= len)
		return -ENAMETOOLONG;
	return mkdtemp(out) ? 0 : -errno;
}

/* Remove the files in @dir (one level) and @dir. */
static inline void t_rmdir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (dp) {
		while ((d = readdir(dp))) {
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) <
			    sizeof(path))
				unlink(path);
		}
		closedir(dp);
	}
	rmdir(dir);
}

/* splitmix64: the tests' seeded PRNG. */
static inline uint64_t t_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t t_below(uint64_t *s, uint64_t n)
{
	return n ? t_rand(s) % n : 0;
}

#endif /* IOLAT_TESTS_T_ENGINE_H */
