/* SPDX-License-Identifier: MIT */
/*
 * param.h - device-model parameter tables: each model lists its job-file keys
 * (name with the unit in it, default, range, help) over a config struct of
 * doubles; parsing, range checks, defaults and the --help listing all come
 * from the table.
 * Context: any thread; tables are constant.
 */
#ifndef IOLAT_SIM_PARAM_H
#define IOLAT_SIM_PARAM_H

#include <stddef.h>

struct iolat_sim_param {
	const char *name;   /* job-file key, e.g. "hdd_rpm" */
	size_t off;         /* offsetof() of a double in the model's config */
	double def;         /* default */
	double min, max;    /* accepted range, inclusive */
	const char *help;   /* one line, with the unit */
};

/** iolat_sim_param_find() - the entry called @key in @tab, or NULL. */
const struct iolat_sim_param *iolat_sim_param_find(const struct iolat_sim_param *tab,
						   const char *key);

/** iolat_sim_param_defaults() - write every default of @tab into @cfg. */
void iolat_sim_param_defaults(const struct iolat_sim_param *tab, void *cfg);

/**
 * iolat_sim_param_set() - parse @value (a decimal number) for @key into @cfg.
 * Return: 0, -ENOENT (no such key), -EINVAL (not a number), -ERANGE.
 */
int iolat_sim_param_set(const struct iolat_sim_param *tab, void *cfg,
			const char *key, const char *value);

/**
 * iolat_sim_param_format() - one line a parameter: "  key=default  help
 * [min..max]". As snprintf: returns the length needed.
 */
int iolat_sim_param_format(const struct iolat_sim_param *tab, char *buf, size_t len);

#endif /* IOLAT_SIM_PARAM_H */
