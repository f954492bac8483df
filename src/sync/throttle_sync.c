/* SPDX-License-Identifier: MIT */
/*
 * throttle_sync.c - the calls that block: iolat_throttle() (the async
 * admission plus a futex sleep until granted), iolat_throttle_bytes() (the
 * pace gate's sleeps first) and iolat_maybe_throttle()
 * (serving charged delay with a capped sleep).
 * Context: threads that may sleep and hold no lock a completion needs.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "iolatency.h"

struct sync_waiter {
	struct iolat_waiter w;
	_Atomic uint32_t granted;
};

static void sync_granted(struct iolat_waiter *w)
{
	struct sync_waiter *sw = (struct sync_waiter *)((char *)w - offsetof(struct sync_waiter, w));

	/* Release: pairs with the sleeper's acquire load in iolat_throttle():
	 * the admission the waker completed on its behalf is seen before it returns. */
	atomic_store_explicit(&sw->granted, 1, memory_order_release);
	/* The sleeper may return and reuse its stack at once; a wake on a
	 * stale address is harmless for futexes (spurious wake-ups are allowed). */
	syscall(SYS_futex, &sw->granted, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

int iolat_throttle(struct iolat_group *g, unsigned io_flags, struct iolat_io *io)
{
	struct sync_waiter sw = { .w = { .granted = sync_granted } };
	int ret;

	atomic_init(&sw.granted, 0);
	ret = iolat_throttle_async(g, io_flags, io, &sw.w);
	if (ret != IOLAT_QUEUED)
		return ret;
	/* Acquire: pairs with sync_granted()'s release store. */
	while (!atomic_load_explicit(&sw.granted, memory_order_acquire))
		syscall(SYS_futex, &sw.granted, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	io->waiter_ = NULL; /* the stack waiter is gone */
	return 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

int iolat_throttle_bytes(struct iolat_group *g, unsigned io_flags, uint64_t bytes,
			 struct iolat_io *io)
{
	uint64_t wait;

	if (!g || !io)
		return -EINVAL;
	/* The pace gate runs on the controller's clock (virtual in tests). */
	if (!(io_flags & (IOLAT_IO_SWAP | IOLAT_IO_META | IOLAT_IO_ROOT))) {
		while ((wait = iolat_group_pace_due(g, bytes,
				iolat_ctl_now(iolat_group_ctl(g)))) != 0) {
			if (io_flags & IOLAT_IO_NOWAIT)
				return -EAGAIN;
			sleep_ns(wait);
		}
	}
	return iolat_throttle(g, io_flags, io);
}

uint64_t iolat_maybe_throttle(struct iolat_group *g)
{
	uint64_t ns = iolat_group_delay_due(g);
	struct timespec ts;

	if (!ns)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(ns / 1000000000ull);
	ts.tv_nsec += (long)(ns % 1000000000ull);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	/* An absolute deadline: early wake-ups (signals) sleep again. */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	iolat_group_note_slept(g, ns);
	return ns;
}
