/* SPDX-License-Identifier: MIT */
/*
 * engines.c - the job layer's questions to the engine registry (engines.h).
 * Context: any thread; constant data.
 */
#include "engine/engine.h"
#include "job/engines.h"

const char *iolat_job_engine_options_help(const char *name)
{
	const char *help = iolat_eng_options_help(name);

	return help ? help : "";
}
