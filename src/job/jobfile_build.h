/* SPDX-License-Identifier: MIT */
/*
 * jobfile_build.h - a job file built in code instead of parsed from text:
 * the same struct iolat_jobfile the parser makes, with the same defaults
 * (the option table's, applied by the parser's own code) and the same checks
 * at the end. For a tool that makes its jobs itself (`iolat demo`): it fills
 * the returned structs' fields, no text in between.
 *
 *	iolat_jobfile_build_begin("demo", err, sizeof(err), &b);
 *	g = iolat_jobfile_build_group(b, "main", 500 * 1000);
 *	j = iolat_jobfile_build_job(b, "reader");
 *	j->rw = IOLAT_RW_RANDREAD; j->group = g; ...
 *	iolat_jobfile_build_end(b, &jf);   (then iolat_jobfile_free(jf))
 *
 * Context: any thread; a builder belongs to one thread until it ends.
 */
#ifndef IOLAT_JOB_JOBFILE_BUILD_H
#define IOLAT_JOB_JOBFILE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "job/jobfile.h"

struct iolat_jobfile_builder;

/**
 * iolat_jobfile_build_begin() - a new job file with no jobs and no groups;
 * its [global] settings hold the defaults of a file without a [global].
 * @file: its name in messages ("FILE:0: key 'KEY': expected ...").
 * @err, @errlen: where each call's message goes when it fails, until
 *   iolat_jobfile_build_end(); IOLAT_JOBFILE_ERR_MAX always suffices.
 * Return: 0; -ENOMEM.
 */
int iolat_jobfile_build_begin(const char *file, char *err, size_t errlen,
			      struct iolat_jobfile_builder **out);

/** iolat_jobfile_build_global() - the [global] settings, to change in place. */
struct iolat_jobfile_global *iolat_jobfile_build_global(struct iolat_jobfile_builder *b);

/**
 * iolat_jobfile_build_group() - declare the group @path (as a [group:PATH]
 * section would: its parents too) with latency target @target_ns (0: none).
 * Return: the group's index (for a job's .group); -EINVAL for a bad path or
 * one declared twice; -ENOMEM.
 */
int iolat_jobfile_build_group(struct iolat_jobfile_builder *b, const char *path,
			      uint64_t target_ns);

/**
 * iolat_jobfile_build_job() - a new job @name with the defaults of a job
 * section that sets no key (fio's: rw=read, bs=4k, iodepth=1..., in the
 * root group), to fill in. Valid until the next call of this function.
 * Return: the job; NULL for a bad name (empty, too long) or out of memory.
 */
struct iolat_job *iolat_jobfile_build_job(struct iolat_jobfile_builder *b, const char *name);

/**
 * iolat_jobfile_build_device_key() - a [global]-only key set as a job file
 * would set it, by its text (a device model's parameter: "vdisk_mbps",
 * "1500"), checked by the same table code as a parsed one.
 * Return: 0; -EINVAL for a key that is not a [global]-only one or a bad value
 * (message in the err buffer of _begin); -ENOMEM.
 */
int iolat_jobfile_build_device_key(struct iolat_jobfile_builder *b, const char *key,
				   const char *value);

/** iolat_jobfile_build_filename() - set @job's filename= (copied). 0; -ENOMEM. */
int iolat_jobfile_build_filename(struct iolat_jobfile_builder *b, struct iolat_job *job,
				 const char *path);

/**
 * iolat_jobfile_build_end() - the checks the parser makes at the end of a
 * file (across each job's keys, at least one job, groups declared), then
 * the job file in *@out, to free with iolat_jobfile_free(). Frees @b,
 * whatever the outcome.
 * Return: 0; -EINVAL (message in the err buffer of _begin); -ENOMEM.
 */
int iolat_jobfile_build_end(struct iolat_jobfile_builder *b, struct iolat_jobfile **out);

#endif /* IOLAT_JOB_JOBFILE_BUILD_H */
