/* SPDX-License-Identifier: MIT */
/*
 * test_adaptive_ladder.c - IOLAT_CTL_ADAPTIVE below depth 1 (the pace ladder)
 * and its release, on the virtual clock, at qd = 64:
 *  - misses halve a throttled sibling to depth 1 as the kernel does; a miss
 *    at depth 1 adds use_delay AND steps one pace rung down; rung 1's rate is
 *    the byte rate the group got through the gate at depth 1, each further
 *    rung 2^(-1/4) of it;
 *  - the gate: 0 while unpaced, then one I/O per bytes/rate (one I/O of debt),
 *    an exact long-run rate, no credit while idle;
 *  - up steps climb rung by rung (with use_delay) before any depth grows;
 *  - release: the tick that finds the asker quiet clears rung, pace, delay
 *    and depth at once; article mode never paces; adaptive + kernel timer is
 *    refused.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include <string.h>

#include "helpers/t_ctl.h"
#include "core/ctl.h"   /* pace_watchers: the gate's controller-wide fast exit */

#define MIB (1024ull * 1024)

/* Every test: qd 64, fast's target 1 ms, slow without one. */
static struct t_trio setup(unsigned flags)
{
	return t_trio_new(64, flags, 1 * T_MS);
}

/* Six misses, slow seeing each: max -> 32 -> 16 -> 8 -> 4 -> 2 -> 1. Returns
 * the time slow applied the last step (the calibration period starts there). */
static uint64_t to_depth1(struct t_trio *p)
{
	static const uint32_t depth[] = { 32, 16, 8, 4, 2, 1 };
	bool adaptive = iolat_ctl_now(p->ctl) && t_stat(p->root).probe_hold_ns != 0;

	for (unsigned k = 0; k < 6; k++) {
		t_miss(p->fast);
		t_poke(p->slow);
		assert_int_equal(t_depth(p->slow), depth[k]);
		assert_int_equal(t_stat(p->slow).last_step,
				 adaptive ? IOLAT_STEP_HALVE : IOLAT_STEP_NONE);
		assert_int_equal(t_stat(p->slow).rung, 0);
	}
	return t_now;
}

/* @n I/Os of @bytes through slow's gate, every @gap ns, each let through. */
static void feed(struct t_trio *p, unsigned n, uint64_t bytes, uint64_t gap)
{
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(iolat_group_pace_due(p->slow, bytes, t_now), 0);
		t_advance(gap);
	}
}

static uint64_t rate_of(uint64_t bytes, uint64_t ns)
{
	return bytes * 1000000 / (ns / 1000);
}

static void test_rungs_down(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	uint64_t t1, t2, base, r1, r2;

	(void)state;
	t1 = to_depth1(&p);
	/* Unpaced at depth 1: the gate lets everything through, counting it. */
	feed(&p, 8, 1 * MIB, 10 * T_MS);
	t_miss(p.fast);
	t2 = t_now;
	t_poke(p.slow);
	base = rate_of(8 * MIB, t2 - t1);
	assert_int_equal(t_depth(p.slow), 1);
	assert_int_equal(t_use_delay(p.slow), 1);
	assert_int_equal(t_stat(p.slow).rung, 1);
	assert_int_equal(t_stat(p.slow).last_step, IOLAT_STEP_RUNG_DOWN);
	assert_int_equal(t_stat(p.slow).pace_base_bps, base);
	r1 = t_stat(p.slow).pace_bps;
	/* 2^(-1/4) = 0.8409 of the base, to 0.1 %. */
	assert_true(r1 * 10000 >= base * 8400 && r1 * 10000 <= base * 8418);
	t_miss(p.fast);
	t_poke(p.slow);
	r2 = t_stat(p.slow).pace_bps;
	assert_int_equal(t_stat(p.slow).rung, 2);
	assert_int_equal(t_use_delay(p.slow), 2);
	assert_true(r2 * 10000 >= base * 7060 && r2 * 10000 <= base * 7080); /* 2^(-1/2) */
	/* The base is measured once per episode: rung 2 did not re-measure it. */
	assert_int_equal(t_stat(p.slow).pace_base_bps, base);
	assert_true(iolat_group_congested(p.slow));
	/* The asker is never paced. */
	assert_int_equal(t_stat(p.fast).rung, 0);
	assert_int_equal(iolat_group_pace_due(p.fast, 1 * MIB, t_now), 0);
	iolat_ctl_destroy(p.ctl);
}

static void test_gate_rate(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	uint64_t rate, cost, start, wait;

	(void)state;
	to_depth1(&p);
	feed(&p, 4, 1 * MIB, 50 * T_MS);
	t_miss(p.fast);
	t_poke(p.slow);
	rate = t_stat(p.slow).pace_bps;
	assert_true(rate > 0);
	cost = 1 * MIB * T_S / rate;
	/* One I/O goes at once; the next must wait its cost, to the ns. */
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), 0);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), cost);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now + cost - 1), 1);
	assert_int_equal(t_stat(p.slow).paced_ios, 2);
	/* Asking again when told to: 100 I/Os go at exactly the rate. */
	start = t_now;
	for (unsigned i = 0; i < 100; i++) {
		while ((wait = iolat_group_pace_due(p.slow, 1 * MIB, t_now)) != 0)
			t_advance(wait);
	}
	/* 1 (charged before start) + 100 I/Os: the 100th went 100 costs after start. */
	assert_int_equal(t_now - start, 100 * cost);
	/* Idle for 10 s: no credit builds up, only one I/O goes at once. */
	t_advance(10 * T_S);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), 0);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), cost);
	/* Bypass I/O never asks the gate in our callers; a child of a paced
	 * group is paced by it (the gate walks up). */
	iolat_ctl_destroy(p.ctl);
}

static void test_nested_gate(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, IOLAT_CTL_ADAPTIVE);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *sys = t_grp(ctl, NULL, "system", 0);
	struct iolat_group *pkg = t_grp(ctl, sys, "pkg", 0);
	uint64_t wait;

	(void)state;
	for (unsigned k = 0; k < 6; k++) {
		t_miss(fast);
		t_poke(pkg);
	}
	assert_int_equal(t_depth(sys), 1);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(iolat_group_pace_due(pkg, 1 * MIB, t_now), 0);
		t_advance(100 * T_MS);
	}
	t_miss(fast);
	t_poke(pkg);
	assert_int_equal(t_stat(sys).rung, 1);
	assert_int_equal(t_stat(pkg).rung, 0); /* pkg itself is not throttled */
	assert_int_equal(iolat_group_pace_due(pkg, 1 * MIB, t_now), 0);
	wait = iolat_group_pace_due(pkg, 1 * MIB, t_now);
	assert_int_equal(wait, 1 * MIB * T_S / t_stat(sys).pace_bps);
	assert_int_equal(t_stat(sys).paced_ios, 1);
	iolat_ctl_destroy(ctl);
}

/* After the rungs, passes pay rung and delay back before depth grows. */
static void test_rungs_up(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);

	(void)state;
	to_depth1(&p);
	feed(&p, 4, 1 * MIB, 50 * T_MS);
	t_miss(p.fast);
	t_poke(p.slow);
	t_miss(p.fast);
	t_poke(p.slow);
	assert_int_equal(t_stat(p.slow).rung, 2);
	/* Wait out any hold: each pass is then a step up (probe or up). */
	t_advance(40 * T_S);
	for (unsigned want = 1; want <= 2; want++) {
		t_pass(p.fast);
		t_poke(p.slow);
		assert_int_equal(t_stat(p.slow).rung, 2 - want);
		assert_int_equal(t_use_delay(p.slow), 2 - (int)want);
		assert_int_equal(t_depth(p.slow), 1);
		assert_int_equal(t_stat(p.slow).last_step, IOLAT_STEP_RUNG_UP);
		t_advance(40 * T_S);
	}
	assert_int_equal(t_stat(p.slow).pace_bps, 0);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), 0);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), 0);
	/* Only now does the depth grow (by qd/16, halved while probing). */
	t_pass(p.fast);
	t_poke(p.slow);
	assert_true(t_depth(p.slow) > 1);
	assert_int_equal(t_stat(p.slow).last_step, IOLAT_STEP_GROW);
	iolat_ctl_destroy(p.ctl);
}

/* The asker goes quiet: the next tick but one releases everything. */
static void test_release(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	uint64_t stop;

	(void)state;
	to_depth1(&p);
	feed(&p, 4, 1 * MIB, 50 * T_MS);
	t_miss(p.fast);
	t_poke(p.slow);
	assert_int_equal(t_stat(p.slow).rung, 1);
	stop = t_now;                /* fast's last I/O */
	t_advance(1 * T_S);
	iolat_ctl_tick(p.ctl);      /* the first look at fast counts as active */
	assert_int_equal(t_stat(p.slow).rung, 1);
	t_advance(1 * T_S);
	iolat_ctl_tick(p.ctl);      /* nothing since: release */
	assert_true(t_now - stop <= 2 * T_S);
	assert_int_equal(t_cookie_of(p.root), T_D);
	assert_int_equal(t_stat(p.root).probe_ceiling, 0);
	assert_int_equal(t_stat(p.root).last_decision, IOLAT_STEP_RESET);
	/* Applied to the children by the tick itself, not at their next I/O. */
	assert_int_equal(t_depth(p.slow), T_MAX);
	assert_int_equal(t_stat(p.slow).rung, 0);
	assert_int_equal(t_stat(p.slow).pace_bps, 0);
	assert_int_equal(t_use_delay(p.slow), 0);
	assert_int_equal(t_stat(p.slow).last_step, IOLAT_STEP_RELEASE);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), 0);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), 0);
	iolat_ctl_destroy(p.ctl);
}

/* The article mode under the same misses: kernel behaviour, no ladder. */
static void test_article_never_paces(void **state)
{
	struct t_trio p = setup(0);
	char line[256];

	(void)state;
	to_depth1(&p);
	feed(&p, 4, 1 * MIB, 50 * T_MS);
	for (unsigned k = 0; k < 3; k++) {
		t_miss(p.fast);
		t_poke(p.slow);
	}
	assert_int_equal(t_use_delay(p.slow), 3);
	assert_int_equal(t_stat(p.slow).rung, 0);
	assert_int_equal(t_stat(p.slow).pace_bps, 0);
	assert_int_equal(t_stat(p.slow).last_step, IOLAT_STEP_NONE);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), 0);
	assert_int_equal(iolat_group_pace_due(p.slow, 1 * MIB, t_now), 0);
	/* The io.stat line keeps the kernel's fields only. */
	assert_true(iolat_group_format_stat(p.slow, line, sizeof(line)) > 0);
	assert_null(strstr(line, "rung="));
	iolat_ctl_destroy(p.ctl);
}

/* The gate's fast exit counts the groups at depth 1; release and destroy
 * bring the count back, so the gate is one load again. */
static void test_watchers(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);

	(void)state;
	assert_int_equal(atomic_load(&p.ctl->pace_watchers), 0);
	to_depth1(&p);
	assert_int_equal(atomic_load(&p.ctl->pace_watchers), 1);
	t_miss(p.fast);
	t_poke(p.slow);  /* rung 0 -> no base measured: still at depth 1, watched */
	assert_int_equal(atomic_load(&p.ctl->pace_watchers), 1);
	assert_int_equal(iolat_group_destroy(p.slow), 0);
	assert_int_equal(atomic_load(&p.ctl->pace_watchers), 0);
	iolat_ctl_destroy(p.ctl);

	p = setup(IOLAT_CTL_ADAPTIVE);
	to_depth1(&p);
	t_advance(1 * T_S);
	iolat_ctl_tick(p.ctl);
	t_advance(1 * T_S);
	iolat_ctl_tick(p.ctl);
	assert_int_equal(t_depth(p.slow), T_MAX);
	assert_int_equal(atomic_load(&p.ctl->pace_watchers), 0);
	iolat_ctl_destroy(p.ctl);
}

static void test_stat_line_and_config(void **state)
{
	struct t_trio p = setup(IOLAT_CTL_ADAPTIVE);
	struct iolat_ctl_config cfg = { .flags = IOLAT_CTL_ADAPTIVE | IOLAT_CTL_COMPAT_TIMER };
	struct iolat_ctl *bad = NULL;
	char line[256];

	(void)state;
	to_depth1(&p);
	feed(&p, 4, 1 * MIB, 50 * T_MS);
	t_miss(p.fast);
	t_poke(p.slow);
	assert_true(iolat_group_format_stat(p.slow, line, sizeof(line)) > 0);
	assert_non_null(strstr(line, " rung=1 pace_bps="));
	assert_non_null(strstr(line, " step=rung_down hold_ms="));
	assert_string_equal(iolat_step_name(IOLAT_STEP_PROBE_FAIL), "probe_fail");
	assert_string_equal(iolat_step_name(IOLAT_STEP_COUNT), "?");
	iolat_ctl_destroy(p.ctl);
	assert_int_equal(iolat_ctl_create(&cfg, &bad), -EINVAL);
	assert_null(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rungs_down),
		cmocka_unit_test(test_gate_rate),
		cmocka_unit_test(test_nested_gate),
		cmocka_unit_test(test_rungs_up),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_article_never_paces),
		cmocka_unit_test(test_watchers),
		cmocka_unit_test(test_stat_line_and_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
