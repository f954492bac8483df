/* SPDX-License-Identifier: MIT */
/*
 * t_ctl.c - the helpers of t_ctl.h: virtual clock, controller and group set-up,
 * I/O batches, windows closed on purpose, logging waiters.
 * Context: the test's one thread.
 */
#include <stdlib.h>

#include "t_ctl.h"
#include "core/ctl.h"

uint64_t t_now = T_START_NS;

static uint64_t t_clock_read(void *ctx)
{
	return *(const uint64_t *)ctx;
}

const struct iolat_clock t_clock = { .now_ns = t_clock_read, .ctx = &t_now };

int t_grants[T_MAX_GRANTS];
unsigned t_nr_grants;

void t_set_now(uint64_t ns)
{
	assert_true(ns >= t_now);
	t_now = ns;
}

void t_advance(uint64_t ns)
{
	t_now += ns;
}

struct iolat_ctl *t_ctl_new_cfg(struct iolat_ctl_config cfg)
{
	struct iolat_ctl *ctl = NULL;

	t_now = T_START_NS;
	t_nr_grants = 0;
	cfg.clock = &t_clock;
	assert_int_equal(iolat_ctl_create(&cfg, &ctl), 0);
	assert_non_null(ctl);
	return ctl;
}

struct iolat_ctl *t_ctl_new(uint32_t qd, int rotational, unsigned flags)
{
	struct iolat_ctl_config cfg = {
		.nr_requests = qd,
		.rotational = rotational,
		.flags = flags,
		.max_groups = 64,
		.nr_stat_slots = 4,
	};

	return t_ctl_new_cfg(cfg);
}

struct iolat_group *t_grp(struct iolat_ctl *ctl, struct iolat_group *parent,
			  const char *name, uint64_t target_ns)
{
	struct iolat_group *g = NULL;

	assert_int_equal(iolat_group_create(ctl, parent, name, &g), 0);
	assert_non_null(g);
	if (target_ns)
		assert_int_equal(iolat_group_set_target(g, target_ns), 0);
	return g;
}

struct t_trio t_trio_new(uint32_t qd, unsigned flags, uint64_t fast_target_ns)
{
	struct t_trio p;

	p.ctl = t_ctl_new(qd, 0, flags);
	p.root = iolat_ctl_root(p.ctl);
	p.fast = t_grp(p.ctl, NULL, "fast", fast_target_ns);
	p.slow = t_grp(p.ctl, NULL, "slow", 0);
	return p;
}

struct iolat_group_stat t_stat(const struct iolat_group *g)
{
	struct iolat_group_stat st;

	assert_int_equal(iolat_group_stat(g, &st), 0);
	return st;
}

uint32_t t_depth(const struct iolat_group *g)
{
	return t_stat(g).depth;
}

int t_use_delay(const struct iolat_group *g)
{
	return t_stat(g).use_delay;
}

uint32_t t_cookie_of(const struct iolat_group *parent)
{
	return t_stat(parent).child_cookie;
}

uint64_t t_windows(const struct iolat_group *g)
{
	struct iolat_group_stat st = t_stat(g);

	return st.windows_ok + st.windows_missed;
}

uint64_t t_last_event(const struct iolat_group *parent)
{
	return atomic_load(&parent->last_scale_event);
}

int t_submit(struct iolat_group *g, unsigned flags, struct iolat_io *io,
	     struct iolat_waiter *w)
{
	return iolat_throttle_async_at(g, flags, io, w, t_now);
}

void t_done(struct iolat_io *io)
{
	iolat_done_at(io, t_now);
}

void t_fill(struct iolat_group *g, unsigned n, uint64_t lat_ns, unsigned flags)
{
	struct iolat_io *ios = calloc(n ? n : 1, sizeof(*ios));

	assert_non_null(ios);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(t_submit(g, flags, &ios[i], NULL), 0);
	t_advance(lat_ns);
	for (unsigned i = 0; i < n; i++)
		t_done(&ios[i]);
	free(ios);
}

bool t_close(struct iolat_group *g)
{
	uint64_t before = t_windows(g);

	t_fill(g, 1, 0, 0);
	return t_windows(g) != before;
}

void t_poke(struct iolat_group *g)
{
	struct iolat_io io;

	if (t_submit(g, IOLAT_IO_NOWAIT, &io, NULL) == 0)
		iolat_done_unissued(&io);
}

bool t_window(struct iolat_group *g, unsigned na, uint64_t lat_a, unsigned nb,
	      uint64_t lat_b, uint64_t close_at)
{
	uint64_t start = atomic_load(&g->window_start);
	uint64_t win = atomic_load(&g->win_ns);
	uint64_t closed, ok, base, end;
	struct iolat_io *ios;
	unsigned n = na + nb;

	assert_true(iolat_group_target(g) != 0);
	if (t_now >= start + win) {
		/* The current window is overdue: end it, empty, first. */
		assert_true(t_close(g));
		start = t_now;
	}
	closed = t_windows(g);
	ok = t_stat(g).windows_ok;
	ios = calloc(n ? n : 1, sizeof(*ios));
	assert_non_null(ios);
	base = t_now;
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(t_submit(g, 0, &ios[i], NULL), 0);
	/* Complete the shorter latencies first. */
	for (unsigned pass = 0; pass < 2; pass++) {
		bool a_first = lat_a <= lat_b;
		bool do_a = (pass == 0) == a_first;
		unsigned from = do_a ? 0 : na, to = do_a ? na : n;
		uint64_t lat = do_a ? lat_a : lat_b;

		if (from == to)
			continue;
		t_set_now(base + lat);
		for (unsigned i = from; i < to; i++)
			t_done(&ios[i]);
	}
	free(ios);
	assert_int_equal(t_windows(g), closed); /* all samples inside the window */
	end = start + win;
	if (close_at > end)
		end = close_at;
	t_set_now(end);
	assert_true(t_close(g));
	return t_stat(g).windows_ok != ok;
}

static uint64_t t_gate(const struct iolat_group *g)
{
	uint64_t last = t_last_event(iolat_group_parent((struct iolat_group *)g));

	return last ? last + IOLAT_MIN_ADJUST_NS : 0;
}

void t_miss(struct iolat_group *g)
{
	uint64_t target = iolat_group_target(g);

	assert_false(t_window(g, 10, 2 * target, 0, 0, t_gate(g)));
}

void t_pass(struct iolat_group *g)
{
	uint64_t target = iolat_group_target(g);

	assert_true(t_window(g, 10, target / 2, 0, 0, t_gate(g)));
}

static void t_waiter_granted(struct iolat_waiter *w)
{
	struct t_waiter *tw = (struct t_waiter *)w;

	tw->granted++;
	assert_true(t_nr_grants < T_MAX_GRANTS);
	t_grants[t_nr_grants++] = tw->id;
}

void t_waiter_init(struct t_waiter *tw, int id)
{
	*tw = (struct t_waiter){ .w = { .granted = t_waiter_granted }, .id = id };
}

int t_wsubmit(struct iolat_group *g, unsigned flags, struct t_waiter *tw)
{
	int r = t_submit(g, flags, &tw->io, &tw->w);

	if (r == 0)
		tw->granted = 1;
	return r;
}
