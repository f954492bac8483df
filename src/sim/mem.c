/* SPDX-License-Identifier: MIT */
/*
 * mem.c - frames, units, swap slots and LRU lists of the simulated machine
 * (see mem.h). Usage, swap and counters are kept per group for its subtree.
 * Context: one simulation thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

int iolat_mem_init(struct iolat_mem *m, uint64_t frames, uint32_t slots, uint32_t cap_units,
		   uint64_t wmin, uint64_t wlow, uint64_t whigh)
{
	memset(m, 0, sizeof(*m));
	m->units = calloc(cap_units ? cap_units : 1, sizeof(*m->units));
	m->slot_used = calloc(slots ? slots : 1, 1);
	if (!m->units || !m->slot_used) {
		iolat_mem_destroy(m);
		return -ENOMEM;
	}
	m->cap_units = cap_units;
	m->frames = m->free = frames;
	m->nr_slots = slots;
	m->wmark_min = wmin;
	m->wmark_low = wlow;
	m->wmark_high = whigh;
	return 0;
}

void iolat_mem_destroy(struct iolat_mem *m)
{
	free(m->units);
	free(m->slot_used);
	m->units = NULL;
	m->slot_used = NULL;
}

int iolat_mem_add_group(struct iolat_mem *m, const char *name, int parent, uint64_t low_units)
{
	struct iolat_mem_group *g;

	if (m->nr_groups >= IOLAT_MEM_MAX_GROUPS || parent >= m->nr_groups)
		return -ENOSPC;
	g = &m->groups[m->nr_groups];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->parent = parent;
	g->alive = true;
	g->leaf = true;
	g->low = low_units;
	for (int t = 0; t < 2; t++)
		g->lru[t].head = g->lru[t].tail = IOLAT_MEM_NONE;
	if (parent >= 0)
		m->groups[parent].leaf = false;
	return m->nr_groups++;
}

bool iolat_mem_is_ancestor(const struct iolat_mem *m, int anc, int g)
{
	for (; g >= 0; g = m->groups[g].parent)
		if (g == anc)
			return true;
	return false;
}

/* Add @d to a counter of @g and each ancestor. */
#define FOR_UP(m, g, field, d) \
	for (int g_ = (g); g_ >= 0; g_ = (m)->groups[g_].parent) \
		(m)->groups[g_].field += (d)

uint32_t iolat_mem_new_unit(struct iolat_mem *m, int group, bool file)
{
	struct iolat_mem_unit *u;

	if (m->nr_units >= m->cap_units)
		return IOLAT_MEM_NONE;
	u = &m->units[m->nr_units];
	u->group = (uint32_t)group;
	u->flags = file ? IOLAT_MU_FILE : 0;
	u->slot = IOLAT_MEM_NONE;
	u->prev = u->next = IOLAT_MEM_NONE;
	return m->nr_units++;
}

bool iolat_mem_take_frame(struct iolat_mem *m)
{
	if (!m->free)
		return false;
	m->free--;
	return true;
}

static struct iolat_mem_lru *lru_of(struct iolat_mem *m, uint32_t u)
{
	struct iolat_mem_unit *un = &m->units[u];

	return &m->groups[un->group].lru[(un->flags & IOLAT_MU_FILE) ? IOLAT_MEM_FILE : IOLAT_MEM_ANON];
}

void iolat_mem_lru_add_tail(struct iolat_mem *m, uint32_t u)
{
	struct iolat_mem_lru *l = lru_of(m, u);
	struct iolat_mem_unit *un = &m->units[u];

	un->next = IOLAT_MEM_NONE;
	un->prev = l->tail;
	if (l->tail != IOLAT_MEM_NONE)
		m->units[l->tail].next = u;
	else
		l->head = u;
	l->tail = u;
	l->nr++;
}

void iolat_mem_lru_del(struct iolat_mem *m, uint32_t u)
{
	struct iolat_mem_lru *l = lru_of(m, u);
	struct iolat_mem_unit *un = &m->units[u];

	if (un->prev != IOLAT_MEM_NONE)
		m->units[un->prev].next = un->next;
	else
		l->head = un->next;
	if (un->next != IOLAT_MEM_NONE)
		m->units[un->next].prev = un->prev;
	else
		l->tail = un->prev;
	un->prev = un->next = IOLAT_MEM_NONE;
	l->nr--;
}

static void free_slot(struct iolat_mem *m, struct iolat_mem_unit *un)
{
	if (un->slot == IOLAT_MEM_NONE)
		return;
	m->slot_used[un->slot] = 0;
	m->slots_used--;
	FOR_UP(m, (int)un->group, swap, (uint64_t)-1);
	un->slot = IOLAT_MEM_NONE;
}

void iolat_mem_begin_read(struct iolat_mem *m, uint32_t u)
{
	struct iolat_mem_unit *un = &m->units[u];

	un->flags |= IOLAT_MU_READING;
	FOR_UP(m, (int)un->group, usage, 1);
}

void iolat_mem_map(struct iolat_mem *m, uint32_t u)
{
	struct iolat_mem_unit *un = &m->units[u];

	if (!(un->flags & IOLAT_MU_READING))
		FOR_UP(m, (int)un->group, usage, 1);
	un->flags &= ~IOLAT_MU_READING;
	free_slot(m, un);
	if (un->flags & IOLAT_MU_DEAD) {
		/* Killed while it was being read in: the frame goes back. */
		FOR_UP(m, (int)un->group, usage, (uint64_t)-1);
		m->free++;
		return;
	}
	un->flags |= IOLAT_MU_RESIDENT | IOLAT_MU_REF | IOLAT_MU_EVER;
	iolat_mem_lru_add_tail(m, u);
}

static void unmap(struct iolat_mem *m, struct iolat_mem_unit *un)
{
	un->flags &= ~(IOLAT_MU_RESIDENT | IOLAT_MU_REF | IOLAT_MU_WRITEBACK);
	FOR_UP(m, (int)un->group, usage, (uint64_t)-1);
	m->free++;
}

void iolat_mem_drop_file(struct iolat_mem *m, uint32_t u)
{
	unmap(m, &m->units[u]);
}

uint32_t iolat_mem_begin_swapout(struct iolat_mem *m, uint32_t u)
{
	struct iolat_mem_unit *un = &m->units[u];

	if (m->slots_used >= m->nr_slots)
		return IOLAT_MEM_NONE;
	/* Slots are handed out by a cursor, so consecutive swap-outs are
	 * contiguous on the disk (the kernel's swap clusters). */
	while (m->slot_used[m->slot_cursor])
		m->slot_cursor = (m->slot_cursor + 1) % m->nr_slots;
	un->slot = m->slot_cursor;
	m->slot_used[un->slot] = 1;
	m->slots_used++;
	m->slot_cursor = (m->slot_cursor + 1) % m->nr_slots;
	FOR_UP(m, (int)un->group, swap, 1);
	FOR_UP(m, (int)un->group, swapped_out, 1);
	un->flags |= IOLAT_MU_WRITEBACK;
	m->writeback++;
	return un->slot;
}

void iolat_mem_end_swapout(struct iolat_mem *m, uint32_t u)
{
	struct iolat_mem_unit *un = &m->units[u];

	m->writeback--;
	unmap(m, un);
	if (un->flags & IOLAT_MU_DEAD)
		free_slot(m, un);
}

uint64_t iolat_mem_kill_group(struct iolat_mem *m, int group)
{
	uint64_t freed = 0;

	for (int g = 0; g < m->nr_groups; g++)
		if (iolat_mem_is_ancestor(m, group, g))
			m->groups[g].alive = false;
	for (uint32_t u = 0; u < m->nr_units; u++) {
		struct iolat_mem_unit *un = &m->units[u];

		if (!iolat_mem_is_ancestor(m, group, (int)un->group) || (un->flags & IOLAT_MU_DEAD))
			continue;
		un->flags |= IOLAT_MU_DEAD;
		if (un->flags & (IOLAT_MU_WRITEBACK | IOLAT_MU_READING))
			continue;  /* released when the I/O completes */
		if (un->flags & IOLAT_MU_RESIDENT) {
			iolat_mem_lru_del(m, u);
			unmap(m, un);
			freed++;
		}
		free_slot(m, un);
	}
	return freed;
}
