/* SPDX-License-Identifier: MIT */
/*
 * device.c - the device queue in front of every model (see device.h): the
 * nr_requests slots, the FIFO of requests waiting for a slot, the queue of
 * slot holders the model has not started; the helpers models share. The
 * models call it; it calls a model only through its ops table (the list of
 * models is registry.c's).
 * Context: one simulation thread.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/device.h"

uint64_t iolat_sim_xfer_ns(uint64_t bytes, double mb_per_s)
{
	return (uint64_t)llround((double)bytes * 1000.0 / mb_per_s);
}

int iolat_sim_dev_create(const struct iolat_sim_dev_config *cfg, struct iolat_sim_evq *q,
			 struct iolat_sim_dev **out, size_t *bad, struct iolat_sim_dev_err *why)
{
	const struct iolat_sim_model *m = cfg->model;
	struct iolat_sim_dev *d;
	int ret;

	*out = NULL;
	if (bad)
		*bad = SIZE_MAX;
	if (why)
		why->key = why->msg = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->model = m;
	d->evq = q;
	d->nr_requests = cfg->nr_requests ? cfg->nr_requests : m->nr_requests;
	iolat_rng_seed(&d->rng, cfg->seed, 0x6465766963650aull); /* "device" */
	d->cfg = calloc(1, m->cfg_size);
	d->priv = m->priv_size ? calloc(1, m->priv_size) : NULL;
	d->queue = calloc(d->nr_requests, sizeof(*d->queue));
	if (!d->cfg || (m->priv_size && !d->priv) || !d->queue) {
		ret = -ENOMEM;
		goto fail;
	}
	iolat_sim_param_defaults(m->params, d->cfg);
	for (size_t i = 0; i < cfg->nr_params; i++) {
		ret = iolat_sim_param_set(m->params, d->cfg, cfg->params[i].key,
					  cfg->params[i].value);
		if (ret) {
			if (bad)
				*bad = i;
			goto fail;
		}
	}
	ret = m->init ? m->init(d) : 0;
	if (ret) {
		if (why) {
			why->key = d->err_key;
			why->msg = d->err_msg;
		}
		goto fail;
	}
	*out = d;
	return 0;
fail:
	free(d->queue);
	free(d->priv);
	free(d->cfg);
	free(d);
	return ret;
}

void iolat_sim_dev_destroy(struct iolat_sim_dev *d)
{
	if (!d)
		return;
	if (d->model->destroy)
		d->model->destroy(d);
	free(d->queue);
	free(d->priv);
	free(d->cfg);
	free(d);
}

int iolat_sim_dev_param(const struct iolat_sim_dev *d, const char *key, double *val)
{
	const struct iolat_sim_param *p = iolat_sim_param_find(d->model->params, key);

	if (!p)
		return -ENOENT;
	*val = *iolat_sim_cfg_field(d->cfg, p->off);
	return 0;
}

void iolat_sim_dev_kick(struct iolat_sim_dev *d)
{
	uint64_t now = iolat_sim_evq_now(d->evq);

	while (d->nr_queued) {
		uint32_t i = d->model->pick ? d->model->pick(d, now) : 0;
		struct iolat_sim_req *r = d->queue[i];

		r->start_ns = now;
		if (d->model->start(d, r, now) == -EBUSY)
			break;
		memmove(&d->queue[i], &d->queue[i + 1],
			(d->nr_queued - i - 1) * sizeof(*d->queue));
		d->nr_queued--;
	}
}

static void take_slot(struct iolat_sim_dev *d, struct iolat_sim_req *r, uint64_t now)
{
	d->nr_in++;
	r->slot_ns = now;
	d->queue[d->nr_queued++] = r;
}

void iolat_sim_dev_submit(struct iolat_sim_dev *d, struct iolat_sim_req *r)
{
	uint64_t now = iolat_sim_evq_now(d->evq);

	r->queued_ns = now;
	r->slot_ns = r->start_ns = r->done_ns = 0;
	r->mstate[0] = r->mstate[1] = 0;
	r->next_ = NULL;
	if (d->nr_in < d->nr_requests && iolat_sim_reqq_empty(&d->wait)) {
		take_slot(d, r, now);
		iolat_sim_dev_kick(d);
		return;
	}
	iolat_sim_reqq_push(&d->wait, r);
	d->nr_waiting++;
}

void iolat_sim_dev_complete(struct iolat_sim_dev *d, struct iolat_sim_req *r)
{
	uint64_t now = iolat_sim_evq_now(d->evq);

	r->done_ns = now;
	d->nr_in--;
	d->st.nr_done++;
	if (r->write) {
		d->st.nr_write++;
		d->st.bytes_written += r->len;
	} else {
		d->st.nr_read++;
		d->st.bytes_read += r->len;
	}
	while (!iolat_sim_reqq_empty(&d->wait) && d->nr_in < d->nr_requests) {
		struct iolat_sim_req *w = iolat_sim_reqq_pop(&d->wait);

		d->nr_waiting--;
		take_slot(d, w, now);
	}
	/* The device starts its next request before the host hears of this one. */
	iolat_sim_dev_kick(d);
	r->complete(r, now);
}

