/* SPDX-License-Identifier: MIT */
/*
 * monocond.h - a mutex and a condition variable whose timed waits count on
 * CLOCK_MONOTONIC (a wall-clock step never shortens nor stretches a wait):
 * what every sleeper of ours with a deadline uses (the timer thread, the
 * null engine, the engines backend's main loop).
 * Context: any thread; the pair is the caller's.
 */
#ifndef IOLAT_UTIL_MONOCOND_H
#define IOLAT_UTIL_MONOCOND_H

#include <pthread.h>

/** iolat_monocond_init() - initialise @lock and @cv (@cv on CLOCK_MONOTONIC). */
void iolat_monocond_init(pthread_mutex_t *lock, pthread_cond_t *cv);

#endif /* IOLAT_UTIL_MONOCOND_H */
