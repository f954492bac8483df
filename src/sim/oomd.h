/* SPDX-License-Identifier: MIT */
/*
 * oomd.h - a model of oomd, the user-space OOM killer, polled once a second
 * over the simulated cgroups (mem.h) and their memory pressure (psi.h).
 *
 * A preset is a list of rules; a rule fires when all its detectors hold and
 * then kills one cgroup chosen by its action; after a kill the rule rests for
 * post_action_delay (15 s). Detectors, as oomd's plugins:
 * - rising_beyond(G, thr, dur): avg60 of G above thr continuously for at least
 *   dur, avg10 above thr, and avg10 not below 0.85 x its previous poll's value
 *   (not falling fast);
 * - above(G, thr, dur): avg10 of G above thr continuously for at least dur;
 * - above_children(G, thr, dur): the same over the children of G (oomd's
 *   multi-cgroup pressure_above, "cgroup=G/" and a star): at each poll the
 *   child with the highest 3 x avg10 + 2 x avg60 + avg300 is the one
 *   compared, under one timer;
 * - reclaim(G, dur): reclaim took memory from G within the last dur;
 * - swap_free(pct): free swap below pct % of the swap size.
 * Actions: kill_size_growth among the children of G (G itself when it has
 * none): the largest whose usage is at least 50 % of their total; else the
 * largest growing one (usage >= 1.25 x its 60 s average, in the top 20 %);
 * else the largest usage above its memory.low. kill_swap: the leaf group
 * holding the most swap. kill_pressure among the children of G (oomd's
 * kill_by_pressure): the highest (int)(avg10 / 2 + avg60 / 2).
 * Presets: "fb2018" (oomd's 2018 example: workload full > 5 and system > 40
 * for 15 s; system > 80 for 30 s; swap free < 15 %), "resctl" (resctl-demo:
 * per slice avg10 > 50 for 30 s with reclaim in 10 s; swap free < 10 %),
 * "desktop" (avg10 > 60 for 30 s with reclaim in 10 s; swap free < 15 %),
 * "percgroup" (fb2018's three rules plus R4, on each child of system:
 * above_children(system, 60, 30 s) -> kill_pressure among system's
 * children), "off". Groups are named as in the presets: "workload" and
 * "system". No rule names a group below them: R4 finds its victim from the
 * children's pressure alone.
 * Context: one simulation thread.
 */
#ifndef IOLAT_SIM_OOMD_H
#define IOLAT_SIM_OOMD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/mem.h"
#include "sim/psi.h"

enum iolat_oomd_preset {
	IOLAT_OOMD_OFF = 0,
	IOLAT_OOMD_FB2018,
	IOLAT_OOMD_RESCTL,
	IOLAT_OOMD_DESKTOP,
	IOLAT_OOMD_PERCGROUP,
};

#define IOLAT_OOMD_MAX_RULES 4
#define IOLAT_OOMD_MAX_DET   2
#define IOLAT_OOMD_POST_ACTION_NS 15000000000ull

enum iolat_oomd_det_kind {
	OOMD_DET_RISING, OOMD_DET_ABOVE, OOMD_DET_ABOVE_CHILDREN, OOMD_DET_RECLAIM,
	OOMD_DET_SWAP_FREE,
};
enum iolat_oomd_action { OOMD_KILL_SIZE_GROWTH, OOMD_KILL_SWAP, OOMD_KILL_PRESSURE };

struct iolat_oomd_det {
	enum iolat_oomd_det_kind kind;
	int group;              /* mem group index (its children for ABOVE_CHILDREN);
				 * -1 for swap_free */
	double threshold;       /* % */
	uint64_t duration_ns;
	/* state */
	uint64_t hit_at;        /* 0: not above */
	double last_avg10;
	uint64_t last_scanned, scanned_at;
	int watched;            /* ABOVE_CHILDREN: the child compared at the last poll */
};

struct iolat_oomd_rule {
	const char *name;
	struct iolat_oomd_det det[IOLAT_OOMD_MAX_DET];
	int nr_det;
	enum iolat_oomd_action action;
	int kill_in;            /* group whose children are candidates (size/growth, pressure) */
	uint64_t rest_until;
};

struct iolat_oomd {
	enum iolat_oomd_preset preset;
	bool use_full;          /* read the "full" line (oomd's default) */
	const struct iolat_mem *mem;
	const struct iolat_psi *psi;   /* one per mem group */
	struct iolat_oomd_rule rules[IOLAT_OOMD_MAX_RULES];
	int nr_rules;
	double avg_usage[IOLAT_MEM_MAX_GROUPS];  /* for the growth phase */
	uint64_t polls;
	const char *fired;       /* name of the rule behind the last kill */
};

/** iolat_oomd_preset_parse() - "off", "fb2018", "resctl", "desktop". Return: 0 or -EINVAL. */
int iolat_oomd_preset_parse(const char *s, enum iolat_oomd_preset *out);
const char *iolat_oomd_preset_name(enum iolat_oomd_preset p);

/** iolat_oomd_init() - rules of @preset over @mem's groups (found by name). */
void iolat_oomd_init(struct iolat_oomd *o, enum iolat_oomd_preset preset, bool use_full,
		     const struct iolat_mem *mem, const struct iolat_psi *psi, uint64_t now_ns);

/**
 * iolat_oomd_poll() - one poll at @now_ns. Return: the mem group to kill, or
 * -1; o->fired then names the rule that fired.
 */
int iolat_oomd_poll(struct iolat_oomd *o, uint64_t now_ns);

/** iolat_oomd_pick_size_growth() - the kill_size_growth choice among @parent's children. */
int iolat_oomd_pick_size_growth(const struct iolat_oomd *o, int parent);

/** iolat_oomd_pick_pressure() - the kill_pressure choice among @parent's live children, or -1. */
int iolat_oomd_pick_pressure(const struct iolat_oomd *o, int parent);

#endif /* IOLAT_SIM_OOMD_H */
