/* SPDX-License-Identifier: MIT */
/*
 * demo_memleak_story.h - the screen and plots of `iolat demo --memleak`
 * (demo_memleak_story.c), which its command (demo_memleak.c: options, the
 * runs) calls.
 * Context: the CLI's main thread.
 */
#ifndef IOLAT_TOOLS_DEMO_MEMLEAK_STORY_H
#define IOLAT_TOOLS_DEMO_MEMLEAK_STORY_H

#include <stddef.h>

#include "scen/memleak/memleak.h"

/* The story of @n runs (one per mode, same seed) on one screen. */
void iolat_ml_story(const struct iolat_ml_config *c, struct iolat_ml_result *const *runs, size_t n);

/*
 * iolat_ml_plots() - in @dir (which exists; the runs' CSVs are there):
 * memleak_rps.svg (always), memleak_rps.gp and, when gnuplot is installed,
 * memleak_rps.png. Return: 0; 1 when gnuplot did not make the PNG; -errno.
 */
int iolat_ml_plots(const struct iolat_ml_config *c, struct iolat_ml_result *const *runs, size_t n,
		   const char *dir);

#endif /* IOLAT_TOOLS_DEMO_MEMLEAK_STORY_H */
