/* SPDX-License-Identifier: MIT */
/*
 * memleak_mm.c - the kernel side of the leaking-service scenario: tasks and
 * their PSI state, page allocation with the min/low/high watermarks, direct
 * reclaim by the allocating task, kswapd, swap-out writes charged to the
 * page's owner and refault/swap-in reads charged to the faulting task, all
 * through the controller's public API on the simulated disk.
 * Context: one simulation thread per run.
 */

/*
 * An allocation takes a free frame while more than wmark_min are free (and
 * wakes kswapd below wmark_low). Otherwise the task reclaims one unit itself
 * (memory stall): a file unit is dropped and its frame is the task's at once;
 * an anonymous unit gets a swap slot and is written there, flag SWAP (unless
 * the ablation turns the bypass off), in the io group of the unit's OWNER,
 * whoever the reclaimer is; the task waits for that write and takes the
 * frame it frees. When nothing is reclaimable but writes are in flight, the
 * task waits for a frame; when nothing is reclaimable at all, the kernel's
 * OOM killer kills the leaf group with the most memory + swap. kswapd (a
 * kernel thread: no PSI, never throttled) keeps up to 32 writes in flight
 * until free frames reach wmark_high.
 */
#include <errno.h>
#include <stdlib.h>

#include "job/memleak_int.h"

#define KSWAPD_MAX_INFLIGHT 32
#define IO_CHUNK 256

/* ---- tasks and PSI ---- */

void ml_task_init(struct ml *ml, struct ml_task *t, int mg, struct iolat_group *iog)
{
	*t = (struct ml_task){ .ml = ml, .mg = mg, .iog = iog, .state = ML_T_IDLE };
}

void ml_task_set(struct ml_task *t, enum ml_task_state st, uint64_t now)
{
	struct ml *ml = t->ml;
	enum ml_task_state old = t->state;
	int dn, dm, dr;

	if (old == st)
		return;
	dn = (st != ML_T_IDLE) - (old != ML_T_IDLE);
	dm = (st == ML_T_MEMSTALL) - (old == ML_T_MEMSTALL);
	dr = (st == ML_T_RUN) - (old == ML_T_RUN);
	for (int g = t->mg; g >= 0; g = ml->mem.groups[g].parent)
		iolat_psi_change(&ml->psi[g], now, dn, dm, dr);
	if (old == ML_T_MEMSTALL)
		t->stall_ns += now - t->stall_since;
	if (st == ML_T_MEMSTALL)
		t->stall_since = now;
	t->state = st;
}

void ml_task_kill(struct ml_task *t, uint64_t now)
{
	ml_task_set(t, ML_T_IDLE, now);
	t->dead = true;
}

/* ---- I/O objects ---- */

static struct ml_io *io_get(struct ml *ml)
{
	struct ml_io *io;

	if (!ml->io_free) {
		struct ml_io **chunks = realloc(ml->io_chunks, (ml->nr_io_chunks + 1) * sizeof(*chunks));
		struct ml_io *c = calloc(IO_CHUNK, sizeof(*c));

		if (!chunks || !c) {
			free(c);
			if (chunks)
				ml->io_chunks = chunks;
			ml->error = -ENOMEM;
			return NULL;
		}
		ml->io_chunks = chunks;
		ml->io_chunks[ml->nr_io_chunks++] = c;
		for (int i = 0; i < IO_CHUNK; i++) {
			c[i].next_free = ml->io_free;
			ml->io_free = &c[i];
		}
	}
	io = ml->io_free;
	ml->io_free = io->next_free;
	io->ml = ml;
	io->task = NULL;
	return io;
}

void ml_io_put(struct ml *ml, struct ml_io *io)
{
	io->next_free = ml->io_free;
	ml->io_free = io;
}

void ml_io_pool_free(struct ml *ml)
{
	for (size_t i = 0; i < ml->nr_io_chunks; i++)
		free(ml->io_chunks[i]);
	free(ml->io_chunks);
	ml->io_chunks = NULL;
	ml->nr_io_chunks = 0;
	ml->io_free = NULL;
}

static void io_granted(struct iolat_waiter *w)
{
	struct ml_io *io = (struct ml_io *)((char *)w - offsetof(struct ml_io, w));

	iolat_sim_dev_submit(io->ml->dev, &io->req);
}

static void io_complete(struct iolat_sim_req *r, uint64_t now)
{
	struct ml_io *io = r->owner;

	iolat_done_at(&io->io, now);
	io->done(io, now);
}

static void io_submit(struct ml *ml, struct ml_io *io, struct iolat_group *g, unsigned flags,
		      uint64_t now)
{
	int ret;

	io->req.complete = io_complete;
	io->req.owner = io;
	io->w.granted = io_granted;
	io->submit_ns = now;
	ml->nr_submits++;
	ret = iolat_throttle_async_at(g, flags, &io->io, &io->w, now);
	if (ret == 0)
		iolat_sim_dev_submit(ml->dev, &io->req);
	else if (ret != IOLAT_QUEUED)
		ml->error = ret;
	else if (io->kind == ML_IO_SWAPOUT)
		ml->swap_waited++;
}

static struct iolat_group *iog_of(struct ml *ml, int mg)
{
	if (mg == ml->mg_wl)
		return ml->g_wl;
	if (mg == ml->mg_hog)
		return ml->g_hog;
	if (mg == ml->mg_bg)
		return ml->g_bg;
	return ml->g_sys;
}

/* ---- resuming blocked allocations ---- */

static void resume_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml_task *t = arg;

	if (!t->dead && t->on_frame)
		t->on_frame(t, now);
}

static void resume(struct ml *ml, struct ml_task *t)
{
	if (iolat_sim_evq_after(&ml->q, 0, resume_ev, t, 0))
		ml->error = -ENOMEM;
}

void ml_frames_freed(struct ml *ml, uint64_t now)
{
	while (ml->frame_waiters && ml->mem.free) {
		struct ml_task *t = ml->frame_waiters;

		ml->frame_waiters = t->next_waiter;
		t->next_waiter = NULL;
		if (t->dead)
			continue;
		iolat_mem_take_frame(&ml->mem);
		resume(ml, t);
	}
}

/* ---- swap-out ---- */

static void swapout_done(struct ml_io *io, uint64_t now)
{
	struct ml *ml = io->ml;
	struct ml_task *t = io->task;

	iolat_mem_end_swapout(&ml->mem, io->unit);
	if (!t)
		ml->kswapd_inflight--;
	if (t && !t->dead) {
		/* The direct reclaimer takes the frame its write freed. */
		iolat_mem_take_frame(&ml->mem);
		resume(ml, t);
	}
	ml_io_put(ml, io);
	ml_frames_freed(ml, now);
	if (ml->mem.free + ml->kswapd_inflight < ml->mem.wmark_high)
		ml_kswapd_wake(ml);
}

static void count_swapout(struct ml *ml, uint32_t u, const struct ml_task *t)
{
	struct iolat_group_stat st;

	ml->swap_writes++;
	ml->swap_by[!t ? 2 : t->mg == ml->mg_wl ? 0 : 1]++;
	if (!ml->mem.groups[ml->mem.units[u].group].alive)
		ml->swap_after_kill++;
	if ((int)ml->mem.units[u].group != ml->mg_hog)
		return;
	if (t && t->mg == ml->mg_wl)
		ml->hog_swap_by_web++;
	if (!iolat_group_stat(ml->g_sys, &st) && st.depth == 1)
		ml->hog_swap_at_depth1++;
}

/* Write anon unit @u to swap; @t waits for it (NULL: kswapd). */
static void swapout(struct ml *ml, uint32_t u, struct ml_task *t, uint64_t now)
{
	struct ml_io *io = io_get(ml);
	uint32_t slot;

	if (!io)
		return;
	slot = iolat_mem_begin_swapout(&ml->mem, u);
	io->kind = ML_IO_SWAPOUT;
	io->unit = u;
	io->task = t;
	io->done = swapout_done;
	io->req.off = ml->swap_off + (uint64_t)slot * IOLAT_MEM_UNIT_BYTES;
	io->req.len = IOLAT_MEM_UNIT_BYTES;
	io->req.write = true;
	if (!t)
		ml->kswapd_inflight++;
	count_swapout(ml, u, t);
	io_submit(ml, io, iog_of(ml, (int)ml->mem.units[u].group),
		  ml->swap_bypass ? IOLAT_IO_SWAP : 0, now);
}

/* ---- kswapd ---- */

static void kswapd_ev(void *arg, uint64_t data, uint64_t now)
{
	struct ml *ml = arg;
	struct iolat_mem *m = &ml->mem;
	bool dropped = false;

	ml->kswapd_queued = false;
	while (m->free + ml->kswapd_inflight < m->wmark_high &&
	       ml->kswapd_inflight < KSWAPD_MAX_INFLIGHT) {
		uint32_t u = iolat_reclaim_pick(m, &ml->rcfg, &ml->rng_reclaim);

		if (u == IOLAT_MEM_NONE)
			break;
		if (m->units[u].flags & IOLAT_MU_FILE) {
			iolat_mem_drop_file(m, u);
			dropped = true;
		} else {
			swapout(ml, u, NULL, now);
		}
	}
	if (dropped)
		ml_frames_freed(ml, now);
}

void ml_kswapd_wake(struct ml *ml)
{
	if (ml->kswapd_queued || ml->stopped)
		return;
	ml->kswapd_queued = true;
	if (iolat_sim_evq_after(&ml->q, 0, kswapd_ev, ml, 0))
		ml->error = -ENOMEM;
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

static void park(struct ml *ml, struct ml_task *t)
{
	t->next_waiter = ml->frame_waiters;
	ml->frame_waiters = t;
}

bool ml_alloc(struct ml_task *t, uint64_t now)
{
	struct ml *ml = t->ml;
	struct iolat_mem *m = &ml->mem;

	if (m->free > m->wmark_min) {
		iolat_mem_take_frame(m);
		if (m->free < m->wmark_low)
			ml_kswapd_wake(ml);
		return true;
	}
	ml_kswapd_wake(ml);
	ml_task_set(t, ML_T_MEMSTALL, now);
	for (int tries = 0; tries < 2; tries++) {
		uint32_t u = iolat_reclaim_pick(m, &ml->rcfg, &ml->rng_reclaim);
		int victim;

		if (u != IOLAT_MEM_NONE) {
			if (m->units[u].flags & IOLAT_MU_FILE) {
				iolat_mem_drop_file(m, u);
				iolat_mem_take_frame(m);
				return true;
			}
			swapout(ml, u, t, now);
			return false;
		}
		if (m->writeback) {
			park(ml, t);
			return false;
		}
		victim = oom_victim(m);
		if (victim < 0)
			break;
		ml_kill(ml, victim, "kernel OOM", now);
		if (t->dead)
			return false;
		if (m->free) {
			iolat_mem_take_frame(m);
			return true;
		}
	}
	park(ml, t);
	return false;
}

/* ---- reads ---- */

static void read_complete(struct ml_io *io, uint64_t now)
{
	struct ml *ml = io->ml;

	ml_record_read(ml, now - io->submit_ns);
	iolat_mem_map(&ml->mem, io->unit);
	io->cont(io, now);
	ml_io_put(ml, io);
}

static void plain_complete(struct ml_io *io, uint64_t now)
{
	io->cont(io, now);
	ml_io_put(io->ml, io);
}

void ml_read_unit(struct ml_task *t, uint32_t u, void (*done)(struct ml_io *, uint64_t), uint64_t now)
{
	struct ml *ml = t->ml;
	struct iolat_mem_unit *un = &ml->mem.units[u];
	struct ml_io *io = io_get(ml);

	if (!io)
		return;
	io->kind = ML_IO_READ;
	io->unit = u;
	io->task = t;
	io->done = read_complete;
	io->cont = done;
	if (un->flags & IOLAT_MU_FILE)
		io->req.off = ml->data_off + (uint64_t)u * IOLAT_MEM_UNIT_BYTES;
	else
		io->req.off = ml->swap_off + (uint64_t)un->slot * IOLAT_MEM_UNIT_BYTES;
	io->req.len = IOLAT_MEM_UNIT_BYTES;
	io->req.write = false;
	iolat_mem_begin_read(&ml->mem, u);
	io_submit(ml, io, t->iog, 0, now);
}

void ml_submit_plain(struct ml_task *t, uint64_t off, uint32_t len, bool write,
		     void (*done)(struct ml_io *, uint64_t), uint64_t now)
{
	struct ml *ml = t->ml;
	struct ml_io *io = io_get(ml);

	if (!io)
		return;
	io->kind = ML_IO_BG;
	io->task = t;
	io->done = plain_complete;
	io->cont = done;
	io->req.off = off;
	io->req.len = len;
	io->req.write = write;
	io_submit(ml, io, t->iog, 0, now);
}
