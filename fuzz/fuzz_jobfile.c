/* SPDX-License-Identifier: MIT */
/*
 * fuzz_jobfile.c - libFuzzer target for the job-file parser
 * (iolat_jobfile_parse_buf(), src/job/jobfile_parse.c) on arbitrary bytes.
 * Checked: no crash or leak; -EINVAL comes with one printable line
 * "FILE:LINE: ..." that fits any error buffer (also a tiny one, exactly
 * sized, so ASan sees an overflow); success gives a well-formed struct
 * (NUL-terminated strings, parents before children, paths made of their
 * parent's path and the name, indices in range, values in the option
 * table's ranges) whose group tree a controller accepts as it is:
 * every group created under its parent, every target set.
 * Context: libFuzzer's one thread.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "job/jobfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILE_NAME "fuzz.job"

static void die(const char *what, const char *err)
{
	fprintf(stderr, "fuzz_jobfile: %s (message: \"%s\")\n", what, err ? err : "");
	abort();
}

static void check_message(const char *err, size_t errlen)
{
	size_t n = strnlen(err, errlen), k = strlen(FILE_NAME);
	const char *p;

	if (n == errlen)
		die("error message not NUL-terminated", NULL);
	if (n == 0 && errlen > 1)
		die("-EINVAL without a message", err);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] > 0x7e)
			die("error message with a non-printable byte", err);
	if (errlen < IOLAT_JOBFILE_ERR_MAX)
		return; /* truncated: only the above holds */
	if (strncmp(err, FILE_NAME ":", k + 1))
		die("error message does not start with FILE:", err);
	p = err + k + 1;
	if (*p < '1' || *p > '9')
		die("error message without a line number", err);
	while (*p >= '0' && *p <= '9')
		p++;
	if (strncmp(p, ": ", 2))
		die("error message: no ': ' after FILE:LINE", err);
}

static void check_str(const char *s, size_t cap, const char *what)
{
	if (strnlen(s, cap) == cap)
		die(what, NULL);
}

/* Group @i: a NUL-terminated path, PARENT/NAME with its parent before it, unique. */
static void check_group(const struct iolat_jobfile *jf, unsigned i)
{
	const struct iolat_jobfile_group *gr = &jf->groups[i];
	size_t plen, nlen;

	check_str(gr->path, sizeof(gr->path), "group path not NUL-terminated");
	plen = strlen(gr->path);
	if (!gr->name || gr->name < gr->path || gr->name > gr->path + plen)
		die("group name does not point into its path", gr->path);
	nlen = strlen(gr->name);
	if (nlen == 0 || nlen >= IOLAT_GROUP_NAME_MAX || strchr(gr->name, '/'))
		die("bad group name", gr->path);
	if (gr->parent == IOLAT_GROUP_ROOT) {
		if (strcmp(gr->name, gr->path))
			die("top-level group: name != path", gr->path);
	} else {
		const struct iolat_jobfile_group *pg;

		if (gr->parent < 0 || (unsigned)gr->parent >= i)
			die("parent index not before the child", gr->path);
		pg = &jf->groups[gr->parent];
		if (strncmp(gr->path, pg->path, strlen(pg->path)) ||
		    gr->path[strlen(pg->path)] != '/' ||
		    strcmp(gr->path + strlen(pg->path) + 1, gr->name))
			die("group path is not PARENT/NAME", gr->path);
	}
	if (iolat_jobfile_find_group(jf, gr->path) != (int)i)
		die("group path not unique / not found", gr->path);
}

/* Job @i: its strings terminated, every value within its range. */
static void check_job(const struct iolat_jobfile *jf, unsigned i)
{
	const struct iolat_job *j = &jf->jobs[i];

	check_str(j->name, sizeof(j->name), "job name not NUL-terminated");
	check_str(j->ioengine, sizeof(j->ioengine), "ioengine not NUL-terminated");
	if (j->index != i)
		die("job index", j->name);
	if (j->bs == 0 || j->iodepth == 0 || j->numjobs == 0 || j->rwmixread > 100)
		die("job value out of its range", j->name);
	if ((unsigned)j->rw > IOLAT_RW_RANDRW || (unsigned)j->verify > IOLAT_VERIFY_CRC32C)
		die("job enum out of range", j->name);
	if ((j->engine == NULL) != (j->ioengine[0] == '\0'))
		die("job engine and ioengine disagree", j->name);
	if (j->ioflags & ~(unsigned)(IOLAT_IO_META | IOLAT_IO_SWAP))
		die("job ioflags", j->name);
	if (j->group != IOLAT_GROUP_ROOT && (j->group < 0 || (unsigned)j->group >= jf->nr_groups))
		die("job group index out of range", j->name);
	if (j->filename)
		(void)strlen(j->filename);
}

/* The tree as parsed is one a controller takes: every group and target. */
static void check_controller_takes(const struct iolat_jobfile *jf)
{
	struct iolat_ctl_config cfg = { .max_groups = jf->nr_groups ? jf->nr_groups : 1,
					.nr_stat_slots = 1 };
	struct iolat_group **g;
	struct iolat_ctl *ctl;

	if (iolat_ctl_create(&cfg, &ctl))
		die("iolat_ctl_create", NULL);
	g = calloc(jf->nr_groups + 1, sizeof(*g));
	if (!g)
		abort();
	for (unsigned i = 0; i < jf->nr_groups; i++) {
		const struct iolat_jobfile_group *gr = &jf->groups[i];
		int r = iolat_group_create(ctl, gr->parent == IOLAT_GROUP_ROOT ? NULL : g[gr->parent],
					   gr->name, &g[i]);

		if (r)
			die("the controller refuses a parsed group", gr->path);
		if (iolat_group_set_target(g[i], gr->target_ns))
			die("the controller refuses a parsed target", gr->path);
	}
	for (unsigned i = jf->nr_groups; i-- > 0;)
		if (iolat_group_destroy(g[i]))
			die("cannot destroy a parsed group", jf->groups[i].path);
	free(g);
	iolat_ctl_destroy(ctl);
}

static void check_parsed(const struct iolat_jobfile *jf)
{
	if (!jf->file || strcmp(jf->file, FILE_NAME))
		die("file name not kept", NULL);
	if (jf->nr_jobs == 0)
		die("parsed with no job", NULL);
	if (jf->global.rotational < -1 || jf->global.rotational > 1)
		die("rotational out of range", NULL);
	if (jf->global.nr_requests > 65536)
		die("nr_requests out of range", NULL);

	for (unsigned i = 0; i < jf->nr_groups; i++)
		check_group(jf, i);
	for (unsigned i = 0; i < jf->nr_jobs; i++)
		check_job(jf, i);
	for (unsigned i = 0; i < jf->nr_params; i++) {
		check_str(jf->params[i].key, sizeof(jf->params[i].key), "param key");
		check_str(jf->params[i].value, sizeof(jf->params[i].value), "param value");
	}

	check_controller_takes(jf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_jobfile *jf = (struct iolat_jobfile *)1;
	size_t small = size % 24 + 1;
	char *serr;
	int r, r2;

	memset(err, 'x', sizeof(err));
	r = iolat_jobfile_parse_buf((const char *)data, size, FILE_NAME, &jf, err, sizeof(err));
	if (r == -ENOMEM)
		return 0;
	if (r == 0) {
		if (!jf)
			die("0 without a result", NULL);
		check_parsed(jf);
		iolat_jobfile_free(jf);
	} else if (r == -EINVAL) {
		if (jf)
			die("-EINVAL with a result", NULL);
		check_message(err, sizeof(err));
	} else {
		die("unexpected return value", err);
	}

	/* An exactly sized small error buffer: same answer, no overflow. */
	serr = malloc(small);
	if (!serr)
		return 0;
	r2 = iolat_jobfile_parse_buf((const char *)data, size, FILE_NAME, &jf, serr, small);
	if (r2 != r)
		die("a smaller error buffer changed the result", serr);
	if (r2 == 0)
		iolat_jobfile_free(jf);
	else
		check_message(serr, small);
	free(serr);
	return 0;
}
