/* SPDX-License-Identifier: MIT */
/*
 * oomd.c - the oomd model (see oomd.h): presets, detectors, kill ranking.
 * The plugins' semantics follow facebookincubator/oomd (docs/core_plugins.md,
 * plugins/PressureAbove.cpp, PressureRisingBeyond.cpp, KillPressure-inl.h,
 * KillMemoryGrowth-inl.h; docs/memleak-model.md cites them).
 * Context: one simulation thread.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "sim/oomd.h"

#define NS_PER_S 1000000000ull
#define FAST_FALL_RATIO 0.85
#define SIZE_THRESHOLD_PCT 50.0
#define MIN_GROWTH_RATIO 1.25
#define GROWING_PERCENTILE 80.0
#define AVG_USAGE_WINDOW_S 60.0

static const char *const preset_names[] = { "off", "fb2018", "resctl", "desktop", "percgroup" };

int iolat_oomd_preset_parse(const char *s, enum iolat_oomd_preset *out)
{
	for (unsigned i = 0; i < sizeof(preset_names) / sizeof(preset_names[0]); i++)
		if (strcmp(s, preset_names[i]) == 0) {
			*out = (enum iolat_oomd_preset)i;
			return 0;
		}
	return -EINVAL;
}

const char *iolat_oomd_preset_name(enum iolat_oomd_preset p)
{
	return (unsigned)p < sizeof(preset_names) / sizeof(preset_names[0]) ? preset_names[p] : "?";
}

static int find_group(const struct iolat_mem *m, const char *name)
{
	for (int i = 0; i < m->nr_groups; i++)
		if (strcmp(m->groups[i].name, name) == 0)
			return i;
	return -1;
}

static struct iolat_oomd_rule *add_rule(struct iolat_oomd *o, const char *name,
					enum iolat_oomd_action act, int kill_in)
{
	struct iolat_oomd_rule *r = &o->rules[o->nr_rules++];

	memset(r, 0, sizeof(*r));
	r->name = name;
	r->action = act;
	r->kill_in = kill_in;
	return r;
}

static void add_det(struct iolat_oomd_rule *r, enum iolat_oomd_det_kind k, int group,
		    double thr, uint64_t dur_s)
{
	struct iolat_oomd_det *d = &r->det[r->nr_det++];

	memset(d, 0, sizeof(*d));
	d->kind = k;
	d->group = group;
	d->threshold = thr;
	d->duration_ns = dur_s * NS_PER_S;
	d->last_avg10 = 100.0;   /* oomd starts from "100" */
	d->watched = -1;
}

/* resctl/desktop: one rule per slice, then the swap rule. */
static void per_slice(struct iolat_oomd *o, int wl, int sys, double thr, double swap_pct)
{
	static const char *const names[2][2] = {
		{ "resctl:workload pressure", "resctl:system pressure" },
		{ "desktop:workload pressure", "desktop:system pressure" } };
	int slices[2] = { wl, sys }, k = o->preset == IOLAT_OOMD_DESKTOP;
	struct iolat_oomd_rule *r;

	for (int i = 0; i < 2; i++) {
		if (slices[i] < 0)
			continue;
		r = add_rule(o, names[k][i], OOMD_KILL_SIZE_GROWTH, slices[i]);
		add_det(r, OOMD_DET_ABOVE, slices[i], thr, 30);
		add_det(r, OOMD_DET_RECLAIM, slices[i], 0, 10);
	}
	r = add_rule(o, k ? "desktop:swap free" : "resctl:swap free", OOMD_KILL_SWAP, -1);
	add_det(r, OOMD_DET_SWAP_FREE, -1, swap_pct, 0);
}

void iolat_oomd_init(struct iolat_oomd *o, enum iolat_oomd_preset preset, bool use_full,
		     const struct iolat_mem *mem, const struct iolat_psi *psi, uint64_t now_ns)
{
	int wl = find_group(mem, "workload"), sys = find_group(mem, "system");
	struct iolat_oomd_rule *r;

	memset(o, 0, sizeof(*o));
	o->preset = preset;
	o->use_full = use_full;
	o->mem = mem;
	o->psi = psi;
	switch (preset) {
	case IOLAT_OOMD_FB2018:
	case IOLAT_OOMD_PERCGROUP:
		if (wl >= 0 && sys >= 0) {
			r = add_rule(o, "fb2018:R1 workload>5 & system>40", OOMD_KILL_SIZE_GROWTH, sys);
			add_det(r, OOMD_DET_RISING, wl, 5, 15);
			add_det(r, OOMD_DET_RISING, sys, 40, 15);
		}
		if (sys >= 0) {
			r = add_rule(o, "fb2018:R2 system>80", OOMD_KILL_SIZE_GROWTH, sys);
			add_det(r, OOMD_DET_RISING, sys, 80, 30);
		}
		r = add_rule(o, "fb2018:R3 swap free<15%", OOMD_KILL_SWAP, -1);
		add_det(r, OOMD_DET_SWAP_FREE, -1, 15, 0);
		if (preset == IOLAT_OOMD_PERCGROUP && sys >= 0) {
			/* A ruleset after the 2018 ones: each child of system on its own
			 * (desktop.json's 60 % for 30 s), the one under most pressure killed. */
			r = add_rule(o, "percgroup:R4 system/* pressure>60", OOMD_KILL_PRESSURE, sys);
			add_det(r, OOMD_DET_ABOVE_CHILDREN, sys, 60, 30);
		}
		break;
	case IOLAT_OOMD_RESCTL:
		per_slice(o, wl, sys, 50, 10);
		break;
	case IOLAT_OOMD_DESKTOP:
		per_slice(o, wl, sys, 60, 15);
		break;
	case IOLAT_OOMD_OFF:
		break;
	}
	for (int i = 0; i < mem->nr_groups; i++)
		o->avg_usage[i] = (double)mem->groups[i].usage;
	(void)now_ns;
}

/* The pressure line oomd reads for @g ("full" by default, O4). */
static const double *avgs(const struct iolat_oomd *o, int g)
{
	return o->use_full ? o->psi[g].full : o->psi[g].some;
}

/* The live child of @parent with the highest @score (the first on a tie), or -1. */
static int top_live_child(const struct iolat_oomd *o, int parent,
			  double (*score)(const struct iolat_oomd *o, int g))
{
	const struct iolat_mem *m = o->mem;
	double best_score = 0;
	int best = -1;

	for (int i = 0; i < m->nr_groups; i++) {
		double sc;

		if (m->groups[i].parent != parent || !m->groups[i].alive)
			continue;
		sc = score(o, i);
		if (best < 0 || sc > best_score) {
			best = i;
			best_score = sc;
		}
	}
	return best;
}

/* What pressure_above compares: 3 x avg10 + 2 x avg60 + avg300. */
static double weighted_pressure(const struct iolat_oomd *o, int g)
{
	const double *a = avgs(o, g);

	return 3 * a[IOLAT_PSI_AVG10] + 2 * a[IOLAT_PSI_AVG60] + a[IOLAT_PSI_AVG300];
}

/* ABOVE_CHILDREN: the live child of @parent that pressure_above compares, or -1. */
static int most_pressured_child(const struct iolat_oomd *o, int parent)
{
	return top_live_child(o, parent, weighted_pressure);
}

/* avg10 of @avg above the threshold for the detector's duration (one timer). */
static bool above_for(struct iolat_oomd_det *d, const double *avg, uint64_t now)
{
	if (!avg || avg[IOLAT_PSI_AVG10] <= d->threshold) {
		d->hit_at = 0;
		return false;
	}
	if (!d->hit_at)
		d->hit_at = now;
	return now - d->hit_at >= d->duration_ns;
}

/* Run one detector; its state moves whatever the other detectors say. */
static bool det_run(struct iolat_oomd *o, struct iolat_oomd_det *d, uint64_t now)
{
	const struct iolat_mem *m = o->mem;
	const double *avg;
	bool ok = false;

	if (d->kind == OOMD_DET_SWAP_FREE)
		return m->nr_slots && 100.0 * (double)iolat_mem_swap_free(m) / m->nr_slots < d->threshold;
	if (d->kind == OOMD_DET_RECLAIM) {
		uint64_t sc = m->groups[d->group].scanned;

		if (sc != d->last_scanned) {
			d->last_scanned = sc;
			d->scanned_at = now;
		}
		return d->scanned_at && now - d->scanned_at <= d->duration_ns;
	}
	if (d->kind == OOMD_DET_ABOVE_CHILDREN) {
		d->watched = most_pressured_child(o, d->group);
		return above_for(d, d->watched >= 0 ? avgs(o, d->watched) : NULL, now);
	}
	avg = avgs(o, d->group);
	if (d->kind == OOMD_DET_ABOVE)
		return above_for(d, avg, now);
	/* rising_beyond */
	if (avg[IOLAT_PSI_AVG60] > d->threshold) {
		if (!d->hit_at)
			d->hit_at = now;
		ok = now - d->hit_at >= d->duration_ns;
	} else {
		d->hit_at = 0;
	}
	ok = ok && avg[IOLAT_PSI_AVG10] > d->threshold &&
	     !(avg[IOLAT_PSI_AVG10] < d->last_avg10 * FAST_FALL_RATIO);
	d->last_avg10 = avg[IOLAT_PSI_AVG10];
	return ok;
}

static int pick_swap(const struct iolat_oomd *o)
{
	const struct iolat_mem *m = o->mem;
	int best = -1;

	for (int i = 0; i < m->nr_groups; i++) {
		const struct iolat_mem_group *g = &m->groups[i];

		if (g->alive && g->leaf && g->swap && (best < 0 || g->swap > m->groups[best].swap))
			best = i;
	}
	return best;
}

static bool candidate(const struct iolat_mem *m, int i, int parent)
{
	const struct iolat_mem_group *g = &m->groups[i];

	if (!g->alive || !g->usage)
		return false;
	return g->parent == parent || (i == parent && g->leaf);
}

int iolat_oomd_pick_size_growth(const struct iolat_oomd *o, int parent)
{
	const struct iolat_mem *m = o->mem;
	uint64_t total = 0;
	int best = -1, nr = 0, nr_above = 0;
	double growth[IOLAT_MEM_MAX_GROUPS];

	for (int i = 0; i < m->nr_groups; i++)
		if (candidate(m, i, parent)) {
			total += m->groups[i].usage;
			nr++;
		}
	if (!nr)
		return -1;
	/* SIZE: the largest at or above size_threshold % of the total. */
	for (int i = 0; i < m->nr_groups; i++)
		if (candidate(m, i, parent) &&
		    100.0 * (double)m->groups[i].usage >= SIZE_THRESHOLD_PCT * (double)total &&
		    (best < 0 || m->groups[i].usage > m->groups[best].usage))
			best = i;
	if (best >= 0)
		return best;
	/* GROWTH: growing by at least the ratio and in the top percentile. */
	for (int i = 0; i < m->nr_groups; i++) {
		growth[i] = o->avg_usage[i] > 0 ? (double)m->groups[i].usage / o->avg_usage[i] : 0;
		if (candidate(m, i, parent) && growth[i] >= MIN_GROWTH_RATIO)
			nr_above++;
	}
	for (int i = 0; i < m->nr_groups; i++) {
		int rank = 0;

		if (!candidate(m, i, parent) || growth[i] < MIN_GROWTH_RATIO)
			continue;
		for (int j = 0; j < m->nr_groups; j++)
			if (candidate(m, j, parent) && growth[j] > growth[i])
				rank++;
		if (100.0 * rank < (100.0 - GROWING_PERCENTILE) * nr &&
		    (best < 0 || m->groups[i].usage > m->groups[best].usage))
			best = i;
	}
	if (best >= 0 && nr_above)
		return best;
	/* Fallback: the largest usage above memory.low. */
	for (int i = 0; i < m->nr_groups; i++) {
		const struct iolat_mem_group *g = &m->groups[i];
		uint64_t eff = g->usage > g->low ? g->usage - g->low : 0;

		if (!candidate(m, i, parent))
			continue;
		if (best < 0 || eff > (m->groups[best].usage > m->groups[best].low ?
				      m->groups[best].usage - m->groups[best].low : 0))
			best = i;
	}
	return best;
}

/* kill_by_pressure's rank: the mean of avg10 and avg60, truncated (oomd ranks by an int). */
static double truncated_pressure(const struct iolat_oomd *o, int g)
{
	const double *a = avgs(o, g);

	return (double)(int)(a[IOLAT_PSI_AVG10] / 2 + a[IOLAT_PSI_AVG60] / 2);
}

int iolat_oomd_pick_pressure(const struct iolat_oomd *o, int parent)
{
	return top_live_child(o, parent, truncated_pressure);
}

static int pick(const struct iolat_oomd *o, const struct iolat_oomd_rule *r)
{
	switch (r->action) {
	case OOMD_KILL_SWAP:
		return pick_swap(o);
	case OOMD_KILL_PRESSURE:
		return iolat_oomd_pick_pressure(o, r->kill_in);
	case OOMD_KILL_SIZE_GROWTH:
		break;
	}
	return iolat_oomd_pick_size_growth(o, r->kill_in);
}

int iolat_oomd_poll(struct iolat_oomd *o, uint64_t now_ns)
{
	const struct iolat_mem *m = o->mem;
	double e = exp(-1.0 / AVG_USAGE_WINDOW_S);
	int victim = -1;

	o->polls++;
	for (int i = 0; i < o->nr_rules && victim < 0; i++) {
		struct iolat_oomd_rule *r = &o->rules[i];
		bool all = true;

		for (int k = 0; k < r->nr_det; k++)
			all = det_run(o, &r->det[k], now_ns) && all;
		if (!all || now_ns < r->rest_until)
			continue;
		victim = pick(o, r);
		if (victim >= 0) {
			r->rest_until = now_ns + IOLAT_OOMD_POST_ACTION_NS;
			o->fired = r->name;
		}
	}
	for (int i = 0; i < m->nr_groups; i++)
		o->avg_usage[i] = o->avg_usage[i] * e + (double)m->groups[i].usage * (1.0 - e);
	return victim;
}
