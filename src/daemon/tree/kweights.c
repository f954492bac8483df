/* SPDX-License-Identifier: MIT */
/*
 * kweights.c - the kernel's own weights on a disk, looked for in sysfs and
 * the v2 root's io.cost.qos, and what to say when they come and go
 * (kweights.h).
 * Context: any thread; state only in the caller's struct kweights_watch.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <syslog.h>

#include "daemon/tree/kweights.h"

/* queue/scheduler names the one in use in brackets: "mq-deadline kyber [bfq] none". */
static bool bfq_in_use(const char *sysfs, dev_t dev)
{
	char path[IOLATD_PATH_MAX + 64], line[256];
	bool bfq = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/queue/scheduler", sysfs, major(dev), minor(dev));
	if (!(f = fopen(path, "r")))
		return false;
	if (fgets(line, sizeof(line), f))
		bfq = strstr(line, "[bfq]") != NULL;
	fclose(f);
	return bfq;
}

/* io.cost.qos: one line a configured disk, "MAJ:MIN enable=1 ctrl=auto rpct=..." */
static bool iocost_enabled(const struct cgfs_root *root, dev_t dev)
{
	char path[IOLATD_PATH_MAX + 16], line[512], want[32];
	bool on = false;
	FILE *f;

	if (root->version != 2)
		return false;
	snprintf(path, sizeof(path), "%s/io.cost.qos", root->path);
	if (!(f = fopen(path, "r")))
		return false;
	snprintf(want, sizeof(want), "%u:%u ", major(dev), minor(dev));
	while (!on && fgets(line, sizeof(line), f)) {
		char *tok, *save = NULL;

		if (strncmp(line, want, strlen(want)))
			continue;
		for (tok = strtok_r(line + strlen(want), " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, "enable=1"))
				on = true;
	}
	fclose(f);
	return on;
}

enum iolatd_kweights iolatd_kweights_of(const char *sysfs, const struct cgfs_root *root, dev_t dev)
{
	if (bfq_in_use(sysfs, dev))
		return KWEIGHTS_BFQ;
	if (iocost_enabled(root, dev))
		return KWEIGHTS_IOCOST;
	return KWEIGHTS_NONE;
}

const char *iolatd_kweights_name(enum iolatd_kweights k)
{
	return k == KWEIGHTS_BFQ ? "bfq" : k == KWEIGHTS_IOCOST ? "iocost" : "none";
}

const char *iolatd_kweights_why(enum iolatd_kweights k)
{
	return k == KWEIGHTS_BFQ ? "its scheduler is bfq" :
	       k == KWEIGHTS_IOCOST ? "io.cost is enabled for it in io.cost.qos" : "none";
}

int iolatd_kweights_watch(struct kweights_watch *w, const char *sysfs, const struct cgfs_root *root, dev_t dev,
			  const char *disk, const char *name, bool weighted, char *line, size_t len)
{
	enum iolatd_kweights kw = iolatd_kweights_of(sysfs, root, dev);
	bool was_said = w->said;

	if (kw != w->kw) {
		w->kw = kw;
		w->said = false;
		if (kw == KWEIGHTS_NONE && was_said) {
			snprintf(line, len, "disk %s (%s): the kernel's own weights are no longer in force: iolatd's "
				 "weights act on it again", disk, name);
			return LOG_NOTICE;
		}
	}
	if (kw == KWEIGHTS_NONE || w->said || !weighted)
		return 0;
	w->said = true;
	snprintf(line, len, "disk %s (%s): the kernel's own weights are in force (%s): iolatd stands aside and "
		 "writes no weight budget there (weight=, IOWeight= are the kernel's to enforce on it); latency "
		 "targets still act", disk, name, iolatd_kweights_why(kw));
	return LOG_NOTICE;
}
