/* SPDX-License-Identifier: MIT */
/*
 * preflight.h - every check `iolat run` makes before its first side effect:
 * engines and --faults options, files (not a directory or a character device;
 * a block device that is neither mounted, held nor carrying a signature when
 * a job writes it), sizes (free space by statvfs, the RLIMIT_FSIZE limit),
 * O_DIRECT support and alignment. Its result, the plan of files, says what
 * the layout will create or extend. Reads and stats only: nothing is
 * created, opened for writing or changed (`iolat run --parse-only` runs it
 * alone).
 * Context: any thread; no state besides the plan it returns.
 */
#ifndef IOLAT_RUN_PREFLIGHT_H
#define IOLAT_RUN_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/jobfile.h"

/* One file (or block device) the jobs use. */
struct iolat_pf_file {
	const char *path;            /* the job file's string */
	bool exists, blockdev;
	uint64_t have;               /* its size now (0: missing) */
	uint64_t need;               /* what the jobs need: the largest offset + size */
	unsigned layout_flags;       /* IOLAT_ENG_LAYOUT_* for the layout */
	bool layout;                 /* the layout creates, extends or rewrites it */
	uint64_t extra;              /* bytes the layout adds (need - have, or 0) */
	unsigned long fsid;          /* its filesystem (statvfs f_fsid), when extra > 0 */
};

struct iolat_eng_optset;

struct iolat_preflight {
	struct iolat_pf_file *files;
	unsigned nr_files;
	struct iolat_eng_optset *faults; /* --faults read once, typed (engine/engopt.h);
					  * NULL: not given */
};

/**
 * iolat_preflight_check() - check @jf for `iolat run` before anything is done.
 * @fault_options: --faults, or NULL; read into @pf->faults.
 * @pf: the plan, to free with iolat_preflight_free() (also after an error).
 * @err: one line, "FILE:LINE: key 'KEY': ..." naming the key's own line.
 * Return: 0; -EINVAL for a job file that cannot run safely; -ENOMEM.
 */
int iolat_preflight_check(const struct iolat_jobfile *jf, const char *fault_options,
			  struct iolat_preflight *pf, char *err, size_t errlen);

void iolat_preflight_free(struct iolat_preflight *pf);

/** iolat_format_bytes() - "512 B", "3.0 KiB", "1.25 GiB". Returns @buf. */
const char *iolat_format_bytes(uint64_t bytes, char *buf, size_t len);

/** iolat_path_dir() - the directory part of @path in @buf: "." when it has
 * none, "/" for a file in the root. */
void iolat_path_dir(const char *path, char *buf, size_t len);

#endif /* IOLAT_RUN_PREFLIGHT_H */
