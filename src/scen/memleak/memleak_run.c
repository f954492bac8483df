/* SPDX-License-Identifier: MIT */
/*
 * memleak_run.c - the leaking-service scenario (memleak.h): the
 * configuration checked (its words and defaults are memleak_config.c's),
 * calibration, set-up of the device, controller, memory, PSI and oomd; the
 * periodic work (controller tick, PSI averages, oomd poll, health checker,
 * samples); kills; the run's figures; the CSV series.
 * Context: one thread per run; all state is local to the run.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scen/memleak/memleak_int.h"
#include "sim/registry.h"
#include "util/errmsg.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define ML_T0_NS (1000ull * ML_NS_PER_S)
#define CAL_WRITES_INFLIGHT 32
#define CAL_READS 200
#define NCPU 16

/* ---- calibration on a fresh device ---- */

struct cal {
	struct iolat_sim_dev *dev;
	struct iolat_sim_req req[CAL_WRITES_INFLIGHT];
	uint64_t next_off, bytes_after, t_measure;
	bool writing;
	struct iolat_hist h;
	struct iolat_rng rng;
	int reads_left;
};

static void cal_done(struct iolat_sim_req *r, uint64_t now)
{
	struct cal *c = r->owner;

	if (c->writing) {
		if (now >= c->t_measure)
			c->bytes_after += r->len;
		if (now < c->t_measure + 2 * ML_NS_PER_S) {
			r->off = c->next_off;
			c->next_off += r->len;
			iolat_sim_dev_submit(c->dev, r);
		}
		return;
	}
	iolat_hist_add(&c->h, now - r->queued_ns);
	if (--c->reads_left > 0) {
		r->off = iolat_rng_below(&c->rng, (16 * GIB) / IOLAT_MEM_UNIT_BYTES) * IOLAT_MEM_UNIT_BYTES;
		iolat_sim_dev_submit(c->dev, r);
	}
}

static int cal_dev(const char *device, uint64_t seed, struct iolat_sim_evq *q, struct iolat_sim_dev **dev)
{
	const struct iolat_sim_model *m = iolat_sim_model_find(device);
	struct iolat_sim_dev_config cfg = { .model = m, .seed = seed };
	size_t bad;

	if (!m)
		return -EINVAL;
	if (iolat_sim_evq_init(q, ML_T0_NS))
		return -ENOMEM;
	return iolat_sim_dev_create(&cfg, q, dev, &bad, NULL);
}

int iolat_ml_calibrate(const char *device, uint64_t seed, double *wbps, uint64_t *read_p90_ns)
{
	struct iolat_sim_evq q;
	struct cal *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	/* 1. the write bandwidth: 128 KiB sequential writes, 32 in flight,
	 * measured over 2 s after 1 s (past any write-buffer burst). */
	ret = cal_dev(device, seed, &q, &c->dev);
	if (ret)
		goto out;
	c->writing = true;
	c->t_measure = ML_T0_NS + ML_NS_PER_S;
	for (int i = 0; i < CAL_WRITES_INFLIGHT; i++) {
		c->req[i] = (struct iolat_sim_req){ .off = c->next_off, .len = IOLAT_MEM_UNIT_BYTES,
						    .write = true, .complete = cal_done, .owner = c };
		c->next_off += IOLAT_MEM_UNIT_BYTES;
		iolat_sim_dev_submit(c->dev, &c->req[i]);
	}
	while (iolat_sim_evq_step(&q))
		;
	*wbps = (double)c->bytes_after / 2.0;
	iolat_sim_dev_destroy(c->dev);
	iolat_sim_evq_destroy(&q);
	/* 2. the unloaded p90 of 128 KiB random reads over the web's data. */
	ret = cal_dev(device, seed + 1, &q, &c->dev);
	if (ret)
		goto out;
	c->writing = false;
	iolat_hist_reset(&c->h);
	iolat_rng_seed(&c->rng, seed, 301);
	c->reads_left = CAL_READS;
	c->req[0] = (struct iolat_sim_req){ .off = 0, .len = IOLAT_MEM_UNIT_BYTES,
					    .complete = cal_done, .owner = c };
	iolat_sim_dev_submit(c->dev, &c->req[0]);
	while (iolat_sim_evq_step(&q))
		;
	*read_p90_ns = iolat_hist_percentile(&c->h, 90);
	iolat_sim_dev_destroy(c->dev);
	iolat_sim_evq_destroy(&q);
out:
	free(c);
	return ret;
}

/* ---- kills ---- */

void ml_kill(struct ml *ml, int mg, const char *who, uint64_t now)
{
	struct iolat_ml_result *r = ml->res;
	uint64_t submits = ml->mm.nr_submits;

	if (mg < 0 || !ml->mm.mem.groups[mg].alive)
		return;
	iolat_mem_kill_group(&ml->mm.mem, mg);
	if (iolat_mem_is_ancestor(&ml->mm.mem, mg, ml->mg_hog))
		ml_hog_kill(ml, now);
	if (ml->bg && iolat_mem_is_ancestor(&ml->mm.mem, mg, ml->mg_bg))
		ml_bg_kill(ml, now);
	if (iolat_mem_is_ancestor(&ml->mm.mem, mg, ml->mg_wl)) {
		ml_web_kill(ml, now);
		ml->web_killed = true;   /* an outage: the run ends at the next sample */
	}
	if (!ml->kill_at) {
		ml->kill_at = now;
		r->killed = true;
		snprintf(r->killer, sizeof(r->killer), "%s", who);
		snprintf(r->victim, sizeof(r->victim), "%s", ml->mm.mem.groups[mg].name);
	}
	iolat_mm_frames_freed(&ml->mm, now);
	/* The kill itself issues no I/O (what it frees needs none). */
	ml->io_at_kill += ml->mm.nr_submits - submits;
}

/* The kernel's OOM killer (sim/mm.c) chose @mg. */
static void oom_kill(struct iolat_mm *mm, int mg, uint64_t now)
{
	ml_kill(mm->owner, mg, "kernel OOM", now);
}

/* The scenario's own counts of a swap-out: who issued it, the leak's pages. */
static void count_swapout(struct iolat_mm *mm, uint32_t u, const struct iolat_mm_task *t)
{
	struct ml *ml = mm->owner;
	struct iolat_group_stat st;

	ml->swap_by[!t ? 2 : t->mg == ml->mg_wl ? 0 : 1]++;
	if ((int)mm->mem.units[u].group != ml->mg_hog)
		return;
	if (t && t->mg == ml->mg_wl)
		ml->hog_swap_by_web++;
	if (!iolat_group_stat(ml->g_sys, &st) && st.depth == 1)
		ml->hog_swap_at_depth1++;
}

static const struct iolat_mm_ops mm_ops = { .oom_kill = oom_kill, .swapout = count_swapout };

/* ---- periodic work ---- */

static void stop(struct ml *ml)
{
	ml->stopped = true;
	ml->mm.stopped = true;
}

static void ctl_tick_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml *ml = arg;

	iolat_ctl_tick(ml->ctl);
	if (!ml->stopped)
		iolat_sim_evq_after(&ml->q, ML_NS_PER_S, ctl_tick_ev, ml, 0);
}

static void psi_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml *ml = arg;

	for (int i = 0; i < ml->mm.mem.nr_groups; i++)
		iolat_psi_update_avgs(&ml->mm.psi[i], now);
	if (!ml->stopped)
		iolat_sim_evq_after(&ml->q, IOLAT_PSI_PERIOD_NS, psi_ev, ml, 0);
}

static void oomd_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml *ml = arg;
	int victim;

	if (ml->stopped)
		return;
	victim = iolat_oomd_poll(&ml->oomd, now);
	if (victim >= 0)
		ml_kill(ml, victim, ml->oomd.fired, now);
	iolat_sim_evq_after(&ml->q, ML_NS_PER_S, oomd_ev, ml, 0);
}

static uint64_t group_slept(struct iolat_group *g)
{
	struct iolat_group_stat st;

	return g && !iolat_group_stat(g, &st) ? st.slept_ns : 0;
}

static void fill_sample(struct ml *ml, struct iolat_ml_sample *s, uint64_t now)
{
	const struct iolat_mem *m = &ml->mm.mem;
	struct iolat_group_stat st;
	uint64_t done, p95, lost;

	ml_web_sample(ml, &done, &p95, &lost);
	memset(s, 0, sizeof(*s));
	s->t_s = ((double)now - (double)ml->hog_start) / 1e9;
	s->rps = (double)done * 1e9 / (double)ml->c.sample_ns;
	s->p95_ms = (double)p95 / 1e6;
	s->lost = lost;
	s->free_mib = (double)m->free * IOLAT_MEM_UNIT_BYTES / MIB;
	s->web_mib = (double)m->groups[ml->mg_wl].usage * IOLAT_MEM_UNIT_BYTES / MIB;
	s->hog_mib = (double)m->groups[ml->mg_hog].usage * IOLAT_MEM_UNIT_BYTES / MIB;
	s->sys_mib = (double)m->groups[ml->mg_sys].usage * IOLAT_MEM_UNIT_BYTES / MIB;
	s->swap_mib = (double)m->slots_used * IOLAT_MEM_UNIT_BYTES / MIB;
	s->hog_swap_mib = (double)m->groups[ml->mg_hog].swap * IOLAT_MEM_UNIT_BYTES / MIB;
	s->psi_wl_some10 = ml->mm.psi[ml->mg_wl].some[IOLAT_PSI_AVG10];
	s->psi_wl_full10 = ml->mm.psi[ml->mg_wl].full[IOLAT_PSI_AVG10];
	s->psi_sys_some10 = ml->mm.psi[ml->mg_sys].some[IOLAT_PSI_AVG10];
	s->psi_sys_full10 = ml->mm.psi[ml->mg_sys].full[IOLAT_PSI_AVG10];
	s->psi_sys_full60 = ml->mm.psi[ml->mg_sys].full[IOLAT_PSI_AVG60];
	s->psi_hog_full10 = ml->mm.psi[ml->mg_hog].full[IOLAT_PSI_AVG10];
	s->psi_bg_full10 = ml->mg_bg >= 0 ? ml->mm.psi[ml->mg_bg].full[IOLAT_PSI_AVG10] : 0;
	s->sys_depth = IOLAT_DEPTH_MAX;
	if (!iolat_group_stat(ml->g_sys, &st)) {
		s->sys_depth = st.depth;
		s->sys_use_delay = st.use_delay;
		s->delay_ms = (double)st.delay_ns / 1e6;
	}
	s->hog_congested = iolat_group_congested(ml->g_hog);
	s->slept_ms = (double)(group_slept(ml->g_sys) + group_slept(ml->g_hog) +
			       group_slept(ml->g_bg)) / 1e6;
	s->read_ms = (double)iolat_hist_mean(&ml->mm.read_lat) / 1e6;
	iolat_hist_reset(&ml->mm.read_lat);
}

static void sample_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml *ml = arg;
	struct iolat_ml_result *r = ml->res;
	struct iolat_ml_sample *s;

	if (ml->stopped)
		return;
	if (r->nr_samples == ml->cap_samples) {
		size_t n = ml->cap_samples ? ml->cap_samples * 2 : 512;
		void *p = realloc(r->samples, n * sizeof(*r->samples));

		if (!p) {
			ml->mm.error = -ENOMEM;
			stop(ml);
			return;
		}
		r->samples = p;
		ml->cap_samples = n;
	}
	s = &r->samples[r->nr_samples++];
	fill_sample(ml, s, now);
	if (now == ml->hog_start) {
		/* the baseline: the web alone */
		uint64_t n = 0;

		for (size_t i = 0; i < r->nr_samples; i++)
			n += (uint64_t)(r->samples[i].rps + 0.5);
		r->base_rps = (double)n / (double)r->nr_samples;
		r->base_p95_ms = (double)ml_web_p95_all(ml) / 1e6;
	}
	/* the stock machine's health checker */
	if (ml->c.mode == IOLAT_ML_STOCK && now > ml->hog_start && !ml->kill_at) {
		if (s->rps >= 0.1 * r->base_rps)
			ml->low_rps_since = 0;
		else if (!ml->low_rps_since)
			ml->low_rps_since = now;
		else if (now - ml->low_rps_since >= ml->c.reboot_after_ns) {
			ml->kill_at = now;
			r->killed = true;
			snprintf(r->killer, sizeof(r->killer), "health-check reboot");
			snprintf(r->victim, sizeof(r->victim), "(machine)");
			ml->rebooted = true;
			stop(ml);
			return;
		}
	}
	if ((now >= ml->hog_start + (ml->c.mode == IOLAT_ML_STOCK ? ml->c.stock_timeout_ns :
				     ml->c.timeout_ns)) || ml->web_killed ||
	    (ml->kill_at && now >= ml->kill_at + ml->c.recovery_ns) || ml->mm.error) {
		stop(ml);
		return;
	}
	iolat_sim_evq_after(&ml->q, ml->c.sample_ns, sample_ev, ml, 0);
}

/* ---- set-up ---- */

static int validate(const struct iolat_ml_config *c, char *err, size_t errlen)
{
	uint64_t frames_bytes = c->mem_bytes > c->reserve_bytes ? c->mem_bytes - c->reserve_bytes : 0;

	if (!iolat_sim_model_find(c->device)) {
		iolat_errf(err, errlen, 0, "device '%s': expected ssd, hdd or bad-ssd", c->device);
		return -EINVAL;
	}
	if (c->mem_bytes > 256 * GIB || c->swap_bytes > 256 * GIB) {
		iolat_errf(err, errlen, 0, "memory and swap: at most 256 GiB each expected");
		return -EINVAL;
	}
	if (frames_bytes < 1 * GIB) {
		iolat_errf(err, errlen, 0, "memory: expected at least 1 GiB above the 2 GiB reserve");
		return -EINVAL;
	}
	if (c->web_bytes && c->web_bytes + 64 * MIB + 2 * 96 * MIB > frames_bytes) {
		iolat_errf(err, errlen, 0, "web footprint: expected less than memory minus the reserve");
		return -EINVAL;
	}
	if (!(c->web_file_frac >= 0 && c->web_file_frac <= 1)) {
		iolat_errf(err, errlen, 0, "web file share: expected 0 to 1");
		return -EINVAL;
	}
	if (c->swap_bytes < 64 * MIB || c->rps <= 0 || c->speed <= 0 || c->web_low_frac < 0 ||
	    c->web_low_frac > 1 || c->swappiness > 200 || !c->sample_ns) {
		iolat_errf(err, errlen, 0, "swap >= 64m, rps > 0, speed > 0, 0 <= low <= 1, swappiness <= 200 expected");
		return -EINVAL;
	}
	return 0;
}

static int setup_ctl(struct ml *ml, uint64_t t_wl, uint64_t t_sys)
{
	struct iolat_ctl_config cfg = { .nr_requests = ml->dev->nr_requests,
					.rotational = ml->dev->model->rotational, .clock = &ml->clk,
					.flags = ml->c.kernel_five_pct ? 0 : IOLAT_CTL_BYPASS_SHARE };
	bool control = ml->c.mode == IOLAT_ML_BLOCK || ml->c.mode == IOLAT_ML_FULL ||
		       ml->c.mode == IOLAT_ML_NOBYPASS;
	int ret;

	iolat_sim_evq_clock(&ml->q, &ml->clk);
	ret = iolat_ctl_create(&cfg, &ml->ctl);
	if (!ret)
		ret = iolat_group_create(ml->ctl, NULL, "workload", &ml->g_wl);
	if (!ret)
		ret = iolat_group_create(ml->ctl, NULL, "system", &ml->g_sys);
	if (!ret)
		ret = iolat_group_create(ml->ctl, ml->g_sys, "hog", &ml->g_hog);
	if (!ret && ml->c.bg)
		ret = iolat_group_create(ml->ctl, ml->g_sys, "bg", &ml->g_bg);
	if (!ret && control)
		ret = iolat_group_set_target(ml->g_wl, t_wl);
	if (!ret && control)
		ret = iolat_group_set_target(ml->g_sys, t_sys);
	return ret;
}

static int setup_mem(struct ml *ml)
{
	const struct iolat_ml_config *c = &ml->c;
	uint64_t frames = (c->mem_bytes - c->reserve_bytes) / IOLAT_MEM_UNIT_BYTES;
	uint64_t slots = c->swap_bytes / IOLAT_MEM_UNIT_BYTES;
	uint64_t web = c->web_bytes / IOLAT_MEM_UNIT_BYTES;
	uint64_t wmin = 64 * MIB / IOLAT_MEM_UNIT_BYTES;
	uint64_t step = c->mem_bytes / 1000 / IOLAT_MEM_UNIT_BYTES + 1; /* watermark_scale_factor 10 */
	bool stock = c->mode == IOLAT_ML_STOCK;
	int ret;

	struct iolat_mm_config mc = {
		.frames = frames, .slots = (uint32_t)slots,
		.cap_units = (uint32_t)(frames + slots + web + 4096),
		.wmark_min = wmin, .wmark_low = wmin + step, .wmark_high = wmin + 2 * step,
		.ncpu = NCPU, .seed = c->seed,
		.reclaim = { .swappiness = c->swappiness, .honour_low = !stock },
		.swap_bypass = c->mode != IOLAT_ML_NOBYPASS,
		.data_off = 0, .swap_off = 64 * GIB,
	};

	ret = iolat_mm_init(&ml->mm, &mc, &ml->q, ml->dev, &mm_ops, ml);
	if (ret)
		return ret;
	ml->mg_wl = iolat_mm_add_group(&ml->mm, "workload", -1,
				       stock ? 0 : (uint64_t)((double)web * c->web_low_frac),
				       ml->g_wl, ml->t0);
	ml->mg_sys = iolat_mm_add_group(&ml->mm, "system", -1, 0, ml->g_sys, ml->t0);
	ml->mg_hog = iolat_mm_add_group(&ml->mm, "system/hog", ml->mg_sys, 0, ml->g_hog, ml->t0);
	ml->mg_bg = c->bg ? iolat_mm_add_group(&ml->mm, "system/bg", ml->mg_sys, 0, ml->g_bg,
					       ml->t0) : -1;
	return 0;
}

static int setup(struct ml *ml, char *err, size_t errlen)
{
	struct iolat_ml_config *c = &ml->c;
	const struct iolat_sim_model *m = iolat_sim_model_find(c->device);
	struct iolat_sim_dev_config dcfg = { .model = m, .seed = c->seed };
	uint64_t p90 = 0;
	size_t bad;
	int ret;

	if (!c->wbps || !c->target_workload_ns) {
		double w;

		ret = iolat_ml_calibrate(c->device, c->seed, &w, &p90);
		if (ret)
			return ret;
		if (!c->wbps)
			c->wbps = w;
		if (!c->target_workload_ns)
			c->target_workload_ns = 4 * p90;
	}
	if (!c->target_system_ns)
		c->target_system_ns = 10 * c->target_workload_ns;
	if (!c->web_bytes)
		c->web_bytes = c->mem_bytes - c->reserve_bytes - 512 * MIB;
	if (c->mode == IOLAT_ML_STOCK)
		c->oomd = IOLAT_OOMD_OFF;
	ml->memory_side = c->mode == IOLAT_ML_FULL;
	ml->t0 = ML_T0_NS;
	ml->hog_start = ml->t0 + c->baseline_ns;
	ml->bg_off = 32 * GIB;
	if (iolat_sim_evq_init(&ml->q, ml->t0))
		return -ENOMEM;
	ret = iolat_sim_dev_create(&dcfg, &ml->q, &ml->dev, &bad, NULL);
	if (ret) {
		iolat_errf(err, errlen, 0, "device '%s': cannot create (%d)", c->device, ret);
		return ret;
	}
	ret = setup_ctl(ml, c->target_workload_ns, c->target_system_ns);
	if (!ret)
		ret = setup_mem(ml);
	if (!ret)
		ret = ml_web_create(ml);
	if (!ret && c->bg)
		ret = ml_bg_create(ml);
	if (!ret)
		ret = ml_hog_create(ml);
	if (ret)
		return ret;
	iolat_oomd_init(&ml->oomd, (enum iolat_oomd_preset)c->oomd, !c->oomd_some, &ml->mm.mem, ml->mm.psi, ml->t0);
	return 0;
}

static void schedule_start(struct ml *ml)
{
	ml_web_start(ml, ml->t0);
	if (ml->bg)
		ml_bg_start(ml, ml->t0);
	ml_hog_start(ml, ml->hog_start);
	iolat_sim_evq_at(&ml->q, ml->t0 + ML_NS_PER_S, ctl_tick_ev, ml, 0);
	iolat_sim_evq_at(&ml->q, ml->t0 + IOLAT_PSI_PERIOD_NS, psi_ev, ml, 0);
	iolat_sim_evq_at(&ml->q, ml->t0 + ML_NS_PER_S, oomd_ev, ml, 0);
	iolat_sim_evq_at(&ml->q, ml->t0 + ml->c.sample_ns, sample_ev, ml, 0);
}

/* After the end: every task stops; I/O in flight completes so the controller ends idle. */
static void drain(struct ml *ml)
{
	uint64_t now = iolat_sim_evq_now(&ml->q);

	ml_web_kill(ml, now);
	ml_hog_kill(ml, now);
	if (ml->bg)
		ml_bg_kill(ml, now);
	while (iolat_sim_evq_step(&ml->q))
		;
}

static void teardown(struct ml *ml)
{
	if (ml->ctl)
		iolat_ctl_destroy(ml->ctl);
	if (ml->dev)
		iolat_sim_dev_destroy(ml->dev);
	iolat_sim_evq_destroy(&ml->q);
	ml_web_destroy(ml);
	ml_hog_destroy(ml);
	ml_bg_destroy(ml);
	iolat_mm_destroy(&ml->mm);
}



int iolat_ml_run(const struct iolat_ml_config *c, struct iolat_ml_result **out,
		 char *err, size_t errlen)
{
	struct ml *ml;
	int ret;

	*out = NULL;
	ret = validate(c, err, errlen);
	if (ret)
		return ret;
	ml = calloc(1, sizeof(*ml));
	if (!ml)
		return -ENOMEM;
	ml->c = *c;
	ml->res = calloc(1, sizeof(*ml->res));
	if (!ml->res) {
		free(ml);
		return -ENOMEM;
	}
	ret = setup(ml, err, errlen);
	if (!ret) {
		schedule_start(ml);
		while (!ml->stopped && iolat_sim_evq_step(&ml->q))
			;
		ml->res->events = ml->q.nr_run;
		ml_finish_result(ml);
		drain(ml);
		ret = ml->mm.error;
	}
	teardown(ml);
	if (ret)
		iolat_ml_result_free(ml->res);
	else
		*out = ml->res;
	free(ml);
	return ret;
}
