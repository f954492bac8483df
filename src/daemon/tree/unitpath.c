/* SPDX-License-Identifier: MIT */
/*
 * unitpath.c - a unit's cgroup found by its name in the cgroup tree
 * (unitpath.h): a depth-first walk of directories, at most
 * UNITPATH_MAX_DEPTH levels, that stops at the second match.
 * Context: any thread; reads directories only.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/tree/unitpath.h"

struct walk {
	const char *name;
	char *out;
	size_t len;
	unsigned found;
	int err;
};

static void walk(struct walk *w, char *path, size_t used, size_t cap, size_t root_len, unsigned depth)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while (w->found < 2 && !w->err && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (used + 1 + n >= cap) {
			w->err = -ENAMETOOLONG;
			break;
		}
		path[used] = '/';
		memcpy(path + used + 1, e->d_name, n + 1);
		if (!strcmp(e->d_name, w->name) && w->found++ == 0 &&
		    (size_t)snprintf(w->out, w->len, "%s", path + root_len + 1) >= w->len)
			w->err = -ENAMETOOLONG;
		if (depth + 1 < UNITPATH_MAX_DEPTH)
			walk(w, path, used + 1 + n, cap, root_len, depth + 1);
		path[used] = '\0';
	}
	closedir(d);
}

int iolatd_unitpath_find(const char *root, const char *name, char *out, size_t len)
{
	struct walk w = { .name = name, .out = out, .len = len };
	char path[4096];
	size_t n = strlen(root);

	if (!*name || strchr(name, '/') || !strchr(name, '.'))
		return -EINVAL;
	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, root, n + 1);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	walk(&w, path, n, sizeof(path), n, 0);
	if (w.err)
		return w.err;
	return w.found == 0 ? -ENOENT : w.found > 1 ? -EEXIST : 0;
}
