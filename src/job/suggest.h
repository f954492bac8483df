/* SPDX-License-Identifier: MIT */
/*
 * suggest.h - "did you mean" for job files: the nearest word of a list by
 * edit distance (a misspelled key or group path), and what fio's own keys
 * that iolat does not take are called here (randseed -> seed, ...).
 * Context: any thread; no state.
 */
#ifndef IOLAT_JOB_SUGGEST_H
#define IOLAT_JOB_SUGGEST_H

#include <stddef.h>

/**
 * iolat_edit_distance() - Levenshtein distance between @a and @b (insert,
 * delete, substitute one byte; an adjacent swap counts as one too), capped:
 * anything above @cap is returned as @cap + 1. Strings over 64 bytes: cap + 1.
 */
unsigned iolat_edit_distance(const char *a, const char *b, unsigned cap);

/* Collects the nearest candidate to a word, fed one candidate at a time. */
struct iolat_suggest {
	const char *word;       /* what the user wrote */
	const char *best;       /* nearest so far, or NULL */
	unsigned best_dist;
};

void iolat_suggest_init(struct iolat_suggest *s, const char *word);
void iolat_suggest_offer(struct iolat_suggest *s, const char *candidate);

/* The nearest candidate close enough to be a likely typo (at most 2 edits,
 * and fewer than a third of the word's length for short words), or NULL. */
const char *iolat_suggest_best(const struct iolat_suggest *s);

/**
 * iolat_fio_key_hint() - for a fio key iolat does not take, one phrase saying
 * what to write instead ("fio's randseed is seed= here, in [global]"), or NULL.
 */
const char *iolat_fio_key_hint(const char *key);

/**
 * iolat_fio_format_keys() - the "fio keys" part of `iolat help keys`: the fio
 * keys accepted under another name or as-is, and those that are not, with
 * what to use. As snprintf: writes at most @len bytes, returns the length
 * needed.
 */
int iolat_fio_format_keys(char *buf, size_t len);

#endif
