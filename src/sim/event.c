/* SPDX-License-Identifier: MIT */
/*
 * event.c - binary min-heap of (t_ns, seq) events and the virtual clock
 * (see event.h). The heap grows by doubling; nothing else allocates.
 * Context: one simulation thread per queue.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "sim/event.h"

static bool ev_before(const struct iolat_sim_event *a, const struct iolat_sim_event *b)
{
	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns;
	return a->seq < b->seq;
}

static void sift_up(struct iolat_sim_event *h, size_t i)
{
	struct iolat_sim_event e = h[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!ev_before(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static void sift_down(struct iolat_sim_event *h, size_t n, size_t i)
{
	struct iolat_sim_event e = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && ev_before(&h[c + 1], &h[c]))
			c++;
		if (!ev_before(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

int iolat_sim_evq_init(struct iolat_sim_evq *q, uint64_t start_ns)
{
	*q = (struct iolat_sim_evq){ .now_ns = start_ns };
	return 0;
}

void iolat_sim_evq_destroy(struct iolat_sim_evq *q)
{
	free(q->heap);
	q->heap = NULL;
	q->nr = q->cap = 0;
}

int iolat_sim_evq_at(struct iolat_sim_evq *q, uint64_t t_ns, iolat_sim_event_fn fn,
		     void *arg, uint64_t data)
{
	if (q->nr == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256;
		struct iolat_sim_event *h = realloc(q->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		q->heap = h;
		q->cap = cap;
	}
	if (t_ns < q->now_ns)
		t_ns = q->now_ns;
	q->heap[q->nr] = (struct iolat_sim_event){
		.t_ns = t_ns, .seq = q->next_seq++, .fn = fn, .arg = arg, .data = data,
	};
	sift_up(q->heap, q->nr++);
	return 0;
}

int iolat_sim_evq_after(struct iolat_sim_evq *q, uint64_t delay_ns, iolat_sim_event_fn fn,
			void *arg, uint64_t data)
{
	uint64_t t = q->now_ns + delay_ns;

	if (t < q->now_ns)      /* "never": saturate rather than wrap */
		t = UINT64_MAX;
	return iolat_sim_evq_at(q, t, fn, arg, data);
}

uint64_t iolat_sim_evq_next_t(const struct iolat_sim_evq *q)
{
	return q->nr ? q->heap[0].t_ns : UINT64_MAX;
}

int iolat_sim_evq_step(struct iolat_sim_evq *q)
{
	struct iolat_sim_event e;

	if (!q->nr)
		return 0;
	e = q->heap[0];
	q->heap[0] = q->heap[--q->nr];
	if (q->nr)
		sift_down(q->heap, q->nr, 0);
	q->now_ns = e.t_ns;
	q->nr_run++;
	e.fn(e.arg, e.data, e.t_ns);
	return 1;
}

uint64_t iolat_sim_evq_run_until(struct iolat_sim_evq *q, uint64_t t_end_ns)
{
	uint64_t n = 0;

	while (q->nr && q->heap[0].t_ns <= t_end_ns) {
		iolat_sim_evq_step(q);
		n++;
	}
	if (t_end_ns > q->now_ns)
		q->now_ns = t_end_ns;
	return n;
}

uint64_t iolat_sim_clock_now(void *ctx)
{
	return ((const struct iolat_sim_evq *)ctx)->now_ns;
}

void iolat_sim_evq_clock(struct iolat_sim_evq *q, struct iolat_clock *clk)
{
	clk->now_ns = iolat_sim_clock_now;
	clk->ctx = q;
}
