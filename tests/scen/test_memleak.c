/* SPDX-License-Identifier: MIT */
/*
 * test_memleak.c - the causal chain of the leaking-service scenario, one
 * link per test (docs/memleak-model.md, "The causal chain"):
 *  1. swap-outs of the leak's pages are SWAP I/O charged to the page's owner,
 *     whoever issues them, and bypass the owner's clamp at depth 1;
 *  2. delay is charged only while the level is throttled and only at a level
 *     with a target (the leak's own group has none: its parent is charged);
 *  3. congestion is use_delay on the group or an ancestor;
 *  4. the leak's sleep at a fault is at most 250 ms and counts as memory stall;
 *  5. PSI arithmetic (some/full shares, the 2 s averages, totals);
 *  6. oomd timing (rising_beyond, above + reclaim, swap_free, post-action rest);
 *  7. reclaim shares under memory.low (overage-proportional, 3:1);
 *  8. a kill frees frames and swap at once, with no I/O (in the model and in a run);
 *  9. the 5 % rule: a group whose only I/O is bypassed swap escapes use_delay
 *     with the kernel's count; recorded I/O beside it (the background service),
 *     or counting its bypassed I/O (IOLAT_CTL_BYPASS_SHARE), does not let it
 *     escape; in a run at 2x: the kernel's count lets the leak escape, the
 *     share holds it;
 * 10. oomd's per-cgroup rule (percgroup R4) kills the child of system under
 *     the most pressure, found from the figures alone (the leak, or the
 *     background service when it is the one stalled), never the web;
 * 11. the downtime: a reboot costs reboot + rejoin once, a killed web rejoin.
 * Plus: a run is deterministic (same seed, same figures).
 * Context: single-threaded cmocka program; virtual time only.
 */
#include <math.h>
#include <string.h>

#include "helpers/t_ctl.h"
#include "scen/memleak/memleak.h"
#include "sim/mem.h"
#include "sim/oomd.h"
#include "sim/psi.h"
#include "sim/reclaim.h"

/* A small machine so that a run takes a fraction of a second. */
static void small_config(struct iolat_ml_config *c, enum iolat_ml_mode mode, double speed, bool bg)
{
	iolat_ml_defaults(c, "hdd");
	c->mode = mode;
	c->speed = speed;
	c->bg = bg;
	c->mem_bytes = 6ull << 30;
	c->swap_bytes = 2ull << 30;
	c->baseline_ns = 10 * T_S;
	c->timeout_ns = 90 * T_S;
	c->recovery_ns = 10 * T_S;
}

static struct iolat_ml_result *run_config(const struct iolat_ml_config *c)
{
	struct iolat_ml_result *r = NULL;
	char err[256] = "";

	assert_int_equal(iolat_ml_run(c, &r, err, sizeof(err)), 0);
	assert_non_null(r);
	return r;
}

static struct iolat_ml_result *run_small(enum iolat_ml_mode mode, double speed, bool bg)
{
	struct iolat_ml_config c;

	small_config(&c, mode, speed, bg);
	return run_config(&c);
}

/* ---- 1: owner-charged swap bypasses at depth 1 ---- */

static void test_link1_swap_bypass_at_depth1(void **state)
{
	struct iolat_ml_result *blk = run_small(IOLAT_ML_BLOCK, 0.5, true);
	struct iolat_ml_result *nob = run_small(IOLAT_ML_NOBYPASS, 0.5, true);

	/* The web's workers wrote some of the leak's pages in direct reclaim;
	 * every write of a page was charged to its owner's group: the leak's
	 * group bypassed exactly as many I/Os as its pages were written, the
	 * web's exactly as many as its own pages. */
	assert_true(blk->hog_swap_by_web > 0);
	assert_int_equal(blk->nr_bypass_hog, blk->swap_of_hog);
	assert_int_equal(blk->nr_bypass_wl, blk->swap_of_wl);
	assert_int_equal(blk->swap_of_hog + blk->swap_of_wl + blk->swap_of_bg, blk->swap_writes);
	/* system reached depth 1 while the leak's pages were being written... */
	assert_true(blk->hog_swap_at_depth1 > 0);
	/* ...and not one swap write waited for a slot. */
	assert_int_equal(blk->swap_waited, 0);
	/* Without the bypass the same writes queue behind the clamp. */
	assert_int_equal(nob->nr_bypass_hog, 0);
	assert_true(nob->swap_waited > 0);
	iolat_ml_result_free(blk);
	iolat_ml_result_free(nob);
}

/* ---- 2: the charge: only throttled, only at a level with a target ---- */

struct fam {
	struct iolat_ctl *ctl;
	struct iolat_group *web, *sys, *hog, *loose;
};

/* qd 2: web (1 ms) misses until sys (10 ms, with a child hog without a
 * target) is at depth 1; loose is a top-level group without a target. */
static struct fam family(void)
{
	struct fam f;

	f.ctl = t_ctl_new(2, 0, 0);
	f.web = t_grp(f.ctl, NULL, "workload", 1 * T_MS);
	f.sys = t_grp(f.ctl, NULL, "system", 10 * T_MS);
	f.hog = t_grp(f.ctl, f.sys, "hog", 0);
	f.loose = t_grp(f.ctl, NULL, "loose", 0);
	return f;
}

static void throttle_sys(struct fam *f)
{
	t_miss(f->web);
	assert_true(t_window(f->sys, 10, 100 * T_US, 0, 0, 0));
	t_miss(f->web);
	t_poke(f->sys);
	t_poke(f->hog);
	t_poke(f->loose);
	assert_int_equal(t_depth(f->sys), 1);
}

static void test_link2_charge_throttled_with_target(void **state)
{
	struct fam f = family();

	/* Unthrottled: a swap write is recorded, nothing charged. */
	t_fill(f.hog, 1, 2 * T_MS, IOLAT_IO_SWAP);
	assert_int_equal(t_stat(f.sys).delay_ns, 0);
	assert_int_equal(t_stat(f.hog).delay_ns, 0);
	throttle_sys(&f);
	/* Throttled: each write under system's target charges target - lat to
	 * system (the level with the target), none to the leak's own group. */
	t_fill(f.hog, 3, 2 * T_MS, IOLAT_IO_SWAP);
	assert_int_equal(t_stat(f.sys).delay_ns, 3 * (10 * T_MS - 2 * T_MS));
	assert_int_equal(t_stat(f.hog).delay_ns, 0);
	/* A throttled top-level group without a target is never charged. */
	assert_int_not_equal(t_depth(f.loose), T_MAX);
	t_fill(f.loose, 3, 2 * T_MS, IOLAT_IO_SWAP);
	assert_int_equal(t_stat(f.loose).delay_ns, 0);
	iolat_ctl_destroy(f.ctl);
}

/* ---- 3: congestion includes ancestors ---- */

static void test_link3_congested_ancestors(void **state)
{
	struct fam f = family();

	throttle_sys(&f);
	assert_false(iolat_group_congested(f.hog));
	t_miss(f.web);
	t_poke(f.sys);
	assert_int_equal(t_use_delay(f.sys), 1);
	assert_int_equal(t_use_delay(f.hog), 0);
	assert_true(iolat_group_congested(f.hog));     /* through its parent */
	assert_false(iolat_group_congested(f.web));
	t_pass(f.web);
	t_poke(f.sys);
	assert_int_equal(t_use_delay(f.sys), 0);
	assert_false(iolat_group_congested(f.hog));
	iolat_ctl_destroy(f.ctl);
}

/* ---- 4: the leak's sleep: bounded, counted as memory stall ---- */

static void test_link4_hog_sleep_bounded_memstall(void **state)
{
	struct iolat_ml_result *full = run_small(IOLAT_ML_FULL, 0.5, true);
	struct iolat_ml_result *blk = run_small(IOLAT_ML_BLOCK, 0.5, true);
	bool congested = false;

	for (size_t i = 0; i < full->nr_samples; i++) {
		congested |= full->samples[i].hog_congested;
		/* congested only with use_delay on system (the ancestor) */
		if (full->samples[i].hog_congested)
			assert_true(full->samples[i].sys_use_delay > 0);
	}
	assert_true(congested);
	assert_true(full->hog_slept_s > 0);
	assert_true(full->hog_max_sleep_ns > 0);
	assert_true(full->hog_max_sleep_ns <= IOLAT_DELAY_CAP_NS);
	/* every second slept is a second of the leak's memory stall */
	assert_true(full->hog_stall_s >= full->hog_slept_s - 1e-9);
	/* the block side alone never makes the leak sleep */
	assert_true(blk->hog_slept_s == 0);
	iolat_ml_result_free(full);
	iolat_ml_result_free(blk);
}

/* ---- 5: PSI arithmetic ---- */

static void test_link5_psi(void **state)
{
	struct iolat_psi p;
	double some, full;
	uint64_t t = 0;

	iolat_psi_init(&p, 16, t);
	iolat_psi_change(&p, t, 1, 1, 0);     /* one task, memory-stalled */
	for (int k = 1; k <= 30; k++) {
		t += IOLAT_PSI_PERIOD_NS;
		iolat_psi_update_avgs(&p, t);
		assert_true(fabs(p.some[IOLAT_PSI_AVG10] - 100.0 * (1 - exp(-2.0 * k / 10))) < 1e-6);
		assert_true(fabs(p.full[IOLAT_PSI_AVG60] - 100.0 * (1 - exp(-2.0 * k / 60))) < 1e-6);
		assert_true(fabs(p.full[IOLAT_PSI_AVG300] - 100.0 * (1 - exp(-2.0 * k / 300))) < 1e-6);
	}
	assert_int_equal(iolat_psi_total_us(&p, 1), 60ull * 1000000);
	/* beside two tasks waiting for I/O: a third of the group's CPUs */
	iolat_psi_change(&p, t, 2, 0, 0);
	iolat_psi_fractions(&p, &some, &full);
	assert_true(fabs(some - 1.0 / 3) < 1e-12 && fabs(full - 1.0 / 3) < 1e-12);
	/* 20 stalled + 4 running on 16 CPUs: some = 1; full = (16 - 4) / 16 */
	iolat_psi_init(&p, 16, t);
	iolat_psi_change(&p, t, 24, 20, 4);
	iolat_psi_fractions(&p, &some, &full);
	assert_true(some == 1.0 && fabs(full - 0.75) < 1e-12);
	/* a late update decays the missed periods, then folds the span once */
	iolat_psi_init(&p, 1, 0);
	iolat_psi_update_avgs(&p, 3 * IOLAT_PSI_PERIOD_NS);
	assert_true(p.some[IOLAT_PSI_AVG10] == 0);
	iolat_psi_change(&p, 3 * IOLAT_PSI_PERIOD_NS, 1, 1, 0);
	iolat_psi_update_avgs(&p, 6 * IOLAT_PSI_PERIOD_NS);
	assert_true(fabs(p.some[IOLAT_PSI_AVG10] - 100.0 * (1 - exp(-0.2))) < 1e-6);
}

/* ---- 6: oomd timing ---- */

struct box {
	struct iolat_mem m;
	struct iolat_psi psi[IOLAT_MEM_MAX_GROUPS];
	int wl, sys, hog, bg;
};

static void box_init(struct box *b, uint64_t slots)
{
	assert_int_equal(iolat_mem_init(&b->m, 1000, (uint32_t)slots, 2000, 10, 12, 14), 0);
	b->wl = iolat_mem_add_group(&b->m, "workload", -1, 0);
	b->sys = iolat_mem_add_group(&b->m, "system", -1, 0);
	b->hog = iolat_mem_add_group(&b->m, "system/hog", b->sys, 0);
	b->bg = iolat_mem_add_group(&b->m, "system/bg", b->sys, 0);
	for (int i = 0; i < b->m.nr_groups; i++)
		iolat_psi_init(&b->psi[i], 16, 0);
}

static void give(struct box *b, int g, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t u = iolat_mem_new_unit(&b->m, g, false);

		assert_true(iolat_mem_take_frame(&b->m));
		iolat_mem_map(&b->m, u);
	}
}

/* The first whole second t at which avg60 of a constant full stall, updated
 * every 2 s, exceeds @thr; then the rule fires once it held @dur seconds. */
static uint64_t predicted_fire_s(double thr, uint64_t dur)
{
	for (uint64_t k = 1;; k++)
		if (100.0 * (1 - exp(-2.0 * (double)k / 60)) > thr)
			return 2 * k + dur;
}

static uint64_t run_oomd(struct box *b, enum iolat_oomd_preset preset, int *victim, const char **rule)
{
	struct iolat_oomd o;

	iolat_oomd_init(&o, preset, true, &b->m, b->psi, 0);
	for (uint64_t s = 1; s <= 600; s++) {
		uint64_t now = s * T_S;

		if (s % 2 == 0)
			for (int i = 0; i < b->m.nr_groups; i++)
				iolat_psi_update_avgs(&b->psi[i], now);
		if (preset != IOLAT_OOMD_FB2018)
			b->m.groups[b->sys].scanned++;  /* reclaim keeps taking from system */
		*victim = iolat_oomd_poll(&o, now);
		if (*victim >= 0) {
			*rule = o.fired;
			return s;
		}
	}
	return 0;
}

static void test_link6_oomd_timing(void **state)
{
	struct box b;
	const char *rule = NULL;
	int victim;
	uint64_t s;

	/* fb2018 R2: system full avg60 > 80 for 30 s (and avg10 > 80, not falling). */
	box_init(&b, 100);
	give(&b, b.hog, 600);
	give(&b, b.bg, 20);
	iolat_psi_change(&b.psi[b.sys], 0, 1, 1, 0);
	iolat_psi_change(&b.psi[b.hog], 0, 1, 1, 0);
	s = run_oomd(&b, IOLAT_OOMD_FB2018, &victim, &rule);
	assert_int_equal(s, predicted_fire_s(80, 30));
	assert_int_equal(victim, b.hog);            /* SIZE: >= 50 % of system's children */
	assert_non_null(strstr(rule, "R2"));
	iolat_mem_destroy(&b.m);

	/* resctl: avg10 > 50 for 30 s with reclaim in the last 10 s. */
	box_init(&b, 100);
	give(&b, b.hog, 600);
	iolat_psi_change(&b.psi[b.sys], 0, 1, 1, 0);
	s = run_oomd(&b, IOLAT_OOMD_RESCTL, &victim, &rule);
	{
		uint64_t k = 1;

		while (100.0 * (1 - exp(-2.0 * (double)k / 10)) <= 50)
			k++;
		assert_int_equal(s, 2 * k + 30);
	}
	assert_int_equal(victim, b.hog);
	iolat_mem_destroy(&b.m);

	/* swap_free < 15 %: at once, the group with the most swap. */
	box_init(&b, 100);
	give(&b, b.hog, 100);
	give(&b, b.bg, 10);
	for (uint32_t u = 0; u < 90; u++) {
		iolat_mem_lru_del(&b.m, u);
		assert_int_not_equal(iolat_mem_begin_swapout(&b.m, u), IOLAT_MEM_NONE);
		iolat_mem_end_swapout(&b.m, u);
	}
	s = run_oomd(&b, IOLAT_OOMD_FB2018, &victim, &rule);
	assert_int_equal(s, 1);
	assert_int_equal(victim, b.hog);
	assert_non_null(strstr(rule, "swap"));
	iolat_mem_destroy(&b.m);
}

/* ---- 10: oomd's per-cgroup rule finds the stalled child ---- */

/* One task of @g stalled on memory from time 0 (counted in its ancestors too,
 * as a cgroup's pressure includes its children's); @iowait more of its tasks
 * waiting for I/O (nonidle, not stalled). */
static void stall(struct box *b, int g, int iowait)
{
	for (int a = g; a >= 0; a = b->m.groups[a].parent)
		iolat_psi_change(&b->psi[a], 0, 1 + iowait, 1, 0);
}

static void test_link10_percgroup_rule(void **state)
{
	struct box b;
	const char *rule = NULL;
	int victim, k = 1;
	uint64_t s;

	/* avg10 of a constant full stall first exceeds 60 at the k-th 2 s update. */
	while (100.0 * (1 - exp(-2.0 * k / 10)) <= 60)
		k++;
	/* The leak stalled, the background service's two tasks waiting for I/O:
	 * system's own full pressure is a third (R1, R2 stay quiet), the leak's
	 * 100 %: R4 fires 30 s after its avg10 passes 60, and picks the leak. */
	box_init(&b, 100);
	give(&b, b.hog, 100);
	give(&b, b.bg, 600);   /* bigger: a size ranking would pick the service */
	stall(&b, b.hog, 0);
	for (int a = b.bg; a >= 0; a = b.m.groups[a].parent)
		iolat_psi_change(&b.psi[a], 0, 2, 0, 0);
	s = run_oomd(&b, IOLAT_OOMD_PERCGROUP, &victim, &rule);
	assert_int_equal(s, 2 * (uint64_t)k + 30);
	assert_int_equal(victim, b.hog);
	assert_non_null(strstr(rule, "R4"));
	iolat_mem_destroy(&b.m);

	/* The same figures on the other child: the rule names no group, so it
	 * is now the background service that goes. */
	box_init(&b, 100);
	give(&b, b.hog, 600);
	give(&b, b.bg, 100);
	stall(&b, b.bg, 0);
	s = run_oomd(&b, IOLAT_OOMD_PERCGROUP, &victim, &rule);
	assert_int_equal(s, 2 * (uint64_t)k + 30);
	assert_int_equal(victim, b.bg);
	iolat_mem_destroy(&b.m);

	/* The web stalled alone: not a child of system; nothing fires in 600 s
	 * (R1 needs system above 40 as well). */
	box_init(&b, 100);
	give(&b, b.wl, 600);
	stall(&b, b.wl, 0);
	assert_int_equal(run_oomd(&b, IOLAT_OOMD_PERCGROUP, &victim, &rule), 0);
	iolat_mem_destroy(&b.m);

	/* kill_by_pressure's rank: (int)(avg10 / 2 + avg60 / 2), a tie to the first. */
	box_init(&b, 100);
	{
		struct iolat_oomd o;

		iolat_oomd_init(&o, IOLAT_OOMD_PERCGROUP, true, &b.m, b.psi, 0);
		b.psi[b.hog].full[IOLAT_PSI_AVG10] = 41.9;
		b.psi[b.hog].full[IOLAT_PSI_AVG60] = 20.0;  /* 30.95 -> 30 */
		b.psi[b.bg].full[IOLAT_PSI_AVG10] = 30.0;
		b.psi[b.bg].full[IOLAT_PSI_AVG60] = 31.0;   /* 30.5 -> 30: a tie */
		assert_int_equal(iolat_oomd_pick_pressure(&o, b.sys), b.hog);
		b.psi[b.bg].full[IOLAT_PSI_AVG60] = 32.0;   /* 31 */
		assert_int_equal(iolat_oomd_pick_pressure(&o, b.sys), b.bg);
	}
	iolat_mem_destroy(&b.m);
}

/* ---- 11: the downtime the way the article counts it ---- */

static void test_link11_downtime(void **state)
{
	struct iolat_ml_config c;
	struct iolat_ml_result *r;

	small_config(&c, IOLAT_ML_STOCK, 1.0, true);
	c.reboot_ns = 7 * T_S;
	c.rejoin_ns = 11 * T_S;
	assert_true(iolat_ml_outage_s(&c, true, false) == 18.0);
	assert_true(iolat_ml_outage_s(&c, true, true) == 18.0);   /* once */
	assert_true(iolat_ml_outage_s(&c, false, true) == 11.0);  /* the web restarted */
	assert_true(iolat_ml_outage_s(&c, false, false) == 0.0);
	/* A stock box below 10 % of its baseline for 20 s is rebooted: the run
	 * ends there, and the reboot and the rejoin are charged once. */
	c.reboot_after_ns = 20 * T_S;
	c.stock_timeout_ns = 600 * T_S;
	r = run_config(&c);
	assert_true(r->killed);
	assert_string_equal(r->killer, "health-check reboot");
	assert_true(r->kill_s < 90);
	assert_true(r->outage_s == 18.0);
	assert_true(r->thrash_s >= 20 && r->thrash_s <= r->kill_s);
	assert_true(r->downtime_s == r->thrash_s + r->outage_s);
	assert_true(r->samples[r->nr_samples - 1].t_s <= r->kill_s);   /* nothing after it */
	iolat_ml_result_free(r);
	/* Full mode: nothing rebooted, nothing charged. */
	small_config(&c, IOLAT_ML_FULL, 1.0, true);
	r = run_config(&c);
	assert_true(r->outage_s == 0.0 && r->downtime_s == r->thrash_s);
	iolat_ml_result_free(r);
}

/* ---- 7: reclaim shares under memory.low ---- */

static void test_link7_reclaim_low_shares(void **state)
{
	struct iolat_mem m;
	struct iolat_rng rng;
	struct iolat_reclaim_cfg c = { .swappiness = 60, .honour_low = true };
	unsigned n[3] = { 0 };
	int a, b;

	/* F1's example: A at 3 with low 2 (overage 1), B at 3 unprotected (3). */
	assert_int_equal(iolat_mem_init(&m, 10000, 100, 10000, 1, 2, 3), 0);
	a = iolat_mem_add_group(&m, "a", -1, 2000);
	b = iolat_mem_add_group(&m, "b", -1, 0);
	for (int i = 0; i < 3000; i++) {
		uint32_t ua = iolat_mem_new_unit(&m, a, true), ub = iolat_mem_new_unit(&m, b, true);

		iolat_mem_take_frame(&m);
		iolat_mem_map(&m, ua);
		iolat_mem_take_frame(&m);
		iolat_mem_map(&m, ub);
	}
	iolat_rng_seed(&rng, 7, 1);
	for (int i = 0; i < 40000; i++)
		n[iolat_reclaim_pick_group(&m, &c, &rng)]++;
	assert_true((double)n[b] / n[a] > 2.8 && (double)n[b] / n[a] < 3.2);
	/* Without memory.low (stock) both weigh their usage: 1:1. */
	c.honour_low = false;
	n[a] = n[b] = 0;
	for (int i = 0; i < 40000; i++)
		n[iolat_reclaim_pick_group(&m, &c, &rng)]++;
	assert_true((double)n[b] / n[a] > 0.93 && (double)n[b] / n[a] < 1.07);
	/* Nobody above low: protection gives way, by usage. */
	c.honour_low = true;
	m.groups[b].low = 5000;
	m.groups[a].low = 5000;
	assert_int_not_equal(iolat_reclaim_pick_group(&m, &c, &rng), -1);
	/* CLOCK: a referenced unit gets a second chance; the victim is the
	 * oldest unreferenced one, and it is counted as scanned. */
	m.groups[a].low = 0;
	m.groups[b].low = 1000000;
	{
		uint32_t head = m.groups[a].lru[IOLAT_MEM_FILE].head, u;

		m.units[head].flags &= ~IOLAT_MU_REF;
		u = iolat_reclaim_pick(&m, &c, &rng);
		assert_true(u == head || (int)m.units[u].group == b);
	}
	iolat_mem_destroy(&m);
}

/* ---- 8: a kill frees frames and swap at once, with no I/O ---- */

static void test_link8_kill_frees(void **state)
{
	struct box b;
	uint64_t free0, slots0;
	uint32_t wb;

	box_init(&b, 100);
	give(&b, b.wl, 100);
	give(&b, b.hog, 200);
	/* 50 of the leak's units in swap, one more under writeback */
	for (uint32_t u = 100; u < 150; u++) {
		iolat_mem_lru_del(&b.m, u);
		iolat_mem_begin_swapout(&b.m, u);
		iolat_mem_end_swapout(&b.m, u);
	}
	wb = 150;
	iolat_mem_lru_del(&b.m, wb);
	iolat_mem_begin_swapout(&b.m, wb);
	free0 = b.m.free;
	slots0 = b.m.slots_used;
	assert_int_equal(slots0, 51);
	assert_int_equal(b.m.writeback, 1);
	/* The kill: 149 resident units freed now, 50 slots back; nothing new
	 * goes under I/O (writeback stays at the one already in flight). */
	assert_int_equal(iolat_mem_kill_group(&b.m, b.sys), 149);
	assert_int_equal(b.m.free, free0 + 149);
	assert_int_equal(b.m.slots_used, 1);
	assert_int_equal(b.m.writeback, 1);
	assert_int_equal(b.m.groups[b.hog].usage, 1);
	assert_false(b.m.groups[b.hog].alive);
	assert_true(b.m.groups[b.wl].alive);
	assert_int_equal(b.m.groups[b.wl].usage, 100);
	/* the write in flight completes normally: its frame and slot go back */
	iolat_mem_end_swapout(&b.m, wb);
	assert_int_equal(b.m.free, free0 + 150);
	assert_int_equal(b.m.slots_used, 0);
	assert_int_equal(b.m.groups[b.sys].usage, 0);
	assert_int_equal(b.m.groups[b.sys].swap, 0);
	iolat_mem_destroy(&b.m);
}

/* The same in a run: oomd's kill of the leak issues no I/O, its memory and
 * swap are back by the next sample, and none of its pages is written after. */
static void test_link8_kill_in_a_run(void **state)
{
	struct iolat_ml_result *r = run_small(IOLAT_ML_NONE, 1.0, true);
	const struct iolat_ml_sample *before = NULL, *after = NULL;

	assert_true(r->killed);
	assert_string_equal(r->victim, "system/hog");
	assert_int_equal(r->io_at_kill, 0);
	assert_int_equal(r->swap_after_kill, 0);
	for (size_t i = 0; i < r->nr_samples; i++) {
		/* samples and polls share whole seconds: skip the kill's own */
		if (r->samples[i].t_s < r->kill_s - 0.5)
			before = &r->samples[i];
		else if (r->samples[i].t_s > r->kill_s + 0.5 && !after)
			after = &r->samples[i];
	}
	assert_non_null(before);
	assert_non_null(after);
	assert_true(before->hog_mib > 0 && before->hog_swap_mib > 0);
	assert_true(after->hog_mib < 1.0);                 /* at most a write in flight */
	assert_true(after->hog_swap_mib < 1.0);
	assert_true(after->swap_mib < before->swap_mib - before->hog_swap_mib / 2);
	assert_true(after->free_mib > before->free_mib + before->hog_mib / 2);
	iolat_ml_result_free(r);
}

/* ---- 9: the 5 % rule and an all-bypass group ---- */

/*
 * The web misses window after window (a scale event every 600 ms). system's
 * only I/O is the leak's swap (8 writes a round: recorded while system is
 * unthrottled, bypassed and NOT recorded once it is throttled), plus
 * @bg_ios recorded I/Os of its background service, one after the other.
 * Each of system's windows closes more than 500 ms after the last scale
 * event, so its carried stat is reset and its sample count is that window's.
 * @flags: the controller's (IOLAT_CTL_BYPASS_SHARE or 0).
 * Return: system's use_delay at the end; *depth: its depth.
 */
static int five_pct(unsigned bg_ios, unsigned flags, uint32_t *depth)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, flags);
	struct iolat_group *web = t_grp(ctl, NULL, "workload", 1 * T_MS);
	struct iolat_group *sys = t_grp(ctl, NULL, "system", 10 * T_MS);
	struct iolat_group *hog = t_grp(ctl, sys, "hog", 0);
	struct iolat_group *bg = t_grp(ctl, sys, "bg", 0);
	int ud;

	for (int i = 0; i < 40; i++) {
		t_miss(web);
		t_fill(hog, 8, 2 * T_MS, IOLAT_IO_SWAP);
		for (unsigned k = 0; k < bg_ios; k++)
			t_fill(bg, 1, 2 * T_MS, 0);
		t_advance(600 * T_MS);
		(void)t_close(sys);
	}
	ud = t_use_delay(sys);
	*depth = t_depth(sys);
	iolat_ctl_destroy(ctl);
	return ud;
}

static void test_link9_five_pct_rule(void **state)
{
	uint32_t depth;

	/* The pure leak: once throttled its swap is not recorded, its sample
	 * count drops to 0, the 5 % rule spares it from then on: it stops
	 * short of depth 1 and never reaches use_delay (never congested). */
	assert_int_equal(five_pct(0, 0, &depth), 0);
	assert_true(depth > 1 && depth < 64);
	/* With the background service's recorded I/O beside it, it goes down
	 * to depth 1 and on to use_delay: the leak is congested. */
	assert_true(five_pct(2, 0, &depth) > 0);
	assert_int_equal(depth, 1);
	/* Counting its bypassed swap as its share of the I/O, the pure leak is
	 * not spared either. */
	assert_true(five_pct(0, IOLAT_CTL_BYPASS_SHARE, &depth) > 0);
	assert_int_equal(depth, 1);
}

/* The >= 1x escape in a run: at 2x, with the kernel's count, the background
 * service starves behind the leak's bypassed swap (system's slots), system
 * records nothing, is spared at every scale-down and the leak hardly sleeps;
 * with the share the leak is throttled and the web keeps far more. */
static void test_link9_escape_in_a_run(void **state)
{
	struct iolat_ml_config c;
	struct iolat_ml_result *kern, *share;

	small_config(&c, IOLAT_ML_FULL, 2.0, true);
	c.oomd = 0;   /* off: the leak lives the whole run */
	c.kernel_five_pct = true;
	kern = run_config(&c);
	c.kernel_five_pct = false;
	share = run_config(&c);
	assert_true(kern->hog_slept_s * 5 < share->hog_slept_s);
	assert_true(share->hog_slept_s > 30.0);
	assert_true(share->isol_mean > kern->isol_mean + 0.3);
	iolat_ml_result_free(kern);
	iolat_ml_result_free(share);
}

/* ---- determinism ---- */

static void test_deterministic(void **state)
{
	struct iolat_ml_result *a = run_small(IOLAT_ML_FULL, 1.0, true);
	struct iolat_ml_result *b = run_small(IOLAT_ML_FULL, 1.0, true);

	assert_int_equal(a->nr_samples, b->nr_samples);
	assert_int_equal(a->events, b->events);
	assert_memory_equal(a->samples, b->samples, a->nr_samples * sizeof(*a->samples));
	assert_true(a->isol_mean == b->isol_mean && a->kill_s == b->kill_s);
	iolat_ml_result_free(a);
	iolat_ml_result_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link1_swap_bypass_at_depth1),
		cmocka_unit_test(test_link2_charge_throttled_with_target),
		cmocka_unit_test(test_link3_congested_ancestors),
		cmocka_unit_test(test_link4_hog_sleep_bounded_memstall),
		cmocka_unit_test(test_link5_psi),
		cmocka_unit_test(test_link6_oomd_timing),
		cmocka_unit_test(test_link7_reclaim_low_shares),
		cmocka_unit_test(test_link8_kill_frees),
		cmocka_unit_test(test_link8_kill_in_a_run),
		cmocka_unit_test(test_link9_five_pct_rule),
		cmocka_unit_test(test_link9_escape_in_a_run),
		cmocka_unit_test(test_link10_percgroup_rule),
		cmocka_unit_test(test_link11_downtime),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
