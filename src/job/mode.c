/* SPDX-License-Identifier: MIT */
/*
 * mode.c - which of the controller's modes a run uses: the command line's,
 * else the job file's (control=MODE, or the older kernel_compat=1), else the
 * caller's default. The modes themselves, their names and flags, are the
 * core's table (iolatency.h: iolat_ctl_mode_name(), iolat_ctl_mode_flags()).
 * Context: any thread; a pure function.
 */
#include "iolatency.h"
#include "job/jobfile.h"

int iolat_mode_pick(const struct iolat_jobfile *jf, int opt_mode, int opt_compat, int def_mode)
{
	if (opt_mode > IOLAT_CTL_MODE_NONE)
		return opt_mode;
	if (opt_compat > 0)
		return IOLAT_CTL_MODE_KERNEL;
	if (jf->global.mode > IOLAT_CTL_MODE_NONE)
		return jf->global.mode;
	if (jf->global.kernel_compat)
		return IOLAT_CTL_MODE_KERNEL;
	return def_mode > IOLAT_CTL_MODE_NONE ? def_mode : IOLAT_CTL_MODE_ARTICLE;
}
