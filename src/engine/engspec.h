/* SPDX-License-Identifier: MIT */
/*
 * engspec.h - an engine spec: what "[WRAPPER:]ENGINE" and its options name,
 * read once into a struct (the engines of the registry, the options typed)
 * and created from it (iolat_eng_create_spec(), engine.h). A name is read
 * into one by the registry (registry.h: iolat_eng_spec_parse(), where the
 * default engine is resolved, and only there); the rest of a spec's life is
 * here, on the ops tables it names and nothing else. A job file's ioengine= and
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
