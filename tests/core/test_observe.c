/* SPDX-License-Identifier: MIT */
/*
 * test_observe.c - completions observed elsewhere (iolat_observe_done_at,
 * iolat_group_observe_stat): a protected group whose observed requests miss
 * its target clamps its observed sibling by the same steps as admitted I/O
 * (halving from qd, then use_delay), without ever taking a slot; good
 * windows climb it back by qd/16; a tick releases a sibling that does no I/O
 * at all once the asking group goes quiet; observed bypass I/O on a
 * throttled level is charged as delay; latency 0 closes a window without a
 * sample; requests and bytes are counted.
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

/* @n observed requests of @g at latency @lat, now. */
static void obs(struct iolat_group *g, unsigned n, uint64_t lat, uint64_t bytes, unsigned flags)
{
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(iolat_observe_done_at(g, lat, bytes, flags, t_now), 0);
}

/*
 * One window of @g with 10 observed requests at @lat, closed 600 ms later
 * (past the window and the 500 ms gate between scale events) by a request
 * of latency 0. Return: whether the window was judged ok.
 */
static bool obs_window(struct iolat_group *g, uint64_t lat)
{
	uint64_t before = t_windows(g), ok = t_stat(g).windows_ok;

	obs(g, 10, lat, 4096, 0);
	t_advance(600 * T_MS);
	obs(g, 1, 0, 0, 0);
	assert_int_equal(t_windows(g), before + 1);
	return t_stat(g).windows_ok == ok + 1;
}

static struct iolat_observe_stat ostat(struct iolat_group *g)
{
	struct iolat_observe_stat st;

	assert_int_equal(iolat_group_observe_stat(g, &st), 0);
	return st;
}

static void test_clamps_by_the_same_steps(void **state)
{
	static const uint32_t depth[] = { 32, 16, 8, 4, 2, 1, 1, 1 };
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *reader = t_grp(ctl, NULL, "reader", 1 * T_MS);
	struct iolat_group *writer = t_grp(ctl, NULL, "writer", 0);

	obs(writer, 5, 3 * T_MS, 1 << 20, 0);
	assert_int_equal(ostat(writer).depth, T_MAX);
	for (unsigned k = 1; k <= 8; k++) {
		assert_false(obs_window(reader, 2 * T_MS));
		obs(writer, 1, 3 * T_MS, 1 << 20, 0); /* it sees the cookie on its request */
		assert_int_equal(ostat(writer).depth, depth[k - 1]);
		assert_int_equal(ostat(writer).use_delay, k <= 6 ? 0 : (int)k - 6);
		assert_true(ostat(writer).throttled);
		assert_int_equal(ostat(writer).scale_downs, k);
		assert_false(ostat(reader).throttled);
		/* Observation never takes a slot and never waits. */
		assert_int_equal(t_stat(writer).inflight, 0);
		assert_int_equal(t_stat(reader).inflight, 0);
		assert_int_equal(t_stat(writer).waiters, 0);
	}
	assert_int_equal(ostat(writer).nr_observed, 5 + 8);
	assert_int_equal(ostat(writer).bytes_observed, (5 + 8) * (1ull << 20));
	assert_int_equal(t_check_idle(ctl), 0);
	iolat_ctl_destroy(ctl);
}

static void test_good_windows_climb_back(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *reader = t_grp(ctl, NULL, "reader", 1 * T_MS);
	struct iolat_group *writer = t_grp(ctl, NULL, "writer", 0);

	for (unsigned k = 0; k < 6; k++) {
		obs_window(reader, 2 * T_MS);
		obs(writer, 1, 3 * T_MS, 1 << 20, 0);
	}
	assert_int_equal(ostat(writer).depth, 1);
	/* Each good window of the asking group is one up step: +qd/16 = 4. */
	for (unsigned k = 1; k <= 3; k++) {
		assert_true(obs_window(reader, 100 * T_US));
		assert_int_equal(ostat(writer).depth, k == 1 ? 5 : 1 + 4 * k);
		assert_int_equal(ostat(writer).scale_ups, k);
	}
	iolat_ctl_destroy(ctl);
}

static void test_tick_releases_an_idle_sibling(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *reader = t_grp(ctl, NULL, "reader", 1 * T_MS);
	struct iolat_group *writer = t_grp(ctl, NULL, "writer", 0);

	obs_window(reader, 2 * T_MS);
	obs_window(reader, 2 * T_MS);
	assert_int_equal(ostat(writer).depth, 32); /* one step: it saw one change */
	/* The reader goes quiet; the writer does no I/O either. */
	t_advance(T_S);
	iolat_ctl_tick(ctl);
	assert_int_equal(ostat(writer).depth, 32); /* first look at the asker */
	t_advance(T_S);
	iolat_ctl_tick(ctl);
	assert_int_equal(t_cookie_of(iolat_ctl_root(ctl)), T_D);
	assert_int_equal(ostat(writer).depth, T_MAX);
	assert_false(ostat(writer).throttled);
	assert_int_equal(ostat(writer).nr_observed, 0);
	iolat_ctl_destroy(ctl);
}

static void test_bypass_on_throttled_level_is_delay(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *fast = t_grp(ctl, NULL, "fast", 1 * T_MS);
	struct iolat_group *slow = t_grp(ctl, NULL, "slow", 10 * T_MS);
	uint64_t samples_before;

	assert_false(obs_window(fast, 2 * T_MS));
	obs(slow, 1, 5 * T_MS, 4096, 0); /* sees the first change: spared (5% rule) */
	assert_int_equal(ostat(slow).depth, T_MAX);
	/* slow's own good window goes through the locked path: it now has samples. */
	obs(slow, 20, 5 * T_MS, 4096, 0);
	t_advance(600 * T_MS);
	obs(slow, 1, 0, 0, 0);
	obs(fast, 1, 0, 0, 0); /* fast's overdue window closes empty first */
	assert_false(obs_window(fast, 2 * T_MS));
	obs(slow, 1, 5 * T_MS, 4096, 0);
	assert_int_equal(ostat(slow).depth, 32);
	samples_before = t_stat(slow).total;
	/* A metadata request of 1 ms on a throttled 10 ms level: 9 ms of delay, no sample. */
	obs(slow, 1, 1 * T_MS, 4096, IOLAT_IO_META);
	assert_int_equal(t_stat(slow).delay_ns, 9 * T_MS);
	assert_int_equal(t_stat(slow).nr_bypass, 1);
	assert_int_equal(t_stat(slow).total, samples_before);
	iolat_ctl_destroy(ctl);
}

static void test_zero_latency_closes_without_sample(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *reader = t_grp(ctl, NULL, "reader", 1 * T_MS);

	obs(reader, 3, 200 * T_US, 4096, 0);
	assert_int_equal(t_stat(reader).total, 3);
	obs(reader, 1, 0, 4096, 0);
	assert_int_equal(t_stat(reader).total, 3);
	assert_int_equal(t_windows(reader), 0);
	t_advance(100 * T_MS);
	obs(reader, 1, 0, 4096, 0);
	assert_int_equal(t_windows(reader), 1);
	assert_int_equal(t_stat(reader).total, 0); /* a new window */
	assert_int_equal(ostat(reader).nr_observed, 5);
	assert_int_equal(iolat_observe_done_at(NULL, 1, 1, 0, t_now), -EINVAL);
	assert_int_equal(iolat_group_observe_stat(NULL, NULL), -EINVAL);
	iolat_ctl_destroy(ctl);
}

static void test_disabled_controller_only_counts(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *a = t_grp(ctl, NULL, "a", 0);

	obs(a, 4, 50 * T_MS, 512, 0);
	assert_int_equal(ostat(a).nr_observed, 4);
	assert_int_equal(ostat(a).bytes_observed, 2048);
	assert_int_equal(t_stat(a).total, 0);
	assert_int_equal(t_stat(a).nr_done, 4);
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clamps_by_the_same_steps),
		cmocka_unit_test(test_good_windows_climb_back),
		cmocka_unit_test(test_tick_releases_an_idle_sibling),
		cmocka_unit_test(test_bypass_on_throttled_level_is_delay),
		cmocka_unit_test(test_zero_latency_closes_without_sample),
		cmocka_unit_test(test_disabled_controller_only_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
