/* SPDX-License-Identifier: MIT */
/*
 * wl_memhog.c - the two tasks of the low-priority cgroup in the
 * leaking-service scenario: the leak ("system/hog", after resctl-bench's
 * mem-hog) and a small background service ("system/bg").
 *
 * The leak only allocates: every 10 ms its debt grows by speed x the disk's
 * write bandwidth; debt beyond 10 s worth is lost (counted, never paid). It
 * pays the debt by faulting in fresh anonymous pages, a unit (32 pages) at a
 * time, never touching them again. With the memory side on (full mode) and
 * its cgroup congested (io.latency's use_delay on it or an ancestor), each
 * fault of fault_pages is followed by its return to user space, where it
 * sleeps the delay its group owes (at most 250 ms), counted as memory stall.
 * It issues no I/O of its own: its pages reach the disk through reclaim.
 *
 * The background service stands for the other services of the article's
 * low-priority cgroup: a reader (4 KiB random reads, Poisson, 20/s) and a
 * writer (64 KiB appends, 16/s = 1 MiB/s), each waiting for its I/O and then
 * serving its group's delay at return to user space (the block side's safe
 * point). Its 32 MiB of memory is touched once a second.
 * Context: one simulation thread per run.
 */
#include <errno.h>
#include <stdlib.h>

#include "scen/memleak/memleak_int.h"

#define HOG_TICK_NS (10 * ML_NS_PER_MS)
#define HOG_MAX_DEBT_S 10.0
#define PAGES_PER_UNIT 32u
#define BG_READ_IOPS 20.0
#define BG_READ_BYTES 4096u
#define BG_WRITE_BYTES (64u * 1024u)
#define BG_WRITE_GAP_NS (62500ull * 1000ull)
#define BG_REGION_BYTES (1ull << 30)
#define BG_MEM_BYTES (32ull << 20)

struct ml_hog {
	struct iolat_mm_task t;     /* first */
	struct ml *ml;
	double debt, max_debt;      /* pages */
	double pages_per_tick;
	double loss, allocated;     /* pages */
	unsigned page_in_unit;
	bool unit_open, busy;
	uint64_t slept_ns, max_sleep_ns;
};

struct ml_bgt {
	struct iolat_mm_task t;     /* first */
	struct ml *ml;
	bool write;
	uint64_t pos;
	struct iolat_rng rng;
};

struct ml_bg {
	struct ml_bgt rd, wr;
	uint32_t first, nr;
	struct iolat_rng rng;
};

/* ---- the leak ---- */

static void hog_work(struct ml_hog *h, uint64_t now);

static void open_unit(struct ml_hog *h)
{
	struct ml *ml = h->ml;
	uint32_t u = iolat_mem_new_unit(&ml->mm.mem, ml->mg_hog, false);

	if (u == IOLAT_MEM_NONE) {
		ml->mm.mem.free++;
		ml->mm.error = -ENOSPC;
		return;
	}
	iolat_mem_map(&ml->mm.mem, u);
	h->unit_open = true;
	h->page_in_unit = 0;
}

static void hog_got_frame(struct iolat_mm_task *t, uint64_t now)
{
	struct ml_hog *h = (struct ml_hog *)t;

	open_unit(h);
	h->busy = false;
	hog_work(h, now);
}

static void hog_wake_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml_hog *h = arg;

	if (h->t.dead)
		return;
	h->busy = false;
	hog_work(h, now);
}

/* Fault in @pages pages of the open unit. */
static void fault(struct ml_hog *h, unsigned pages)
{
	h->page_in_unit += pages;
	h->debt -= pages;
	h->allocated += pages;
	if (h->page_in_unit >= PAGES_PER_UNIT)
		h->unit_open = false;
}

static void hog_work(struct ml_hog *h, uint64_t now)
{
	struct ml *ml = h->ml;
	unsigned fp = ml->c.fault_pages ? ml->c.fault_pages : 1;

	iolat_mm_task_set(&h->t, IOLAT_MM_RUN, now);
	for (;;) {
		bool congested = ml->memory_side && iolat_group_congested(h->t.iog);
		unsigned left = h->unit_open ? PAGES_PER_UNIT - h->page_in_unit : PAGES_PER_UNIT;
		unsigned pages = congested ? (fp < left ? fp : left) : left;
		uint64_t due;

		if (h->debt < pages || ml->mm.error)
			break;
		if (!h->unit_open) {
			h->t.on_frame = hog_got_frame;
			if (!iolat_mm_alloc(&h->t, now)) {
				h->busy = true;
				return;
			}
			open_unit(h);
			iolat_mm_task_set(&h->t, IOLAT_MM_RUN, now);
		}
		fault(h, pages);
		if (!congested)
			continue;
		/* Return to user space after the fault: serve the group's delay. */
		due = iolat_group_delay_due(h->t.iog);
		if (due) {
			iolat_group_note_slept(h->t.iog, due);
			h->slept_ns += due;
			if (due > h->max_sleep_ns)
				h->max_sleep_ns = due;
			iolat_mm_task_set(&h->t, IOLAT_MM_MEMSTALL, now);
			h->busy = true;
			if (iolat_sim_evq_after(&ml->q, due, hog_wake_ev, h, 0))
				ml->mm.error = -ENOMEM;
			return;
		}
	}
	iolat_mm_task_set(&h->t, IOLAT_MM_IDLE, now);
}

static void hog_tick_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml_hog *h = arg;
	struct ml *ml = h->ml;

	if (h->t.dead || ml->stopped)
		return;
	h->debt += h->pages_per_tick;
	if (h->debt > h->max_debt) {
		h->loss += h->debt - h->max_debt;
		h->debt = h->max_debt;
	}
	if (!h->busy)
		hog_work(h, now);
	if (iolat_sim_evq_after(&ml->q, HOG_TICK_NS, hog_tick_ev, h, 0))
		ml->mm.error = -ENOMEM;
}

int ml_hog_create(struct ml *ml)
{
	struct ml_hog *h = calloc(1, sizeof(*h));
	double pages_per_s;

	if (!h)
		return -ENOMEM;
	ml->hog = h;
	h->ml = ml;
	iolat_mm_task_init(&ml->mm, &h->t, ml->mg_hog, ml->g_hog);
	pages_per_s = ml->c.speed * ml->c.wbps / (IOLAT_MEM_UNIT_BYTES / PAGES_PER_UNIT);
	h->pages_per_tick = pages_per_s * (double)HOG_TICK_NS / 1e9;
	h->max_debt = pages_per_s * HOG_MAX_DEBT_S;
	return 0;
}

void ml_hog_start(struct ml *ml, uint64_t now)
{
	if (iolat_sim_evq_at(&ml->q, now, hog_tick_ev, ml->hog, 0))
		ml->mm.error = -ENOMEM;
}

void ml_hog_destroy(struct ml *ml)
{
	free(ml->hog);
	ml->hog = NULL;
}

void ml_hog_kill(struct ml *ml, uint64_t now)
{
	iolat_mm_task_kill(&ml->hog->t, now);
}

void ml_hog_stats(struct ml *ml, double *alloc_units, double *loss_units, uint64_t *slept_ns,
		  uint64_t *stall_ns, uint64_t *max_sleep_ns)
{
	struct ml_hog *h = ml->hog;

	*max_sleep_ns = h->max_sleep_ns;
	*alloc_units = h->allocated / PAGES_PER_UNIT;
	*loss_units = h->loss / PAGES_PER_UNIT;
	*slept_ns = h->slept_ns;
	*stall_ns = h->t.stall_ns;
}

/* ---- the background service ---- */

static void bg_issue(struct ml_bgt *b, uint64_t now);

static void bg_next_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml_bgt *b = arg;

	if (!b->t.dead && !b->ml->stopped)
		bg_issue(b, now);
}

static void bg_done(struct iolat_mm_io *io, uint64_t now)
{
	struct ml_bgt *b = (struct ml_bgt *)io->task;
	struct ml *ml = b->ml;
	uint64_t gap, due = 0;

	if (b->t.dead)
		return;
	if (ml->c.mode != IOLAT_ML_NONE && ml->c.mode != IOLAT_ML_STOCK)
		due = iolat_group_delay_due(b->t.iog);
	if (due)
		iolat_group_note_slept(b->t.iog, due);
	iolat_mm_task_set(&b->t, due ? IOLAT_MM_IOWAIT : IOLAT_MM_IDLE, now);
	gap = b->write ? BG_WRITE_GAP_NS : (uint64_t)iolat_rng_exp(&b->rng, 1e9 / BG_READ_IOPS);
	if (iolat_sim_evq_after(&ml->q, due > gap ? due : gap, bg_next_ev, b, 0))
		ml->mm.error = -ENOMEM;
}

static void bg_issue(struct ml_bgt *b, uint64_t now)
{
	struct ml *ml = b->ml;
	struct ml_bg *bg = ml->bg;
	uint64_t off;

	if (!b->write) {
		/* touch one unit of the service's memory now and then */
		uint32_t u = bg->first + (uint32_t)iolat_rng_below(&bg->rng, bg->nr);

		if (ml->mm.mem.units[u].flags & IOLAT_MU_RESIDENT)
			iolat_mem_touch(&ml->mm.mem, u);
		off = ml->bg_off + iolat_rng_below(&b->rng, BG_REGION_BYTES / BG_READ_BYTES) * BG_READ_BYTES;
	} else {
		off = ml->bg_off + BG_REGION_BYTES + b->pos;
		b->pos = (b->pos + BG_WRITE_BYTES) % BG_REGION_BYTES;
	}
	iolat_mm_task_set(&b->t, IOLAT_MM_IOWAIT, now);
	iolat_mm_submit_plain(&b->t, off, b->write ? BG_WRITE_BYTES : BG_READ_BYTES, b->write, bg_done, now);
}

int ml_bg_create(struct ml *ml)
{
	struct ml_bg *bg = calloc(1, sizeof(*bg));

	if (!bg)
		return -ENOMEM;
	ml->bg = bg;
	iolat_mm_task_init(&ml->mm, &bg->rd.t, ml->mg_bg, ml->g_bg);
	iolat_mm_task_init(&ml->mm, &bg->wr.t, ml->mg_bg, ml->g_bg);
	bg->rd.ml = bg->wr.ml = ml;
	bg->wr.write = true;
	iolat_rng_seed(&bg->rd.rng, ml->c.seed, 201);
	iolat_rng_seed(&bg->wr.rng, ml->c.seed, 202);
	iolat_rng_seed(&bg->rng, ml->c.seed, 203);
	bg->first = ml->mm.mem.nr_units;
	bg->nr = (uint32_t)(BG_MEM_BYTES / IOLAT_MEM_UNIT_BYTES);
	for (uint32_t i = 0; i < bg->nr; i++) {
		uint32_t u = iolat_mem_new_unit(&ml->mm.mem, ml->mg_bg, false);

		if (u == IOLAT_MEM_NONE || !iolat_mem_take_frame(&ml->mm.mem))
			return -ENOSPC;
		iolat_mem_map(&ml->mm.mem, u);
	}
	return 0;
}

void ml_bg_start(struct ml *ml, uint64_t now)
{
	if (iolat_sim_evq_at(&ml->q, now, bg_next_ev, &ml->bg->rd, 0) ||
	    iolat_sim_evq_at(&ml->q, now, bg_next_ev, &ml->bg->wr, 0))
		ml->mm.error = -ENOMEM;
}

void ml_bg_destroy(struct ml *ml)
{
	free(ml->bg);
	ml->bg = NULL;
}

void ml_bg_kill(struct ml *ml, uint64_t now)
{
	iolat_mm_task_kill(&ml->bg->rd.t, now);
	iolat_mm_task_kill(&ml->bg->wr.t, now);
}
