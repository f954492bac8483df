/* SPDX-License-Identifier: MIT */
/*
 * wl_hashd.c - the web server of the leaking-service scenario (after
 * resctl-bench's rd-hashd): a fixed pool of workers serving Poisson requests;
 * a request refused when no worker is free is lost. Each request touches 10
 * file units and 22 anonymous units (1.2 MiB and 2.3x that) whose positions
 * are drawn from a clamped normal over the footprint (standard deviation
 * 0.215 and 0.235 of the range), so the middle of the footprint is hot and
 * its ends are cold; then it computes (10 ms of CPU) and sleeps (exponential,
 * mean 20 ms, idle). A miss is a read of the unit (file data, or its swap
 * slot) in the web's own group, after allocating a frame (which may mean
 * direct reclaim); a refault counts as memory stall. At the end of a request
 * (return to user space) the worker serves any delay its group owes.
 * Context: one simulation thread per run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scen/memleak/memleak_int.h"

#define REQ_FILE_UNITS 10
#define REQ_ANON_UNITS 22
#define REQ_UNITS (REQ_FILE_UNITS + REQ_ANON_UNITS)
#define FILE_STDEV 0.215
#define ANON_STDEV 0.235
#define CPU_NS (10 * ML_NS_PER_MS)
#define SLEEP_MEAN_NS (20.0 * ML_NS_PER_MS)
#define BUSY_POLL_NS ML_NS_PER_MS

struct ml_worker {
	struct iolat_mm_task t;     /* first: the task's address is the worker's */
	struct ml_web *web;
	uint32_t units[REQ_UNITS];
	int idx;
	uint64_t arrival;
	struct ml_worker *next_free;
};

struct ml_web {
	struct ml *ml;
	struct ml_worker *w;
	unsigned nr;
	struct ml_worker *free_list;
	uint32_t file_first, nr_file, anon_first, nr_anon;
	struct iolat_rng rng_arr, rng_rank, rng_time;
	struct iolat_hist h_sample, h_all;
	uint64_t done_sample, lost_sample;
	bool dead;
};

static void web_step(struct ml_worker *w, uint64_t now);

/* A position in [0, n) from a normal around the middle, clamped. */
static uint32_t clamped_normal(struct iolat_rng *r, uint32_t n, double stdev_ratio)
{
	double u1 = iolat_rng_unit(r), u2 = iolat_rng_unit(r);
	double z = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
	double x = (double)n / 2.0 + z * stdev_ratio * (double)n;

	if (x < 0)
		return 0;
	if (x >= (double)n)
		return n - 1;
	return (uint32_t)x;
}

int ml_web_create(struct ml *ml)
{
	struct ml_web *web = calloc(1, sizeof(*web));
	struct iolat_mem *m = &ml->mm.mem;
	uint64_t units = ml->c.web_bytes / IOLAT_MEM_UNIT_BYTES;

	if (!web)
		return -ENOMEM;
	ml->web = web;
	web->ml = ml;
	web->nr = ml->c.workers ? ml->c.workers : (unsigned)ceil(ml->c.rps * 0.030 * 3);
	web->w = calloc(web->nr, sizeof(*web->w));
	if (!web->w)
		return -ENOMEM;
	iolat_rng_seed(&web->rng_arr, ml->c.seed, 101);
	iolat_rng_seed(&web->rng_rank, ml->c.seed, 102);
	iolat_rng_seed(&web->rng_time, ml->c.seed, 103);
	iolat_hist_reset(&web->h_sample);
	iolat_hist_reset(&web->h_all);
	web->nr_file = (uint32_t)((double)units * ml->c.web_file_frac);
	web->nr_anon = (uint32_t)units - web->nr_file;
	/* File units first: unit id x 128 KiB is its place in the data region. */
	web->file_first = m->nr_units;
	for (uint32_t i = 0; i < web->nr_file; i++)
		iolat_mem_new_unit(m, ml->mg_wl, true);
	web->anon_first = m->nr_units;
	for (uint32_t i = 0; i < web->nr_anon; i++)
		iolat_mem_new_unit(m, ml->mg_wl, false);
	/* Warm: the whole footprint is resident before the run. */
	for (uint32_t u = web->file_first; u < web->anon_first + web->nr_anon; u++) {
		if (!iolat_mem_take_frame(m))
			return -ENOSPC;
		iolat_mem_map(m, u);
	}
	for (unsigned i = 0; i < web->nr; i++) {
		iolat_mm_task_init(&ml->mm, &web->w[i].t, ml->mg_wl, ml->g_wl);
		web->w[i].web = web;
		web->w[i].next_free = web->free_list;
		web->free_list = &web->w[i];
	}
	return 0;
}

void ml_web_destroy(struct ml *ml)
{
	if (!ml->web)
		return;
	free(ml->web->w);
	free(ml->web);
	ml->web = NULL;
}

static void finish_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml_worker *w = arg;

	if (w->t.dead)
		return;
	iolat_mm_task_set(&w->t, IOLAT_MM_IDLE, now);
	w->next_free = w->web->free_list;
	w->web->free_list = w;
}

static void sleep_done_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml_worker *w = arg;
	struct ml_web *web = w->web;
	struct ml *ml = web->ml;
	uint64_t due = 0;

	if (w->t.dead)
		return;
	iolat_hist_add(&web->h_sample, now - w->arrival);
	iolat_hist_add(&web->h_all, now - w->arrival);
	web->done_sample++;
	/* Return to user space: serve the delay the web's group owes, if any. */
	if (ml->c.mode != IOLAT_ML_NONE && ml->c.mode != IOLAT_ML_STOCK)
		due = iolat_group_delay_due(w->t.iog);
	if (due) {
		iolat_group_note_slept(w->t.iog, due);
		iolat_mm_task_set(&w->t, IOLAT_MM_IOWAIT, now);
	}
	if (iolat_sim_evq_after(&ml->q, due, finish_ev, w, 0))
		ml->mm.error = -ENOMEM;
}

static void cpu_done_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml_worker *w = arg;
	struct ml *ml = w->web->ml;

	if (w->t.dead)
		return;
	iolat_mm_task_set(&w->t, IOLAT_MM_IDLE, now);
	if (iolat_sim_evq_after(&ml->q, (uint64_t)iolat_rng_exp(&w->web->rng_time, SLEEP_MEAN_NS),
				sleep_done_ev, w, 0))
		ml->mm.error = -ENOMEM;
}

static void read_done(struct iolat_mm_io *io, uint64_t now)
{
	struct ml_worker *w = (struct ml_worker *)io->task;

	if (w->t.dead)
		return;
	w->idx++;
	web_step(w, now);
}

static void got_frame(struct iolat_mm_task *t, uint64_t now)
{
	struct ml_worker *w = (struct ml_worker *)t;
	struct ml *ml = w->web->ml;
	uint32_t u = w->units[w->idx];
	struct iolat_mem_unit *un = &ml->mm.mem.units[u];

	if (un->flags & (IOLAT_MU_RESIDENT | IOLAT_MU_READING)) {
		/* Another worker brought it in meanwhile: give the frame back. */
		ml->mm.mem.free++;
		iolat_mm_frames_freed(&ml->mm, now);
		web_step(w, now);
		return;
	}
	if (!(un->flags & IOLAT_MU_FILE) && un->slot == IOLAT_MEM_NONE) {
		iolat_mem_map(&ml->mm.mem, u);   /* a fresh anonymous page: no I/O */
		w->idx++;
		web_step(w, now);
		return;
	}
	iolat_mm_task_set(t, (un->flags & IOLAT_MU_EVER) ? IOLAT_MM_MEMSTALL : IOLAT_MM_IOWAIT, now);
	iolat_mm_read_unit(t, u, read_done, now);
}

static void step_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml_worker *w = arg;

	if (!w->t.dead)
		web_step(w, now);
}

static void web_step(struct ml_worker *w, uint64_t now)
{
	struct ml *ml = w->web->ml;

	iolat_mm_task_set(&w->t, IOLAT_MM_RUN, now);
	while (w->idx < REQ_UNITS) {
		uint32_t u = w->units[w->idx];
		struct iolat_mem_unit *un = &ml->mm.mem.units[u];

		if (un->flags & IOLAT_MU_RESIDENT) {
			iolat_mem_touch(&ml->mm.mem, u);
			w->idx++;
			continue;
		}
		if (un->flags & IOLAT_MU_READING) {
			/* Another worker is reading it in: wait for it (a refault). */
			iolat_mm_task_set(&w->t, IOLAT_MM_MEMSTALL, now);
			if (iolat_sim_evq_after(&ml->q, BUSY_POLL_NS, step_ev, w, 0))
				ml->mm.error = -ENOMEM;
			return;
		}
		w->t.on_frame = got_frame;
		if (iolat_mm_alloc(&w->t, now))
			got_frame(&w->t, now);
		return;
	}
	if (iolat_sim_evq_after(&ml->q, CPU_NS, cpu_done_ev, w, 0))
		ml->mm.error = -ENOMEM;
}

static void start_request(struct ml_web *web, struct ml_worker *w, uint64_t now)
{
	w->arrival = now;
	w->idx = 0;
	for (int i = 0; i < REQ_FILE_UNITS; i++)
		w->units[i] = web->file_first + clamped_normal(&web->rng_rank, web->nr_file, FILE_STDEV);
	for (int i = 0; i < REQ_ANON_UNITS; i++)
		w->units[REQ_FILE_UNITS + i] =
			web->anon_first + clamped_normal(&web->rng_rank, web->nr_anon, ANON_STDEV);
	web_step(w, now);
}

static void arrival_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml_web *web = arg;
	struct ml *ml = web->ml;
	struct ml_worker *w = web->free_list;

	if (ml->stopped)
		return;
	if (iolat_sim_evq_after(&ml->q, (uint64_t)iolat_rng_exp(&web->rng_arr, 1e9 / ml->c.rps),
				arrival_ev, web, 0))
		ml->mm.error = -ENOMEM;
	if (web->dead || !w) {
		web->lost_sample++;
		return;
	}
	web->free_list = w->next_free;
	start_request(web, w, now);
}

void ml_web_start(struct ml *ml, uint64_t now)
{
	if (iolat_sim_evq_at(&ml->q, now, arrival_ev, ml->web, 0))
		ml->mm.error = -ENOMEM;
}

void ml_web_kill(struct ml *ml, uint64_t now)
{
	struct ml_web *web = ml->web;

	web->dead = true;
	for (unsigned i = 0; i < web->nr; i++)
		iolat_mm_task_kill(&web->w[i].t, now);
}

void ml_web_sample(struct ml *ml, uint64_t *done, uint64_t *p95_ns, uint64_t *lost)
{
	struct ml_web *web = ml->web;

	*done = web->done_sample;
	*p95_ns = iolat_hist_percentile(&web->h_sample, 95);
	*lost = web->lost_sample;
	web->done_sample = web->lost_sample = 0;
	iolat_hist_reset(&web->h_sample);
}

uint64_t ml_web_p95_all(struct ml *ml)
{
	return iolat_hist_percentile(&ml->web->h_all, 95);
}
