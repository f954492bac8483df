/* SPDX-License-Identifier: MIT */
/*
 * engopt.h - an engine's options as data (fio's per-engine option tables,
 * our way): each engine that takes options declares a table of them. A
 * value is read once into its typed form (util/optval.h); a set of them
 * (struct iolat_eng_optset: which options were given, and their values)
 * is what an engine spec carries (engspec.h) and what the engine fills its
 * own options struct from, defaults first. One parser reads
 * "key=val,key=val" (--faults), one writer prints the --help line, one
 * prints a value back; the registry hands the table to the job layer, so
 * that the same keys can be written in a job file.
 * Context: any thread; tables are constant, sets and options structs are
 * the caller's.
 */
#ifndef IOLAT_ENGINE_ENGOPT_H
#define IOLAT_ENGINE_ENGOPT_H

#include <stddef.h>
#include <stdint.h>

#include "util/optval.h"

#define IOLAT_ENG_OPTS_MAX 16    /* options one engine's table may hold */
#define IOLAT_ENG_OPTS_HELP_MAX 256 /* the --help line of one table, NUL included */

enum iolat_eng_opt_type {
	IOLAT_EOPT_U64,      /* unsigned integer (decimal, 0x hex: conf/value.h), [min, max], x scale */
	IOLAT_EOPT_DOUBLE,   /* real number in [dmin, dmax] (conf/value.h) */
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

/* Options given, typed: option i of its table was given when bit i of set is. */
struct iolat_eng_optset {
	uint64_t set;
	union iolat_optval v[IOLAT_ENG_OPTS_MAX];
};

/**
 * iolat_eng_opt_value() - read the @len bytes at @v as a value of option
 * @o into *@out (an integer as written, before its scale).
 * Return: 0, or -EINVAL when @o does not take it.
 */
int iolat_eng_opt_value(const struct iolat_eng_opt *o, const char *v, size_t len,
			union iolat_optval *out);

/**
 * iolat_eng_optset_parse() - "key=val,key=val" onto @os (a key given again,
 * or given before in @os, takes the last value).
 * @err: "option 'k' needs a value", "unknown option 'k'", "bad value in
 * 'k=v'" on failure.
 * Return: 0 or -EINVAL (@os then holds what came before the error).
 */
int iolat_eng_optset_parse(const struct iolat_eng_opt *tbl, struct iolat_eng_optset *os,
			   const char *opts, char *err, size_t errlen);

/** iolat_eng_optset_merge() - every option given in @from over @to's. */
void iolat_eng_optset_merge(struct iolat_eng_optset *to, const struct iolat_eng_optset *from);

/**
 * iolat_eng_optset_fill() - @base (an options struct laid out as @tbl says)
 * with every option's default, then the values @os gives (integers times
 * their scale). Return: 0, or -EINVAL for a table whose default does not
 * parse (a bug: the engines' tests catch it).
 */
int iolat_eng_optset_fill(const struct iolat_eng_opt *tbl, const struct iolat_eng_optset *os,
			  void *base);

/**
 * iolat_eng_optset_format() - the options @os gives, "key=val,key=val" in
 * table order, each value as it would be written: "12", "0.25", "read",
 * "eio+short" (flags in table order; 0: the choice worth 0). As snprintf:
 * the length needed.
 */
int iolat_eng_optset_format(const struct iolat_eng_opt *tbl, const struct iolat_eng_optset *os,
			    char *buf, size_t len);

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
 * Stores nothing (iolat_eng_opt_value() keeps the value).
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
