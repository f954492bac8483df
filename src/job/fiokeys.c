/* SPDX-License-Identifier: MIT */
/*
 * fiokeys.c - the table of fio keys that iolat names differently or does
 * not take, and what to write instead (see fiokeys.h).
 * Context: any thread; no state.
 */
#include <stdio.h>
#include <string.h>

#include "job/fiokeys.h"

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
