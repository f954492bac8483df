/* SPDX-License-Identifier: MIT */
/*
 * engines.h - what the job layer tells its callers (the tools) about the I/O
 * engines, asked of the engine registry (src/engine/engine.c): the tools do
 * not reach into src/engine themselves.
 * Context: any thread; constant data.
 */
#ifndef IOLAT_JOB_ENGINES_H
#define IOLAT_JOB_ENGINES_H

/**
 * iolat_job_engine_options_help() - one line listing the options of engine
 * @name ("faulty" for ioengine=faulty:<engine>), for --help; "" when it takes
 * none or is unknown.
 */
const char *iolat_job_engine_options_help(const char *name);

#endif /* IOLAT_JOB_ENGINES_H */
