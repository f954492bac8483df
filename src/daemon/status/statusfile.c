/* SPDX-License-Identifier: MIT */
/*
 * statusfile.c - parsing iolatd's status file (statusfile.h).
 * Context: any thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/status/statusfile.h"
#include "util/readfile.h"

static int parse_rec(char *line, struct status_rec *r)
{
	char *save = NULL, *tok = strtok_r(line, " ", &save);

	memset(r, 0, sizeof(*r));
	if (!tok || strlen(tok) >= sizeof(r->kind) || strchr(tok, '='))
		return -EINVAL;
	strcpy(r->kind, tok);
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || (size_t)(eq - tok) >= sizeof(r->f[0].key) ||
		    strlen(eq + 1) >= sizeof(r->f[0].val) || r->n == STATUS_MAX_FIELDS)
			return -EINVAL;
		memcpy(r->f[r->n].key, tok, (size_t)(eq - tok));
		strcpy(r->f[r->n].val, eq + 1);
		r->n++;
	}
	return 0;
}

int iolatd_status_parse(const char *text, struct status_file *out, char *err, size_t errlen)
{
	unsigned lineno = 0;
	char line[4096];

	out->n = 0;
	out->recs = calloc(STATUS_MAX_RECS, sizeof(*out->recs));
	if (!out->recs)
		return -ENOMEM;
	while (*text) {
		size_t n = strcspn(text, "\n");

		lineno++;
		if (n >= sizeof(line) || out->n == STATUS_MAX_RECS) {
			snprintf(err, errlen, "line %u: too long, or too many lines", lineno);
			iolatd_status_free(out);
			return -EINVAL;
		}
		memcpy(line, text, n);
		line[n] = '\0';
		text += n + (text[n] == '\n');
		if (!*line)
			continue;
		if (parse_rec(line, &out->recs[out->n])) {
			snprintf(err, errlen, "line %u: not KIND key=value ...", lineno);
			iolatd_status_free(out);
			return -EINVAL;
		}
		out->n++;
	}
	if (!out->n || strcmp(out->recs[0].kind, "iolatd")) {
		snprintf(err, errlen, "line 1: not an iolatd status file");
		iolatd_status_free(out);
		return -EINVAL;
	}
	return 0;
}

int iolatd_status_read(const char *path, struct status_file *out, char *err, size_t errlen)
{
	size_t n;
	char *text;
	int ret;

	ret = iolat_read_file(path, (1 << 22) - 1, &text, &n);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, ret == -EFBIG ? "larger than 4 MiB" : strerror(-ret));
		return ret;
	}
	ret = iolatd_status_parse(text, out, err, errlen);
	free(text);
	return ret;
}

void iolatd_status_free(struct status_file *s)
{
	free(s->recs);
	s->recs = NULL;
	s->n = 0;
}

const char *iolatd_status_get(const struct status_rec *r, const char *key)
{
	for (unsigned i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].key, key))
			return r->f[i].val;
	return NULL;
}
