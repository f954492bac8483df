/* SPDX-License-Identifier: MIT */
/*
 * test_adaptive_rate.c - IOLAT_CTL_ADAPTIVE through the library, on the
 * virtual clock: the protected group "fast" (target 1 ms, 100 ms windows)
 * beside untargeted siblings that offer 1 MiB I/Os through the pace gate.
 *  - a miss watches the siblings (the gate counts them), two more give them
 *    a rate: 0.9 x what they did, through the cookie;
 *  - the gate spaces their I/O exactly at that rate (and I/Os per second);
 *  - two siblings share the limit by water-filling (by weight once weights
 *    are on);
 *  - a sibling with a tighter target is spared, a looser one is not;
 *  - the gate lets go while the protected group idles; the tick releases;
 *  - but not while it stalls (I/O outstanding, admitted or reported): the
 *    overdue window closes as missed with the stalled I/O late;
 *  - bypass I/O of a paced group is charged as delay; it reads as congested;
 *  - completions observed elsewhere (iolatd's path) drive the same loop;
 *  - a group that comes back after its episode ended is judged on its new
 *    completions alone (the last memory recalled at its first late read);
 *  - a caller acting for the controller: served bytes and the limit in force;
 *  - the article mode never watches anything.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"
#include "core/ctl.h"   /* pace_watchers, pace_watch: who the gate counts */

#define MIB (1024ull * 1024)

/* A test's groups: fast (1 ms), slow (none) and maybe more siblings. */
static struct t_trio setup(unsigned flags)
{
	return t_trio_new(64, flags, 1 * T_MS);
}

/*
 * One window of fast: it submits 10 I/Os at once that complete after @lat;
 * meanwhile each of @sib[0..n) offers a 1 MiB I/O every @gap[i] ns through
 * the gate (an I/O told to wait is offered again at its next turn).
 * Counts what the gate let through in @through[i]. Returns whether fast's
 * window was judged ok.
 */
static bool window_n(struct iolat_group *fast, struct iolat_group **sib, unsigned n,
		     const uint64_t *gap, unsigned *through, uint64_t lat)
{
	uint64_t ok0 = t_stat(fast).windows_ok, w0 = t_windows(fast), start = t_now;
	uint64_t next[4] = { 0 }, end = start + t_stat(fast).win_ns;
	struct iolat_io io[10];
	bool done = false;

	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(t_submit(fast, 0, &io[i], NULL), 0);
	for (; t_now < end; t_advance(50 * T_US)) {
		if (!done && t_now >= start + lat) {
			for (unsigned i = 0; i < 10; i++)
				t_done(&io[i]);
			done = true;
		}
		for (unsigned i = 0; i < n; i++) {
			if (!gap[i] || t_now < next[i])
				continue;
			if (iolat_group_pace_due(sib[i], MIB, t_now) == 0) {
				through[i]++;
				next[i] = t_now + gap[i];
			}
		}
	}
	if (!done)
		for (unsigned i = 0; i < 10; i++)
			t_done(&io[i]);
	assert_true(t_close(fast) || t_windows(fast) > w0);
	return t_stat(fast).windows_ok > ok0;
}

/* One window with slow offering an I/O every @gap (0: none). */
static bool window(struct t_trio *p, uint64_t lat, uint64_t gap, unsigned *through)
{
	unsigned dummy = 0;

	return window_n(p->fast, &p->slow, 1, &gap, through ? through : &dummy, lat);
}

static void miss(struct t_trio *p, uint64_t gap)
{
	assert_false(window(p, 2 * T_MS, gap, NULL));
}

static unsigned watchers(const struct t_trio *p)
{
	return atomic_load(&p->ctl->pace_watchers);
}

/* slow offers 1 MiB every 1 ms (~1000 MiB/s): a miss, two measured -> a limit. */
static void limited(struct t_trio *p)
{
	miss(p, T_MS);
	assert_int_equal(t_stat(p->root).last_decision, IOLAT_STEP_MEASURE);
	assert_int_equal(watchers(p), 1);
	assert_int_equal(t_stat(p->slow).pace_bps, 0); /* watched, not yet paced */
	miss(p, T_MS);
	assert_int_equal(t_stat(p->slow).pace_bps, 0);
	miss(p, T_MS);
	assert_int_equal(t_stat(p->root).last_decision, IOLAT_STEP_LIMIT);
	t_poke(p->slow); /* slow sees the cookie */
}

static void test_measure_then_limit(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_group_stat root, slow;
	uint64_t measured;

	(void)state;
	limited(&p);
	root = t_stat(p.root);
	slow = t_stat(p.slow);
	measured = root.base_bps;
	/* ~1 I/O per ms, counted by the gate over the measured window. */
	assert_true(measured > 950 * MIB && measured < 1100 * MIB);
	assert_int_equal(root.limit_bps, measured / 1000 * 900 + measured % 1000 * 900 / 1000);
	assert_int_equal(slow.pace_bps, root.limit_bps); /* the only sibling: all of it */
	assert_int_equal(slow.last_step, IOLAT_STEP_PACE);
	assert_int_equal(slow.depth, IOLAT_DEPTH_MAX);   /* a rate, never a depth */
	assert_true(t_stat(p.slow).congested);           /* use_delay 1 while paced */
	iolat_ctl_destroy(p.ctl);
}

/*
 * A caller acting for the controller (iolatd): what it says was served is
 * the siblings' delivered rate (not the gate's count), and a limit is judged
 * only once it says the limit is in force.
 */
static void test_actuator_feedback(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_knee *k = &p.root->ap.knee;

	(void)state;
	assert_int_equal(iolat_group_observe_served(p.root, 1, 1, t_now), -EINVAL);
	assert_int_equal(iolat_group_observe_applied(NULL, 1, 1, t_now), -EINVAL);
	for (int i = 0; i < 3; i++) {
		/* The throttle's counters: 400 MiB a window (4000 MiB/s), while
		 * the gate lets ~1000 MiB/s through. */
		assert_int_equal(iolat_group_observe_served(p.slow, 400 * MIB, 400, t_now), 0);
		miss(&p, T_MS);
	}
	assert_int_equal(t_stat(p.root).last_decision, IOLAT_STEP_LIMIT);
	assert_true(k->base_bps > 3900 * MIB && k->base_bps < 4100 * MIB);
	/* Nothing written yet (0: none in force): the limit is not judged. */
	assert_int_equal(iolat_group_observe_applied(p.slow, 0, 0, t_now), 0);
	miss(&p, T_MS);
	assert_true(k->pending);
	assert_int_equal(k->per.windows, 0);
	/* Written: in force from now, judged from then on. */
	assert_int_equal(iolat_group_observe_applied(p.slow, k->limit_bps, k->limit_iops, t_now), 0);
	miss(&p, T_MS);
	assert_false(k->pending);
	assert_int_equal(k->force_bps, k->limit_bps);
	iolat_ctl_destroy(p.ctl);
}

static void test_gate_spaces_at_the_rate(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	uint64_t bps, cost, first = 0, t;
	unsigned n = 0;

	(void)state;
	limited(&p);
	bps = t_stat(p.slow).pace_bps;
	cost = MIB * T_S / bps;
	/* A queue of 100 I/Os all wanting to go now: one every cost, exactly. */
	for (t = t_now; n < 100;) {
		uint64_t wait = iolat_group_pace_due(p.slow, MIB, t);

		if (wait) {
			assert_true(wait <= cost);
			t += wait;
			continue;
		}
		if (!n)
			first = t;
		n++;
	}
	assert_true(t - first >= 99 * cost && t - first <= 99 * cost + 100);
	assert_true(t_stat(p.slow).paced_ios > 0);
	iolat_ctl_destroy(p.ctl);
}

/* A caller that always wakes up 40 % of a cost late still gets the rate. */
static void test_gate_late_callers_keep_the_rate(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	uint64_t bps, cost, t, start;
	unsigned n = 0;

	(void)state;
	limited(&p);
	bps = t_stat(p.slow).pace_bps;
	cost = MIB * T_S / bps;
	t = start = t_now;
	while (n < 200) {
		uint64_t wait = iolat_group_pace_due(p.slow, MIB, t);

		if (!wait)
			n++;
		t += wait + cost * 4 / 10; /* late by 0.4 cost after every answer */
	}
	assert_true(t - start <= 201 * cost); /* not 200 x 1.4 costs */
	iolat_ctl_destroy(p.ctl);
}

static void test_iops_bound(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	uint64_t iops, wait;

	(void)state;
	limited(&p);
	iops = t_stat(p.slow).pace_iops;
	assert_true(iops > 900 && iops < 1100); /* ~0.9 x 1000 I/Os a second */
	/* Tiny I/Os are held by the I/O rate, not the byte rate. */
	assert_int_equal(iolat_group_pace_due(p.slow, 512, t_now), 0);
	wait = iolat_group_pace_due(p.slow, 512, t_now);
	assert_true(wait >= T_S / iops - 1 && wait <= T_S / iops + 1);
	iolat_ctl_destroy(p.ctl);
}

static void test_shares_by_water_filling(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_group *b = t_grp(p.ctl, NULL, "b", 0), *sib[2] = { p.slow, b };
	uint64_t gap[2] = { 500 * T_US, 10 * T_MS }, limit, sa, sb;
	unsigned through[2] = { 0, 0 };

	(void)state;
	/* slow wants ~2000 MiB/s, b ~100. */
	for (int i = 0; i < 3; i++)
		assert_false(window_n(p.fast, sib, 2, gap, through, 2 * T_MS));
	assert_int_equal(watchers(&p), 2);
	for (int i = 0; i < 12; i++) /* over a second: the shares are set from use */
		window_n(p.fast, sib, 2, gap, through, T_MS / 2);
	t_poke(p.slow);
	t_poke(b);
	limit = t_stat(p.root).limit_bps;
	sa = t_stat(p.slow).pace_bps;
	sb = t_stat(b).pace_bps;
	print_message("limit %llu MiB/s: slow %llu, b %llu\n", (unsigned long long)(limit / MIB),
		      (unsigned long long)(sa / MIB), (unsigned long long)(sb / MIB));
	/* b keeps 1.25 x its use (~125), slow gets the rest: together the limit. */
	assert_true(sb > 110 * MIB && sb < 140 * MIB);
	assert_true(sa + sb >= limit - 2 && sa + sb <= limit + 2);
	iolat_ctl_destroy(p.ctl);
}

/*
 * Weights on: the limit is water-filled by weight. Both siblings want ~2000
 * MiB/s and the limit is 0.9 x that together (3600): evenly, each would get
 * 1800 and want more. Weighted 300:100, slow's part (2700) is above what it
 * wants, so it keeps 1.25 x its use (~2500) and b, the lighter, gets the rest.
 */
static void test_shares_by_weight(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_group *b = t_grp(p.ctl, NULL, "b", 0), *sib[2] = { p.slow, b };
	uint64_t gap[2] = { 500 * T_US, 500 * T_US }, limit, sa, sb;
	unsigned through[2] = { 0, 0 };

	(void)state;
	assert_int_equal(iolat_group_set_weight(p.slow, 300), 0);
	assert_int_equal(iolat_group_set_weight(b, 100), 0);
	for (int i = 0; i < 3; i++)
		assert_false(window_n(p.fast, sib, 2, gap, through, 2 * T_MS));
	for (int i = 0; i < 12; i++)
		window_n(p.fast, sib, 2, gap, through, T_MS / 2);
	t_poke(p.slow);
	t_poke(b);
	limit = t_stat(p.root).limit_bps;
	sa = t_stat(p.slow).pace_bps;
	sb = t_stat(b).pace_bps;
	print_message("limit %llu MiB/s: slow (300) %llu, b (100) %llu\n",
		      (unsigned long long)(limit / MIB), (unsigned long long)(sa / MIB),
		      (unsigned long long)(sb / MIB));
	assert_true(sa > 2300 * MIB && sa < 2700 * MIB); /* 1.25 x ~2000 */
	assert_true(sb < limit / 2 - 500 * MIB);          /* not the even split */
	assert_true(sa + sb >= limit - 2 && sa + sb <= limit + 2);
	iolat_ctl_destroy(p.ctl);
}

static void test_tighter_target_spared(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_group *tight = t_grp(p.ctl, NULL, "tight", 500 * T_US);
	struct iolat_group *loose = t_grp(p.ctl, NULL, "loose", 50 * T_MS);

	(void)state;
	miss(&p, T_MS);
	/* slow (none) and loose (looser) are watched; tight (tighter) is not. */
	assert_int_equal(watchers(&p), 2);
	assert_int_equal(atomic_load(&tight->ad.pace_watch), 0);
	assert_int_equal(atomic_load(&loose->ad.pace_watch), 1);
	iolat_ctl_destroy(p.ctl);
}

static void test_gate_lets_go_while_protected_idle(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_observe_stat ob;

	(void)state;
	limited(&p);
	assert_int_equal(iolat_group_pace_due(p.slow, MIB, t_now), 0);
	assert_true(iolat_group_pace_due(p.slow, MIB, t_now) > 0); /* paced */
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_true(ob.pace_bps > 0);
	/* fast completes nothing for its window + 250 ms: the gate lets go. */
	t_advance(100 * T_MS + 251 * T_MS);
	for (int i = 0; i < 10; i++)
		assert_int_equal(iolat_group_pace_due(p.slow, MIB, t_now), 0);
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_int_equal(ob.pace_bps, 0);
	/* The tick then releases the episode; slow is unwatched and unpaced. */
	iolat_ctl_tick(p.ctl);
	t_advance(T_S);
	iolat_ctl_tick(p.ctl);
	t_poke(p.slow);
	assert_int_equal(t_cookie_of(p.root), T_D);
	assert_int_equal(watchers(&p), 0);
	assert_int_equal(t_stat(p.slow).pace_bps, 0);
	assert_int_equal(t_stat(p.slow).last_step, IOLAT_STEP_RELEASE);
	assert_false(t_stat(p.slow).congested);
	iolat_ctl_destroy(p.ctl);
}

/*
 * A stall is not idleness: fast's read is submitted and does not complete
 * (the disk stalls behind slow). Its windows stop closing, but the gate
 * keeps slow paced, the overdue window closes as missed with the stalled
 * read late, and the tick does not end the episode. Once the read completes
 * and fast goes quiet, the gate lets go and the tick releases as before.
 */
static void test_stalled_reader_keeps_the_limit(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_observe_stat ob;
	uint64_t missed0, idle_at, through = 0;
	struct iolat_io io;

	(void)state;
	limited(&p);
	missed0 = t_stat(p.fast).windows_missed;
	assert_int_equal(t_submit(p.fast, 0, &io, NULL), 0); /* stuck */
	/* slow offers 1 MiB every 100 us (10 GiB/s) for 500 ms; its limit is
	 * ~900 MiB/s. Past fast's window + 250 ms it would be let go. */
	idle_at = t_now + 100 * T_MS + 260 * T_MS;
	for (uint64_t end = t_now + 500 * T_MS; t_now < end; t_advance(100 * T_US))
		if (iolat_group_pace_due(p.slow, MIB, t_now) == 0 && t_now >= idle_at)
			through++;
	assert_true(through < 200);                        /* still held back (1400: not) */
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_true(ob.pace_bps > 0);
	assert_true(t_stat(p.fast).stalled_windows >= 1); /* the overdue window: missed */
	assert_true(t_stat(p.fast).windows_missed > missed0);
	/* The tick does not end the episode while the read is outstanding. */
	iolat_ctl_tick(p.ctl);
	t_advance(T_S);
	iolat_ctl_tick(p.ctl);
	assert_true(t_cookie_of(p.root) != T_D);
	assert_int_equal(watchers(&p), 1);
	/* The read completes; fast goes quiet: idle, as before. */
	t_done(&io);
	t_advance(100 * T_MS + 251 * T_MS);
	for (int i = 0; i < 10; i++)
		assert_int_equal(iolat_group_pace_due(p.slow, MIB, t_now), 0);
	iolat_ctl_tick(p.ctl);
	t_advance(T_S);
	iolat_ctl_tick(p.ctl);
	t_poke(p.slow);
	assert_int_equal(t_cookie_of(p.root), T_D);
	assert_int_equal(watchers(&p), 0);
	iolat_ctl_destroy(p.ctl);
}

/*
 * iolatd's path: fast's completions are observed, and the caller reports
 * what is outstanding each 100 ms round. A report of requests outstanding
 * while nothing completes keeps slow's rate, closes fast's overdue window
 * as missed (the emergency sees it: a cut); a report of 0 lets go.
 */
static void test_observed_stall(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_observe_stat ob;
	uint64_t limit;

	(void)state;
	assert_int_equal(iolat_group_observe_inflight(p.root, 1, t_now), -EINVAL);
	assert_int_equal(iolat_group_observe_inflight(NULL, 1, t_now), -EINVAL);
	limited(&p);
	/* Settle at the limit: windows within, slow using it. */
	for (int w = 0; w < 3; w++)
		assert_true(window(&p, 100 * T_US, T_MS, NULL));
	limit = t_stat(p.root).limit_bps;
	for (int r = 0; r < 5; r++) { /* 500 ms: no completion, 2 outstanding */
		t_advance(100 * T_MS);
		/* slow is delivered its limit (~900 MiB/s): the limit binds. */
		assert_int_equal(iolat_observe_done_at(p.slow, 300 * T_US, 100 * MIB, 0, t_now), 0);
		assert_int_equal(iolat_group_observe_inflight(p.fast, 2, t_now), 0);
	}
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_true(ob.pace_bps > 0);                      /* not idle */
	assert_true(t_stat(p.fast).stalled_windows >= 1);
	assert_true(t_stat(p.root).limit_bps < limit);     /* the emergency cut */
	assert_int_equal(t_stat(p.root).last_decision, IOLAT_STEP_BACKOFF);
	/* Nothing outstanding any more, nothing completes: idle. */
	for (int r = 0; r < 4; r++) {
		t_advance(100 * T_MS);
		assert_int_equal(iolat_group_observe_inflight(p.fast, 0, t_now), 0);
	}
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_int_equal(ob.pace_bps, 0);
	iolat_ctl_destroy(p.ctl);
}

/* A stall is believed for 30 s at most: a count gone wrong lets go then. */
static void test_stall_is_believed_30s_at_most(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_observe_stat ob;

	(void)state;
	limited(&p);
	for (int r = 0; r < 310; r++) {
		t_advance(100 * T_MS);
		assert_int_equal(iolat_observe_done_at(p.slow, 300 * T_US, 100 * MIB, 0, t_now), 0);
		assert_int_equal(iolat_group_observe_inflight(p.fast, 1, t_now), 0);
		if (r == 290) {
			assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
			assert_true(ob.pace_bps > 0);
		}
	}
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_int_equal(ob.pace_bps, 0);
	iolat_ctl_destroy(p.ctl);
}

/* The other modes only store the count: nothing closes, nothing holds. */
static void test_article_ignores_inflight(void **state)
{
	struct t_trio p = setup(0);

	(void)state;
	t_miss(p.fast);
	for (int r = 0; r < 10; r++) {
		t_advance(100 * T_MS);
		assert_int_equal(iolat_group_observe_inflight(p.fast, 3, t_now), 0);
	}
	assert_int_equal(t_stat(p.fast).stalled_windows, 0);
	iolat_ctl_destroy(p.ctl);
}

static void test_bypass_of_paced_group_is_delay(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_group *kid = t_grp(p.ctl, p.slow, "kid", 1 * T_MS);
	struct iolat_io io;

	(void)state;
	limited(&p);
	/* slow is paced: its child's swap I/O, served for free, is charged. */
	assert_int_equal(t_submit(kid, IOLAT_IO_SWAP, &io, NULL), 0);
	t_advance(100 * T_US);
	t_done(&io);
	assert_true(t_stat(kid).congested);
	iolat_ctl_destroy(p.ctl);
}

static void test_observed_completions(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_observe_stat ob;

	(void)state;
	/* iolatd's path: nothing passes the gate; completions are observed. */
	for (int w = 0; w < 4; w++) {
		for (int i = 0; i < 100; i++) {
			t_advance(T_MS);
			assert_int_equal(iolat_observe_done_at(p.slow, 300 * T_US, MIB, 0, t_now), 0);
			if (i % 10 == 0)
				assert_int_equal(iolat_observe_done_at(p.fast, 2 * T_MS, 4096, 0,
								       t_now), 0);
		}
	}
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_true(ob.throttled);
	assert_true(ob.pace_bps > 800 * MIB && ob.pace_bps < 1000 * MIB);
	assert_int_equal(ob.depth, IOLAT_DEPTH_MAX);
	iolat_ctl_destroy(p.ctl);
}

/* @ms of iolatd's path: slow completes 1 MiB a ms; fast every @every ms at @lat (0: idle); a tick each second. */
static void observed(struct t_trio *p, unsigned ms, unsigned every, uint64_t lat)
{
	for (unsigned i = 0; i < ms; i++) {
		t_advance(T_MS);
		assert_int_equal(iolat_observe_done_at(p->slow, 300 * T_US, MIB, 0, t_now), 0);
		if (lat && i % every == 0)
			assert_int_equal(iolat_observe_done_at(p->fast, lat, 4096, 0, t_now), 0);
		if (t_now % T_S == 0)
			iolat_ctl_tick(p->ctl);
	}
}

/*
 * A protected group that comes back: its episode ended while it was quiet,
 * and the completions its last busy spell left in its open window (50 in
 * time) go with it. Its first read back, late, is a whole window late: the
 * last episode's rate is recalled at once. Kept in the window, those 50
 * would make it 2 % late, in time: nothing recalled.
 */
static void test_recall_sees_only_the_new_spell(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_observe_stat ob;

	(void)state;
	observed(&p, 600, 10, 2 * T_MS);            /* late: limited */
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_true(ob.pace_bps > 0);
	observed(&p, 1000, 1, 100 * T_US);          /* in time, windows closing every 100 ms */
	observed(&p, 50, 1, 100 * T_US);            /* ... and 50 more: the open window's */
	observed(&p, 3000, 1, 0);                   /* quiet: the episode ends */
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_int_equal(ob.pace_bps, 0);
	assert_int_equal(t_stat(p.slow).last_step, IOLAT_STEP_RELEASE);
	t_advance(T_MS);
	assert_int_equal(iolat_observe_done_at(p.fast, 5 * T_MS, 4096, 0, t_now), 0);
	assert_int_equal(t_stat(p.root).last_decision, IOLAT_STEP_LIMIT);
	assert_int_equal(iolat_group_observe_stat(p.slow, &ob), 0);
	assert_true(ob.pace_bps > 0);
	iolat_ctl_destroy(p.ctl);
}

static void test_article_never_watches(void **state)
{
	struct t_trio p = setup(0);

	(void)state;
	for (int i = 0; i < 5; i++) {
		t_miss(p.fast);
		t_poke(p.slow);
	}
	assert_int_equal(watchers(&p), 0);
	assert_true(t_depth(p.slow) < IOLAT_DEPTH_MAX); /* the kernel's depth steps */
	assert_int_equal(iolat_group_pace_due(p.slow, MIB, t_now), 0);
	assert_int_equal(t_stat(p.slow).pace_bps, 0);
	iolat_ctl_destroy(p.ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measure_then_limit),
		cmocka_unit_test(test_actuator_feedback),
		cmocka_unit_test(test_gate_spaces_at_the_rate),
		cmocka_unit_test(test_gate_late_callers_keep_the_rate),
		cmocka_unit_test(test_iops_bound),
		cmocka_unit_test(test_shares_by_water_filling),
		cmocka_unit_test(test_shares_by_weight),
		cmocka_unit_test(test_tighter_target_spared),
		cmocka_unit_test(test_gate_lets_go_while_protected_idle),
		cmocka_unit_test(test_stalled_reader_keeps_the_limit),
		cmocka_unit_test(test_observed_stall),
		cmocka_unit_test(test_stall_is_believed_30s_at_most),
		cmocka_unit_test(test_article_ignores_inflight),
		cmocka_unit_test(test_bypass_of_paced_group_is_delay),
		cmocka_unit_test(test_observed_completions),
		cmocka_unit_test(test_recall_sees_only_the_new_spell),
		cmocka_unit_test(test_article_never_watches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
