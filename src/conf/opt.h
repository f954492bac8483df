/* SPDX-License-Identifier: MIT */
/*
 * opt.h - a configuration's options as data: one table entry a key (its
 * name, an alias, its type, the sections it may stand in, its field, range,
 * default, value words and help), and the generic code that reads a value
 * of a typed entry into its field with the value grammar (value.h) and
 * says what was expected when it cannot:
 *
 *   FILE:LINE: key 'KEY': expected WHAT (got 'VALUE')
 *
 * The job file (src/job/jobfile_table.c) and iolatd.conf
 * (src/daemon/config/config.c) are such tables; a table's owner handles its own
 * types (IOLAT_OPT_USER0...), the rest is here. Adding a key is one entry.
 * Context: any thread; tables are constant, the struct filled is the caller's.
 */
#ifndef IOLAT_CONF_OPT_H
#define IOLAT_CONF_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum iolat_opt_type {
	IOLAT_OPT_STR,       /* text, a malloc'ed copy in a char * (freed when set again) */
	IOLAT_OPT_TEXT,      /* text, copied into a char array of fsize bytes */
	IOLAT_OPT_SIZE,      /* bytes, iolat_parse_size() */
	IOLAT_OPT_RATE,      /* bytes/s, iolat_parse_size() */
	IOLAT_OPT_COUNT,     /* a number of things in the size grammar ("1k" = 1024) */
	IOLAT_OPT_TIME_S,    /* duration, bare number = seconds */
	IOLAT_OPT_TIME_US,   /* duration, bare number = microseconds */
	IOLAT_OPT_TARGET,    /* latency target, iolat_conf_parse_target(); "max" = none */
	IOLAT_OPT_BOOL,      /* 0/1 (also true/false, yes/no, on/off); bare key = 1 */
	IOLAT_OPT_UINT,      /* unsigned integer within [min, max] */
	IOLAT_OPT_ENUM,      /* one of the words in choices; value = min + position */
	IOLAT_OPT_FLAGS,     /* words of choices joined by '|' or ',', each setting the bits
			      * flag_bits gives it (ioflags=meta|swap; none: 0) */
	/* The table owner's own types: iolat_opt_apply() leaves them to it. */
	IOLAT_OPT_USER0, IOLAT_OPT_USER1, IOLAT_OPT_USER2, IOLAT_OPT_USER3,
	IOLAT_OPT_USER4, IOLAT_OPT_USER5, IOLAT_OPT_USER6, IOLAT_OPT_USER7,
};

/* Where a key may appear (a table's sections; the job file has all three). */
#define IOLAT_OPT_IN_GLOBAL 0x1u  /* [global] */
#define IOLAT_OPT_IN_JOB    0x2u  /* a job section */
#define IOLAT_OPT_IN_GROUP  0x4u  /* a [group:PATH] section */

struct iolat_opt {
	const char *name;      /* key; for a key family the prefix */
	const char *alias;     /* another accepted key, or NULL */
	enum iolat_opt_type type;
	unsigned where;        /* IOLAT_OPT_IN_* */
	size_t off;            /* offsetof() the field in the struct the section fills */
	size_t fsize;          /* sizeof the field */
	uint64_t min, max;     /* numeric range (max 0: none); ENUM: min is the first value */
	const char *choices;   /* IOLAT_OPT_ENUM, FLAGS: "read|write|..." */
	const char *value_aliases; /* IOLAT_OPT_ENUM: other spellings, "alias=choice|..."
				    * ("readwrite=rw"); NULL: none */
	const unsigned *flag_bits; /* IOLAT_OPT_FLAGS: the bits each word of choices sets,
				    * in order (0: the word that sets none) */
	const char *value_words; /* IOLAT_OPT_BOOL: other words the value may be, "a|b|c";
				  * each means 1 and also stores its position + 1 in the
				  * int at words_off (control=kernel: mode 2); NULL: none */
	size_t words_off;      /* offsetof() that int, in the same struct as the field */
	bool has_given;        /* when written, set the bool at given_off */
	size_t given_off;      /* offsetof() that bool (the job file: in its [global] struct) */
	const char *def;       /* default as text, or NULL for none */
	const char *expect;    /* what a bad value is told ("a queue depth 1..65536"), over
				* the type's own words and its range; NULL: those */
	const char *help;      /* one line */
	bool scen_words;       /* the job file's: IOLAT_OPT_ENUM in jobs (rw=) whose values
				* also include the registered scenarios' workload words */
	bool rw_pair;          /* the job file's: IOLAT_OPT_UINT also "R,W", fio's separate
				* read and write values: R at off, W at pair_off (a uint64_t)
				* and the bool at split_off set; one value: W 0, that bool
				* clear (the owner reads it; iolat_opt_apply() does not) */
	size_t pair_off, split_off;
};

/* Where a message points: the file and line, and the caller's buffer. */
struct iolat_conf_at {
	const char *file;      /* as it should be printed (iolat_conf_echo()'d) */
	unsigned line;
	char *err;             /* NULL or errlen 0: no message wanted */
	size_t errlen;
};

/* Bytes of user text echoed in a message, at most. */
#define IOLAT_CONF_ECHO_MAX 40u

/**
 * iolat_conf_echo() - @n bytes of user text at @s made printable for a
 * message into @dst: printable ASCII kept, anything else '?', "..." after
 * @max bytes.
 */
void iolat_conf_echo(char *dst, size_t dlen, const char *s, size_t n, size_t max);

/**
 * iolat_conf_errf() - the one-line message "FILE:LINE: key 'KEY': expected
 * WHAT" (@key NULL: "FILE:LINE: WHAT"; the key echoed) at @line of @at's file.
 * Return: -EINVAL.
 */
int iolat_conf_errf(const struct iolat_conf_at *at, unsigned line, const char *key,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The value iolat_opt_apply() returns for a type of the table's owner. */
#define IOLAT_OPT_NOT_MINE 1

/**
 * iolat_opt_apply() - read @v (NULL: the key was given bare) as a value of
 * @o, written as @key at @at's line, into its field of @base.
 * Return: 0; -EINVAL with the message in @at's buffer; -ENOMEM (STR);
 * IOLAT_OPT_NOT_MINE for an IOLAT_OPT_USER* type (nothing done).
 */
int iolat_opt_apply(const struct iolat_conf_at *at, const struct iolat_opt *o, void *base,
		    const char *key, const char *v);

/** iolat_opt_store_uint() - @v into @o's field of @base, as wide as the field. */
void iolat_opt_store_uint(void *base, const struct iolat_opt *o, uint64_t v);

/**
 * iolat_opt_choice() - the position of @v among @o's choices, or of the
 * choice a value alias of @o stands for; -1 if neither.
 */
int iolat_opt_choice(const struct iolat_opt *o, const char *v);

/** iolat_opt_type_name() - "size", "bool", ... for `help keys`; NULL: a user type. */
const char *iolat_opt_type_name(enum iolat_opt_type t);

/**
 * iolat_opt_find() - the entry of @tbl (ended by name NULL) called @key
 * (its name or alias), of a plain type (families are the owner's); NULL.
 */
const struct iolat_opt *iolat_opt_find(const struct iolat_opt *tbl, const char *key);

/**
 * iolat_opt_suggest() - the key of @tbl nearest to the misspelled @key
 * (conf/suggest.h's rule), NULL when none is close.
 */
const char *iolat_opt_suggest(const struct iolat_opt *tbl, const char *key);

#endif /* IOLAT_CONF_OPT_H */
