/* SPDX-License-Identifier: MIT */
/*
 * registry.h - the device models by name: the one list of the simulator's
 * models (hdd, ssd, bad-ssd, vdisk), looked up by the name a job file's
 * device= gives or by the prefix of its keys. Implemented by registry.c,
 * the only file that points at the models (dev_*.c); the models themselves
 * stand on the device queue (device.h) and name no registry.
 * Context: any thread; the list is constant.
 */
#ifndef IOLAT_SIM_REGISTRY_H
#define IOLAT_SIM_REGISTRY_H

#include "sim/device.h"

/** iolat_sim_model_find() - the model called @name ("ssd", "hdd", "bad-ssd"), or NULL. */
const struct iolat_sim_model *iolat_sim_model_find(const char *name);
/** iolat_sim_model_by_prefix() - the model whose keys start like @key ("hdd_rpm"), or NULL. */
const struct iolat_sim_model *iolat_sim_model_by_prefix(const char *key);
/** iolat_sim_models() - every model, NULL-terminated. */
const struct iolat_sim_model *const *iolat_sim_models(void);

#endif /* IOLAT_SIM_REGISTRY_H */
