/* SPDX-License-Identifier: MIT */
/*
 * param.c - lookup, defaults, parsing and listing of device-model parameter
 * tables (see param.h). Values are real numbers of the configuration grammar
 * (conf/value.h): each key names its unit ("ssd_read_us", "hdd_media_mbps").
 * Context: any thread.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/value.h"
#include "sim/param.h"

const struct iolat_sim_param *iolat_sim_param_find(const struct iolat_sim_param *tab,
						   const char *key)
{
	for (; tab && tab->name; tab++)
		if (!strcmp(tab->name, key))
			return tab;
	return NULL;
}

void iolat_sim_param_defaults(const struct iolat_sim_param *tab, void *cfg)
{
	for (; tab && tab->name; tab++)
		*(double *)((char *)cfg + tab->off) = tab->def;
}

int iolat_sim_param_set(const struct iolat_sim_param *tab, void *cfg,
			const char *key, const char *value)
{
	const struct iolat_sim_param *p = iolat_sim_param_find(tab, key);
	char buf[64];
	size_t n;
	double v;

	if (!p)
		return -ENOENT;
	while (*value == ' ' || *value == '\t')
		value++;
	n = strlen(value);
	while (n && (value[n - 1] == ' ' || value[n - 1] == '\t'))
		n--;
	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, value, n);
	buf[n] = '\0';
	if (iolat_conf_parse_real(buf, &v))
		return -EINVAL;
	if (v < p->min || v > p->max)
		return -ERANGE;
	*(double *)((char *)cfg + p->off) = v;
	return 0;
}

int iolat_sim_param_format(const struct iolat_sim_param *tab, char *buf, size_t len)
{
	size_t used = 0;

	for (; tab && tab->name; tab++) {
		char kv[96];
		int n;

		snprintf(kv, sizeof(kv), "%s=%g", tab->name, tab->def);
		n = snprintf(buf ? buf + (used < len ? used : len) : NULL,
			     used < len ? len - used : 0, "  %-28s %s [%g..%g]\n",
			     kv, tab->help, tab->min, tab->max);
		if (n < 0)
			return -EINVAL;
		used += (size_t)n;
	}
	return (int)used;
}
