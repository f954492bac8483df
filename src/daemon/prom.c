/* SPDX-License-Identifier: MIT */
/*
 * prom.c - the status file as Prometheus metrics (prom.h). A table names
 * each family: its type, help, the status records it comes from, the field
 * and the factor to base units, and a fixed label (direction, result) when
 * one field is one sample of a family with several.
 * Context: any thread.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/prom.h"

struct prom_sample {
	const char *field;          /* status field */
	const char *label;          /* extra label "name=\"value\"", or NULL */
};

struct prom_family {
	const char *name, *type, *help;
	const char *kind;           /* status record kind: iolatd, device, group, limit */
	double scale;               /* to base units */
	struct prom_sample s[2];
	const char *only_if;        /* a field that must be nonzero for the sample, or NULL */
};

static const struct prom_family families[] = {
	{ "iolatd_uptime_seconds", "gauge", "Time since iolatd started.", "iolatd", 1, { { "uptime_s", NULL } }, NULL },
	{ "iolatd_measurement_up", "gauge", "1 while the BPF measurement runs, 0 while it is lost.", "iolatd", 1,
	  { { "source_ok", NULL } }, NULL },
	{ "iolatd_completions_observed_total", "counter", "Block requests measured on the controlled disks.",
	  "iolatd", 1, { { "observed", NULL } }, NULL },
	{ "iolatd_completions_unattributed_total", "counter",
	  "Block requests of cgroups outside the controlled tree.", "iolatd", 1, { { "unattributed", NULL } }, NULL },
	{ "iolatd_device_nr_requests", "gauge", "The queue depth the controller works with.", "device", 1,
	  { { "nr_requests", NULL } }, NULL },
	{ "iolatd_device_unattributed_bytes_per_second", "gauge",
	  "I/O of no configured group over the last second.", "device", 1, { { "unattributed_bps", NULL } }, NULL },
	{ "iolatd_group_target_seconds", "gauge", "The group's latency target (0: none).", "group", 1e-6,
	  { { "target_us", NULL } }, NULL },
	{ "iolatd_group_latency_mean_seconds", "gauge", "Mean completion latency over the last second.", "group",
	  1e-6, { { "avg_lat_us", NULL } }, NULL },
	{ "iolatd_group_latency_p90_seconds", "gauge", "90th percentile latency over the last second.", "group",
	  1e-6, { { "p90_us", NULL } }, NULL },
	{ "iolatd_group_requests_last_second", "gauge", "Requests completed in the last second.", "group", 1,
	  { { "ios", NULL } }, NULL },
	{ "iolatd_group_windows_total", "counter", "Windows judged, by result.", "group", 1,
	  { { "windows_ok", "result=\"ok\"" }, { "windows_missed", "result=\"missed\"" } }, NULL },
	{ "iolatd_group_scale_events_total", "counter", "Depth steps, by direction.", "group", 1,
	  { { "scale_downs", "direction=\"down\"" }, { "scale_ups", "direction=\"up\"" } }, NULL },
	{ "iolatd_group_allowed_depth", "gauge", "The allowed queue depth (+Inf: unlimited).", "group", 1,
	  { { "depth", NULL } }, NULL },
	{ "iolatd_group_use_delay", "gauge", "Steps below depth 1 acted on (each halves the rate).", "group", 1,
	  { { "delay_used", NULL } }, NULL },
	{ "iolatd_group_limited", "gauge", "1 while a limit of iolatd's is in force for the group.", "group", 1,
	  { { "limited", NULL } }, NULL },
	{ "iolatd_group_limited_seconds_total", "counter", "Time spent under a limit.", "group", 1e-3,
	  { { "limited_ms", NULL } }, NULL },
	{ "iolatd_group_limit_bytes_per_second", "gauge", "The group's limit in force, by direction.", "group", 1,
	  { { "rbps", "direction=\"read\"" }, { "wbps", "direction=\"write\"" } }, "limited" },
	{ "iolatd_group_limit_iops", "gauge", "The group's request-rate limit in force, by direction.", "group", 1,
	  { { "riops", "direction=\"read\"" }, { "wiops", "direction=\"write\"" } }, "limited" },
	{ "iolatd_group_limit_holds", "gauge", "0 while I/O runs above the limit in force.", "group", 1,
	  { { "holds", NULL } }, NULL },
	{ "iolatd_group_pace_bytes_per_second", "gauge",
	  "Adaptive mode: the rate the core gives the group (0: none).", "group", 1,
	  { { "pace_bps", NULL } }, NULL },
	{ "iolatd_group_target_unattainable", "gauge",
	  "Adaptive mode: 1 while lowering the group's siblings no longer lowers its latency.", "group", 1,
	  { { "unattainable", NULL } }, NULL },
	{ "iolatd_cgroup_limit_bytes_per_second", "gauge", "What is written on each cgroup carrying a limit.",
	  "limit", 1, { { "rbps", "direction=\"read\"" }, { "wbps", "direction=\"write\"" } }, NULL },
	{ "iolatd_cgroup_limit_iops", "gauge", "What is written on each cgroup carrying a limit.",
	  "limit", 1, { { "riops", "direction=\"read\"" }, { "wiops", "direction=\"write\"" } }, NULL },
};

/* A label value with \, " and newline escaped. */
static void put_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* Labels: the record's group (or cgroup, for a limit record), disk and so on, then @extra. */
static void put_labels(FILE *f, const struct status_rec *r, const char *extra)
{
	static const char *const keys[][2] = {
		{ "path", "group" }, { "dev", "dev" }, { "disk", "disk" }, { "rule", "rule" }, { "for", "for" },
	};
	bool any = false;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = iolatd_status_get(r, keys[i][0]);
		const char *name = i == 0 && !strcmp(r->kind, "limit") ? "cgroup" : keys[i][1];

		if (!v || (i == 3 && strcmp(r->kind, "device")))
			continue; /* the rule is the disk's: a label of the device's samples only */
		fprintf(f, "%s%s=\"", any ? "," : "{", name);
		put_value(f, v);
		fputc('"', f);
		any = true;
	}
	if (extra)
		fprintf(f, "%s%s", any ? "," : "{", extra);
	if (any || extra)
		fputc('}', f);
}

static void put_number(FILE *f, const char *v, double scale)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v)
		return;
	if (x < 0)
		fputs("+Inf", f); /* -1: unlimited */
	else if (scale == 1)
		fputs(v, f);
	else
		fprintf(f, "%.9g", x * scale);
}

static void put_family(FILE *f, const struct status_file *s, const struct prom_family *m)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name, m->type);
	for (unsigned i = 0; i < s->n; i++) {
		const struct status_rec *r = &s->recs[i];

		if (strcmp(r->kind, m->kind))
			continue;
		if (m->only_if && strtoull(iolatd_status_get(r, m->only_if) ? iolatd_status_get(r, m->only_if) : "0", NULL, 10) == 0)
			continue;
		for (int j = 0; j < 2 && m->s[j].field; j++) {
			const char *v = iolatd_status_get(r, m->s[j].field);

			if (!strcmp(m->s[j].field, "source_ok"))
				v = iolatd_status_get(r, "source") && !strcmp(iolatd_status_get(r, "source"), "ok") ? "1" : "0";
			if (!v)
				continue;
			fputs(m->name, f);
			put_labels(f, r, m->s[j].label);
			fputc(' ', f);
			put_number(f, v, m->scale);
			fputc('\n', f);
		}
	}
}

int iolatd_prom_write(const struct status_file *s, FILE *f)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		put_family(f, s, &families[i]);
	return ferror(f) ? -EIO : 0;
}
