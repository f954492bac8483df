/* SPDX-License-Identifier: MIT */
/*
 * fileprep.c - lays out the files of a preflight plan and undoes the layout
 * on failure or stop (see fileprep.h).
 * Context: the runner's calling thread.
 */
#include "run/fileprep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/layout.h"
#include "util/errmsg.h"

static void say(void (*note)(void *, const char *), void *ctx, const char *line)
{
	if (note)
		note(ctx, line);
}

void iolat_fileprep_undo(struct iolat_fileprep *fp, void (*note)(void *ctx, const char *line),
			 void *ctx)
{
	char line[512], sz[32];

	while (fp->nr_done) {
		const struct iolat_fileprep_entry *e = &fp->done[--fp->nr_done];

		if (e->created) {
			if (unlink(e->path) == 0 || errno == ENOENT)
				snprintf(line, sizeof(line), "removed %.400s (this run created it)",
					 e->path);
			else
				snprintf(line, sizeof(line), "could not remove %.400s: %s", e->path,
					 strerror(errno));
		} else if (truncate(e->path, (off_t)e->old_size) == 0) {
			snprintf(line, sizeof(line), "truncated %.400s back to %s", e->path,
				 iolat_format_bytes(e->old_size, sz, sizeof(sz)));
		} else {
			snprintf(line, sizeof(line), "could not truncate %.400s back: %s", e->path,
				 strerror(errno));
		}
		say(note, ctx, line);
	}
}

int iolat_fileprep_layout(struct iolat_fileprep *fp, const struct iolat_preflight *pf,
			  const atomic_bool *stop, void (*note)(void *ctx, const char *line),
			  void *ctx, char *err, size_t errlen)
{
	char line[512], sz[32];

	memset(fp, 0, sizeof(*fp));
	fp->done = calloc(pf->nr_files ? pf->nr_files : 1, sizeof(*fp->done));
	if (!fp->done)
		return -ENOMEM;
	for (unsigned i = 0; i < pf->nr_files; i++) {
		const struct iolat_pf_file *f = &pf->files[i];
		struct iolat_fileprep_entry *e;
		int created = 0, ret;

		if (!f->layout || f->blockdev)
			continue;
		snprintf(line, sizeof(line), "laying out %.400s (%s)", f->path,
			 iolat_format_bytes(f->need > f->have ? f->need : f->have, sz, sizeof(sz)));
		say(note, ctx, line);
		ret = iolat_eng_layout_file(f->path, f->need > f->have ? f->need : f->have,
					    f->layout_flags, &created, stop);
		/* Record it even when it failed: a partly extended file is truncated back. */
		if (created || (f->exists && f->need > f->have)) {
			e = &fp->done[fp->nr_done++];
			e->path = f->path;
			e->created = !f->exists;
			e->old_size = f->have;
		}
		if (ret) {
			iolat_errf(err, errlen, 0, ret == -EINTR ?
				   "%.400s: layout interrupted" : "%.400s: cannot lay out: %s",
				   f->path, strerror(-ret));
			iolat_fileprep_undo(fp, note, ctx);
			return ret;
		}
	}
	return 0;
}

void iolat_fileprep_free(struct iolat_fileprep *fp)
{
	free(fp->done);
	fp->done = NULL;
	fp->nr_done = 0;
}
