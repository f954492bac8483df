/* SPDX-License-Identifier: MIT */
/*
 * exempt.c - the groups iolatd never limits (exempt.h). A daemon that
 * throttles its own cgroup can stall its own control loop behind the writer
 * it throttles, and one that throttles the system's logger stalls every
 * service that logs (iolatd included): so iolatd's own cgroup (read from
 * /proc/self/cgroup: v2's "0::" line, or v1's line with blkio) and
 * systemd-journald.service are always exempt, and exempt= names more. An
 * exempt cgroup is not mirrored as a controller group (tree.c): it is
 * never limited, never carries a part of a parent's limit on v1, and its I/O
 * counts as I/O of no group. A configured group, or a parent of one, is
 * never exempt (it holds what the configuration controls).
 * Context: the daemon's one thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/tree/exempt.h"

const char *iolatd_exempt_name(enum iolatd_exempt why)
{
	switch (why) {
	case EXEMPT_SELF:
		return "self";
	case EXEMPT_JOURNALD:
		return "journald";
	case EXEMPT_CONFIG:
		return "config";
	default:
		return "-";
	}
}

/* Does the comma-separated controller list @ctls name @name? */
static bool has_controller(const char *ctls, size_t n, const char *name)
{
	size_t l = strlen(name);

	for (const char *c = ctls, *end = ctls + n; c < end;) {
		const char *comma = memchr(c, ',', (size_t)(end - c));
		size_t cl = comma ? (size_t)(comma - c) : (size_t)(end - c);

		if (cl == l && !memcmp(c, name, l))
			return true;
		c += cl + 1;
	}
	return false;
}

int iolatd_exempt_self(const char *proc_file, int version, char *out, size_t len)
{
	char line[4096];
	FILE *f = fopen(proc_file, "re");

	out[0] = '\0';
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *path;
		bool mine;

		if (!c2)
			continue;
		line[strcspn(line, "\n")] = '\0';
		mine = version == 2 ? (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1) :
				      has_controller(c1 + 1, (size_t)(c2 - c1 - 1), "blkio");
		if (!mine)
			continue;
		for (path = c2 + 1; *path == '/'; path++)
			;
		snprintf(out, len, "%s", path);
		break;
	}
	fclose(f);
	return 0;
}

bool iolatd_exempt_above(const char *rel, const char *below)
{
	size_t n = strlen(rel);

	return n && !strncmp(rel, below, n) && below[n] == '/';
}

/* Does the entry @e (a path, or a last component) name @rel? */
static bool names(const char *e, const char *rel)
{
	const char *last = strrchr(rel, '/');

	if (strchr(e, '/'))
		return !strcmp(e, rel);
	return !strcmp(e, last ? last + 1 : rel);
}

enum iolatd_exempt iolatd_exempt_why(const struct iolatd_config *cfg, const char *self, const char *rel)
{
	for (unsigned g = 0; g < cfg->nr_groups; g++)
		if (!strcmp(cfg->groups[g].path, rel) || iolatd_exempt_above(rel, cfg->groups[g].path))
			return EXEMPT_NONE;
	if (self[0] && !strcmp(self, rel))
		return EXEMPT_SELF;
	if (names(IOLATD_JOURNALD_UNIT, rel))
		return EXEMPT_JOURNALD;
	for (unsigned i = 0; i < cfg->nr_exempt; i++)
		if (names(cfg->exempt[i], rel))
			return EXEMPT_CONFIG;
	return EXEMPT_NONE;
}
