/* SPDX-License-Identifier: MIT */
/*
 * fileprep.h - the layout of a run's files (the preflight plan), undone when
 * it fails or is stopped: files this run created are removed, files it
 * extended are truncated back to their old size. Once the jobs have started,
 * the files stay (as fio leaves them, ready for the next run).
 * Context: the runner's calling thread.
 */
#ifndef IOLAT_RUN_FILEPREP_H
#define IOLAT_RUN_FILEPREP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run/preflight.h"

struct iolat_fileprep_entry {
	const char *path;
	bool created;        /* did not exist before */
	uint64_t old_size;   /* its size before (extended files) */
};

struct iolat_fileprep {
	struct iolat_fileprep_entry *done;   /* files touched, in order */
	unsigned nr_done;
};

/**
 * iolat_fileprep_layout() - lay out every file of @pf that needs it.
 * @stop: looked at between 1 MiB writes; NULL: none.
 * @note: one line per file ("laying out F (1.00 GiB)") and per undo; may be NULL.
 * On failure or stop everything done so far is undone before returning.
 * Return: 0; -EINTR when stopped; -ENOMEM; -errno of the layout (@err says
 * which file and what was undone).
 */
int iolat_fileprep_layout(struct iolat_fileprep *fp, const struct iolat_preflight *pf,
			  const atomic_bool *stop, void (*note)(void *ctx, const char *line),
			  void *ctx, char *err, size_t errlen);

/** iolat_fileprep_undo() - remove what was created, truncate what was extended. */
void iolat_fileprep_undo(struct iolat_fileprep *fp, void (*note)(void *ctx, const char *line),
			 void *ctx);

/** iolat_fileprep_free() - forget (not undo) what was done. */
void iolat_fileprep_free(struct iolat_fileprep *fp);

#endif /* IOLAT_RUN_FILEPREP_H */
