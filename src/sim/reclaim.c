/* SPDX-License-Identifier: MIT */
/*
 * reclaim.c - victim selection for reclaim (see reclaim.h).
 * Context: one simulation thread.
 */
#include "sim/reclaim.h"

static uint64_t reclaimable(const struct iolat_mem *m, const struct iolat_mem_group *g)
{
	uint64_t n = g->lru[IOLAT_MEM_FILE].nr;

	if (iolat_mem_swap_free(m))
		n += g->lru[IOLAT_MEM_ANON].nr;
	return n;
}

int iolat_reclaim_pick_group(const struct iolat_mem *m, const struct iolat_reclaim_cfg *c,
			     struct iolat_rng *rng)
{
	uint64_t w[IOLAT_MEM_MAX_GROUPS] = { 0 }, total = 0, pick;
	bool any = false;

	for (int pass = 0; pass < 2 && !total; pass++) {
		for (int i = 0; i < m->nr_groups; i++) {
			const struct iolat_mem_group *g = &m->groups[i];

			w[i] = 0;
			if (!g->alive || !g->leaf || !reclaimable(m, g))
				continue;
			any = true;
			if (pass == 0 && c->honour_low)
				w[i] = g->usage > g->low ? g->usage - g->low : 0;
			else
				w[i] = g->usage;
			total += w[i];
		}
		if (!any)
			return -1;
	}
	if (!total)
		return -1;
	pick = iolat_rng_below(rng, total);
	for (int i = 0; i < m->nr_groups; i++) {
		if (pick < w[i])
			return i;
		pick -= w[i];
	}
	return -1;
}

static int pick_list(const struct iolat_mem *m, const struct iolat_mem_group *g,
		     const struct iolat_reclaim_cfg *c, struct iolat_rng *rng)
{
	uint64_t wa = iolat_mem_swap_free(m) ? (uint64_t)g->lru[IOLAT_MEM_ANON].nr * c->swappiness : 0;
	uint64_t wf = (uint64_t)g->lru[IOLAT_MEM_FILE].nr * (200 - c->swappiness);

	if (!wa && !wf) {
		/* swappiness 0 or 200 with only the other list left */
		if (g->lru[IOLAT_MEM_FILE].nr)
			return IOLAT_MEM_FILE;
		return iolat_mem_swap_free(m) && g->lru[IOLAT_MEM_ANON].nr ? IOLAT_MEM_ANON : -1;
	}
	return iolat_rng_below(rng, wa + wf) < wa ? IOLAT_MEM_ANON : IOLAT_MEM_FILE;
}

/* The CLOCK hand over one list: every unit is looked at at most twice. */
static uint32_t clock_take(struct iolat_mem *m, struct iolat_mem_lru *l)
{
	for (uint64_t left = 2ull * l->nr + 1; left && l->head != IOLAT_MEM_NONE; left--) {
		uint32_t u = l->head;

		iolat_mem_lru_del(m, u);
		if (m->units[u].flags & IOLAT_MU_REF) {
			m->units[u].flags &= ~IOLAT_MU_REF;
			iolat_mem_lru_add_tail(m, u);
			continue;
		}
		return u;
	}
	return IOLAT_MEM_NONE;
}

uint32_t iolat_reclaim_pick(struct iolat_mem *m, const struct iolat_reclaim_cfg *c,
			    struct iolat_rng *rng)
{
	int gi = iolat_reclaim_pick_group(m, c, rng), t;
	uint32_t u;

	if (gi < 0)
		return IOLAT_MEM_NONE;
	t = pick_list(m, &m->groups[gi], c, rng);
	if (t < 0)
		return IOLAT_MEM_NONE;
	u = clock_take(m, &m->groups[gi].lru[t]);
	if (u != IOLAT_MEM_NONE)
		for (int g = gi; g >= 0; g = m->groups[g].parent)
			m->groups[g].scanned++;
	return u;
}
