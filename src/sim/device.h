/* SPDX-License-Identifier: MIT */
/*
 * device.h - a simulated block device: the device-model ops table and the
 * device queue of nr_requests slots in front of a model (hdd, ssd, bad-ssd,
 * vdisk). Implemented by device.c; models in dev_*.c stand on it; the models
 * by name are registry.h's (the only file that points at the models).
 * Context: one simulation thread; nothing here locks.
 */

/*
 * A request submitted to the device takes one of nr_requests slots (the
 * kernel's tags) or waits, FIFO, for one. Slot holders sit in the device queue
 * until the model accepts them: the model's start() takes a request or says
 * -EBUSY (nothing more can start until a completion or the model kicks the
 * queue); its pick() hook chooses which queued request goes next (an elevator)
 * and defaults to the oldest. A model schedules its own events on the
 * simulation's event queue and ends a request with iolat_sim_dev_complete().
 * Completion frees the slot, lets the device start its next request, and only
 * then calls the owner's callback, as a real device is already busy again
 * when the host hears of a completion. A model never completes a request
 * from inside start(): always from an event.
 */
#ifndef IOLAT_SIM_DEVICE_H
#define IOLAT_SIM_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/param.h"
#include "util/fifo.h"
#include "util/rng.h"

struct iolat_sim_dev;

/* One I/O as the device sees it. The owner fills the first block. */
struct iolat_sim_req {
	uint64_t off, len;     /* bytes */
	bool write;
	void (*complete)(struct iolat_sim_req *r, uint64_t now_ns);
	void *owner;
	/* Set by the device: */
	uint64_t queued_ns;    /* submitted to the device */
	uint64_t slot_ns;      /* got a device-queue slot */
	uint64_t start_ns;     /* the model began serving it */
	uint64_t done_ns;      /* completed */
	uint64_t mstate[2];    /* model-private (chunks left, units held...) */
	struct iolat_sim_req *next_; /* device-private FIFO link */
};

/* The requests waiting for a device-queue slot, linked through next_ (util/fifo.h). */
IOLAT_FIFO(iolat_sim_reqq, struct iolat_sim_req, next_)

/* A device model: the ops behind struct iolat_sim_dev. */
struct iolat_sim_model {
	const char *name;        /* as in device=: "ssd", "hdd", "bad-ssd" */
	const char *prefix;      /* its job-file keys: "ssd_" */
	const char *summary;     /* one line for --help */
	int rotational;          /* 1: the controller's mean rule; 0: p90 rule */
	uint32_t nr_requests;    /* default device queue depth */
	const struct iolat_sim_param *params; /* ends with name == NULL */
	size_t cfg_size;         /* size of the model's config struct (doubles) */
	size_t priv_size;        /* model state, zeroed, at dev->priv */
	/* After the parameters are set. Return: 0, -EDOM (inconsistent
	 * parameters: set dev->err_key and dev->err_msg) or -errno. */
	int (*init)(struct iolat_sim_dev *d);
	/* Optional: index in dev->queue[] of the next request to start; NULL: 0. */
	uint32_t (*pick)(struct iolat_sim_dev *d, uint64_t now_ns);
	/* Accept @r (it will call iolat_sim_dev_complete() later): 0, or -EBUSY. */
	int (*start)(struct iolat_sim_dev *d, struct iolat_sim_req *r, uint64_t now_ns);
	/* Optional: free the model's state. */
	void (*destroy)(struct iolat_sim_dev *d);
};

/* The models, each defined by its dev_*.c and listed only by registry.c
 * (registry.h: the models by name). */
extern const struct iolat_sim_model iolat_sim_model_hdd;
extern const struct iolat_sim_model iolat_sim_model_ssd;
extern const struct iolat_sim_model iolat_sim_model_badssd;
extern const struct iolat_sim_model iolat_sim_model_vdisk;

/* What a device completed (the device layer's counts). */
struct iolat_sim_dev_stat {
	uint64_t nr_done, nr_read, nr_write;
	uint64_t bytes_read, bytes_written;
};

struct iolat_sim_dev {
	const struct iolat_sim_model *model;
	struct iolat_sim_evq *evq;
	struct iolat_rng rng;     /* the model's randomness */
	uint32_t nr_requests;
	uint64_t capacity;            /* bytes; set by the model's init */
	void *cfg;                    /* the model's parameters */
	void *priv;                   /* the model's state */
	struct iolat_sim_req **queue; /* slot holders not yet started, oldest first */
	uint32_t nr_queued;
	uint32_t nr_in;               /* slot holders (queued + started) */
	struct iolat_sim_reqq wait;   /* waiting for a slot, oldest first */
	uint32_t nr_waiting;
	struct iolat_sim_dev_stat st;
	/* Set by a model's init when it rejects its parameters together. */
	const char *err_key;          /* the key at fault */
	const char *err_msg;          /* the rule it breaks */
};

struct iolat_sim_kv {
	const char *key, *value;
};

struct iolat_sim_dev_config {
	const struct iolat_sim_model *model;
	uint32_t nr_requests;         /* 0: the model's default */
	uint64_t seed;
	const struct iolat_sim_kv *params; /* model keys ("ssd_units" = "16") */
	size_t nr_params;
};

/**
 * iolat_sim_dev_create() - a device on @q with @cfg's model and parameters.
 * @bad: set to the index in cfg->params of the parameter that failed, or to
 * SIZE_MAX when no single parameter did.
 * @why: for a set of parameters the model rejects together (-EDOM): the key
 * at fault and the rule it breaks; may be NULL.
 * Return: 0; -ENOENT (a key the model does not have), -EINVAL (not a number),
 * -ERANGE (outside the parameter's range), -EDOM (inconsistent parameters);
 * -ENOMEM.
 */
struct iolat_sim_dev_err {
	const char *key, *msg;
};
int iolat_sim_dev_create(const struct iolat_sim_dev_config *cfg, struct iolat_sim_evq *q,
			 struct iolat_sim_dev **out, size_t *bad, struct iolat_sim_dev_err *why);
void iolat_sim_dev_destroy(struct iolat_sim_dev *d);

/** iolat_sim_dev_submit() - hand @r (owner fields filled) to the device now. */
void iolat_sim_dev_submit(struct iolat_sim_dev *d, struct iolat_sim_req *r);

/** iolat_sim_dev_complete() - for models: @r is done now. */
void iolat_sim_dev_complete(struct iolat_sim_dev *d, struct iolat_sim_req *r);

/** iolat_sim_dev_kick() - for models: something freed up; try to start queued requests. */
void iolat_sim_dev_kick(struct iolat_sim_dev *d);

/** iolat_sim_dev_param() - read back a parameter by key; -ENOENT if the model lacks it. */
int iolat_sim_dev_param(const struct iolat_sim_dev *d, const char *key, double *val);


/* Helpers for models. */
static inline double *iolat_sim_cfg_field(void *cfg, size_t off)
{
	return (double *)((char *)cfg + off);
}

/* Nanoseconds to move @bytes at @mb_per_s (10^6 bytes/s), rounded to the ns. */
uint64_t iolat_sim_xfer_ns(uint64_t bytes, double mb_per_s);

#endif /* IOLAT_SIM_DEVICE_H */
