/* SPDX-License-Identifier: MIT */
/*
 * t_ctl.h - test helpers for the controller's rule tests (tests/core): a
 * virtual clock, a controller and groups made in one call, batches of I/O
 * with chosen latencies, windows closed on purpose (a miss or a pass that is
 * a scale event), and FIFO waiters that log the order they are granted in.
 *
 * Windows close only on completions (docs/controller.md R9), and a completion
 * with latency 0 is not recorded (R8) but still closes a window that is
 * due: t_close() uses that to end a window without adding a sample.
 * A few helpers read core internals (src/core/ctl.h) that the public API
 * does not show: a group's window start and a parent's last scale event.
 *
 * Context: the test's one thread; the clock is a plain uint64_t (t_now).
 * Linked into every test program: all names start with t_.
 */
#ifndef T_CTL_H
#define T_CTL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iolatency.h"
#include "t_stress.h"   /* t_check_idle() */

#define T_US 1000ull
#define T_MS 1000000ull
#define T_S 1000000000ull
#define T_START_NS (10 * T_S)          /* the virtual clock starts here */
#define T_D IOLAT_DEFAULT_COOKIE
#define T_MAX IOLAT_DEPTH_MAX

/* The virtual clock: t_clock.ctx points at t_now. */
extern uint64_t t_now;
extern const struct iolat_clock t_clock;

/* Move the clock to @ns (never back) / by @ns. */
void t_set_now(uint64_t ns);
void t_advance(uint64_t ns);

/*
 * t_ctl_new() - a controller on the virtual clock (reset to T_START_NS) with
 * queue depth @qd, @rotational (1: HDD mean rule, 0: SSD miss rule), @flags
 * (IOLAT_CTL_*). Also clears the grant log.
 */
struct iolat_ctl *t_ctl_new(uint32_t qd, int rotational, unsigned flags);
/* Same, with a full configuration (its clock is replaced by the virtual one). */
struct iolat_ctl *t_ctl_new_cfg(struct iolat_ctl_config cfg);

/* t_grp() - a group under @parent (NULL: top level) with target @target_ns (0: none). */
struct iolat_group *t_grp(struct iolat_ctl *ctl, struct iolat_group *parent,
			  const char *name, uint64_t target_ns);

/*
 * The two-sibling set-up of the adaptive tests: at queue depth @qd, top-level
 * groups "fast" (target @fast_target_ns) and "slow" (no target) under the
 * root of a fresh controller with @flags.
 */
struct t_trio {
	struct iolat_ctl *ctl;
	struct iolat_group *root, *fast, *slow;
};
struct t_trio t_trio_new(uint32_t qd, unsigned flags, uint64_t fast_target_ns);

/* Snapshots. */
struct iolat_group_stat t_stat(const struct iolat_group *g);
uint32_t t_depth(const struct iolat_group *g);
int t_use_delay(const struct iolat_group *g);
uint32_t t_cookie_of(const struct iolat_group *parent);  /* parent's child_cookie */
uint64_t t_windows(const struct iolat_group *g);          /* windows closed, ok + missed */
/* Internals: when @parent's cookie last moved by a latency check (0: never). */
uint64_t t_last_event(const struct iolat_group *parent);

/* One I/O at t_now (iolat_throttle_async_at / iolat_done_at). */
int t_submit(struct iolat_group *g, unsigned flags, struct iolat_io *io,
	     struct iolat_waiter *w);
void t_done(struct iolat_io *io);

/*
 * t_fill() - @n I/Os of @g submitted together now (each must be admitted at
 * once), then the clock moves @lat_ns and all of them complete.
 */
void t_fill(struct iolat_group *g, unsigned n, uint64_t lat_ns, unsigned flags);

/*
 * t_close() - one I/O submitted and completed at t_now (latency 0: nothing
 * recorded). Closes @g's window if it is due. Return: whether it closed one.
 */
bool t_close(struct iolat_group *g);

/*
 * t_poke() - @g sees its parent's cookie (the submit-time check) and nothing
 * else: a NOWAIT I/O, released unissued if it was admitted.
 */
void t_poke(struct iolat_group *g);

/*
 * t_window() - one whole window of @g: if the current one is already due it
 * is first closed (empty); then @na I/Os of latency @lat_a and @nb of @lat_b
 * complete inside the window; then the clock moves to the window's end, or
 * to @close_at if later, and t_close() ends it. Fails the test if the window
 * closes early or not at all.
 * Return: true if the window was judged ok, false if it missed.
 */
bool t_window(struct iolat_group *g, unsigned na, uint64_t lat_a, unsigned nb,
	      uint64_t lat_b, uint64_t close_at);

/*
 * t_miss() / t_pass() - a window of 10 I/Os at 2 x target (a miss under
 * either rule) / target / 2 (ok), closed no earlier than 500 ms after the
 * parent's last scale event, so that it is a scale event.
 */
void t_miss(struct iolat_group *g);
void t_pass(struct iolat_group *g);

/* A waiter that logs its id in t_grants[] when granted. */
struct t_waiter {
	struct iolat_waiter w;   /* first: granted() casts back */
	struct iolat_io io;
	int id;
	int granted;
};

#define T_MAX_GRANTS 4096
extern int t_grants[T_MAX_GRANTS];
extern unsigned t_nr_grants;

void t_waiter_init(struct t_waiter *tw, int id);
/* Submit tw->io for @g with @tw as its waiter; a 0 return sets tw->granted (not logged). */
int t_wsubmit(struct iolat_group *g, unsigned flags, struct t_waiter *tw);

#endif
