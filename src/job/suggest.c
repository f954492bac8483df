/* SPDX-License-Identifier: MIT */
/*
 * suggest.c - edit distance, nearest-word suggestions and the table of fio
 * keys that iolat names differently or does not take (see suggest.h).
 * Context: any thread; no state.
 */
#include <stdio.h>
#include <string.h>

#include "job/suggest.h"

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

	if (!s->best || s->best_dist == 0 || s->best_dist > limit)
		return NULL;
	return s->best;
}

/* fio keys iolat does not take, and what to write instead. */
static const struct {
	const char *key;
	const char *hint;
} fio_keys[] = {
	{ "randseed", "fio's randseed is seed= here, in [global]" },
	{ "latency_target", "fio's latency_target searches for a queue depth; the io.latency "
			    "target is target= in a [group:PATH] section" },
	{ "latency_window", "the io.latency window follows the group's target= (16 x target, "
			    "100 ms..1 s)" },
	{ "latency_percentile", "the io.latency rule is fixed: p90 on SSDs, the mean on "
				"rotational devices" },
	{ "group_reporting", "iolat always reports per group ([group:PATH], group=)" },
	{ "thread", "iolat always runs its jobs as threads" },
	{ "write_lat_log", "use --log DIR (a CSV time series per group)" },
	{ "write_bw_log", "use --log DIR (a CSV time series per group)" },
	{ "write_iops_log", "use --log DIR (a CSV time series per group)" },
	{ "buffered", "use direct=0" },
	{ "loops", "use runtime= with time_based=1" },
	{ "iodepth_batch", "iolat submits what is due in one batch" },
	{ "ioscheduler", "iolat does not change the device's scheduler" },
	{ "cgroup_weight", "io.latency has targets, not weights: target= in [group:PATH]" },
	{ "description", "use a ; comment" },
};

#define NR_FIO_KEYS (sizeof(fio_keys) / sizeof(fio_keys[0]))

const char *iolat_fio_key_hint(const char *key)
{
	for (size_t i = 0; i < NR_FIO_KEYS; i++)
		if (!strcmp(key, fio_keys[i].key))
			return fio_keys[i].hint;
	return NULL;
}

int iolat_fio_format_keys(char *buf, size_t len)
{
	size_t used = 0;
	int n;

	n = snprintf(buf, len,
		     "\nfio keys: blocksize = bs, readwrite = rw; cgroup= as fio's (a kernel cgroup; iolat's\n"
		     "group is group=); name= renames a job;\n"
		     "ramp_time= runs before the measured time (its I/O is not in the report);\n"
		     "randrepeat=1 and norandommap=1 describe what iolat always does;\n"
		     "percentile_list= adds percentiles to the JSON. Not taken, and what to use:\n");
	if (n < 0)
		return n;
	used = (size_t)n;
	for (size_t i = 0; i < NR_FIO_KEYS; i++) {
		n = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
			     "  %-19s %s\n", fio_keys[i].key, fio_keys[i].hint);
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	return (int)used;
}
