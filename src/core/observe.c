/* SPDX-License-Identifier: MIT */
/*
 * observe.c - completions observed elsewhere: requests that did not pass
 * through iolat_throttle*() (iolatd measures them in the kernel) are fed to
 * their group after the fact. Each level with a target records the latency
 * and closes its window when due, exactly as a completion in admit.c does;
 * each level first looks at its parent's cookie as a submit would, so the
 * allowed depth moves by the same steps. No slot, no waiter, no in-flight
 * count: acting on the depth is the caller's.
 *
 * Samples go to the group's last stat slot, the one shared by threads without
 * a slot of their own, with atomic adds: any thread may observe.
 *
 * The same caller acts for the adaptive mode: it says which rate it put in
 * force for a group and what the group was served (the throttle's own
 * counters); the parent's decision (adaptive.c, knee.c) then uses those;
 * and how many of a group's requests are outstanding (stall.c: a stall is
 * not idleness).
 *
 * Context: any thread, concurrently with everything but iolat_ctl_destroy();
 * lock-free except the window close (the parent's child_lock).
 */
#include <errno.h>

#include "core/ctl.h"

#define OBSERVE_BYPASS (IOLAT_IO_SWAP | IOLAT_IO_META | IOLAT_IO_ROOT)

static struct iolat_slot *shared_slot(const struct iolat_group *g)
{
	return &grp_slots(g)[g->ctl->nr_slots - 1];
}

static void observe_level(struct iolat_group *lvl, uint64_t lat, bool bypass, uint64_t now)
{
	uint64_t target = atomic_load_explicit(&lvl->target_ns, memory_order_relaxed);
	uint64_t start;

	if (!target)
		return;
	if (bypass && (atomic_load_explicit(&lvl->max_depth, memory_order_relaxed) != IOLAT_DEPTH_MAX ||
		       grp_paced(lvl))) {
		/* Free work while throttled is charged as delay (3.6.1). */
		if (lat > 0 && lat < target)
			iolat_delay_add(lvl, now, target - lat);
		atomic_fetch_add_explicit(&lvl->bypass_throttled, 1, memory_order_relaxed);
	} else if (lat > 0) {
		struct iolat_slot *s = shared_slot(lvl);

		atomic_fetch_add_explicit(&s->nr, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->sum_ns, lat, memory_order_relaxed);
		if (lat >= target) {
			atomic_fetch_add_explicit(&s->missed, 1, memory_order_relaxed);
			atomic_fetch_add_explicit(&s->late_ns, lat, memory_order_relaxed);
		}
	}
	start = atomic_load_explicit(&lvl->window_start, memory_order_relaxed);
	if (now > start &&
	    now - start >= atomic_load_explicit(&lvl->win_ns, memory_order_relaxed) &&
	    atomic_compare_exchange_strong(&lvl->window_start, &start, now))
		iolat_check_latencies(lvl, now); /* we alone close this window */
}

int iolat_observe_done_at(struct iolat_group *g, uint64_t lat_ns, uint64_t bytes,
			  unsigned io_flags, uint64_t now_ns)
{
	struct iolat_ctl *ctl;
	bool bypass = io_flags & OBSERVE_BYPASS;

	if (!g)
		return -EINVAL;
	ctl = g->ctl;
	atomic_fetch_add_explicit(&g->obs_nr, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&g->obs_bytes, bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&shared_slot(g)->done, 1, memory_order_relaxed);
	if (ctl_weights_on(ctl)) { /* weights: what each level was delivered */
		iolat_weight_count(g, bytes, now_ns); /* and activates an idle level */
		iolat_weight_maybe_period(ctl, now_ns);
	}
	if (g->idx == IOLAT_ROOT_IDX || !atomic_load_explicit(&ctl->enable_cnt, memory_order_relaxed))
		return 0;
	if (bypass)
		atomic_fetch_add_explicit(&g->nr_bypass, 1, memory_order_relaxed);
	else
		iolat_pace_observed(g, bytes); /* adaptive: what the watched levels did */
	if (!atomic_load_explicit(&ctl->tick_armed, memory_order_relaxed))
		atomic_store_explicit(&ctl->tick_armed, 1, memory_order_relaxed);
	for (struct iolat_group *lvl = g; lvl->idx != IOLAT_ROOT_IDX; lvl = grp_parent(lvl)) {
		iolat_check_scale_change(lvl); /* what the submit would have seen */
		observe_level(lvl, lat_ns, bypass, now_ns);
	}
	return 0;
}

int iolat_observe_done(struct iolat_group *g, uint64_t lat_ns, uint64_t bytes,
		       unsigned io_flags)
{
	if (!g)
		return -EINVAL;
	return iolat_observe_done_at(g, lat_ns, bytes, io_flags, ctl_now(g->ctl));
}

int iolat_group_observe_stat(struct iolat_group *g, struct iolat_observe_stat *st)
{
	if (!g || !st)
		return -EINVAL;
	if (g->idx != IOLAT_ROOT_IDX)
		iolat_check_scale_change(g);
	st->depth = atomic_load(&g->max_depth);
	st->use_delay = atomic_load(&g->use_delay);
	st->throttled = st->depth != IOLAT_DEPTH_MAX || st->use_delay > 0;
	st->cookie = atomic_load(&g->scale_cookie);
	st->scale_downs = atomic_load(&g->scale_downs);
	st->scale_ups = atomic_load(&g->scale_ups);
	st->nr_observed = atomic_load(&g->obs_nr);
	st->bytes_observed = atomic_load(&g->obs_bytes);
	iolat_pace_in_force(g, ctl_now(g->ctl), &st->pace_bps, &st->pace_iops);
	st->throttled |= st->pace_bps || st->pace_iops;
	return 0;
}

int iolat_group_observe_applied(struct iolat_group *g, uint64_t bps, uint64_t iops,
				uint64_t now_ns)
{
	if (!g || g->idx == IOLAT_ROOT_IDX)
		return -EINVAL;
	atomic_store(&g->ad.applied_bps, bps);
	atomic_store(&g->ad.applied_iops, iops);
	atomic_store(&g->ad.applied_at, now_ns);
	atomic_fetch_or(&g->ad.fed, IOLAT_FED_APPLIED);
	return 0;
}

int iolat_group_observe_served(struct iolat_group *g, uint64_t bytes, uint64_t ios,
			       uint64_t now_ns)
{
	/* The adaptive parent reads the counts at its own windows, the weights'
	 * period at its end (not here: a round's reports of several groups stay
	 * in one period); a group that was idle is activated here. */
	if (!g || g->idx == IOLAT_ROOT_IDX)
		return -EINVAL;
	atomic_fetch_add(&g->ad.served_bytes, bytes);
	atomic_fetch_add(&g->ad.served_ios, ios);
	atomic_fetch_or(&g->ad.fed, IOLAT_FED_SERVED);
	if (ctl_weights_on(g->ctl)) {
		iolat_weight_served(g, bytes, now_ns);
		if (bytes || ios)
			iolat_weight_maybe_activate(g, now_ns); /* divides again, measures nothing */
	}
	return 0;
}

int iolat_group_observe_inflight(struct iolat_group *g, uint32_t n, uint64_t now_ns)
{
	if (!g || g->idx == IOLAT_ROOT_IDX)
		return -EINVAL;
	atomic_store(&g->obs_inflight, n);
	atomic_store(&g->obs_inflight_fed, 1);
	if (ctl_adaptive(g->ctl) && atomic_load_explicit(&g->target_ns, memory_order_relaxed))
		iolat_stall_busy(g, now_ns, true); /* a stalled window closes as missed */
	return 0;
}
