/* SPDX-License-Identifier: MIT */
/*
 * Tests of the intrusive FIFO (src/util/fifo.h): first in, first out; peek
 * and empty; a zeroed queue is empty; pop and remove clear the link; remove at the head, in the
 * middle, at the tail (the tail moves back), of the only element and of one
 * not queued; splice in order, into and from an empty queue; and a long
 * random sequence of every operation against an array kept beside it.
 * Context: single-threaded test program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/fifo.h"

struct item {
	int v;
	struct item *link;
};

IOLAT_FIFO(t_q, struct item, link)

/* The queue's elements in order, into @v; and its tail is the last of them. */
static int t_values(const struct t_q *q, int *v, int max)
{
	const struct item *e, *last = NULL;
	int n = 0;

	for (e = t_q_peek(q); e; e = e->link) {
		assert_true(n < max);
		v[n++] = e->v;
		last = e;
	}
	assert_ptr_equal(q->tail, last);
	assert_int_equal(t_q_empty(q), n == 0);
	return n;
}

static void t_expect(const struct t_q *q, const int *want, int n)
{
	int got[64];

	assert_int_equal(t_values(q, got, 64), n);
	for (int i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

static void test_order(void **state)
{
	struct item it[4] = { { .v = 0 }, { .v = 1 }, { .v = 2 }, { .v = 3 } };
	struct t_q q;

	(void)state;
	t_q_init(&q);
	assert_true(t_q_empty(&q));
	assert_null(t_q_peek(&q));
	assert_null(t_q_pop(&q));
	for (int i = 0; i < 4; i++) {
		it[i].link = &it[(i + 1) % 4]; /* whatever was there is overwritten */
		t_q_push(&q, &it[i]);
		assert_ptr_equal(t_q_peek(&q), &it[0]);
	}
	t_expect(&q, (const int[]){ 0, 1, 2, 3 }, 4);
	for (int i = 0; i < 4; i++) {
		struct item *e = t_q_pop(&q);

		assert_ptr_equal(e, &it[i]);
		assert_null(e->link);
	}
	assert_true(t_q_empty(&q));
	assert_null(q.tail);
}

/* A zeroed queue (calloc'd state) is an empty one, as after init. */
static void test_zeroed(void **state)
{
	struct item a = { .v = 7 }, b = { .v = 8 };
	struct t_q q = { 0 };

	(void)state;
	assert_true(t_q_empty(&q));
	assert_null(t_q_pop(&q));
	t_q_push(&q, &a);
	t_q_push(&q, &b);
	t_expect(&q, (const int[]){ 7, 8 }, 2);
}

static void test_remove(void **state)
{
	struct item it[5] = { { .v = 0 }, { .v = 1 }, { .v = 2 }, { .v = 3 }, { .v = 4 } };
	struct item stranger = { .v = 9 };
	struct t_q q;

	(void)state;
	t_q_init(&q);
	assert_false(t_q_remove(&q, &stranger)); /* from an empty queue */
	for (int i = 0; i < 5; i++)
		t_q_push(&q, &it[i]);
	assert_false(t_q_remove(&q, &stranger));
	t_expect(&q, (const int[]){ 0, 1, 2, 3, 4 }, 5);
	assert_true(t_q_remove(&q, &it[2]));    /* the middle */
	assert_null(it[2].link);
	t_expect(&q, (const int[]){ 0, 1, 3, 4 }, 4);
	assert_true(t_q_remove(&q, &it[4]));    /* the tail: it moves back */
	t_expect(&q, (const int[]){ 0, 1, 3 }, 3);
	t_q_push(&q, &it[4]);                   /* and a push lands after it */
	t_expect(&q, (const int[]){ 0, 1, 3, 4 }, 4);
	assert_true(t_q_remove(&q, &it[0]));    /* the head */
	t_expect(&q, (const int[]){ 1, 3, 4 }, 3);
	assert_false(t_q_remove(&q, &it[0]));   /* twice: not there any more */
	assert_true(t_q_remove(&q, &it[1]));
	assert_true(t_q_remove(&q, &it[4]));
	assert_true(t_q_remove(&q, &it[3]));    /* the only one */
	t_expect(&q, NULL, 0);
	assert_null(q.tail);
}

static void test_splice(void **state)
{
	struct item it[5] = { { .v = 0 }, { .v = 1 }, { .v = 2 }, { .v = 3 }, { .v = 4 } };
	struct t_q a, b;

	(void)state;
	t_q_init(&a);
	t_q_init(&b);
	t_q_splice(&a, &b);                     /* both empty */
	t_expect(&a, NULL, 0);
	t_q_push(&b, &it[0]);
	t_q_push(&b, &it[1]);
	t_q_splice(&a, &b);                     /* into an empty one */
	t_expect(&a, (const int[]){ 0, 1 }, 2);
	t_expect(&b, NULL, 0);
	t_q_splice(&a, &b);                     /* from an empty one */
	t_expect(&a, (const int[]){ 0, 1 }, 2);
	for (int i = 2; i < 5; i++)
		t_q_push(&b, &it[i]);
	t_q_splice(&a, &b);
	t_expect(&a, (const int[]){ 0, 1, 2, 3, 4 }, 5);
	t_expect(&b, NULL, 0);
	assert_ptr_equal(t_q_pop(&a), &it[0]);
	t_q_push(&b, &it[0]);                   /* the emptied source is usable */
	t_expect(&b, (const int[]){ 0 }, 1);
	t_expect(&a, (const int[]){ 1, 2, 3, 4 }, 4);
}

static uint64_t t_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Every operation at random against an array model of the queue. */
static void test_against_model(void **state)
{
	enum { N = 32 };
	struct item it[N];
	bool queued[N] = { false };
	int model[N], n = 0;
	uint64_t rs = 0x9e3779b97f4a7c15ull;
	struct t_q q;

	(void)state;
	t_q_init(&q);
	for (int i = 0; i < N; i++)
		it[i] = (struct item){ .v = i };
	for (int step = 0; step < 20000; step++) {
		int k = (int)(t_rand(&rs) % N);

		switch (t_rand(&rs) % 3) {
		case 0: /* push one that is not queued */
			if (queued[k])
				break;
			t_q_push(&q, &it[k]);
			queued[k] = true;
			model[n++] = k;
			break;
		case 1: { /* pop */
			struct item *e = t_q_pop(&q);

			if (!n) {
				assert_null(e);
				break;
			}
			assert_non_null(e);
			assert_int_equal(e->v, model[0]);
			queued[model[0]] = false;
			for (int i = 1; i < n; i++)
				model[i - 1] = model[i];
			n--;
			break;
		}
		default: { /* remove k, queued or not */
			int at = -1;

			for (int i = 0; i < n; i++)
				if (model[i] == k)
					at = i;
			assert_int_equal(t_q_remove(&q, &it[k]), at >= 0);
			if (at < 0)
				break;
			queued[k] = false;
			for (int i = at + 1; i < n; i++)
				model[i - 1] = model[i];
			n--;
			break;
		}
		}
		t_expect(&q, model, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_zeroed),
		cmocka_unit_test(test_remove),
		cmocka_unit_test(test_splice),
		cmocka_unit_test(test_against_model),
	};
	return cmocka_run_group_tests_name("fifo", tests, NULL, NULL);
}
