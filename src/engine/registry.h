/* SPDX-License-Identifier: MIT */
/*
 * registry.h - the engines by name: the one list of engine names (an ops
 * table each), a name read into a spec (the default engine resolved here
 * and only here), and an engine created by name. Implemented by registry.c,
 * the only file that points at the engines (eng_*.c); they stand on the
 * dispatch layer (engine.h) and name no registry. Callers outside
 * src/engine read only an entry's name, alias, flags and options help.
 * Context: any thread; the list is constant (iolat_eng_create(): see
 * engine.h, the engine then belongs to the calling thread).
 */
#ifndef IOLAT_ENGINE_REGISTRY_H
#define IOLAT_ENGINE_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"
#include "engine/engspec.h"

/** iolat_eng_registry() - the @i-th engine, built or not; NULL past the end. */
const struct iolat_engine_ops *iolat_eng_registry(unsigned i);
/**
 * iolat_eng_lookup() - the engine called @name (its first @len bytes) or
 * aliased so ("io_uring"), built or not (IOLAT_ENG_F_NOT_BUILT); NULL if none.
 */
const struct iolat_engine_ops *iolat_eng_lookup(const char *name, size_t len);
/** iolat_eng_default_name() - the engine a config without a name gets. */
const char *iolat_eng_default_name(void);
/** iolat_eng_available() - @name (without options) is an engine of this build. */
bool iolat_eng_available(const char *name);
/** iolat_eng_options() - the option table of engine @name, NULL if it has none. */
const struct iolat_eng_opt *iolat_eng_options(const char *name);
/**
 * iolat_eng_options_help() - one line listing the options of engine @name,
 * made from its table (iolat_eng_opts_help()), for --help; NULL for an
 * unknown engine or one with none. Constant once made; any thread.
 */
const char *iolat_eng_options_help(const char *name);

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

/**
 * iolat_eng_create() - create an engine instance from @cfg's name and
 * options (read into a spec, then iolat_eng_create_spec()).
 * @cfg: configuration; NULL: every default.
 * Return: as iolat_eng_create_spec(); also -ENOENT for an unknown name and
 * -EINVAL for bad options.
 */
int iolat_eng_create(const struct iolat_eng_config *cfg, struct iolat_eng **out,
		     char *err, size_t errlen);

#endif /* IOLAT_ENGINE_REGISTRY_H */
