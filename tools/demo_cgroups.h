/* SPDX-License-Identifier: MIT */
/*
 * demo_cgroups.h - `iolat demo --cgroups` (demo_cgroups.c), reached from
 * cmd_demo.c: the story with unmodified fio processes in cgroups, under
 * no control, a static cap and iolatd.
 * Context: the CLI's main thread.
 */
#ifndef IOLAT_TOOLS_DEMO_CGROUPS_H
#define IOLAT_TOOLS_DEMO_CGROUPS_H

#include <stdbool.h>

/* argv holds --cgroups. */
bool iolat_demo_wants_cgroups(int argc, char **argv);

/* Run it. Return: the exit status (0 ok, 1 failed or could not run, 2 bad usage). */
int iolat_demo_cgroups(int argc, char **argv);

#endif
