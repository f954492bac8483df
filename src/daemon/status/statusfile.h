/* SPDX-License-Identifier: MIT */
/*
 * statusfile.h - reading iolatd's status file (written by status.c): one
 * record a line, "KIND key=value key=value ...". For `iolat status`.
 * Context: any thread; no global state.
 */
#ifndef IOLAT_DAEMON_STATUSFILE_H
#define IOLAT_DAEMON_STATUSFILE_H

#include <stddef.h>

#define STATUS_MAX_FIELDS 64
#define STATUS_MAX_RECS 1024

struct status_field {
	char key[32];
	char val[512];
};

struct status_rec {
	char kind[16];                 /* "iolatd" or "group" */
	unsigned n;
	struct status_field f[STATUS_MAX_FIELDS];
};

struct status_file {
	struct status_rec *recs;
	unsigned n;
};

/* Parse @text. Return: 0, -EINVAL (@why names the line), -ENOMEM. */
int iolatd_status_parse(const char *text, struct status_file *out, char *err, size_t errlen);

/* Read and parse @path. Return: 0, -errno (-ENOENT: no daemon wrote one). */
int iolatd_status_read(const char *path, struct status_file *out, char *err, size_t errlen);

void iolatd_status_free(struct status_file *s);

/* The value of @key in @r, or NULL. */
const char *iolatd_status_get(const struct status_rec *r, const char *key);

#endif
