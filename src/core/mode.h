/* SPDX-License-Identifier: MIT */
/*
 * mode.h - a controller mode's policy behind one table of operations.
 *
 * The mechanism is shared by every mode and lives in its own files: the
 * lock-free scale cookie and its compare-and-swap (admit.c), a window's
 * statistics and the parent's lock (window.c), the depth and in-flight count
 * (inflight.c), the pace gate (pace.c), the once-a-second walk over parents
 * (timer.c). What a mode decides is here, called through ctl->mode:
 *
 *   article   the kernel's rules with the article's release (the default);
 *   kernel    the kernel's rules and timer (IOLAT_CTL_COMPAT_TIMER);
 *   adaptive  IOLAT_CTL_ADAPTIVE (docs/controller-adaptive.md).
 *
 * article and kernel share every operation but the tick (mode_kernel.c).
 * Context: as each operation says; none runs on the admission/completion
 * fast path.
 */
#ifndef IOLAT_CORE_MODE_H
#define IOLAT_CORE_MODE_H

#include <stdbool.h>
#include <stdint.h>

#include "iolatency.h"

struct iolat_group;
struct iolat_group_stat;
struct iolat_win_stat;

struct iolat_mode_ops {
	const char *name;              /* control=NAME, --control NAME */
	unsigned flags;                /* the IOLAT_CTL_* flags that select it */
	/* The rule that judges a window, by the device's rotational flag. */
	enum iolat_window_rule rule[2];
	/* The tick runs only after a submit since the previous one (the
	 * kernel's timer, armed from submit), else at every call. */
	bool tick_needs_submit;
	/* A group record (re)initialised: the mode's own state to zero.
	 * Under the tree lock (create) or at arena set-up. */
	void (*group_init)(struct iolat_group *g, uint64_t now);
	/* Child @g applies its parent's cookie change @mine -> @cur: this
	 * thread won the CAS on g->scale_cookie. Any thread, no lock held. */
	void (*child_apply)(struct iolat_group *g, uint32_t mine, uint32_t cur);
	/* Parent @p decides after @g's window @w (judged @ok) closed at @now:
	 * cookie up, down or nothing. Under p->child_lock. */
	void (*window_decide)(struct iolat_group *p, struct iolat_group *g,
			      const struct iolat_win_stat *w, bool ok, uint64_t now);
	/* Parent @p's part of the tick; true if its children must see a reset
	 * at once. Under p->child_lock, one tick at a time. */
	bool (*tick_parent)(struct iolat_group *p, uint64_t now);
	/* Parent @p forgot its throttling (cookie back at the default). Under
	 * p->child_lock. */
	void (*parent_reset)(struct iolat_group *p);
	/* Group @g left use (destroyed: used is 0 already, the tree lock held);
	 * the mode lets go of what it kept of it. */
	void (*group_unused)(struct iolat_group *g);
	/* The mode's figures in a snapshot (may be NULL: none). Any thread. */
	void (*stat)(const struct iolat_group *g, struct iolat_group_stat *st);
};

extern const struct iolat_mode_ops iolat_mode_article;
extern const struct iolat_mode_ops iolat_mode_kernel;
extern const struct iolat_mode_ops iolat_mode_adaptive;

/* The table for a controller's IOLAT_CTL_* flags (mode.c). */
const struct iolat_mode_ops *iolat_mode_for_flags(unsigned flags);
/* Is the window @w (mean @mean) of @g within @target by its controller's
 * rule (ctl->rule, the mode's for the device)? Any thread, no lock held. */
bool iolat_window_within(const struct iolat_group *g, const struct iolat_win_stat *w,
			 uint64_t mean, uint64_t target);
/* A mode that keeps nothing of a group that leaves. */
void iolat_mode_no_group_unused(struct iolat_group *g);

/*
 * Shared by the kernel's rules and the modes built on them (mode_kernel.c).
 */
/* Is child @g spared by a down change of @p's cookie (a target as tight as
 * the one that asked, or the 5 % rule)? */
bool iolat_child_spared(const struct iolat_group *g, const struct iolat_group *p);
/* Did @g record a completion since the previous tick (timer.c's walk)? */
bool iolat_active_since_last_tick(struct iolat_group *g);

#endif
