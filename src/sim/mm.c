/* SPDX-License-Identifier: MIT */
/*
 * mm.c - the kernel's memory-management side of a simulated machine (mm.h):
 * tasks and their PSI state, I/O objects, swap-out, kswapd, allocation with
 * direct reclaim, reads.
 * Context: one simulation thread per machine.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/mm.h"

#define KSWAPD_MAX_INFLIGHT 32
#define IO_CHUNK 256

/* ---- the machine ---- */

int iolat_mm_init(struct iolat_mm *mm, const struct iolat_mm_config *c, struct iolat_sim_evq *q,
		  struct iolat_sim_dev *dev, const struct iolat_mm_ops *ops, void *owner)
{
	*mm = (struct iolat_mm){ .q = q, .dev = dev, .ops = ops, .owner = owner, .c = *c };
	iolat_hist_reset(&mm->read_lat);
	iolat_rng_seed(&mm->rng_reclaim, c->seed, 401);
	return iolat_mem_init(&mm->mem, c->frames, c->slots, c->cap_units, c->wmark_min,
			      c->wmark_low, c->wmark_high);
}

static void io_pool_free(struct iolat_mm *mm);

void iolat_mm_destroy(struct iolat_mm *mm)
{
	io_pool_free(mm);
	iolat_mem_destroy(&mm->mem);
}

int iolat_mm_add_group(struct iolat_mm *mm, const char *name, int parent, uint64_t low_units,
		       struct iolat_group *iog, uint64_t now)
{
	int g = iolat_mem_add_group(&mm->mem, name, parent, low_units);

	if (g < 0)
		return g;
	iolat_psi_init(&mm->psi[g], mm->c.ncpu, now);
	mm->iog[g] = iog;
	return g;
}

/* ---- tasks and PSI ---- */

void iolat_mm_task_init(struct iolat_mm *mm, struct iolat_mm_task *t, int mg,
			struct iolat_group *iog)
{
	*t = (struct iolat_mm_task){ .mm = mm, .mg = mg, .iog = iog, .state = IOLAT_MM_IDLE };
}

void iolat_mm_task_set(struct iolat_mm_task *t, enum iolat_mm_state st, uint64_t now)
{
	struct iolat_mm *mm = t->mm;
	enum iolat_mm_state old = t->state;
	int dn, dm, dr;

	if (old == st)
		return;
	dn = (st != IOLAT_MM_IDLE) - (old != IOLAT_MM_IDLE);
	dm = (st == IOLAT_MM_MEMSTALL) - (old == IOLAT_MM_MEMSTALL);
	dr = (st == IOLAT_MM_RUN) - (old == IOLAT_MM_RUN);
	for (int g = t->mg; g >= 0; g = mm->mem.groups[g].parent)
		iolat_psi_change(&mm->psi[g], now, dn, dm, dr);
	if (old == IOLAT_MM_MEMSTALL)
		t->stall_ns += now - t->stall_since;
	if (st == IOLAT_MM_MEMSTALL)
		t->stall_since = now;
	t->state = st;
}

void iolat_mm_task_kill(struct iolat_mm_task *t, uint64_t now)
{
	iolat_mm_task_set(t, IOLAT_MM_IDLE, now);
	t->dead = true;
}

/* ---- I/O objects ---- */

static struct iolat_mm_io *io_get(struct iolat_mm *mm)
{
	struct iolat_mm_io *io;

	if (!mm->io_free) {
		struct iolat_mm_io **chunks = realloc(mm->io_chunks,
						      (mm->nr_io_chunks + 1) * sizeof(*chunks));
		struct iolat_mm_io *c = calloc(IO_CHUNK, sizeof(*c));

		if (!chunks || !c) {
			free(c);
			if (chunks)
				mm->io_chunks = chunks;
			mm->error = -ENOMEM;
			return NULL;
		}
		mm->io_chunks = chunks;
		mm->io_chunks[mm->nr_io_chunks++] = c;
		for (int i = 0; i < IO_CHUNK; i++) {
			c[i].next_free = mm->io_free;
			mm->io_free = &c[i];
		}
	}
	io = mm->io_free;
	mm->io_free = io->next_free;
	io->mm = mm;
	io->task = NULL;
	return io;
}

static void io_put(struct iolat_mm *mm, struct iolat_mm_io *io)
{
	io->next_free = mm->io_free;
	mm->io_free = io;
}

static void io_pool_free(struct iolat_mm *mm)
{
	for (size_t i = 0; i < mm->nr_io_chunks; i++)
		free(mm->io_chunks[i]);
	free(mm->io_chunks);
	mm->io_chunks = NULL;
	mm->nr_io_chunks = 0;
	mm->io_free = NULL;
}

static void io_granted(struct iolat_waiter *w)
{
	struct iolat_mm_io *io = (struct iolat_mm_io *)((char *)w - offsetof(struct iolat_mm_io, w));

	iolat_sim_dev_submit(io->mm->dev, &io->req);
}

static void io_complete(struct iolat_sim_req *r, uint64_t now)
{
	struct iolat_mm_io *io = r->owner;

	iolat_done_at(&io->io, now);
	io->done(io, now);
}

static void io_submit(struct iolat_mm *mm, struct iolat_mm_io *io, struct iolat_group *g,
		      unsigned flags, uint64_t now)
{
	int ret;

	io->req.complete = io_complete;
	io->req.owner = io;
	io->w.granted = io_granted;
	io->submit_ns = now;
	mm->nr_submits++;
	ret = iolat_throttle_async_at(g, flags, &io->io, &io->w, now);
	if (ret == 0)
		iolat_sim_dev_submit(mm->dev, &io->req);
	else if (ret != IOLAT_QUEUED)
		mm->error = ret;
	else if (io->kind == IOLAT_MM_IO_SWAPOUT)
		mm->swap_waited++;
}

/* ---- resuming blocked allocations ---- */

static void resume_ev(void *arg, uint64_t data, uint64_t now)
{
	struct iolat_mm_task *t = arg;

	if (!t->dead && t->on_frame)
		t->on_frame(t, now);
}

static void resume(struct iolat_mm *mm, struct iolat_mm_task *t)
{
	if (iolat_sim_evq_after(mm->q, 0, resume_ev, t, 0))
		mm->error = -ENOMEM;
}

void iolat_mm_frames_freed(struct iolat_mm *mm, uint64_t now)
{
	while (mm->frame_waiters && mm->mem.free) {
		struct iolat_mm_task *t = mm->frame_waiters;

		mm->frame_waiters = t->next_waiter;
		t->next_waiter = NULL;
		if (t->dead)
			continue;
		iolat_mem_take_frame(&mm->mem);
		resume(mm, t);
	}
}

/* ---- swap-out ---- */

static void swapout_done(struct iolat_mm_io *io, uint64_t now)
{
	struct iolat_mm *mm = io->mm;
	struct iolat_mm_task *t = io->task;

	iolat_mem_end_swapout(&mm->mem, io->unit);
	if (!t)
		mm->kswapd_inflight--;
	if (t && !t->dead) {
		/* The direct reclaimer takes the frame its write freed. */
		iolat_mem_take_frame(&mm->mem);
		resume(mm, t);
	}
	io_put(mm, io);
	iolat_mm_frames_freed(mm, now);
	if (mm->mem.free + mm->kswapd_inflight < mm->mem.wmark_high)
		iolat_mm_kswapd_wake(mm);
}

static void count_swapout(struct iolat_mm *mm, uint32_t u, const struct iolat_mm_task *t)
{
	mm->swap_writes++;
	if (mm->ops->swapout)
		mm->ops->swapout(mm, u, t);
	if (!mm->mem.groups[mm->mem.units[u].group].alive)
		mm->swap_after_kill++;
}

/* Write anon unit @u to swap; @t waits for it (NULL: kswapd). */
static void swapout(struct iolat_mm *mm, uint32_t u, struct iolat_mm_task *t, uint64_t now)
{
	struct iolat_mm_io *io = io_get(mm);
	uint32_t slot;

	if (!io)
		return;
	slot = iolat_mem_begin_swapout(&mm->mem, u);
	io->kind = IOLAT_MM_IO_SWAPOUT;
	io->unit = u;
	io->task = t;
	io->done = swapout_done;
	io->req.off = mm->c.swap_off + (uint64_t)slot * IOLAT_MEM_UNIT_BYTES;
	io->req.len = IOLAT_MEM_UNIT_BYTES;
	io->req.write = true;
	if (!t)
		mm->kswapd_inflight++;
	count_swapout(mm, u, t);
	io_submit(mm, io, mm->iog[mm->mem.units[u].group],
		  mm->c.swap_bypass ? IOLAT_IO_SWAP : 0, now);
}

/* ---- kswapd ---- */

static void kswapd_ev(void *arg, uint64_t data, uint64_t now)
{
	struct iolat_mm *mm = arg;
	struct iolat_mem *m = &mm->mem;
	bool dropped = false;

	mm->kswapd_queued = false;
	while (m->free + mm->kswapd_inflight < m->wmark_high &&
	       mm->kswapd_inflight < KSWAPD_MAX_INFLIGHT) {
		uint32_t u = iolat_reclaim_pick(m, &mm->c.reclaim, &mm->rng_reclaim);

		if (u == IOLAT_MEM_NONE)
			break;
		if (m->units[u].flags & IOLAT_MU_FILE) {
			iolat_mem_drop_file(m, u);
			dropped = true;
		} else {
			swapout(mm, u, NULL, now);
		}
	}
	if (dropped)
		iolat_mm_frames_freed(mm, now);
}

void iolat_mm_kswapd_wake(struct iolat_mm *mm)
{
	if (mm->kswapd_queued || mm->stopped)
		return;
	mm->kswapd_queued = true;
	if (iolat_sim_evq_after(mm->q, 0, kswapd_ev, mm, 0))
		mm->error = -ENOMEM;
}

/* ---- allocation and direct reclaim ---- */

static int oom_victim(const struct iolat_mem *m)
{
	int best = -1;
	uint64_t bv = 0;

	for (int i = 0; i < m->nr_groups; i++) {
		const struct iolat_mem_group *g = &m->groups[i];

		if (g->alive && g->leaf && g->usage + g->swap > bv) {
			bv = g->usage + g->swap;
			best = i;
		}
	}
	return best;
}

static void park(struct iolat_mm *mm, struct iolat_mm_task *t)
{
	t->next_waiter = mm->frame_waiters;
	mm->frame_waiters = t;
}

bool iolat_mm_alloc(struct iolat_mm_task *t, uint64_t now)
{
	struct iolat_mm *mm = t->mm;
	struct iolat_mem *m = &mm->mem;

	if (m->free > m->wmark_min) {
		iolat_mem_take_frame(m);
		if (m->free < m->wmark_low)
			iolat_mm_kswapd_wake(mm);
		return true;
	}
	iolat_mm_kswapd_wake(mm);
	iolat_mm_task_set(t, IOLAT_MM_MEMSTALL, now);
	for (int tries = 0; tries < 2; tries++) {
		uint32_t u = iolat_reclaim_pick(m, &mm->c.reclaim, &mm->rng_reclaim);
		int victim;

		if (u != IOLAT_MEM_NONE) {
			if (m->units[u].flags & IOLAT_MU_FILE) {
				iolat_mem_drop_file(m, u);
				iolat_mem_take_frame(m);
				return true;
			}
			swapout(mm, u, t, now);
			return false;
		}
		if (m->writeback) {
			park(mm, t);
			return false;
		}
		victim = oom_victim(m);
		if (victim < 0)
			break;
		mm->ops->oom_kill(mm, victim, now);
		if (t->dead)
			return false;
		if (m->free) {
			iolat_mem_take_frame(m);
			return true;
		}
	}
	park(mm, t);
	return false;
}

/* ---- reads ---- */

static void read_complete(struct iolat_mm_io *io, uint64_t now)
{
	struct iolat_mm *mm = io->mm;

	iolat_hist_add(&mm->read_lat, now - io->submit_ns);
	iolat_mem_map(&mm->mem, io->unit);
	io->cont(io, now);
	io_put(mm, io);
}

static void plain_complete(struct iolat_mm_io *io, uint64_t now)
{
	io->cont(io, now);
	io_put(io->mm, io);
}

void iolat_mm_read_unit(struct iolat_mm_task *t, uint32_t u,
			void (*done)(struct iolat_mm_io *, uint64_t), uint64_t now)
{
	struct iolat_mm *mm = t->mm;
	struct iolat_mem_unit *un = &mm->mem.units[u];
	struct iolat_mm_io *io = io_get(mm);

	if (!io)
		return;
	io->kind = IOLAT_MM_IO_READ;
	io->unit = u;
	io->task = t;
	io->done = read_complete;
	io->cont = done;
	if (un->flags & IOLAT_MU_FILE)
		io->req.off = mm->c.data_off + (uint64_t)u * IOLAT_MEM_UNIT_BYTES;
	else
		io->req.off = mm->c.swap_off + (uint64_t)un->slot * IOLAT_MEM_UNIT_BYTES;
	io->req.len = IOLAT_MEM_UNIT_BYTES;
	io->req.write = false;
	iolat_mem_begin_read(&mm->mem, u);
	io_submit(mm, io, t->iog, 0, now);
}

void iolat_mm_submit_plain(struct iolat_mm_task *t, uint64_t off, uint32_t len, bool write,
			   void (*done)(struct iolat_mm_io *, uint64_t), uint64_t now)
{
	struct iolat_mm *mm = t->mm;
	struct iolat_mm_io *io = io_get(mm);

	if (!io)
		return;
	io->kind = IOLAT_MM_IO_PLAIN;
	io->task = t;
	io->done = plain_complete;
	io->cont = done;
	io->req.off = off;
	io->req.len = len;
	io->req.write = write;
	io_submit(mm, io, t->iog, 0, now);
}
