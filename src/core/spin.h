/* SPDX-License-Identifier: MIT */
/*
 * spin.h - the one lock kind of the core: a small spinlock on an atomic flag.
 * It works in shared memory and needs no OS. Taken only off the fast path:
 * a parent's window-end decision, a wait queue that is non-empty, tree edits.
 * Context: any thread; never held across a user callback.
 */
#ifndef IOLAT_CORE_SPIN_H
#define IOLAT_CORE_SPIN_H

#include <stdatomic.h>
#include <stdbool.h>

struct iolat_spin {
	atomic_flag flag;
};

#define IOLAT_SPIN_INIT { ATOMIC_FLAG_INIT }

/* Release: the lock starts free for whoever acquires it first. */
static inline void iolat_spin_init(struct iolat_spin *s)
{
	atomic_flag_clear_explicit(&s->flag, memory_order_release);
}

/* Acquire: pairs with iolat_spin_unlock()'s release; what the previous
 * holder wrote under the lock is seen. */
static inline void iolat_spin_lock(struct iolat_spin *s)
{
	while (atomic_flag_test_and_set_explicit(&s->flag, memory_order_acquire)) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

/* Acquire on success, as iolat_spin_lock(). */
static inline bool iolat_spin_trylock(struct iolat_spin *s)
{
	return !atomic_flag_test_and_set_explicit(&s->flag, memory_order_acquire);
}

/* Release: pairs with the next holder's acquire in iolat_spin_lock/trylock. */
static inline void iolat_spin_unlock(struct iolat_spin *s)
{
	atomic_flag_clear_explicit(&s->flag, memory_order_release);
}

#endif
