/* SPDX-License-Identifier: MIT */
/*
 * memleak_config.c - the leaking-service scenario's configuration words
 * (memleak.h): the modes, the oomd presets and the web's calibrations by
 * name, and the defaults. Below the run and its report, which both name
 * them; it calls neither (docs/design.md, "No circles in a folder").
 * Context: any thread; constant tables.
 */
#include <errno.h>
#include <string.h>

#include "scen/memleak/memleak_int.h"

#define GIB (1ull << 30)

static const char *const mode_names[IOLAT_ML_NR_MODES] = {
	"none", "block", "full", "stock", "nobypass" };

int iolat_ml_mode_parse(const char *s, enum iolat_ml_mode *out)
{
	for (int i = 0; i < IOLAT_ML_NR_MODES; i++)
		if (strcmp(s, mode_names[i]) == 0) {
			*out = (enum iolat_ml_mode)i;
			return 0;
		}
	return -EINVAL;
}

const char *iolat_ml_mode_name(enum iolat_ml_mode m)
{
	return (unsigned)m < IOLAT_ML_NR_MODES ? mode_names[m] : "?";
}

int iolat_ml_oomd_parse(const char *s, int *out)
{
	enum iolat_oomd_preset p;
	int ret = iolat_oomd_preset_parse(s, &p);

	if (!ret)
		*out = (int)p;
	return ret;
}

const char *iolat_ml_oomd_name(int preset)
{
	return iolat_oomd_preset_name((enum iolat_oomd_preset)preset);
}

static const struct { const char *name; double file_frac; } web_presets[] = {
	{ "hhvm", 0.10 }, { "rdhashd", 0.25 },
};

int iolat_ml_web_preset(struct iolat_ml_config *c, const char *name)
{
	for (size_t i = 0; i < sizeof(web_presets) / sizeof(web_presets[0]); i++)
		if (!strcmp(name, web_presets[i].name)) {
			c->web_file_frac = web_presets[i].file_frac;
			return 0;
		}
	return -EINVAL;
}

const char *iolat_ml_web_preset_name(const struct iolat_ml_config *c)
{
	for (size_t i = 0; i < sizeof(web_presets) / sizeof(web_presets[0]); i++)
		if (c->web_file_frac == web_presets[i].file_frac)
			return web_presets[i].name;
	return "custom";
}

void iolat_ml_defaults(struct iolat_ml_config *c, const char *device)
{
	*c = (struct iolat_ml_config){
		.device = device ? device : "ssd", .seed = 1, .mode = IOLAT_ML_FULL,
		.mem_bytes = 16 * GIB, .reserve_bytes = 2 * GIB, .swap_bytes = 8 * GIB,
		.web_low_frac = 0.75, .web_file_frac = 0.10, .rps = 200, .speed = 2.0, .bg = true, .fault_pages = 1,
		.oomd = IOLAT_OOMD_PERCGROUP, .swappiness = 60,
		.baseline_ns = 30 * ML_NS_PER_S, .timeout_ns = 300 * ML_NS_PER_S,
		.stock_timeout_ns = 3600 * ML_NS_PER_S,
		.recovery_ns = 60 * ML_NS_PER_S, .reboot_after_ns = 300 * ML_NS_PER_S,
		.reboot_ns = 600 * ML_NS_PER_S, .rejoin_ns = 1800 * ML_NS_PER_S,
		.sample_ns = ML_NS_PER_S,
	};
}
