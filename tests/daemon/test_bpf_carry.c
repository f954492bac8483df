/* SPDX-License-Identifier: MIT */
/*
 * test_bpf_carry.c - whether iolatd stages its limit writes (actuate.h) is
 * decided from the kernel's BTF: struct throtl_grp with an unsigned
 * carryover_bytes (Linux 6.1: u64 carryover_bytes[2]) stages; a signed one,
 * or none (6.18 folds it into a signed count; kernels before 6.3 have no
 * carry), writes at once. Each case on a BTF built here with libbpf; the
 * running kernel's answer is printed, not asserted (it depends on the host).
 * Context: single-threaded cmocka program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/sys/bpf_source.h"

#ifdef CONFIG_HAVE_BPF
#include <bpf/btf.h>

enum carry { NONE, UNSIGNED_ARRAY, SIGNED_ARRAY, UNSIGNED_TYPEDEF };

/* struct throtl_grp { int disptime; <carry> carryover_bytes...; } and an unrelated struct before it. */
static struct btf *make_btf(enum carry c)
{
	struct btf *b = btf__new_empty();
	int s32, u64, s64, arr = 0, td;

	assert_non_null(b);
	s32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	u64 = btf__add_int(b, "long long unsigned int", 8, 0);
	s64 = btf__add_int(b, "long long int", 8, BTF_INT_SIGNED);
	td = btf__add_typedef(b, "u64", u64);
	assert_true(s32 > 0 && u64 > 0 && s64 > 0 && td > 0);
	if (c == UNSIGNED_ARRAY || c == SIGNED_ARRAY)
		arr = btf__add_array(b, s32, c == SIGNED_ARRAY ? s64 : u64, 2);
	/* A member of that name in another struct must not count. */
	assert_true(btf__add_struct(b, "other", 8) > 0);
	assert_int_equal(btf__add_field(b, "carryover_bytes", u64, 0, 0), 0);
	assert_true(btf__add_struct(b, "throtl_grp", 24) > 0);
	assert_int_equal(btf__add_field(b, "disptime", s32, 0, 0), 0);
	if (c == UNSIGNED_TYPEDEF)
		assert_int_equal(btf__add_field(b, "carryover_bytes", td, 64, 0), 0);
	else if (c != NONE)
		assert_int_equal(btf__add_field(b, "carryover_bytes", arr, 64, 0), 0);
	return b;
}

static int decide(enum carry c, char *why, size_t len)
{
	struct btf *b = make_btf(c);
	int r = iolatd_btf_throttle_carry(b, why, len);

	btf__free(b);
	return r;
}

static void test_decision(void **state)
{
	char why[256];

	assert_int_equal(decide(UNSIGNED_ARRAY, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "primed"));
	assert_int_equal(decide(UNSIGNED_TYPEDEF, why, sizeof(why)), 1);
	assert_int_equal(decide(SIGNED_ARRAY, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "signed"));
	assert_int_equal(decide(NONE, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no struct throtl_grp.carryover_bytes"));
}

static void test_running_kernel(void **state)
{
	char why[256];
	int r = iolatd_bpf_throttle_carry(why, sizeof(why));

	assert_true(r == 0 || r == 1 || r < 0);
	assert_true(strlen(why) > 0);
	printf("this kernel: %d: %s\n", r, why);
}
#else
static void test_decision(void **state)
{
	skip();
}

static void test_running_kernel(void **state)
{
	char why[256];

	assert_true(iolatd_bpf_throttle_carry(why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "without BPF"));
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decision),
		cmocka_unit_test(test_running_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
