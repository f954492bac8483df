/* SPDX-License-Identifier: MIT */
/*
 * mem.h - the simulated machine's memory: frames, units of memory owned by
 * cgroups, per-group usage with memory.low, swap slots, and the LRU lists
 * that reclaim (reclaim.c) scans. Pure bookkeeping: no events and no I/O;
 * the kernel side (mm.c) issues the swap and refault I/O and
 * calls back here when it completes.
 *
 * One unit is 128 KiB (32 pages, the kernel's SWAP_CLUSTER_MAX batch). A unit
 * belongs to one group for life, is anonymous or file-backed, and is either
 * resident (holds a frame), in swap (holds a slot; anon only), or neither
 * (a file unit that was dropped, or an anon unit never touched yet).
 * Resident units that are not under I/O sit on their group's LRU list of
 * their type, oldest first; a CLOCK hand takes them from the head (reclaim.c).
 * Context: one simulation thread; nothing here locks.
 */
#ifndef IOLAT_SIM_MEM_H
#define IOLAT_SIM_MEM_H

#include <stdbool.h>
#include <stdint.h>

#define IOLAT_MEM_UNIT_BYTES (128u * 1024u)
#define IOLAT_MEM_NONE UINT32_MAX
#define IOLAT_MEM_MAX_GROUPS 16

enum { IOLAT_MEM_ANON = 0, IOLAT_MEM_FILE = 1 };

/* Unit flags. */
#define IOLAT_MU_RESIDENT  (1u << 0)  /* holds a frame */
#define IOLAT_MU_REF       (1u << 1)  /* referenced since the hand last passed */
#define IOLAT_MU_FILE      (1u << 2)  /* file-backed (else anonymous) */
#define IOLAT_MU_WRITEBACK (1u << 3)  /* being written to swap: frame freed at completion */
#define IOLAT_MU_READING   (1u << 4)  /* being read in: frame held, not yet usable */
#define IOLAT_MU_EVER      (1u << 5)  /* was resident once (a miss now is a refault) */
#define IOLAT_MU_DEAD      (1u << 6)  /* its group was killed */

struct iolat_mem_unit {
	uint32_t group;
	uint32_t flags;
	uint32_t slot;          /* swap slot, or IOLAT_MEM_NONE */
	uint32_t prev, next;    /* LRU links (IOLAT_MEM_NONE at the ends) */
};

struct iolat_mem_lru {
	uint32_t head, tail, nr;
};

struct iolat_mem_group {
	char name[64];
	int parent;             /* index, -1 at top level */
	bool alive;
	bool leaf;              /* owns units (no child group) */
	uint64_t low;           /* memory.low, units */
	uint64_t usage;         /* resident units (memory.current), subtree */
	uint64_t swap;          /* swap slots held, subtree */
	uint64_t scanned;       /* units reclaim took from it (pgscan), subtree */
	uint64_t swapped_out;   /* swap writes of its units, subtree */
	struct iolat_mem_lru lru[2];
};

struct iolat_mem {
	struct iolat_mem_unit *units;
	uint32_t nr_units, cap_units;
	struct iolat_mem_group groups[IOLAT_MEM_MAX_GROUPS];
	int nr_groups;
	uint64_t frames;        /* usable frames (memory minus the reserve) */
	uint64_t free;          /* frames free now */
	uint64_t wmark_min, wmark_low, wmark_high;
	uint8_t *slot_used;     /* one byte per swap slot */
	uint32_t nr_slots, slots_used, slot_cursor;
	uint32_t writeback;     /* swap writes in flight */
};

/**
 * iolat_mem_init() - @frames frames, @slots swap slots, room for @cap_units
 * units; watermarks in frames. Return: 0 or -ENOMEM.
 */
int iolat_mem_init(struct iolat_mem *m, uint64_t frames, uint32_t slots, uint32_t cap_units,
		   uint64_t wmin, uint64_t wlow, uint64_t whigh);
void iolat_mem_destroy(struct iolat_mem *m);

/** iolat_mem_add_group() - a group under @parent (-1: top level). Return: index or -ENOSPC. */
int iolat_mem_add_group(struct iolat_mem *m, const char *name, int parent, uint64_t low_units);

/** iolat_mem_new_unit() - a unit of @group, not resident. Return: its id or IOLAT_MEM_NONE. */
uint32_t iolat_mem_new_unit(struct iolat_mem *m, int group, bool file);

/** iolat_mem_take_frame() - take a free frame (false when none). */
bool iolat_mem_take_frame(struct iolat_mem *m);

/**
 * iolat_mem_map() - unit @u gets the frame the caller took: resident,
 * referenced, at the tail of its LRU. A swapped unit gives its slot back
 * (the caller has read it in).
 */
void iolat_mem_map(struct iolat_mem *m, uint32_t u);

/** iolat_mem_begin_read() - @u is being read into a frame the caller took. */
void iolat_mem_begin_read(struct iolat_mem *m, uint32_t u);

/** iolat_mem_touch() - an access to resident @u sets its referenced bit. */
static inline void iolat_mem_touch(struct iolat_mem *m, uint32_t u)
{
	m->units[u].flags |= IOLAT_MU_REF;
}

/** iolat_mem_lru_del() / _add_tail() - LRU list maintenance (reclaim.c). */
void iolat_mem_lru_del(struct iolat_mem *m, uint32_t u);
void iolat_mem_lru_add_tail(struct iolat_mem *m, uint32_t u);

/** iolat_mem_drop_file() - reclaim clean file unit @u (off the LRU): frame freed now. */
void iolat_mem_drop_file(struct iolat_mem *m, uint32_t u);

/**
 * iolat_mem_begin_swapout() - anon unit @u (off the LRU) gets a swap slot and
 * goes under writeback. Return: the slot, or IOLAT_MEM_NONE when swap is full.
 */
uint32_t iolat_mem_begin_swapout(struct iolat_mem *m, uint32_t u);

/** iolat_mem_end_swapout() - @u's swap write completed: its frame is free. */
void iolat_mem_end_swapout(struct iolat_mem *m, uint32_t u);

/**
 * iolat_mem_kill_group() - the group (and its subtree) is killed: every
 * resident unit not under I/O loses its frame and every swapped unit its
 * slot, at once and with no I/O. Units under I/O are marked dead and
 * released when their I/O completes (end_swapout, map). Return: frames freed.
 */
uint64_t iolat_mem_kill_group(struct iolat_mem *m, int group);

/** iolat_mem_is_ancestor() - @anc is @g or one of its ancestors. */
bool iolat_mem_is_ancestor(const struct iolat_mem *m, int anc, int g);

static inline uint64_t iolat_mem_swap_free(const struct iolat_mem *m)
{
	return m->nr_slots - m->slots_used;
}

#endif /* IOLAT_SIM_MEM_H */
