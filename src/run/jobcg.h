/* SPDX-License-Identifier: MIT */
/*
 * jobcg.h - the jobs' kernel cgroups (cgroup=, as fio's) for the engines
 * backend: the hierarchy (v1 with blkio, else v2 with io), every check
 * before a side effect, the cgroups made when missing and removed after,
 * the job threads (v1: each thread's TID into `tasks`) or the whole process
 * (v2: io is no threaded controller, so a cgroup takes whole processes:
 * `cgroup.procs`) moved in and back out.
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
 * io controller enabled for it. Nothing is created. @mounts and @self_cgroup:
 * NULL for /proc/self/mounts and /proc/self/cgroup (tests give others).
 * Return: 0 (c->version 0 when no job names a cgroup), or -errno with
 * "FILE:LINE: key 'cgroup': ..." in @err.
 */
int iolat_jobcg_check(struct iolat_jobcg *c, const struct iolat_jobfile *jf, const char *mounts,
		      const char *self_cgroup, char *err, size_t errlen);

/* The jobs' cgroups created where missing; on v2 the process moved in. Return: 0 or -errno (@err). */
int iolat_jobcg_make(struct iolat_jobcg *c, char *err, size_t errlen);

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
