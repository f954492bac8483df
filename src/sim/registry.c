/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the device models by name (registry.h): the table of every
 * model, in the order --help lists them, and the look-ups over it. The only
 * file that points at the models; they point at the device queue below.
 * Context: any thread; the table is constant.
 */
#include <stddef.h>
#include <string.h>

#include "sim/registry.h"

static const struct iolat_sim_model *const models[] = {
	&iolat_sim_model_ssd,
	&iolat_sim_model_hdd,
	&iolat_sim_model_badssd,
	&iolat_sim_model_vdisk,
	NULL,
};

const struct iolat_sim_model *const *iolat_sim_models(void)
{
	return models;
}

const struct iolat_sim_model *iolat_sim_model_find(const char *name)
{
	for (size_t i = 0; models[i]; i++)
		if (!strcmp(models[i]->name, name))
			return models[i];
	return NULL;
}

const struct iolat_sim_model *iolat_sim_model_by_prefix(const char *key)
{
	for (size_t i = 0; models[i]; i++)
		if (!strncmp(key, models[i]->prefix, strlen(models[i]->prefix)))
			return models[i];
	return NULL;
}
