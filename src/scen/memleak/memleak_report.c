/* SPDX-License-Identifier: MIT */
/*
 * memleak_report.c - the figures of one leaking-service run (memleak.h):
 * the web's isolation (RPS relative to its baseline, as resctl-bench's
 * protection bench computes it: min(rps / base_rps, 1) each second) over the
 * leak's life, latency impact, downtime equivalent, the kill; and the
 * per-second series as CSV.
 * Context: the run's thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scen/memleak/memleak_int.h"

#define MIB (1ull << 20)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The phases of the leak's life: the first second at which system had
 * use_delay (io.latency throttling the leak: engage_s, -1 if never) and the
 * web's mean share before and from then on; and its mean share over the
 * first 60 s whatever happened (the same window for every mode).
 */
static void phases(struct iolat_ml_result *r, double life_end_s)
{
	double sum[2] = { 0, 0 }, sum60 = 0;
	size_t n[2] = { 0, 0 }, n60 = 0;

	r->engage_s = -1;
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_ml_sample *s = &r->samples[i];
		double isol = r->base_rps > 0 ? s->rps / r->base_rps : 0;

		isol = isol > 1 ? 1 : isol;
		if (s->t_s <= 0)
			continue;
		if (s->t_s <= 60) {
			sum60 += isol;
			n60++;
		}
		if (s->t_s > life_end_s)
			continue;
		if (r->engage_s < 0 && s->sys_use_delay > 0)
			r->engage_s = s->t_s;
		sum[r->engage_s >= 0] += isol;
		n[r->engage_s >= 0]++;
	}
	r->isol_before = n[0] ? sum[0] / (double)n[0] : 0;
	r->isol_after = n[1] ? sum[1] / (double)n[1] : 0;
	r->isol_60s = n60 ? sum60 / (double)n60 : 0;
}

/* Isolation figures over the samples of the leak's life. */
static void isolation(struct iolat_ml_result *r, double life_end_s, double step_s)
{
	double *v = calloc(r->nr_samples ? r->nr_samples : 1, sizeof(*v)), sum = 0, imp = 0;
	size_t n = 0, ni = 0;

	if (!v)
		return;
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_ml_sample *s = &r->samples[i];
		double isol = r->base_rps > 0 ? s->rps / r->base_rps : 0;

		if (isol > 1)
			isol = 1;
		if (s->t_s > 0 && isol < 0.5)
			r->thrash_s += step_s;
		if (s->t_s > 0)
			r->loss_s += (1 - isol) * step_s;
		if (s->t_s <= 0 || s->t_s > life_end_s)
			continue;
		v[n++] = isol;
		sum += isol;
		if (s->rps > 0 && r->base_p95_ms > 0) {
			double li = s->p95_ms / r->base_p95_ms - 1.0;

			imp += li > 0 ? li : 0;
			ni++;
		}
	}
	phases(r, life_end_s);
	if (n) {
		qsort(v, n, sizeof(*v), cmp_double);
		r->isol_mean = sum / (double)n;
		r->isol_min = v[0];
		r->isol_p10 = v[(size_t)((double)(n - 1) * 0.10)];
	}
	r->lat_imp_mean = ni ? imp / (double)ni : 0;
	free(v);
}

void ml_finish_result(struct ml *ml)
{
	struct iolat_ml_result *r = ml->res;
	const struct iolat_ml_config *c = &ml->c;
	double alloc, loss, life_end;
	uint64_t slept, stall;
	struct iolat_group_stat st;

	snprintf(r->device, sizeof(r->device), "%s", c->device);
	r->mode = c->mode;
	r->seed = c->seed;
	r->bg = c->bg;
	r->kernel_five_pct = c->kernel_five_pct;
	snprintf(r->web, sizeof(r->web), "%s", iolat_ml_web_preset_name(c));
	r->oomd = c->oomd;
	r->speed = c->speed;
	r->wbps = c->wbps;
	r->target_workload_ns = c->target_workload_ns;
	r->target_system_ns = c->target_system_ns;
	if (ml->kill_at)
		r->kill_s = ((double)ml->kill_at - (double)ml->hog_start) / 1e9;
	life_end = ml->kill_at ? r->kill_s : 1e18;
	isolation(r, life_end, (double)c->sample_ns / 1e9);
	r->outage_s = iolat_ml_outage_s(c, ml->rebooted, ml->web_killed);
	r->downtime_s = r->thrash_s + r->outage_s;
	r->loss_s += r->outage_s;
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_ml_sample *s = &r->samples[i];

		if (s->t_s > 0 && s->t_s <= life_end) {
			r->lost += s->lost;
			r->served += (uint64_t)(s->rps + 0.5);
		}
	}
	ml_hog_stats(ml, &alloc, &loss, &slept, &stall, &r->hog_max_sleep_ns);
	r->swap_writes = ml->mm.swap_writes;
	r->swap_by_web = ml->swap_by[0];
	r->swap_by_hog = ml->swap_by[1];
	r->swap_by_kswapd = ml->swap_by[2];
	r->hog_swap_at_depth1 = ml->hog_swap_at_depth1;
	r->swap_waited = ml->mm.swap_waited;
	r->swap_after_kill = ml->mm.swap_after_kill;
	r->io_at_kill = ml->io_at_kill;
	for (size_t i = 0; i < r->nr_samples; i++)
		if (r->samples[i].sys_use_delay > r->max_use_delay)
			r->max_use_delay = r->samples[i].sys_use_delay;
	r->hog_alloc_mib = alloc * IOLAT_MEM_UNIT_BYTES / MIB;
	r->hog_loss_mib = loss * IOLAT_MEM_UNIT_BYTES / MIB;
	r->hog_slept_s = (double)slept / 1e9;
	r->hog_stall_s = (double)stall / 1e9;
	r->hog_written_mib = (double)ml->mm.mem.groups[ml->mg_hog].swapped_out * IOLAT_MEM_UNIT_BYTES / MIB;
	if (!iolat_group_stat(ml->g_hog, &st))
		r->nr_bypass_hog = st.nr_bypass;
	if (!iolat_group_stat(ml->g_wl, &st))
		r->nr_bypass_wl = st.nr_bypass;
	r->swap_of_hog = ml->mm.mem.groups[ml->mg_hog].swapped_out;
	r->swap_of_wl = ml->mm.mem.groups[ml->mg_wl].swapped_out;
	r->swap_of_bg = ml->mg_bg >= 0 ? ml->mm.mem.groups[ml->mg_bg].swapped_out : 0;
	r->hog_swap_by_web = ml->hog_swap_by_web;
}

double iolat_ml_outage_s(const struct iolat_ml_config *c, bool rebooted, bool web_killed)
{
	if (rebooted)   /* the machine down, then the web rejoins: once */
		return (double)(c->reboot_ns + c->rejoin_ns) / 1e9;
	if (web_killed) /* the web's process restarted: it rejoins */
		return (double)c->rejoin_ns / 1e9;
	return 0;
}

void iolat_ml_result_free(struct iolat_ml_result *r)
{
	if (!r)
		return;
	free(r->samples);
	free(r);
}

int iolat_ml_write_csv(const struct iolat_ml_result *r, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "t_s,rps,p95_ms,lost,free_mib,web_mib,hog_mib,sys_mib,swap_mib,hog_swap_mib,"
		   "psi_wl_some10,psi_wl_full10,psi_sys_some10,psi_sys_full10,psi_sys_full60,"
		   "psi_hog_full10,psi_bg_full10,"
		   "sys_depth,sys_use_delay,hog_congested,delay_ms,slept_ms,read_ms\n");
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct iolat_ml_sample *s = &r->samples[i];

		fprintf(f, "%.0f,%.0f,%.2f,%llu,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.2f,%.2f,%.2f,%.2f,%.2f,"
			   "%.2f,%.2f,%d,%d,%d,%.1f,%.1f,%.3f\n",
			s->t_s, s->rps, s->p95_ms, (unsigned long long)s->lost, s->free_mib,
			s->web_mib, s->hog_mib, s->sys_mib, s->swap_mib, s->hog_swap_mib, s->psi_wl_some10,
			s->psi_wl_full10, s->psi_sys_some10, s->psi_sys_full10, s->psi_sys_full60,
			s->psi_hog_full10, s->psi_bg_full10, s->sys_depth == IOLAT_DEPTH_MAX ? -1 : (int)s->sys_depth, s->sys_use_delay,
			s->hog_congested, s->delay_ms, s->slept_ms, s->read_ms);
	}
	if (fclose(f))
		return -errno;
	return 0;
}

void iolat_ml_write_json(const struct iolat_ml_result *r, FILE *f)
{
	fprintf(f, "{\"device\":\"%s\",\"mode\":\"%s\",\"oomd\":\"%s\",\"web\":\"%s\",\"bg\":%s,"
		   "\"speed\":%g,\"seed\":%llu,"
		   "\"wbps\":%.0f,\"target_workload_ms\":%.3f,\"target_system_ms\":%.3f,"
		   "\"base_rps\":%.2f,\"base_p95_ms\":%.2f,\"isol_mean\":%.4f,\"isol_p10\":%.4f,"
		   "\"isol_min\":%.4f,\"lat_imp_mean\":%.4f,\"downtime_s\":%.0f,\"thrash_s\":%.0f,"
		   "\"outage_s\":%.0f,\"loss_s\":%.1f,\"engage_s\":%.0f,\"isol_before\":%.4f,"
		   "\"isol_after\":%.4f,\"isol_60s\":%.4f,\"kernel_five_pct\":%s,\"killed\":%s,"
		   "\"kill_s\":%.0f,\"killer\":\"%s\",\"victim\":\"%s\",\"lost\":%llu,\"served\":%llu,"
		   "\"hog_slept_s\":%.2f,\"hog_stall_s\":%.2f,\"hog_alloc_mib\":%.0f,"
		   "\"hog_written_mib\":%.0f,\"max_use_delay\":%d,\"swap_waited\":%llu,\"events\":%llu}\n",
		r->device, iolat_ml_mode_name(r->mode), iolat_ml_oomd_name(r->oomd), r->web,
		r->bg ? "true" : "false", r->speed,
		(unsigned long long)r->seed, r->wbps, (double)r->target_workload_ns / 1e6,
		(double)r->target_system_ns / 1e6, r->base_rps, r->base_p95_ms, r->isol_mean,
		r->isol_p10, r->isol_min, r->lat_imp_mean, r->downtime_s, r->thrash_s, r->outage_s,
		r->loss_s, r->engage_s, r->isol_before, r->isol_after, r->isol_60s,
		r->kernel_five_pct ? "true" : "false", r->killed ? "true" : "false",
		r->kill_s, r->killer, r->victim, (unsigned long long)r->lost,
		(unsigned long long)r->served, r->hog_slept_s, r->hog_stall_s, r->hog_alloc_mib,
		r->hog_written_mib, r->max_use_delay, (unsigned long long)r->swap_waited,
		(unsigned long long)r->events);
}
