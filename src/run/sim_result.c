/* SPDX-License-Identifier: MIT */
/*
 * sim_result.c - a virtual-time run's series (sim_result.h): freed, and a
 * group found in it by path.
 * Context: the result's owner's thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/sim_result.h"

void iolat_sim_result_free(struct iolat_sim_result *res)
{
	if (!res)
		return;
	for (unsigned i = 0; res->groups && i < res->nr_groups; i++) {
		free(res->groups[i].samples);
		free(res->groups[i].windows);
	}
	free(res->groups);
	iolat_report_destroy(res->report);
	free(res);
}

int iolat_sim_find_group(const struct iolat_sim_result *res, const char *path)
{
	for (unsigned i = 0; i < res->nr_groups; i++)
		if (!strcmp(res->groups[i].path, path))
			return (int)i;
	return -ENOENT;
}
