/* SPDX-License-Identifier: MIT */
/*
 * suggest.h - "did you mean" for every configuration: the nearest word of a
 * list by edit distance (a misspelled key, group path or option).
 * Context: any thread; no state.
 */
#ifndef IOLAT_CONF_SUGGEST_H
#define IOLAT_CONF_SUGGEST_H

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
 * 1 for words of up to 5 bytes, and fewer than the word's length), or NULL. */
const char *iolat_suggest_best(const struct iolat_suggest *s);

#endif
