/* SPDX-License-Identifier: MIT */
/*
 * mode.c - the controller's behaviour a run uses: article (the kernel's
 * rules, fixed HDD mean, the article's release), kernel (IOLAT_CTL_KERNEL_
 * COMPAT) or adaptive (IOLAT_CTL_ADAPTIVE), from the command line or the job
 * file (control=MODE, or the older kernel_compat=1).
 * Context: any thread; pure functions.
 */
#include <string.h>

#include "iolatency.h"
#include "job/jobfile.h"

static const char *const names[] = {
	[IOLAT_MODE_UNSET] = "",
	[IOLAT_MODE_ARTICLE] = "article",
	[IOLAT_MODE_KERNEL] = "kernel",
	[IOLAT_MODE_ADAPTIVE] = "adaptive",
};

const char *iolat_mode_name(int mode)
{
	return mode > IOLAT_MODE_UNSET && mode <= IOLAT_MODE_ADAPTIVE ? names[mode] : "article";
}

unsigned iolat_mode_flags(int mode)
{
	switch (mode) {
	case IOLAT_MODE_KERNEL:
		return IOLAT_CTL_KERNEL_COMPAT;
	case IOLAT_MODE_ADAPTIVE:
		return IOLAT_CTL_ADAPTIVE;
	default:
		return 0;
	}
}

int iolat_mode_parse(const char *s)
{
	for (int m = IOLAT_MODE_ARTICLE; m <= IOLAT_MODE_ADAPTIVE; m++)
		if (s && strcmp(s, names[m]) == 0)
			return m;
	return IOLAT_MODE_UNSET;
}

int iolat_mode_pick(const struct iolat_jobfile *jf, int opt_mode, int opt_compat, int def_mode)
{
	if (opt_mode > IOLAT_MODE_UNSET)
		return opt_mode;
	if (opt_compat > 0)
		return IOLAT_MODE_KERNEL;
	if (jf->global.mode > IOLAT_MODE_UNSET)
		return jf->global.mode;
	if (jf->global.kernel_compat)
		return IOLAT_MODE_KERNEL;
	return def_mode > IOLAT_MODE_UNSET ? def_mode : IOLAT_MODE_ARTICLE;
}
