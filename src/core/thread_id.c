/* SPDX-License-Identifier: MIT */
/*
 * thread_id.c - the ids of the threads that call the controller. A thread's
 * id picks its stat slot in every group (ctl.h: owned slots are written with
 * plain loads and stores, and carry its share of a distributed in-flight
 * count, inflight.c), so an id belongs to one live thread at a time. Ids are
 * given out smallest first; an exiting thread's id goes back to the free
 * list when the layer that knows about threads reports the exit
 * (src/sync/ctl_sync.c: a pthread key's destructor), so a program whose
 * threads come and go keeps them on owned slots instead of running out of
 * ids. Without that layer (the simulator, a bare core) ids are never reused.
 *
 * The core stays free of threads: it only calls the hook it is given when a
 * thread gets an id, as it calls the clock.
 * Context: any thread. The free list is under a spinlock, taken once per
 * thread start and exit, never on the fast path.
 */
#include <stdint.h>

#include "core/ctl.h"

/* Ids released and not yet taken again; more are simply not reused. */
#define FREE_IDS_MAX 1024u

_Thread_local uint32_t iolat_my_thread_id __attribute__((tls_model("initial-exec"))) =
	UINT32_MAX;

static _Atomic uint32_t next_thread_id;
static struct iolat_spin free_lock = IOLAT_SPIN_INIT;
static uint32_t free_ids[FREE_IDS_MAX];
static uint32_t nr_free;
static void (*_Atomic new_id_hook)(uint32_t id);

void iolat_thread_id_set_hook(void (*hook)(uint32_t id))
{
	/* Release: pairs with the acquire load below; the hook's own set-up
	 * (its pthread key) is seen by the threads that call it. */
	atomic_store_explicit(&new_id_hook, hook, memory_order_release);
}

/* The smallest free id, or UINT32_MAX. free_lock held. */
static uint32_t take_smallest_locked(void)
{
	uint32_t best = UINT32_MAX, at = 0;

	for (uint32_t i = 0; i < nr_free; i++)
		if (free_ids[i] < best) {
			best = free_ids[i];
			at = i;
		}
	if (best != UINT32_MAX)
		free_ids[at] = free_ids[--nr_free];
	return best;
}

uint32_t iolat_thread_id_assign(void)
{
	void (*hook)(uint32_t id);
	uint32_t id;

	/* The lock orders this thread's use of the slots after the last use by
	 * the thread that released the id (its release, our acquire). */
	iolat_spin_lock(&free_lock);
	id = take_smallest_locked();
	iolat_spin_unlock(&free_lock);
	if (id == UINT32_MAX)
		id = atomic_fetch_add_explicit(&next_thread_id, 1, memory_order_relaxed);
	iolat_my_thread_id = id;
	hook = atomic_load_explicit(&new_id_hook, memory_order_acquire);
	if (hook)
		hook(id);
	return id;
}

void iolat_thread_id_release(uint32_t id)
{
	/* On the exiting thread itself: a later call into the controller from
	 * another exit handler takes a new id rather than one given away. */
	if (iolat_my_thread_id == id)
		iolat_my_thread_id = UINT32_MAX;
	iolat_spin_lock(&free_lock);
	if (nr_free < FREE_IDS_MAX)
		free_ids[nr_free++] = id;
	iolat_spin_unlock(&free_lock);
}
