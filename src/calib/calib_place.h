/* SPDX-License-Identifier: MIT */
/*
 * calib_place.h - where `iolat calibrate` does its I/O, decided and checked
 * before anything is written: an unused whole block device (the reader in
 * its first 256 MiB, the writer in the next 1 GiB), or two scratch files,
 * PREFIX.read and PREFIX.write, created by the runner and removed by the
 * caller at the end.
 * Context: any thread; no state.
 */
#ifndef IOLAT_CALIB_CALIB_PLACE_H
#define IOLAT_CALIB_CALIB_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IOLAT_CALIB_READ_SIZE  (256ull << 20)
#define IOLAT_CALIB_WRITE_SIZE (1ull << 30)

struct iolat_calib_place {
	char read_path[4160], write_path[4160];
	uint64_t read_offset, write_offset;
	bool device;             /* a block device, both regions on it */
	bool scratch;            /* two scratch files: remove them at the end */
};

/**
 * iolat_calib_place() - where to calibrate @path: a block device (not
 * mounted, held, or carrying a filesystem or partition table), a directory
 * (scratch files named after @pid in it), or a path that does not exist
 * (its .read and .write). An existing file is refused. Checks free space.
 * Return: 0; -EINVAL with one line in @err.
 */
int iolat_calib_place(struct iolat_calib_place *pl, const char *path, long pid,
		      char *err, size_t len);

#endif /* IOLAT_CALIB_CALIB_PLACE_H */
