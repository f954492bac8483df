/* SPDX-License-Identifier: MIT */
/*
 * cli_output.h - where iolat run/sim write their results (--output FILE,
 * --log DIR): checked before anything runs, so that a run is never lost to an
 * unwritable destination found at the end; opened only when the report is
 * written.
 * Context: the CLI's main thread.
 */
#ifndef IOLAT_TOOLS_CLI_OUTPUT_H
#define IOLAT_TOOLS_CLI_OUTPUT_H

#include <stdio.h>

/* --output FILE can be written (an existing writable file, or a new one in a
 * writable directory): 0, or exit code 2 after one line on stderr. NULL: 0. */
int iolat_cli_check_output(const char *cmd, const char *path);

/* --log DIR can hold the CSVs (an existing writable directory, or one that
 * can be made in a writable parent): 0, or exit code 2 after one line. */
int iolat_cli_check_logdir(const char *cmd, const char *dir);

/* The report's stream: stdout for NULL, else @path opened for writing (NULL
 * after one line on stderr). Close it with iolat_cli_close_output(). */
FILE *iolat_cli_open_output(const char *cmd, const char *path);

/*
 * @path (given as option @opt, NULL: none) must not be one of the run's
 * inputs: the job file @jobfile, nor a job's filename= (an existing file or
 * device by identity, one yet to be laid out by its path). Return: 0, or
 * IOLAT_EXIT_USAGE after one line on stderr.
 */
struct iolat_jobfile;
int iolat_cli_check_not_input(const char *cmd, const char *opt, const char *path, const char *jobfile,
			      const struct iolat_jobfile *jf);

/* Flush and close (not stdout: flush only). Return: 0 or -EIO. */
int iolat_cli_close_output(FILE *f); /* 0 or -errno (the write's or the close's) */

struct iolat_report;

/* Write the report's CSVs and plots into --log @dir and say on stderr what was
 * skipped: 0, or exit code 1 after one line. */
int iolat_cli_write_log(const char *cmd, const struct iolat_report *rep, const char *dir);

#endif
