/* SPDX-License-Identifier: MIT */
/*
 * ctl_sync.c - controller lifetime with the operating system around it:
 * allocation of the core's arena, the default CLOCK_MONOTONIC clock, and
 * the optional timer thread that runs iolat_ctl_tick() once a second, and
 * telling the core when a thread that called it exits (so that its id and
 * stat slots go to the next new thread: core/thread_id.c).
 * Context: create/destroy from any one thread; the timer thread is ours.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ctl.h"
#include "util/monocond.h"

struct timer_thread {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
};

static uint64_t monotonic_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct iolat_clock monotonic_clock = { .now_ns = monotonic_now_ns };

/* ---- thread exits: the core reuses an exited thread's id ---- */

static pthread_key_t thread_exit_key;
static pthread_once_t thread_exit_once = PTHREAD_ONCE_INIT;

/* The key's destructor, on the exiting thread: its value is the id + 1. */
static void thread_exited(void *value)
{
	iolat_thread_id_release((uint32_t)((uintptr_t)value - 1));
}

/* The core's hook, on a thread just given @id: be told of its exit. */
static void watch_thread(uint32_t id)
{
	pthread_setspecific(thread_exit_key, (void *)((uintptr_t)id + 1));
}

static void watch_thread_exits(void)
{
	if (pthread_key_create(&thread_exit_key, thread_exited) == 0)
		iolat_thread_id_set_hook(watch_thread);
}

int iolat_ctl_create(const struct iolat_ctl_config *cfg, struct iolat_ctl **out)
{
	const struct iolat_clock *clock = cfg && cfg->clock ? cfg->clock : &monotonic_clock;
	size_t size;
	void *mem;
	int ret;

	if (!out || !clock->now_ns)
		return -EINVAL;
	pthread_once(&thread_exit_once, watch_thread_exits);
	ret = iolat_core_ctl_check(cfg);
	if (ret)
		return ret;
	size = iolat_core_ctl_size(cfg);
	size = (size + IOLAT_CACHELINE - 1) / IOLAT_CACHELINE * IOLAT_CACHELINE;
	mem = aligned_alloc(IOLAT_CACHELINE, size);
	if (!mem)
		return -ENOMEM;
	*out = iolat_core_ctl_init(mem, cfg, clock);
	return 0;
}

static void *timer_main(void *arg)
{
	struct iolat_ctl *ctl = arg;
	struct timer_thread *t = ctl->sync_priv;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		next.tv_sec += 1;
		while (!t->stop && pthread_cond_timedwait(&t->cond, &t->lock, &next) != ETIMEDOUT)
			;
		if (t->stop)
			break;
		pthread_mutex_unlock(&t->lock);
		iolat_ctl_tick(ctl);
		pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int iolat_ctl_start_timer(struct iolat_ctl *ctl)
{
	struct timer_thread *t;
	int ret;

	if (!ctl)
		return -EINVAL;
	if (ctl->sync_priv)
		return -EALREADY;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	iolat_monocond_init(&t->lock, &t->cond);
	ctl->sync_priv = t;
	ret = pthread_create(&t->thread, NULL, timer_main, ctl);
	if (ret) {
		ctl->sync_priv = NULL;
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		free(t);
		return -ret;
	}
	return 0;
}

void iolat_ctl_destroy(struct iolat_ctl *ctl)
{
	struct timer_thread *t;

	if (!ctl)
		return;
	t = ctl->sync_priv;
	if (t) {
		pthread_mutex_lock(&t->lock);
		t->stop = true;
		pthread_cond_signal(&t->cond);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->thread, NULL);
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		free(t);
	}
	free(ctl);
}
