/* SPDX-License-Identifier: MIT */
/*
 * jobcg.h - the jobs' kernel cgroups (cgroup=, as fio's) for the engines
 * backend: the hierarchy (v1 with blkio, else v2 with io), every check
 * before a side effect, the cgroups made when missing and removed after,
 * the job threads (v1: each thread's TID into `tasks`) or the whole process
 * (v2: io is no threaded controller, so a cgroup takes whole processes:
 * `cgroup.procs`) moved in and back out; cgroup_write_bps=, the kernel's
 * block throttle, written into the cgroup and gone after (with the cgroup
 * iolat made, or taken off one that had no cap).
 * Context: check, make and remove on the run's calling thread;
 * enter_thread and leave_thread by each job thread on itself.
 */
#ifndef IOLAT_RUN_JOBCG_H
#define IOLAT_RUN_JOBCG_H

#include <stdbool.h>
#include <stddef.h>

#include "job/jobfile.h"

#define JOBCG_MAX 64
#define JOBCG_PATH_MAX 512

struct jobcg_one {
	char rel[IOLAT_GROUP_PATH_MAX];   /* as cgroup= says, under the root */
	char made[IOLAT_GROUP_PATH_MAX];  /* the shallowest part iolat created ("" none): removed after */
	uint64_t write_bps;               /* cgroup_write_bps=: the block throttle's cap; 0 none */
	unsigned maj, min;                /* the whole disk it caps */
};

struct iolat_jobcg {
	int version;                      /* 0: no job names a cgroup; else 1 or 2 */
	char root[JOBCG_PATH_MAX];        /* the hierarchy's mount point */
	char home[JOBCG_PATH_MAX];        /* the process's cgroup there, relative ("": the root) */
	unsigned n;
	struct jobcg_one cg[JOBCG_MAX];
	bool made_done;                   /* make() ran (remove() has work) */
	bool process_moved;               /* v2: the process is in the jobs' cgroup */
};

/*
 * iolat_jobcg_check() - every check before a side effect: root, a mounted
 * hierarchy with the I/O controller, on v2 one cgroup for every job and the
 * io controller enabled for it; for cgroup_write_bps= one cap per cgroup,
 * the disk of the job's file, and no cap on it yet. Nothing is created. @mounts and @self_cgroup:
 * NULL for /proc/self/mounts and /proc/self/cgroup (tests give others).
 * Return: 0 (c->version 0 when no job names a cgroup), or -errno with
 * "FILE:LINE: key 'cgroup': ..." in @err.
 */
int iolat_jobcg_check(struct iolat_jobcg *c, const struct iolat_jobfile *jf, const char *mounts,
		      const char *self_cgroup, char *err, size_t errlen);

/*
 * The jobs' cgroups created where missing, their caps written; on v2 the
 * process moved in. Return: 0 or -errno (@err).
 */
int iolat_jobcg_make(struct iolat_jobcg *c, char *err, size_t errlen);

/*
 * iolat_jobcg_usable() - could a run as this process use cgroup @rel
 * (relative to the hierarchy's root; made if missing): root, the hierarchy
 * cgroup= would use (v1 with blkio, or cgroup2 offering io), and on v2 io
 * enabled by its parent. @mounts: NULL for /proc/self/mounts. Nothing is
 * created.
 * Return: the hierarchy's version (1 or 2); 0 with the reason in @why.
 */
int iolat_jobcg_usable(const char *mounts, const char *rel, char *why, size_t len);

/*
 * A cgroup path @rel alone (no job), made where missing in the hierarchy
 * cgroup= uses, the shallowest part made into @made ("" none); removed after
 * by iolat_jobcg_remove_path() (deepest first, only what was made). For a
 * caller that runs several jobs files in one cgroup of its own.
 * Return: 0 or -errno (@err).
 */
int iolat_jobcg_make_path(const char *rel, char *made, size_t madelen, char *err, size_t errlen);
void iolat_jobcg_remove_path(const char *rel, const char *made, void (*note)(void *ctx, const char *line),
			     void *ctx);

/* v1: the calling thread into @rel (a job's cgroup=); v2 and "": nothing. Return: 0 or -errno (@err). */
int iolat_jobcg_enter_thread(const struct iolat_jobcg *c, const char *rel, char *err, size_t errlen);

/* v1: the calling thread back to the process's cgroup (before it ends). */
void iolat_jobcg_leave_thread(const struct iolat_jobcg *c);

/*
 * iolat_jobcg_remove() - v2: the process moved back; every cgroup iolat
 * created removed (its tasks may take a moment to leave: retried for 1 s).
 * What cannot be undone is said through @note, one line each.
 */
void iolat_jobcg_remove(struct iolat_jobcg *c, void (*note)(void *ctx, const char *line), void *ctx);

#endif
