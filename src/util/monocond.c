/* SPDX-License-Identifier: MIT */
/*
 * monocond.c - a mutex and a CLOCK_MONOTONIC condition variable (monocond.h).
 * Context: any thread.
 */
#include <time.h>

#include "util/monocond.h"

void iolat_monocond_init(pthread_mutex_t *lock, pthread_cond_t *cv)
{
	pthread_condattr_t ca;

	pthread_mutex_init(lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
}
