/* SPDX-License-Identifier: MIT */
/*
 * scenarios.c - every scenario's job-file registration in one call
 * (scenarios.h). A new scenario adds its line here.
 * Context: the program's start, before any job file is parsed.
 */
#include "scen/scenarios.h"
#include "scen/memleak/memleak.h"

int iolat_scenarios_register(void)
{
	return iolat_ml_register_jobfile();
}
