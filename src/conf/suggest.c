/* SPDX-License-Identifier: MIT */
/*
 * suggest.c - edit distance and nearest-word suggestions (see suggest.h).
 * Context: any thread; no state.
 */
#include <stdio.h>
#include <string.h>

#include "conf/suggest.h"

#define SUGGEST_MAX_LEN 64u

/* Optimal string alignment distance, with an early exit above @cap. */
unsigned iolat_edit_distance(const char *a, const char *b, unsigned cap)
{
	unsigned rows[3][SUGGEST_MAX_LEN + 1];
	size_t la = strlen(a), lb = strlen(b);
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned row_min;

		cur[0] = (unsigned)i;
		row_min = cur[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned d = prev[j] + 1;

			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
			if (d < row_min)
				row_min = d;
		}
		if (row_min > cap)
			return cap + 1;
		unsigned *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb] > cap ? cap + 1 : prev[lb];
}

void iolat_suggest_init(struct iolat_suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->best_dist = ~0u;
}

void iolat_suggest_offer(struct iolat_suggest *s, const char *candidate)
{
	unsigned d = iolat_edit_distance(s->word, candidate, 3);

	if (d < s->best_dist) {
		s->best = candidate;
		s->best_dist = d;
	}
}

const char *iolat_suggest_best(const struct iolat_suggest *s)
{
	size_t len = strlen(s->word);
	unsigned limit = len <= 3 ? 1 : len <= 5 ? 1 : 2;

	/* a distance of the word's whole length is another word, not a typo */
	if (!s->best || s->best_dist == 0 || s->best_dist > limit || s->best_dist >= len)
		return NULL;
	return s->best;
}
