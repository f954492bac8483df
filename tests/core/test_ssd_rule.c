/* SPDX-License-Identifier: MIT */
/*
 * test_ssd_rule.c - the SSD (non-rotational) window rule (docs/controller.md
 * R10, C13): a window is ok when missed < max(total / 10, 1), where a miss is
 * a latency >= target (equal counts). Judged windows are observed as
 * windows_ok / windows_missed and, for the first window of a fresh
 * controller, as the parent's cookie (a bad window moves it down by qd/4).
 * Context: single-threaded cmocka program on the virtual clock.
 */
#include "helpers/t_ctl.h"

#define TARGET (1 * T_MS)

struct ssd_case {
	unsigned total, missed;
	uint64_t miss_lat;   /* latency of the "missed" ones */
	bool ok;
};

static const struct ssd_case cases[] = {
	{ 15, 1, TARGET, false },        /* 6.4: threshold max(1, 1) = 1 */
	{ 15, 0, TARGET, true },
	{ 19, 1, TARGET, false },        /* fewer than 20: zero misses allowed */
	{ 20, 1, TARGET, true },         /* threshold 2 */
	{ 20, 2, TARGET, false },
	{ 200, 19, TARGET, true },       /* threshold 20 */
	{ 200, 20, TARGET, false },
	{ 200, 19, 50 * T_MS, true },    /* a mean far above target is still ok */
	{ 1, 0, TARGET, true },
	{ 1, 1, TARGET, false },
	{ 10, 1, TARGET, false },        /* latency == target is a miss */
	{ 10, 1, TARGET - 1, true },     /* one ns under it is not */
	{ 10, 10, TARGET - 1, true },
};

static void test_ssd_table(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ssd_case *c = &cases[i];
		struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
		struct iolat_group *root = iolat_ctl_root(ctl);
		struct iolat_group *fast = t_grp(ctl, NULL, "fast", TARGET);
		struct iolat_group_stat st;
		bool ok;

		(void)t_grp(ctl, NULL, "other", 0);
		ok = t_window(fast, c->total - c->missed, 500 * T_US, c->missed, c->miss_lat, 0);
		st = t_stat(fast);
		if (ok != c->ok)
			print_error("case %zu: %u I/Os, %u at %llu ns: want %s\n", i, c->total,
				    c->missed, (unsigned long long)c->miss_lat, c->ok ? "ok" : "bad");
		assert_int_equal(ok, c->ok);
		assert_int_equal(st.windows_ok, c->ok ? 1 : 0);
		assert_int_equal(st.windows_missed, c->ok ? 0 : 1);
		assert_int_equal(t_cookie_of(root), c->ok ? T_D : T_D - 16);
		assert_ptr_equal(iolat_group_scale_grp(root), c->ok ? NULL : fast);
		iolat_ctl_destroy(ctl);
	}
}

/* io.stat's missed/total: the current, partial window. */
static void test_ssd_counts(void **state)
{
	struct iolat_ctl *ctl = t_ctl_new(64, 0, 0);
	struct iolat_group *g = t_grp(ctl, NULL, "g", TARGET);
	struct iolat_group_stat st;

	t_fill(g, 2, 200 * T_US, 0);
	t_fill(g, 1, TARGET, 0);
	t_fill(g, 1, 3 * TARGET, 0);
	st = t_stat(g);
	assert_int_equal(st.total, 4);
	assert_int_equal(st.missed, 2);
	t_set_now(T_START_NS + 100 * T_MS);
	assert_true(t_close(g));
	st = t_stat(g);
	assert_int_equal(st.total, 0);
	assert_int_equal(st.missed, 0);
	assert_int_equal(st.windows_missed, 1); /* 2 of 4 missed */
	assert_int_equal(st.avg_lat_ns, 0);     /* no EMA on SSD */
	iolat_ctl_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssd_table),
		cmocka_unit_test(test_ssd_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
