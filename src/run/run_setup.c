/* SPDX-License-Identifier: MIT */
/*
 * run_setup.c - set-up shared by the real-time and the virtual-time runs
 * (run_setup.h): the controller and its groups, the default sample interval.
 * Context: the thread setting up a run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_window_ns() */
#include "run/run_setup.h"

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int iolat_job_setup_controller(const struct iolat_jobfile *jf, struct iolat_ctl_config cfg,
			       struct iolat_ctl **ctl, struct iolat_group **groups,
			       char *err, size_t errlen)
{
	int ret;

	cfg.max_groups = jf->nr_groups + 1;
	ret = iolat_ctl_create(&cfg, ctl);
	if (ret) {
		set_err(err, errlen, "%s: cannot create the controller: %s", jf->file,
			strerror(-ret));
		return ret;
	}
	for (unsigned i = 0; i < jf->nr_groups; i++) {
		const struct iolat_jobfile_group *gr = &jf->groups[i];
		struct iolat_group *parent = gr->parent < 0 ? NULL : groups[gr->parent];

		ret = iolat_group_create(*ctl, parent, gr->name, &groups[i]);
		if (!ret && gr->target_ns)
			ret = iolat_group_set_target(groups[i], gr->target_ns);
		if (ret) {
			set_err(err, errlen, "%s:%u: group '%s': %s", jf->file, gr->line, gr->path,
				strerror(-ret));
			return ret;
		}
	}
	return 0;
}

uint64_t iolat_job_default_sample_ns(const struct iolat_jobfile *jf, uint64_t none_ns)
{
	uint64_t best = 0;

	for (unsigned i = 0; i < jf->nr_groups; i++) {
		uint64_t w;

		if (!jf->groups[i].target_ns)
			continue;
		w = iolat_window_ns(jf->groups[i].target_ns);
		if (!best || w < best)
			best = w;
	}
	return best ? best : none_ns;
}
