/* SPDX-License-Identifier: MIT */
/*
 * event.h - the simulator's event queue and virtual clock.
 *
 * A binary min-heap of events ordered by (t_ns, seq): an event's time in
 * virtual nanoseconds, then the order in which it was scheduled, so two events
 * at the same instant always run in scheduling order and a run is
 * reproducible. Running an event first moves the clock to its time. The clock
 * only moves forward. iolat_sim_evq_clock() hands the clock to the controller
 * as a struct iolat_clock.
 * Context: one simulation thread owns a queue; nothing here locks.
 */
#ifndef IOLAT_SIM_EVENT_H
#define IOLAT_SIM_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"

/* An event's action: @arg and @data as given when it was scheduled. */
typedef void (*iolat_sim_event_fn)(void *arg, uint64_t data, uint64_t now_ns);

struct iolat_sim_event {
	uint64_t t_ns;         /* when it runs, virtual ns */
	uint64_t seq;          /* scheduling order: breaks ties */
	iolat_sim_event_fn fn;
	void *arg;
	uint64_t data;
};

struct iolat_sim_evq {
	struct iolat_sim_event *heap; /* heap[0] is the earliest */
	size_t nr, cap;
	uint64_t next_seq;
	uint64_t now_ns;       /* the virtual clock */
	uint64_t nr_run;       /* events run so far */
};

/** iolat_sim_evq_init() - an empty queue whose clock reads @start_ns. Return: 0. */
int iolat_sim_evq_init(struct iolat_sim_evq *q, uint64_t start_ns);
void iolat_sim_evq_destroy(struct iolat_sim_evq *q);

/**
 * iolat_sim_evq_at() - schedule @fn(@arg, @data) at @t_ns. A time in the past
 * runs at the current time (after the events already due now).
 * Return: 0 or -ENOMEM.
 */
int iolat_sim_evq_at(struct iolat_sim_evq *q, uint64_t t_ns, iolat_sim_event_fn fn,
		     void *arg, uint64_t data);
/** iolat_sim_evq_after() - the same, @delay_ns after the current time. */
int iolat_sim_evq_after(struct iolat_sim_evq *q, uint64_t delay_ns, iolat_sim_event_fn fn,
			void *arg, uint64_t data);

/** iolat_sim_evq_next_t() - time of the earliest event; UINT64_MAX when empty. */
uint64_t iolat_sim_evq_next_t(const struct iolat_sim_evq *q);

/** iolat_sim_evq_step() - run the earliest event. Return: 1 if one ran, 0 if empty. */
int iolat_sim_evq_step(struct iolat_sim_evq *q);

/**
 * iolat_sim_evq_run_until() - run every event due at or before @t_end_ns (and
 * those they schedule in that span), then set the clock to @t_end_ns.
 * Return: the number of events run.
 */
uint64_t iolat_sim_evq_run_until(struct iolat_sim_evq *q, uint64_t t_end_ns);

/** iolat_sim_evq_now() - the virtual clock. */
static inline uint64_t iolat_sim_evq_now(const struct iolat_sim_evq *q)
{
	return q->now_ns;
}

/** iolat_sim_clock_now() - struct iolat_clock's now_ns for a queue (@ctx). */
uint64_t iolat_sim_clock_now(void *ctx);

/** iolat_sim_evq_clock() - fill @clk so the controller reads @q's clock. */
void iolat_sim_evq_clock(struct iolat_sim_evq *q, struct iolat_clock *clk);

#endif /* IOLAT_SIM_EVENT_H */
