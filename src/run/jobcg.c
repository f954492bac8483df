/* SPDX-License-Identifier: MIT */
/*
 * jobcg.c - the jobs' kernel cgroups, cgroup= as fio means it (jobcg.h).
 * The rules it follows (README.md, "cgroup= is fio's"): the hierarchy is the v1
 * one with blkio when mounted (on a hybrid host the block controller is
 * bound there), else cgroup2 when its root offers io. On v1 a thread moves
 * by itself: its TID written to `tasks`, so each job's threads can have
 * their own cgroup. On v2 a thread moves alone only inside a threaded
 * subtree, and io is a domain controller, not a threaded one: the whole
 * process moves through `cgroup.procs`, so every job must name the same
 * cgroup; the cgroup's parent must enable io in `cgroup.subtree_control`
 * (else no io.stat, nothing for iolatd to see), and a cgroup that enables
 * controllers for its children holds no process (the "no internal
 * processes" rule). What iolat created it removes after the run, deepest
 * first, once the tasks are out. A cap (cgroup_write_bps=) is written into a
 * cgroup iolat creates (removing it undoes the cap) or one without a write
 * cap on that disk (taken off after the run: back to none, as it was); the
 * block throttle caps a whole disk (a partition's writes count to its disk).
 * Context: see jobcg.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "engine/devinfo.h"
#include "run/jobcg.h"
#include "run/run.h"
#include "util/errmsg.h"
#include "util/readfile.h"

#define JOBCG_DIR_MAX (JOBCG_PATH_MAX + IOLAT_GROUP_PATH_MAX) /* root/rel */
#define JOBCG_LINE_MAX (2 * JOBCG_PATH_MAX + 160)

/* Where the block throttle's write cap of a cgroup is. */
static const char *cap_file(int version)
{
	return version == 1 ? "blkio.throttle.write_bps_device" : "io.max";
}

/* Does the comma-separated @list hold @word? */
static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* Does the space-separated file @dir/@name list @word? (false when unreadable) */
static bool file_lists(const char *dir, const char *name, const char *word)
{
	char path[JOBCG_DIR_MAX + 32], *text, *save = NULL;
	size_t len;
	bool found = false;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (iolat_read_file(path, 1 << 16, &text, &len))
		return false;
	for (char *w = strtok_r(text, " \n", &save); w && !found; w = strtok_r(NULL, " \n", &save))
		found = !strcmp(w, word);
	free(text);
	return found;
}

/* Is @dir/@name empty but for blanks? (true when unreadable: nothing is known to be enabled) */
static bool file_is_blank(const char *dir, const char *name)
{
	char path[JOBCG_DIR_MAX + 32], *text;
	size_t len;
	bool blank;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (iolat_read_file(path, 1 << 16, &text, &len))
		return true;
	blank = strspn(text, " \n") == len;
	free(text);
	return blank;
}

/* The hierarchy: v1 with blkio, else cgroup2 whose root offers io. Return: 1, 2, or 0 (none). */
static int find_root(const char *mounts, char *root, size_t len)
{
	char line[1024], v2[JOBCG_PATH_MAX] = "";
	FILE *f = fopen(mounts, "r");
	int version = 0;

	if (!f)
		return 0;
	while (!version && fgets(line, sizeof(line), f)) {
		char dev[64], dir[JOBCG_PATH_MAX], type[32], opts[512];

		if (sscanf(line, "%63s %511s %31s %511s", dev, dir, type, opts) != 4)
			continue;
		if (!strcmp(type, "cgroup") && list_has(opts, "blkio")) {
			snprintf(root, len, "%s", dir);
			version = 1;
		} else if (!strcmp(type, "cgroup2") && !v2[0]) {
			snprintf(v2, sizeof(v2), "%s", dir);
		}
	}
	fclose(f);
	if (!version && v2[0] && file_lists(v2, "cgroup.controllers", "io")) {
		snprintf(root, len, "%s", v2);
		version = 2;
	}
	return version;
}

/* The process's cgroup in hierarchy @version, from /proc/self/cgroup, relative ("": the root). */
static int find_home(const char *self_cgroup, int version, char *home, size_t len)
{
	char line[1024];
	FILE *f = fopen(self_cgroup, "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		if (version == 2 ? c1 == line + 1 && line[0] == '0' && c2 == c1 + 1 : list_has(c1 + 1, "blkio")) {
			c2[1 + strcspn(c2 + 1, "\n")] = '\0';
			snprintf(home, len, "%s", c2[1] == '/' ? c2 + 2 : c2 + 1);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* Job @j's "FILE:LINE: key 'cgroup': " into @buf. */
static void where(const struct iolat_jobfile *jf, const struct iolat_job *j, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u: key 'cgroup': job '%s'", jf->file, iolat_job_key_line(j, "cgroup"), j->name);
}

/* v2: every job names the same cgroup; it may hold processes; its parent gives it io. */
static int check_v2(struct iolat_jobcg *c, const struct iolat_jobfile *jf, char *err, size_t errlen)
{
	char at[IOLAT_RUN_NOTE_MAX], dir[JOBCG_DIR_MAX], *slash;

	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];

		where(jf, j, at, sizeof(at));
		if (strcmp(j->cgroup, jf->jobs[0].cgroup))
			return iolat_errf(err, errlen, -EINVAL, "%s: '%s', job '%s': '%s': on cgroup v2 a cgroup "
					  "takes whole processes (io is not a threaded controller) and iolat runs "
					  "every job in one process: give every job the same cgroup= (or run "
					  "one iolat per cgroup)", at, j->cgroup, jf->jobs[0].name, jf->jobs[0].cgroup);
	}
	where(jf, &jf->jobs[0], at, sizeof(at));
	snprintf(dir, sizeof(dir), "%s/%s", c->root, c->cg[0].rel);
	if (access(dir, F_OK) == 0 && !file_is_blank(dir, "cgroup.subtree_control"))
		return iolat_errf(err, errlen, -EINVAL, "%s: %s enables controllers for its children "
				  "(cgroup.subtree_control), so it may hold no process: name a leaf", at, dir);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (access(dir, F_OK))
		return iolat_errf(err, errlen, -ENOENT, "%s: %s does not exist: on cgroup v2 iolat creates the "
				  "job's cgroup only, under a parent that enables io (mkdir %s; echo +io > "
				  "%s/cgroup.subtree_control, up from the root)", at, dir, dir, dir);
	if (!file_lists(dir, "cgroup.subtree_control", "io"))
		return iolat_errf(err, errlen, -EINVAL, "%s: %s does not enable io for its children, so "
				  "the job's I/O would be accounted nowhere: echo +io > %s/cgroup.subtree_control "
				  "(systemd: IOAccounting=yes on the slice)", at, dir, dir);
	return 0;
}

/* The distinct cgroup= values of @jf into @c. Return: 0, or -E2BIG. */
static int collect(struct iolat_jobcg *c, const struct iolat_jobfile *jf, char *err, size_t errlen)
{
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];
		unsigned k;

		for (k = 0; k < c->n && strcmp(c->cg[k].rel, j->cgroup); k++)
			;
		if (!j->cgroup[0] || k < c->n)
			continue;
		if (c->n == JOBCG_MAX)
			return iolat_errf(err, errlen, -E2BIG, "%s:%u: key 'cgroup': at most %d cgroups in "
					  "a run", jf->file, iolat_job_key_line(j, "cgroup"), JOBCG_MAX);
		snprintf(c->cg[c->n++].rel, sizeof(c->cg[0].rel), "%s", j->cgroup);
	}
	return 0;
}

int iolat_jobcg_usable(const char *mounts, const char *rel, char *why, size_t len)
{
	char root[JOBCG_PATH_MAX], dir[JOBCG_DIR_MAX], *slash;
	int version;

	if (geteuid() != 0)
		return iolat_errf(why, len, 0, "making a cgroup needs root");
	version = find_root(mounts ? mounts : "/proc/self/mounts", root, sizeof(root));
	if (!version)
		return iolat_errf(why, len, 0, "no cgroup hierarchy with the block I/O controller is mounted "
				  "(v1 blkio, or cgroup2 offering io)");
	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (version == 2 && !file_lists(dir, "cgroup.subtree_control", "io"))
		return iolat_errf(why, len, 0, "%s does not enable io for its children "
				  "(cgroup.subtree_control)", dir);
	return version;
}

/* The job's "FILE:LINE: key 'cgroup_write_bps': job 'J'" into @buf. */
static void where_cap(const struct iolat_jobfile *jf, const struct iolat_job *j, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u: key 'cgroup_write_bps': job '%s'", jf->file,
		 iolat_job_key_line(j, "cgroup_write_bps"), j->name);
}

/*
 * Has cgroup @dir a write cap on disk @maj:@min now (v1: a line with a
 * non-zero rate; v2: an io.max line whose wbps is not max)? The line into @line.
 */
static bool has_cap(int version, const char *dir, unsigned maj, unsigned min, char *line, size_t len)
{
	char path[JOBCG_DIR_MAX + 48], *text, *save = NULL, dev[32];
	size_t n, dl = (size_t)snprintf(dev, sizeof(dev), "%u:%u ", maj, min);
	bool found = false;

	snprintf(path, sizeof(path), "%s/%s", dir, cap_file(version));
	if (iolat_read_file(path, 1 << 16, &text, &n))
		return false;
	for (char *l = strtok_r(text, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, dev, dl))
			continue;
		found = version == 1 ? strtoull(l + dl, NULL, 10) != 0 :
				       strstr(l, "wbps=") && !strstr(l, "wbps=max");
		snprintf(line, len, "%s", l);
	}
	free(text);
	return found;
}

/* cgroup_write_bps=: one cap per cgroup, on a disk sysfs names, in a cgroup without one yet. */
static int check_caps(struct iolat_jobcg *c, const struct iolat_jobfile *jf, char *err, size_t errlen)
{
	char at[IOLAT_RUN_NOTE_MAX], dir[JOBCG_DIR_MAX], cap[128];

	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];
		struct iolat_eng_devinfo di;
		struct jobcg_one *one = c->cg;

		if (!j->cgroup_write_bps)
			continue;
		while (strcmp(one->rel, j->cgroup))
			one++;   /* collect() put every cgroup= in c->cg */
		where_cap(jf, j, at, sizeof(at));
		snprintf(dir, sizeof(dir), "%s/%s", c->root, one->rel);
		iolat_eng_devinfo_path(j->filename, &di);
		if (!di.disk_major && !di.disk_minor)
			return iolat_errf(err, errlen, -ENODEV, "%s: '%s' is on no disk sysfs names (the "
					  "block throttle caps a disk)", at, j->filename);
		if (access(dir, F_OK) == 0 && has_cap(c->version, dir, di.disk_major, di.disk_minor, cap,
						      sizeof(cap)))
			return iolat_errf(err, errlen, -EEXIST, "%s: %s has a write cap on %u:%u already "
					  "('%s'): iolat sets one only where there is none, and takes it off "
					  "after", at, dir, di.disk_major, di.disk_minor, cap);
		if (one->write_bps && (one->write_bps != j->cgroup_write_bps || one->maj != di.disk_major ||
				       one->min != di.disk_minor))
			return iolat_errf(err, errlen, -EINVAL, "%s: cgroup '%s' has another cap or disk from "
					  "an earlier job: one cap per cgroup", at, one->rel);
		one->write_bps = j->cgroup_write_bps;
		one->maj = di.disk_major;
		one->min = di.disk_minor;
	}
	return 0;
}

int iolat_jobcg_check(struct iolat_jobcg *c, const struct iolat_jobfile *jf, const char *mounts,
		      const char *self_cgroup, char *err, size_t errlen)
{
	char at[IOLAT_RUN_NOTE_MAX];
	int ret;

	memset(c, 0, sizeof(*c));
	if ((ret = collect(c, jf, err, errlen)) || !c->n)
		return ret;
	for (unsigned i = 0; i < jf->nr_jobs; i++)
		if (jf->jobs[i].cgroup[0]) {
			where(jf, &jf->jobs[i], at, sizeof(at));
			break;
		}
	if (geteuid() != 0)
		return iolat_errf(err, errlen, -EPERM, "%s: moving threads into a cgroup needs root (run "
				  "iolat as root, or leave cgroup= out: group= is iolat's own group)", at);
	c->version = find_root(mounts ? mounts : "/proc/self/mounts", c->root, sizeof(c->root));
	if (!c->version)
		return iolat_errf(err, errlen, -ENOENT, "%s: no cgroup hierarchy with the block I/O "
				  "controller is mounted (v1 blkio, or cgroup2 offering io)", at);
	ret = find_home(self_cgroup ? self_cgroup : "/proc/self/cgroup", c->version, c->home, sizeof(c->home));
	if (ret)
		return iolat_errf(err, errlen, ret, "%s: this process's cgroup in %s is not known "
				  "(/proc/self/cgroup)", at, c->root);
	if (c->version == 2 && (ret = check_v2(c, jf, err, errlen)))
		return ret;
	return check_caps(c, jf, err, errlen);
}

/* Write @text into @dir/@rel/@name. Return: 0 or -errno. */
static int write_to(const char *dir, const char *rel, const char *name, const char *text)
{
	char path[JOBCG_PATH_MAX * 2 + 32];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s%s%s/%s", dir, rel[0] ? "/" : "", rel, name);
	if (!(f = fopen(path, "w")))
		return -errno;
	if (fputs(text, f) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* mkdir each missing part of @one's path; the shallowest made is recorded. */
static int make_one(const char *root, struct jobcg_one *one, char *err, size_t errlen)
{
	char path[JOBCG_DIR_MAX];
	size_t base = (size_t)snprintf(path, sizeof(path), "%s/", root);

	for (const char *p = one->rel;; p++) {
		if (*p && *p != '/')
			continue;
		snprintf(path + base, sizeof(path) - base, "%.*s", (int)(p - one->rel), one->rel);
		if (mkdir(path, 0755) == 0) {
			if (!one->made[0])
				snprintf(one->made, sizeof(one->made), "%.*s", (int)(p - one->rel), one->rel);
		} else if (errno != EEXIST) {
			return iolat_errf(err, errlen, -errno, "cannot create cgroup %s: %s", path, strerror(errno));
		}
		if (!*p)
			return 0;
	}
}

/* @one's cap: v1 blkio.throttle.write_bps_device, v2 io.max's wbps. */
static int write_cap(const struct iolat_jobcg *c, const struct jobcg_one *one, char *err, size_t errlen)
{
	char text[96];
	int ret;

	if (!one->write_bps)
		return 0;
	snprintf(text, sizeof(text), c->version == 1 ? "%u:%u %llu" : "%u:%u wbps=%llu", one->maj,
		 one->min, (unsigned long long)one->write_bps);
	if ((ret = write_to(c->root, one->rel, cap_file(c->version), text)))
		return iolat_errf(err, errlen, ret, "cannot cap cgroup %s/%s (%s '%s'): %s", c->root,
				  one->rel, cap_file(c->version), text, strerror(-ret));
	return 0;
}

/* A cgroup that existed: its cap on the disk back to none, as it was (a made one goes whole). */
static void reset_cap(const struct iolat_jobcg *c, const struct jobcg_one *one,
		      void (*note)(void *ctx, const char *line), void *ctx)
{
	char text[64], line[JOBCG_LINE_MAX];
	int ret;

	if (!one->write_bps || one->made[0])
		return;
	snprintf(text, sizeof(text), c->version == 1 ? "%u:%u 0" : "%u:%u wbps=max", one->maj, one->min);
	if ((ret = write_to(c->root, one->rel, cap_file(c->version), text)) && note) {
		snprintf(line, sizeof(line), "cannot take the cap off cgroup %s/%s (%s '%s'): %s", c->root,
			 one->rel, cap_file(c->version), text, strerror(-ret));
		note(ctx, line);
	}
}

int iolat_jobcg_make(struct iolat_jobcg *c, char *err, size_t errlen)
{
	char pid[32];
	int ret;

	if (!c->version)
		return 0;
	c->made_done = true;
	for (unsigned k = 0; k < c->n; k++) {
		if ((ret = make_one(c->root, &c->cg[k], err, errlen)))
			return ret;
		if ((ret = write_cap(c, &c->cg[k], err, errlen)))
			return ret;
	}
	if (c->version == 1)
		return 0;
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if ((ret = write_to(c->root, c->cg[0].rel, "cgroup.procs", pid)))
		return iolat_errf(err, errlen, ret, "cannot move iolat into cgroup %s/%s: %s", c->root,
				  c->cg[0].rel, strerror(-ret));
	c->process_moved = true;
	return 0;
}

int iolat_jobcg_enter_thread(const struct iolat_jobcg *c, const char *rel, char *err, size_t errlen)
{
	char tid[32];
	int ret;

	if (c->version != 1 || !rel[0])
		return 0;
	snprintf(tid, sizeof(tid), "%ld\n", (long)gettid());
	if ((ret = write_to(c->root, rel, "tasks", tid)))
		return iolat_errf(err, errlen, ret, "cannot move the job's thread into cgroup %s/%s: %s", c->root,
				  rel, strerror(-ret));
	return 0;
}

void iolat_jobcg_leave_thread(const struct iolat_jobcg *c)
{
	char tid[32];

	if (c->version != 1)
		return;
	snprintf(tid, sizeof(tid), "%ld\n", (long)gettid());
	(void)write_to(c->root, c->home, "tasks", tid); /* if it fails, remove() retries and says so */
}

/* rmdir @path, retried while its last tasks leave (EBUSY) for up to a second. */
static int rmdir_patiently(const char *path)
{
	struct timespec ms10 = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 100; i++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		nanosleep(&ms10, NULL);
	}
	return -errno;
}

/* Remove @one's parts iolat made, deepest first. */
static void remove_one(const char *root, const struct jobcg_one *one,
		       void (*note)(void *ctx, const char *line), void *ctx)
{
	char path[JOBCG_DIR_MAX], line[JOBCG_LINE_MAX];
	size_t made = strlen(one->made);
	size_t base = (size_t)snprintf(path, sizeof(path), "%s/", root);

	snprintf(path + base, sizeof(path) - base, "%s", one->rel);
	while (made && strlen(path + base) >= made) {
		int ret = rmdir_patiently(path);
		char *slash;

		if (ret) {
			snprintf(line, sizeof(line), "cannot remove cgroup %s (made for cgroup=): %s", path,
				 strerror(-ret));
			if (note)
				note(ctx, line);
			return;
		}
		slash = strrchr(path + base, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
}

void iolat_jobcg_remove(struct iolat_jobcg *c, void (*note)(void *ctx, const char *line), void *ctx)
{
	char pid[32], line[JOBCG_LINE_MAX];

	if (!c->made_done)
		return;
	if (c->process_moved) {
		int ret;

		snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if ((ret = write_to(c->root, c->home, "cgroup.procs", pid)) && note) {
			snprintf(line, sizeof(line), "cannot move iolat back to cgroup %s/%s: %s", c->root, c->home,
				 strerror(-ret));
			note(ctx, line);
		}
		c->process_moved = false;
	}
	for (unsigned k = c->n; k-- > 0;) {
		reset_cap(c, &c->cg[k], note, ctx);
		remove_one(c->root, &c->cg[k], note, ctx);
	}
	c->made_done = false;
}

int iolat_jobcg_make_path(const char *rel, char *made, size_t madelen, char *err, size_t errlen)
{
	struct jobcg_one one = { 0 };
	char root[JOBCG_PATH_MAX];
	int ret;

	made[0] = '\0';
	if (!find_root("/proc/self/mounts", root, sizeof(root)))
		return iolat_errf(err, errlen, -ENOENT, "no cgroup hierarchy with the block I/O controller");
	snprintf(one.rel, sizeof(one.rel), "%s", rel);
	ret = make_one(root, &one, err, errlen);
	snprintf(made, madelen, "%s", one.made);
	return ret;
}

void iolat_jobcg_remove_path(const char *rel, const char *made, void (*note)(void *ctx, const char *line),
			     void *ctx)
{
	struct jobcg_one one = { 0 };
	char root[JOBCG_PATH_MAX];

	if (!made[0] || !find_root("/proc/self/mounts", root, sizeof(root)))
		return;
	snprintf(one.rel, sizeof(one.rel), "%s", rel);
	snprintf(one.made, sizeof(one.made), "%s", made);
	remove_one(root, &one, note, ctx);
}
