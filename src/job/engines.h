/* SPDX-License-Identifier: MIT */
/*
 * engines.h - the job layer's view of the I/O engines: what an ioengine=
 * value names, asked of the engine registry (src/engine/registry.c, the one
 * list of engine names), plus the job layer's own "sim" (the simulated
 * device of `iolat sim`). The tools ask here too, not src/engine.
 * Context: any thread; constant data.
 */
#ifndef IOLAT_JOB_ENGINES_H
#define IOLAT_JOB_ENGINES_H

#include <stdbool.h>
#include <stddef.h>

/* The job layer's own engine name: the simulated device (iolat sim only). */
#define IOLAT_JOB_ENGINE_SIM "sim"
/* The engine whose options the command line's --faults is a shortcut for. */
#define IOLAT_JOB_ENGINE_FAULTS "faulty"

/**
 * iolat_job_engine_parse() - what ioengine=@v names: "[WRAPPER:]ENGINE".
 * @engine: the engine's registry name ("uring" for io_uring) or
 * IOLAT_JOB_ENGINE_SIM; a pointer to constant data.
 * @wrapper: the wrapper's registry name ("faulty"), NULL for none.
 * Return: 0, or -EINVAL for a name the registry does not know, a wrapper
 * without an engine, an engine used as a wrapper, or two wrappers. Engines
 * absent from this build parse (the runner then falls back or fails). At
 * the end of the job the names become its spec (iolat_job.spec), where the
 * default engine is resolved (engine/engspec.h).
 */
int iolat_job_engine_parse(const char *v, const char **engine, const char **wrapper);

/**
 * iolat_job_engine_choices() - every ioengine= value, joined by @sep:
 * "uring|io_uring|psync|null|sim|faulty:<engine>" for sep "|".
 * As snprintf: the length the list needs.
 */
int iolat_job_engine_choices(char *buf, size_t len, const char *sep);




/**
 * iolat_job_engine_options_help() - one line listing the options of engine
 * @name ("faulty" for ioengine=faulty:<engine>), for --help, made from the
 * engine's option table; "" when it takes none or is unknown.
 */
const char *iolat_job_engine_options_help(const char *name);

#endif /* IOLAT_JOB_ENGINES_H */
