/* SPDX-License-Identifier: MIT */
/*
 * t_stress.h - test helpers for concurrency tests of the controller core:
 * a debug invariant checker that walks every group through src/core/ctl.h,
 * per-I/O accounting of the slots an I/O holds (to compare with the
 * counters), a diagnostic dump, and small utilities (env knobs, clock, PRNG).
 *
 * Context: t_check_invariants*() may run on any thread concurrently with I/O,
 * ticks and target changes (it takes the core's own locks: tree_lock, then
 * each group's child_lock and wq_lock, one at a time); the T_INV_IDLE and
 * t_check_holdings() checks need a quiescent controller (no core call in
 * progress). Linked into every test program: all names start with t_.
 */
#ifndef T_STRESS_H
#define T_STRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iolatency.h"

/* t_check_invariants_ex() flags. */
#define T_INV_IDLE     (1u << 0) /* no I/O anywhere: inflight 0, nwait 0, queues empty */
#define T_INV_FIXED_QD (1u << 1) /* nr_requests never changed: depth <= qd, cookie >= default - 2qd */
#define T_INV_QUIET    (1u << 2) /* report violations by return value only, print nothing */

/*
 * t_check_invariants() - check what must hold at any moment, even while I/O
 * runs: counters not wrapped ("negative"), nwait equal to the wait queue's
 * length (under its lock) and every queued waiter waiting at that level for
 * an I/O of that group's subtree, the root never holding or waiting, depth
 * >= 1, cookies <= default, use_delay >= 0, the tree (parents, nr_children)
 * and enable_cnt consistent with the targets, scale_grp a child.
 * Return: the number of violations (each printed to stderr); 0 when sound.
 */
int t_check_invariants(struct iolat_ctl *ctl);
int t_check_invariants_ex(struct iolat_ctl *ctl, unsigned flags);

/* t_check_idle() - t_check_invariants_ex(ctl, T_INV_IDLE). */
int t_check_idle(struct iolat_ctl *ctl);

/*
 * t_inv_io_account() - add the slots @io holds to @inflight[] and the level it
 * waits at to @nwait[] (both indexed by arena index, t_inv_nr_groups()
 * entries). A tracked I/O holds one slot at every level from its group up to
 * (not including) the root, or, while it waits at level L, at every level
 * below L. Untracked, completed, cancelled and refused I/Os hold nothing; a
 * zeroed struct iolat_io holds nothing.
 * Return: false if @io waits at a level that is not on its group's path.
 * Context: nobody may be inside a core call on @io.
 */
bool t_inv_io_account(const struct iolat_io *io, uint32_t *inflight, uint32_t *nwait);

/*
 * t_check_holdings() - compare every group's inflight and nwait with the
 * expected arrays (from t_inv_io_account() over every live I/O).
 * Return: the number of mismatches (printed). Context: quiescent controller.
 */
int t_check_holdings(struct iolat_ctl *ctl, const uint32_t *inflight, const uint32_t *nwait);

/* Capacity of the arena, root included: the size of the arrays above. */
uint32_t t_inv_nr_groups(const struct iolat_ctl *ctl);
/* Arena index of @g. */
uint32_t t_inv_group_idx(const struct iolat_group *g);
/* Whether @io holds slots: admitted while enabled, not yet completed or cancelled. */
bool t_inv_io_tracked(const struct iolat_io *io);
/* Whether @io waited for a slot at some level (stays set after the grant). */
bool t_inv_io_waited(const struct iolat_io *io);
/* Arena index of the level @io waits at, or UINT32_MAX. */
uint32_t t_inv_io_wait_level(const struct iolat_io *io);

/* t_dump_groups() - one line per group: path, target, depth, inflight, waiters, counters. */
void t_dump_groups(struct iolat_ctl *ctl, FILE *f);

/* Environment knobs: an unsigned number (0 or junk: @def); whether a flag is "1". */
uint64_t t_stress_env_u64(const char *name, uint64_t def);
bool t_stress_env_flag(const char *name);
/* Built with ThreadSanitizer / AddressSanitizer? */
bool t_stress_under_tsan(void);
bool t_stress_under_asan(void);

/* CLOCK_MONOTONIC in ns. */
uint64_t t_stress_now_ns(void);

/* xorshift64* PRNG; the state must not be 0. */
static inline uint64_t t_stress_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n). */
static inline uint32_t t_stress_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((t_stress_rand(s) >> 32) * n) >> 32);
}

#endif
