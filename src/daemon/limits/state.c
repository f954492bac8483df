/* SPDX-License-Identifier: MIT */
/*
 * state.c - the record of written limits under the run directory (state.h).
 * Format, one line a cgroup and device, tab-separated:
 *   iolatd-limits 1
 *   <cgdir> <MAJ:MIN> <admin rbps wbps riops wiops> <written rbps wbps riops wiops>
 *           [<before rbps wbps riops wiops>]
 * (the last group, what a recorded write replaces, may be missing: 0s)
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "daemon/limits/state.h"
#include "util/atomicfile.h"

#define STATE_HEADER "iolatd-limits 1"

static void state_path(const char *run_dir, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", run_dir, name);
}

int iolatd_state_save(const char *run_dir, const struct state_rec *recs, unsigned n)
{
	char path[IOLATD_PATH_MAX + 16];
	struct iolat_atomic_file af;
	int err;

	state_path(run_dir, STATE_FILE, path, sizeof(path));
	if (!n)
		return unlink(path) && errno != ENOENT ? -errno : 0;
	/*
	 * Not synced: the limits it records live in cgroupfs, which a reboot
	 * empties, so the record only has to outlive the daemon (SIGKILL, a
	 * crash), and the page cache does that. A sync would wait behind the
	 * very writer being throttled: 3 s measured with a 1 MiB QD 32 writer
	 * on this disk, during which no limit was written and the writer ran free.
	 */
	err = iolat_atomic_open(&af, path, false);
	if (err)
		return err;
	fprintf(af.f, "%s\n", STATE_HEADER);
	for (unsigned i = 0; i < n; i++) {
		const struct state_rec *r = &recs[i];

		fprintf(af.f, "%s\t%u:%u", r->cgdir, major(r->dev), minor(r->dev));
		for (int k = 0; k < CG_NR_LIMITS; k++)
			fprintf(af.f, "%c%" PRIu64, k ? ' ' : '\t', r->admin.v[k]);
		for (int k = 0; k < CG_NR_LIMITS; k++)
			fprintf(af.f, "%c%" PRIu64, k ? ' ' : '\t', r->written.v[k]);
		for (int k = 0; k < CG_NR_LIMITS; k++)
			fprintf(af.f, "%c%" PRIu64, k ? ' ' : '\t', r->before.v[k]);
		fputc('\n', af.f);
	}
	return iolat_atomic_commit(&af, 0);
}

static int parse_rec(char *line, struct state_rec *r)
{
	char *tab = strchr(line, '\t');
	unsigned maj, min;
	uint64_t *a = r->admin.v, *w = r->written.v, *b = r->before.v;
	int got;

	if (!tab || tab == line || (size_t)(tab - line) >= sizeof(r->cgdir) || line[0] != '/')
		return -EINVAL;
	memcpy(r->cgdir, line, (size_t)(tab - line));
	r->cgdir[tab - line] = '\0';
	memset(&r->before, 0, sizeof(r->before));
	got = sscanf(tab + 1, "%u:%u\t%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 "\t%" SCNu64
		     " %" SCNu64 " %" SCNu64 " %" SCNu64 "\t%" SCNu64 " %" SCNu64 " %" SCNu64
		     " %" SCNu64, &maj, &min, &a[0], &a[1], &a[2], &a[3], &w[0], &w[1], &w[2], &w[3],
		     &b[0], &b[1], &b[2], &b[3]);
	if (got != 10 && got != 14)
		return -EINVAL;
	r->dev = makedev(maj, min);
	return 0;
}

int iolatd_state_load(const char *run_dir, struct state_rec *recs, unsigned max, char *err, size_t errlen)
{
	char path[IOLATD_PATH_MAX + 16], line[IOLATD_PATH_MAX + 512];
	unsigned n = 0, lineno = 1;
	FILE *f;

	state_path(run_dir, STATE_FILE, path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	if (!fgets(line, sizeof(line), f) || strncmp(line, STATE_HEADER, strlen(STATE_HEADER))) {
		fclose(f);
		snprintf(err, errlen, "%s:1: not an iolatd record file", path);
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		if (n == max || parse_rec(line, &recs[n])) {
			fclose(f);
			snprintf(err, errlen, "%s:%u: %s", path, lineno,
				 n == max ? "too many records" : "damaged record");
			return -EINVAL;
		}
		n++;
	}
	fclose(f);
	return (int)n;
}

/* Put back the kinds of @r still in force as written (or as they were before
 * a recorded write that never went out). Return: how many. */
static int restore_one(const struct cgfs_root *root, const struct state_rec *r)
{
	struct cg_limits cur;
	bool only[CG_NR_LIMITS] = { false };
	int n = 0;

	if (iolatd_cgfs_read_limits(root, r->cgdir, r->dev, &cur))
		return 0; /* the cgroup is gone: so are its limits */
	for (int k = 0; k < CG_NR_LIMITS; k++) {
		if ((r->written.v[k] && cur.v[k] == r->written.v[k]) ||
		    (r->before.v[k] && cur.v[k] == r->before.v[k])) {
			only[k] = true;
			n++;
		}
	}
	if (n && iolatd_cgfs_write_limits(root, r->cgdir, r->dev, &r->admin, only))
		return 0;
	return n;
}

int iolatd_state_cleanup(const char *run_dir, const struct cgfs_root *root, char *err, size_t errlen)
{
	enum { MAX_RECS = 4096 };
	static struct state_rec recs[MAX_RECS];
	int n = iolatd_state_load(run_dir, recs, MAX_RECS, err, errlen), restored = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		restored += restore_one(root, &recs[i]);
	iolatd_state_save(run_dir, NULL, 0);
	return restored;
}
