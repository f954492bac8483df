/* SPDX-License-Identifier: MIT */
/*
 * prom.c - the status file as Prometheus metrics (prom.h). A table names
 * each family: its type, help, the status records it comes from, the field
 * and the factor to base units, and a fixed label (direction, result) when
 * one field is one sample of a family with several. Counters are the status
 * file's totals since the start (a scrape at any interval loses nothing);
 * gauges are only what holds now (a target, a depth, a limit in force). The
 * latency histogram is built from the buckets the daemon keeps (lathist.c).
 * Series: the daemon's, each device's, and each group record of a configured
 * group or of a group limited for one (a limit now, or time limited since it
 * appeared); the other groups the daemon tracks are left out. The weights'
 * families only where weights are configured (weighted=1).
 * Context: any thread.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/status/prom.h"

#define PROM_MAX_EDGES 64

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
	const char *info[2];        /* an info family (value 1): fields made labels, "field:label" */
};

static const struct prom_family families[] = {
	{ "iolatd_build_info", "gauge", "The running iolatd's version (value 1).", "iolatd", 1,
	  { { "version", NULL } }, NULL, { "version:version" } },
	{ "process_start_time_seconds", "gauge", "When iolatd started, in seconds since the epoch.", "iolatd", 1,
	  { { "start_time", NULL } }, NULL, { NULL } },
	{ "iolatd_measurement_up", "gauge", "1 while the BPF measurement runs, 0 while it is lost.", "iolatd", 1,
	  { { "source_ok", NULL } }, NULL, { NULL } },
	{ "iolatd_completions_observed_total", "counter", "Block requests measured on the controlled disks.",
	  "iolatd", 1, { { "observed", NULL } }, NULL, { NULL } },
	{ "iolatd_completions_unattributed_total", "counter",
	  "Block requests of cgroups outside the controlled tree.", "iolatd", 1, { { "unattributed", NULL } }, NULL,
	  { NULL } },
	{ "iolatd_device_info", "gauge", "A controlled disk: its MAJ:MIN and the rule judging its windows (value 1).",
	  "device", 1, { { "nr_requests", NULL } }, NULL, { "dev:major_minor", "rule:rule" } },
	{ "iolatd_device_nr_requests", "gauge", "The queue depth the controller works with.", "device", 1,
	  { { "nr_requests", NULL } }, NULL, { NULL } },
	{ "iolatd_device_unattributed_bytes_total", "counter", "Bytes of I/O of no tracked group.", "device", 1,
	  { { "unattributed_bytes_total", NULL } }, NULL, { NULL } },
	{ "iolatd_group_target_seconds", "gauge", "The group's latency target (0: none).", "group", 1e-6,
	  { { "target_us", NULL } }, NULL, { NULL } },
	{ "iolatd_group_requests_total", "counter", "Requests completed in the group's subtree, by direction.",
	  "group", 1, { { "reads_total", "direction=\"read\"" }, { "writes_total", "direction=\"write\"" } }, NULL,
	  { NULL } },
	{ "iolatd_group_bytes_total", "counter", "Bytes completed in the group's subtree, by direction.", "group", 1,
	  { { "read_bytes_total", "direction=\"read\"" }, { "write_bytes_total", "direction=\"write\"" } }, NULL,
	  { NULL } },
	{ "iolatd_group_latency_seconds", "histogram", "Completion latency of the group's subtree's requests.",
	  "group", 1e-9, { { "lat_sum_ns", NULL } }, NULL, { NULL } },
	{ "iolatd_group_windows_total", "counter", "Windows judged, by result.", "group", 1,
	  { { "windows_ok", "result=\"ok\"" }, { "windows_missed", "result=\"missed\"" } }, NULL, { NULL } },
	{ "iolatd_group_scale_events_total", "counter", "Depth steps, by direction.", "group", 1,
	  { { "scale_downs", "direction=\"down\"" }, { "scale_ups", "direction=\"up\"" } }, NULL, { NULL } },
	{ "iolatd_group_allowed_depth", "gauge", "The allowed queue depth (+Inf: unlimited).", "group", 1,
	  { { "depth", NULL } }, NULL, { NULL } },
	{ "iolatd_group_use_delay", "gauge", "Steps below depth 1 acted on (each halves the rate).", "group", 1,
	  { { "delay_used", NULL } }, NULL, { NULL } },
	{ "iolatd_group_limited", "gauge", "1 while a limit of iolatd's is in force for the group.", "group", 1,
	  { { "limited", NULL } }, NULL, { NULL } },
	{ "iolatd_group_limited_seconds_total", "counter", "Time spent under a limit.", "group", 1e-3,
	  { { "limited_ms", NULL } }, NULL, { NULL } },
	{ "iolatd_group_limit_bytes_per_second", "gauge", "The group's limit in force, by direction.", "group", 1,
	  { { "rbps", "direction=\"read\"" }, { "wbps", "direction=\"write\"" } }, "limited", { NULL } },
	{ "iolatd_group_limit_iops", "gauge", "The group's request-rate limit in force, by direction.", "group", 1,
	  { { "riops", "direction=\"read\"" }, { "wiops", "direction=\"write\"" } }, "limited", { NULL } },
	{ "iolatd_group_limit_holds", "gauge", "0 while I/O runs above the limit in force.", "group", 1,
	  { { "holds", NULL } }, NULL, { NULL } },
	{ "iolatd_group_pace_bytes_per_second", "gauge",
	  "Adaptive mode: the rate the core gives the group (0: none).", "group", 1,
	  { { "pace_bps", NULL } }, NULL, { NULL } },
	{ "iolatd_group_target_unattainable", "gauge",
	  "Adaptive mode: 1 while lowering the group's siblings no longer lowers its latency.", "group", 1,
	  { { "unattainable", NULL } }, NULL, { NULL } },
	{ "iolatd_device_kernel_weights", "gauge",
	  "1 while the kernel's own weights (BFQ, io.cost) are in force on the disk: iolatd writes no weight budget there.",
	  "device", 1, { { "kernel_weights_on", NULL } }, "weighted", { NULL } },
	{ "iolatd_device_capacity_bytes_per_second", "gauge",
	  "The disk's capacity estimate the weights divide (0: not known yet).", "device", 1,
	  { { "capacity_bps", NULL } }, "weighted", { NULL } },
	{ "iolatd_group_weight", "gauge", "The group's weight, 1..10000 (100: none given).", "group", 1,
	  { { "weight", NULL } }, "weighted", { NULL } },
	{ "iolatd_group_hweight_ratio", "gauge",
	  "The group's hierarchical weight: its part of the disk among the active groups.", "group", 1e-6,
	  { { "hweight_ppm", NULL } }, "weighted", { NULL } },
	{ "iolatd_group_share_bytes_per_second", "gauge", "The group's share: hweight times the capacity estimate.",
	  "group", 1, { { "share_bps", NULL } }, "weighted", { NULL } },
	{ "iolatd_group_use_bytes_per_second", "gauge", "What the group used over the weights' last period.", "group", 1,
	  { { "use_bps", NULL } }, "weighted", { NULL } },
	{ "iolatd_group_donated_bytes_per_second", "gauge", "The part of its share the group left to busy siblings.",
	  "group", 1, { { "donated_bps", NULL } }, "weighted", { NULL } },
	{ "iolatd_group_weight_budget_bytes_per_second", "gauge",
	  "What the group's weight lets it use this period (+Inf: unlimited).", "group", 1,
	  { { "budget_bps", NULL } }, "weighted", { NULL } },
	{ "iolatd_cgroup_limit_bytes_per_second", "gauge", "What is written on each cgroup carrying a limit.",
	  "limit", 1, { { "rbps", "direction=\"read\"" }, { "wbps", "direction=\"write\"" } }, NULL, { NULL } },
	{ "iolatd_cgroup_limit_iops", "gauge", "What is written on each cgroup carrying a limit.",
	  "limit", 1, { { "riops", "direction=\"read\"" }, { "wiops", "direction=\"write\"" } }, NULL, { NULL } },
};

/* Each kind's labels: status field, label name. */
static const struct {
	const char *kind;
	const char *keys[3][2];
} kind_labels[] = {
	{ "device", { { "disk", "device" } } },
	{ "group", { { "path", "group" }, { "disk", "device" } } },
	{ "limit", { { "path", "cgroup" }, { "disk", "device" }, { "for", "for" } } },
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

static void put_label(FILE *f, bool *any, const char *name, const char *v)
{
	fprintf(f, "%s%s=\"", *any ? "," : "{", name);
	put_value(f, v);
	fputc('"', f);
	*any = true;
}

/* Labels: the record's own (kind_labels), an info family's, then @extra ("le=..." or a direction). */
static void put_labels(FILE *f, const struct status_rec *r, const struct prom_family *m, const char *extra)
{
	bool any = false;

	for (size_t k = 0; k < sizeof(kind_labels) / sizeof(kind_labels[0]); k++)
		for (int i = 0; !strcmp(r->kind, kind_labels[k].kind) && i < 3 && kind_labels[k].keys[i][0]; i++) {
			const char *v = iolatd_status_get(r, kind_labels[k].keys[i][0]);

			if (v)
				put_label(f, &any, kind_labels[k].keys[i][1], v);
		}
	for (int i = 0; i < 2 && m->info[i]; i++) {
		char field[32];
		const char *colon = strchr(m->info[i], ':'), *v;

		snprintf(field, sizeof(field), "%.*s", (int)(colon - m->info[i]), m->info[i]);
		if ((v = iolatd_status_get(r, field)))
			put_label(f, &any, colon + 1, v);
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
		fputs("NaN", f);
	else if (x < 0)
		fputs("+Inf", f); /* -1: unlimited */
	else if (scale == 1)
		fputs(v, f);
	else
		fprintf(f, "%.9g", x * scale);
}

static bool field_nonzero(const struct status_rec *r, const char *key)
{
	const char *v = iolatd_status_get(r, key);

	return v && strtoull(v, NULL, 10) != 0;
}

/* A group record gets series when it is configured or limited for one (now or before). */
static bool exported(const struct status_rec *r)
{
	if (strcmp(r->kind, "group"))
		return true;
	return field_nonzero(r, "configured") || field_nonzero(r, "limited") || field_nonzero(r, "limited_ms");
}

/* The histogram's edges in us, from the daemon record. Return: how many (0: none). */
static int hist_edges(const struct status_file *s, double *edges)
{
	const char *v = iolatd_status_get(&s->recs[0], "lat_edges_us");
	int n = 0;

	while (v && *v && n < PROM_MAX_EDGES) {
		char *end;

		edges[n++] = strtod(v, &end);
		if (end == v || (*end && *end != ','))
			return 0;
		v = *end ? end + 1 : end;
	}
	return n;
}

/*
 * Record @r's latency histogram: its buckets cumulated under @edges (us),
 * +Inf, _sum, _count. A record without lat_buckets, or whose count of
 * buckets is not the edges' plus one, has none.
 */
static void put_histogram(FILE *f, const struct status_rec *r, const struct prom_family *m,
			  const double *edges, int nedges)
{
	const char *v = iolatd_status_get(r, "lat_buckets"), *sum = iolatd_status_get(r, m->s[0].field);
	unsigned long long counts[PROM_MAX_EDGES + 1], cum = 0;
	char le[64];
	int n = 0;

	while (v && *v && n <= nedges) {
		char *end;

		counts[n++] = strtoull(v, &end, 10);
		if (end == v || (*end && *end != ','))
			return;
		v = *end ? end + 1 : end;
	}
	if (!sum || !nedges || n != nedges + 1)
		return;
	for (int j = 0; j <= nedges; j++) {
		cum += counts[j];
		if (j < nedges)
			snprintf(le, sizeof(le), "le=\"%.9g\"", edges[j] * 1e-6);
		else
			snprintf(le, sizeof(le), "le=\"+Inf\"");
		fprintf(f, "%s_bucket", m->name);
		put_labels(f, r, m, le);
		fprintf(f, " %llu\n", cum);
	}
	fprintf(f, "%s_sum", m->name);
	put_labels(f, r, m, NULL);
	fputc(' ', f);
	put_number(f, sum, m->scale);
	fprintf(f, "\n%s_count", m->name);
	put_labels(f, r, m, NULL);
	fprintf(f, " %llu\n", cum);
}

static void put_sample(FILE *f, const struct status_rec *r, const struct prom_family *m, int j)
{
	const char *v = iolatd_status_get(r, m->s[j].field);

	if (!strcmp(m->s[j].field, "source_ok"))
		v = iolatd_status_get(r, "source") && !strcmp(iolatd_status_get(r, "source"), "ok") ? "1" : "0";
	if (!v)
		return;
	fputs(m->name, f);
	put_labels(f, r, m, m->s[j].label);
	fputc(' ', f);
	if (m->info[0])
		fputs("1", f);
	else
		put_number(f, v, m->scale);
	fputc('\n', f);
}

static void put_family(FILE *f, const struct status_file *s, const struct prom_family *m)
{
	double edges[PROM_MAX_EDGES];
	int nedges = hist_edges(s, edges);

	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name, m->type);
	for (unsigned i = 0; i < s->n; i++) {
		const struct status_rec *r = &s->recs[i];

		if (strcmp(r->kind, m->kind) || !exported(r) || (m->only_if && !field_nonzero(r, m->only_if)))
			continue;
		if (!strcmp(m->type, "histogram")) {
			put_histogram(f, r, m, edges, nedges);
			continue;
		}
		for (int j = 0; j < 2 && m->s[j].field; j++)
			put_sample(f, r, m, j);
	}
}

int iolatd_prom_write(const struct status_file *s, FILE *f)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		put_family(f, s, &families[i]);
	return ferror(f) ? -EIO : 0;
}
