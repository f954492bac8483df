/* SPDX-License-Identifier: MIT */
/*
 * test_stall.c - a stalled device must not wedge the controller
 * (docs/reliability.md), checked on a virtual clock: "main" (1 ms target) misses until its
 * sibling "bulk" is clamped and bulk's I/O queues; then the device stalls
 * (nothing completes). What docs/reliability.md says happens is asserted:
 *  - default timer: the tick runs regardless; the asking group completed
 *    nothing since the previous tick, so the second tick of the stall
 *    unclamps bulk and grants its waiters (they join the stalled queue);
 *  - IOLAT_CTL_COMPAT_TIMER (the kernel's): with nothing submitted the tick
 *    does nothing; waiters stay queued until completions resume, then each
 *    completion hands its slot on, FIFO;
 *  - either way, once the device recovers everything completes exactly once
 *    and every level returns to inflight 0, no waiter.
 * Context: single-threaded cmocka program (granted() runs on it).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "iolatency.h"

#define MSEC 1000000ull
#define SEC  1000000000ull
#define NR_BULK 24

struct vio {
	struct iolat_io io;
	struct iolat_waiter w;
	int state;              /* 0 free, 1 queued, 2 admitted */
	unsigned grants;
};

static uint64_t now_ns;

static uint64_t vclock(void *ctx)
{
	(void)ctx;
	return now_ns;
}

static const struct iolat_clock clk = { .now_ns = vclock };

static void on_granted(struct iolat_waiter *w)
{
	struct vio *v = (struct vio *)((char *)w - offsetof(struct vio, w));

	assert_int_equal(v->state, 1);
	v->state = 2;
	v->grants++;
}

static void submit(struct iolat_group *g, struct vio *v)
{
	int ret;

	memset(v, 0, sizeof(*v));
	v->w.granted = on_granted;
	ret = iolat_throttle_async(g, 0, &v->io, &v->w);
	assert_true(ret == 0 || ret == IOLAT_QUEUED);
	v->state = ret == 0 ? 2 : 1;
}

static void complete(struct vio *v)
{
	assert_int_equal(v->state, 2);
	v->state = 0;
	iolat_done(&v->io);
}

static uint32_t waiters(struct iolat_group *g)
{
	struct iolat_group_stat st;

	iolat_group_stat(g, &st);
	return st.waiters;
}

static uint32_t depth(struct iolat_group *g)
{
	struct iolat_group_stat st;

	iolat_group_stat(g, &st);
	return st.depth;
}

static void assert_idle(struct iolat_group *g)
{
	struct iolat_group_stat st;

	iolat_group_stat(g, &st);
	assert_int_equal(st.inflight, 0);
	assert_int_equal(st.waiters, 0);
}

/*
 * Build the stall: main misses window after window (5 ms latencies against
 * 1 ms) while bulk keeps NR_BULK I/Os submitted and never completed, so
 * that, clamped, bulk has waiters. Returns with main's last I/O in flight.
 */
static void clamp_bulk(struct iolat_group *main_g, struct iolat_group *bulk, struct vio *mio,
		       struct vio *bio)
{
	int nb = 0;

	for (int round = 0; round < 40 && (nb < NR_BULK || !waiters(bulk)); round++) {
		for (int k = 0; k < 8; k++)
			submit(main_g, &mio[k]);
		now_ns += 5 * MSEC;
		for (int k = 0; k < 8; k++)
			complete(&mio[k]);
		now_ns += 150 * MSEC; /* windows are 100 ms; scale events 500 ms apart */
		if (nb < NR_BULK)
			submit(bulk, &bio[nb++]);
		if (nb < NR_BULK)
			submit(bulk, &bio[nb++]);
	}
	assert_int_equal(nb, NR_BULK);
	assert_true(waiters(bulk) > 0);
	assert_true(depth(bulk) < 8);
	/* The stall begins: main's next I/O goes into the device and stays. */
	submit(main_g, &mio[0]);
	assert_int_equal(mio[0].state, 2);
}

static void setup(unsigned flags, struct iolat_ctl **ctl, struct iolat_group **main_g,
		  struct iolat_group **bulk)
{
	struct iolat_ctl_config cfg = { .nr_requests = 8, .clock = &clk, .flags = flags };

	now_ns = SEC;
	assert_int_equal(iolat_ctl_create(&cfg, ctl), 0);
	assert_int_equal(iolat_group_create(*ctl, NULL, "main", main_g), 0);
	assert_int_equal(iolat_group_create(*ctl, NULL, "bulk", bulk), 0);
	assert_int_equal(iolat_group_set_target(*main_g, 1 * MSEC), 0);
}

/* The device recovers: complete everything, oldest first; waiters move up. */
static void recover(struct vio *mio, struct vio *bio)
{
	bool any = true;

	if (mio[0].state == 2)
		complete(&mio[0]);
	while (any) {
		any = false;
		now_ns += 1 * MSEC;
		for (int i = 0; i < NR_BULK; i++) {
			if (bio[i].state == 2) {
				complete(&bio[i]);
				any = true;
			}
		}
	}
	for (int i = 0; i < NR_BULK; i++) {
		assert_int_equal(bio[i].state, 0);
		assert_true(bio[i].grants <= 1);
	}
}

static void test_stall_default_timer_releases(void **state)
{
	static struct vio mio[8], bio[NR_BULK];
	struct iolat_ctl *ctl;
	struct iolat_group *main_g, *bulk;
	uint32_t queued;

	(void)state;
	setup(0, &ctl, &main_g, &bulk);
	clamp_bulk(main_g, bulk, mio, bio);
	queued = waiters(bulk);

	/* First tick of the stall: starts watching main (counts as active). */
	now_ns += SEC;
	iolat_ctl_tick(ctl);
	assert_int_equal(waiters(bulk), queued);
	/* Second: main completed nothing since - bulk is unclamped, waiters granted. */
	now_ns += SEC;
	iolat_ctl_tick(ctl);
	assert_int_equal(waiters(bulk), 0);
	assert_int_equal(depth(bulk), IOLAT_DEPTH_MAX);
	for (int i = 0; i < NR_BULK; i++)
		assert_int_equal(bio[i].state, 2);
	/* More ticks while stalled: nothing changes, nothing breaks. */
	for (int k = 0; k < 5; k++) {
		now_ns += SEC;
		iolat_ctl_tick(ctl);
	}
	recover(mio, bio);
	assert_idle(main_g);
	assert_idle(bulk);
	assert_int_equal(iolat_group_destroy(bulk), 0);
	assert_int_equal(iolat_group_destroy(main_g), 0);
	iolat_ctl_destroy(ctl);
}

static void test_stall_kernel_timer_waits_for_completions(void **state)
{
	static struct vio mio[8], bio[NR_BULK];
	struct iolat_ctl *ctl;
	struct iolat_group *main_g, *bulk;
	uint32_t queued;

	(void)state;
	setup(IOLAT_CTL_COMPAT_TIMER, &ctl, &main_g, &bulk);
	clamp_bulk(main_g, bulk, mio, bio);
	queued = waiters(bulk);

	/* The kernel's timer: armed by the last submit, then idle while nothing
	 * is submitted. The waiters stay queued through a 10 s stall. */
	for (int k = 0; k < 10; k++) {
		now_ns += SEC;
		iolat_ctl_tick(ctl);
		assert_int_equal(waiters(bulk), queued);
	}
	/* Recovery: each completion hands its slot to the next waiter. */
	recover(mio, bio);
	for (int i = 0; i < NR_BULK; i++)
		assert_int_equal(bio[i].state, 0);
	assert_idle(main_g);
	assert_idle(bulk);
	assert_int_equal(iolat_group_destroy(bulk), 0);
	assert_int_equal(iolat_group_destroy(main_g), 0);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stall_default_timer_releases),
		cmocka_unit_test(test_stall_kernel_timer_waits_for_completions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
