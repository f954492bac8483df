/* SPDX-License-Identifier: MIT */
/*
 * t_devload.h - test helper: drives a simulated device alone (no controller)
 * with closed-loop streams of I/O and collects their latencies, so the model
 * tests can check a model's figures. Header-only (static inline), included
 * by tests/sim/test_dev_*.c.
 * Context: the test's one thread.
 */
#ifndef T_DEVLOAD_H
#define T_DEVLOAD_H

#include <stdlib.h>
#include <string.h>

#include "sim/device.h"
#include "sim/event.h"
#include "sim/registry.h"
#include "util/rng.h"

#define T_MAX_QD 256

struct t_stream {
	struct iolat_sim_dev *d;
	struct iolat_rng rng;
	bool rand, write;
	uint64_t bs, region_off, region_len, next_off;
	uint64_t start_ns, end_ns;      /* issue only in [start, end) */
	uint64_t *lat;
	size_t nlat, cap;
	uint64_t bytes;
	struct iolat_sim_req req[T_MAX_QD];
	uint32_t qd;
};

static inline void t_issue(struct t_stream *s, struct iolat_sim_req *r)
{
	if (s->rand)
		r->off = s->region_off + iolat_rng_below(&s->rng, s->region_len / s->bs) * s->bs;
	else {
		r->off = s->region_off + s->next_off;
		s->next_off = (s->next_off + s->bs) % s->region_len;
	}
	r->len = s->bs;
	r->write = s->write;
	iolat_sim_dev_submit(s->d, r);
}

static inline void t_done(struct iolat_sim_req *r, uint64_t now)
{
	struct t_stream *s = r->owner;

	if (s->nlat == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->lat = realloc(s->lat, s->cap * sizeof(*s->lat));
	}
	s->lat[s->nlat++] = r->done_ns - r->queued_ns;
	s->bytes += r->len;
	if (now < s->end_ns)
		t_issue(s, r);
}

static inline void t_kickoff(void *arg, uint64_t data, uint64_t now)
{
	struct t_stream *s = arg;

	for (uint32_t i = 0; i < s->qd; i++)
		t_issue(s, &s->req[i]);
}

/* Set up a stream on @d; it starts at @start_ns (absolute) and stops issuing at @end_ns. */
static inline void t_stream_init(struct t_stream *s, struct iolat_sim_dev *d, uint64_t seed,
				 bool rand, bool write, uint64_t bs, uint32_t qd,
				 uint64_t start_ns, uint64_t end_ns)
{
	memset(s, 0, sizeof(*s));
	s->d = d;
	iolat_rng_seed(&s->rng, seed, 99);
	s->rand = rand;
	s->write = write;
	s->bs = bs;
	s->qd = qd;
	s->region_len = d->capacity;
	s->start_ns = start_ns;
	s->end_ns = end_ns;
	for (uint32_t i = 0; i < qd; i++) {
		s->req[i].owner = s;
		s->req[i].complete = t_done;
	}
	iolat_sim_evq_at(d->evq, start_ns, t_kickoff, s, 0);
}

static inline int t_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentile (0..100) of a stream's latencies (sorts them). */
static inline uint64_t t_pct(struct t_stream *s, double pct)
{
	size_t i;

	if (!s->nlat)
		return 0;
	qsort(s->lat, s->nlat, sizeof(*s->lat), t_cmp_u64);
	i = (size_t)(pct / 100.0 * (double)(s->nlat - 1) + 0.5);
	return s->lat[i];
}

static inline double t_mean(const struct t_stream *s)
{
	double sum = 0;

	for (size_t i = 0; i < s->nlat; i++)
		sum += (double)s->lat[i];
	return s->nlat ? sum / (double)s->nlat : 0;
}

/* A device of model @name with optional key=value parameters. */
static inline struct iolat_sim_dev *t_dev(struct iolat_sim_evq *q, const char *name, uint64_t seed,
					  const struct iolat_sim_kv *kv, size_t nkv)
{
	struct iolat_sim_dev_config cfg = {
		.model = iolat_sim_model_find(name), .seed = seed, .params = kv, .nr_params = nkv,
	};
	struct iolat_sim_dev *d = NULL;

	if (!cfg.model || iolat_sim_dev_create(&cfg, q, &d, NULL, NULL))
		return NULL;
	return d;
}

#endif /* T_DEVLOAD_H */
