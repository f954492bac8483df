/* SPDX-License-Identifier: MIT */
/*
 * engopt.h - an engine's options as data (fio's per-engine option tables,
 * our way): each engine that takes options declares a table of them; one
 * parser reads "key=val,key=val" into the engine's options struct, one
 * writer prints the --help line, and the registry hands the table to the
 * job layer, so that the same keys can be written in a job file.
 * Context: any thread; tables are constant, the options struct is the
 * caller's.
 */
#ifndef IOLAT_ENGINE_ENGOPT_H
#define IOLAT_ENGINE_ENGOPT_H

#include <stddef.h>
#include <stdint.h>

enum iolat_eng_opt_type {
	IOLAT_EOPT_U64,      /* unsigned integer (decimal, 0x hex), [min, max], x scale */
	IOLAT_EOPT_DOUBLE,   /* real number in [dmin, dmax] */
	IOLAT_EOPT_CHOICE,   /* one of choices[]: stores its value (unsigned) */
	IOLAT_EOPT_FLAGS,    /* choices[] joined by '+' or '|': stores the OR (unsigned) */
};

struct iolat_eng_opt_choice {
	const char *name;
	unsigned value;      /* FLAGS: a bit, or 0 for "none" (not listed in help) */
};

struct iolat_eng_opt {
	const char *name;
	enum iolat_eng_opt_type type;
	size_t off;                          /* offset in the options struct */
	uint64_t min, max, scale;            /* U64: bounds of the value as written; stored
					      * times scale (0 means 1) */
	double dmin, dmax;                   /* DOUBLE bounds */
	const struct iolat_eng_opt_choice *choices;   /* CHOICE, FLAGS; NULL-name ended */
	const char *def;                     /* the default, as written */
	const char *value_word;              /* U64/DOUBLE: "N", "P" in the help line */
	const char *help;                    /* what it does, one phrase */
};

/**
 * iolat_eng_opts_parse() - apply "key=val,key=val" to @base (an options
 * struct laid out as @tbl says), after every option's default.
 * @set: bit i set when option i of @tbl was written (NULL: not wanted).
 * @err: "option 'k' needs a value", "unknown option 'k'", "bad value in
 * 'k=v'" on failure.
 * Return: 0 or -EINVAL.
 */
int iolat_eng_opts_parse(const struct iolat_eng_opt *tbl, void *base, const char *opts,
			 uint64_t *set, char *err, size_t errlen);

/**
 * iolat_eng_opts_help() - the one-line list of @tbl's options ("kind=eio|
 * enospc (join with '+'), rate=P, ..."). As snprintf: the length needed.
 */
int iolat_eng_opts_help(const struct iolat_eng_opt *tbl, char *buf, size_t len);

/**
 * iolat_eng_opt_check() - 0 when @v (a whole string) is a valid value of
 * option @o, as iolat_eng_opts_parse() would take it; -EINVAL if not.
 * Stores nothing: for callers that check values long before the engine
 * exists (the job file's ENGINE.KEY=VALUE keys).
 */
int iolat_eng_opt_check(const struct iolat_eng_opt *o, const char *v);

/**
 * iolat_eng_opt_expect() - what option @o takes, for a message: "an integer
 * from 0 to 1", "a number from 0 to 1", "one of read, write or any", "eio,
 * enospc, ... or stall, several joined with '+', or none". As snprintf.
 */
int iolat_eng_opt_expect(const struct iolat_eng_opt *o, char *buf, size_t len);

/** iolat_eng_opt_find() - option @name of @tbl (its first @len bytes), or NULL. */
const struct iolat_eng_opt *iolat_eng_opt_find(const struct iolat_eng_opt *tbl,
					       const char *name, size_t len);

#endif /* IOLAT_ENGINE_ENGOPT_H */
