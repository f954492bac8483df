/* SPDX-License-Identifier: MIT */
/*
 * engspec.h - an engine spec: what "[WRAPPER:]ENGINE" and its options name,
 * read once into a struct (the engines of the registry, the options typed)
 * and created from it (iolat_eng_create_spec(), engine.h). The default
 * engine is resolved here and only here. A job file's ioengine= and
 * ENGINE.OPTION keys become one (job/jobfile.h: iolat_job.spec); --faults
 * is read into an option set once and merged over it.
 * Context: any thread; a spec is a plain value.
 */
#ifndef IOLAT_ENGINE_ENGSPEC_H
#define IOLAT_ENGINE_ENGSPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engopt.h"

struct iolat_engine_ops;

struct iolat_eng_spec {
	const struct iolat_engine_ops *engine;  /* the engine doing the I/O; never a wrapper */
	const struct iolat_engine_ops *wrapper; /* the wrapper around it ("faulty"), or NULL */
	struct iolat_eng_optset opts;           /* the options of the outer one (the wrapper,
						 * else the engine): what was given, typed */
};

/**
 * iolat_eng_spec_parse() - @name, "[WRAPPER:]ENGINE" (registry names or
 * aliases), into @s, with no options; NULL or "": the default engine (the
 * first built one of the registry: uring, else psync). Engines absent from
 * this build parse (creating one fails: the runner falls back).
 * @err: "unknown I/O engine 'x'", "... (a wrapper: use faulty:<engine>)",
 * "faulty: name the engine to wrap (faulty:psync)".
 * Return: 0; -ENOENT for an unknown name or a wrapper alone; -EINVAL for a
 * wrapper with no engine after its colon.
 */
int iolat_eng_spec_parse(const char *name, struct iolat_eng_spec *s, char *err, size_t errlen);

/** iolat_eng_spec_outer() - the engine whose options @s holds: its wrapper, else its engine. */
const struct iolat_engine_ops *iolat_eng_spec_outer(const struct iolat_eng_spec *s);

/**
 * iolat_eng_spec_options() - "key=val,key=val" onto @s's options (a key
 * given again takes the last value); nothing for an engine without options.
 * @err: "faulty: bad value in 'rate=2' (kind=...|..., rate=P, ...)".
 * Return: 0 or -EINVAL.
 */
int iolat_eng_spec_options(struct iolat_eng_spec *s, const char *opts, char *err, size_t errlen);

/** iolat_eng_spec_name() - "faulty:psync", "uring". As snprintf. */
int iolat_eng_spec_name(const struct iolat_eng_spec *s, char *buf, size_t len);

/**
 * iolat_eng_spec_format() - the spec as a report says it: its name, then its
 * options in table order, "faulty:psync kind=eio,rate=0.01". As snprintf.
 */
int iolat_eng_spec_format(const struct iolat_eng_spec *s, char *buf, size_t len);

/** iolat_eng_spec_diskless() - the spec's engine does no file I/O (null). */
bool iolat_eng_spec_diskless(const struct iolat_eng_spec *s);

#endif /* IOLAT_ENGINE_ENGSPEC_H */
