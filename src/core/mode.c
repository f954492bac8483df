/* SPDX-License-Identifier: MIT */
/*
 * mode.c - the table of the controller's modes (mode.h), indexed by enum
 * iolat_ctl_mode: which table a controller's flags select, and the public
 * queries over it (a mode's name, its flags, its window rule). Each mode's
 * own table (mode_kernel.c, adaptive.c) is the only place its name, flags
 * and rule are written.
 * Context: any thread; pure functions over constant tables.
 */
#include <string.h>

#include "core/ctl.h"

static const struct iolat_mode_ops *const modes[] = {
	[IOLAT_CTL_MODE_ARTICLE] = &iolat_mode_article,
	[IOLAT_CTL_MODE_KERNEL] = &iolat_mode_kernel,
	[IOLAT_CTL_MODE_ADAPTIVE] = &iolat_mode_adaptive,
};

#define NR_MODE_SLOTS (sizeof(modes) / sizeof(modes[0]))

static const struct iolat_mode_ops *mode_at(enum iolat_ctl_mode m)
{
	return (unsigned)m < NR_MODE_SLOTS ? modes[m] : NULL;
}

enum iolat_ctl_mode iolat_ctl_mode_of(unsigned flags)
{
	if (flags & IOLAT_CTL_ADAPTIVE)
		return IOLAT_CTL_MODE_ADAPTIVE;
	if (flags & IOLAT_CTL_COMPAT_TIMER)
		return IOLAT_CTL_MODE_KERNEL;
	return IOLAT_CTL_MODE_ARTICLE;
}

const struct iolat_mode_ops *iolat_mode_for_flags(unsigned flags)
{
	return modes[iolat_ctl_mode_of(flags)];
}

const char *iolat_ctl_mode_name(enum iolat_ctl_mode mode)
{
	const struct iolat_mode_ops *m = mode_at(mode);

	return m ? m->name : NULL;
}

enum iolat_ctl_mode iolat_ctl_mode_parse(const char *name)
{
	for (unsigned m = 1; name && m < NR_MODE_SLOTS; m++)
		if (!strcmp(name, modes[m]->name))
			return (enum iolat_ctl_mode)m;
	return IOLAT_CTL_MODE_NONE;
}

unsigned iolat_ctl_mode_flags(enum iolat_ctl_mode mode)
{
	const struct iolat_mode_ops *m = mode_at(mode);

	return m ? m->flags : 0;
}

enum iolat_window_rule iolat_ctl_window_rule(enum iolat_ctl_mode mode, int rotational)
{
	const struct iolat_mode_ops *m = mode_at(mode);

	return (m ? m : &iolat_mode_article)->rule[rotational != 0];
}

const char *iolat_window_rule_name(enum iolat_window_rule rule)
{
	return rule == IOLAT_RULE_MEAN ? "mean" : "p90";
}

void iolat_mode_no_group_unused(struct iolat_group *g)
{
	(void)g;
}
