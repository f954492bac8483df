/* SPDX-License-Identifier: MIT */
/*
 * dev_vdisk.c - the "vdisk" device model: a virtual machine's disk backed by
 * a host, with the sharp bandwidth knee measured on the project's machine
 * (docs/simulator-scenarios.md, "The knee"). Its parameter table (vdisk_*
 * keys), its mechanics, and a bandwidth that can drop for a while mid-run
 * (the moving knee).
 * Context: one simulation thread.
 */

/*
 * The model, and where its figures come from.
 *
 * Measured on the project's VM (virtio disk, 2 cores, a shared host; see
 * docs/simulator-scenarios.md): a 4 KiB QD1 O_DIRECT reader alone has a p90
 * of ~45 us on a quiet day (~85 us when the host's CPUs are busy); a 1 MiB
 * O_DIRECT writer at QD 32 does 2.8-3.3 GB/s quiet (1.2-3.2 busy); with the
 * writer unthrottled the reader's p90 is 15-35 ms; with the writer held by
 * the kernel's throttle just below its own rate the reader keeps its solo
 * p90; user-space limiters that let the writes through in bunches at the
 * same average rate cost the reader 4-8x its solo p90. So reads are served
 * beside the writes and are not slowed by them, until writes queue: then
 * a read waits behind everything queued before it.
 *
 * - Requests are started in arrival order (the device queue's FIFO).
 * - A read starts at once and completes after read_us (+- jitter_pct) plus
 *   its size at read_mbps; reads run in parallel.
 * - Writes go through one pipe at mbps: a write starts when the pipe is
 *   free, holds it for its size at mbps, and completes write_us later. While
 *   the pipe is busy, the write at the head of the queue waits - and every
 *   request behind it, reads too: that is the knee. Below mbps a paced
 *   writer finds the pipe free and reads never wait; above it (or in
 *   bursts) the queue fills and reads wait for the writes before them.
 * - The moving knee: from slow_at_s for slow_for_s, the pipe runs at
 *   slow_pct % of mbps (the host busy with other work).
 * - The host takes up to host_writes writes off the queue at once (1, the
 *   default: a write starts only when the pipe is free); they go through
 *   the pipe one after the other. A read queued behind them starts once the
 *   host has room, not when the pipe has drained them all: with more than
 *   one, a read behind a bunch of writes waits for the part of it beyond
 *   the host's n (the project's disk: p90 of a few ms, not the whole bunch).
 * - A read behind the write in service (read_wait_pct, 0: off): a read
 *   started while a write holds the pipe waits that share of the write's
 *   remaining pipe time before its own service (the host serves one request
 *   of the virtio queue at a time for a part of it). It holds no one else.
 * - Stalls: about every stall_every_ms (exponential gaps; 0: never) the
 *   device starts nothing for uniform(stall_min_ms, stall_max_ms) (the host
 *   flushing): a few reads see 5-40 ms, the mean of a window jumps.
 * Rotational: the VM's disk says rotational=1, so the controller's kernel
 * rules judge it by the mean; set rotational=0 in [global] to see the p90 rule.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim/device.h"

struct vdisk_cfg {
	double capacity_gib, mbps, read_us, read_mbps, write_us, jitter_pct;
	double slow_at_s, slow_for_s, slow_pct;
	double stall_every_ms, stall_min_ms, stall_max_ms;
	double read_wait_pct, host_writes;
};

#define VDISK_MAX_HOST 256    /* host_writes' range */

struct vdisk {
	uint64_t start_ns;      /* the device's birth: slow_at_s counts from here */
	uint64_t pipe_free_ns;  /* the write pipe is busy until then */
	uint64_t host_end_ns[VDISK_MAX_HOST]; /* when each write the host took leaves the pipe: a ring */
	unsigned host_head, host_n;
	uint64_t kick_ns;       /* a kick is scheduled then (0: none) */
	uint64_t stall_at_ns, stall_end_ns; /* the next stall */
};

#define P(n, f, d, lo, hi, h) { .name = "vdisk_" n, .off = offsetof(struct vdisk_cfg, f), \
				.def = d, .min = lo, .max = hi, .help = h }
static const struct iolat_sim_param vdisk_params[] = {
	P("capacity_gib", capacity_gib, 256, 1, 1e6, "disk size, GiB"),
	P("mbps", mbps, 3000, 1, 1e6, "write pipe bandwidth (the knee), MB/s"),
	P("read_us", read_us, 40, 0, 1e6, "fixed cost of a read, us"),
	P("read_mbps", read_mbps, 3000, 1, 1e6, "read transfer rate, MB/s"),
	P("write_us", write_us, 30, 0, 1e6, "a write completes this long after leaving the pipe, us"),
	P("jitter_pct", jitter_pct, 10, 0, 100, "+- uniform jitter on the fixed costs, %"),
	P("slow_at_s", slow_at_s, 0, 0, 1e6, "the pipe slows down at this time, s (0: never)"),
	P("slow_for_s", slow_for_s, 0, 0, 1e6, "... for this long, s"),
	P("slow_pct", slow_pct, 50, 1, 100, "... to this share of mbps, %"),
	P("stall_every_ms", stall_every_ms, 0, 0, 1e9, "a stall about this often, ms (0: never)"),
	P("stall_min_ms", stall_min_ms, 5, 0, 1e6, "shortest stall, ms"),
	P("stall_max_ms", stall_max_ms, 40, 0, 1e6, "longest stall, ms"),
	P("read_wait_pct", read_wait_pct, 0, 0, 100,
	  "a read started while a write is in the pipe waits this share of its rest, %"),
	P("host_writes", host_writes, 1, 1, VDISK_MAX_HOST,
	  "writes the host takes off the queue ahead of the pipe (1: one at a time)"),
	{ .name = NULL },
};
#undef P

static uint64_t ms_ns(double ms)
{
	return (uint64_t)llround(ms * 1e6);
}

static uint64_t jittered_us(struct iolat_sim_dev *d, double us)
{
	const struct vdisk_cfg *c = d->cfg;
	double j = c->jitter_pct / 100.0;

	return (uint64_t)llround(us * 1000.0 * (1.0 - j + 2.0 * j * iolat_rng_unit(&d->rng)));
}

static void schedule_stall(struct iolat_sim_dev *d, uint64_t from)
{
	const struct vdisk_cfg *c = d->cfg;
	struct vdisk *v = d->priv;
	double gap = -log(1.0 - iolat_rng_unit(&d->rng)) * c->stall_every_ms;
	double len = c->stall_min_ms + (c->stall_max_ms - c->stall_min_ms) *
					 iolat_rng_unit(&d->rng);

	v->stall_at_ns = from + ms_ns(gap);
	v->stall_end_ns = v->stall_at_ns + ms_ns(len);
}

static int vdisk_init(struct iolat_sim_dev *d)
{
	const struct vdisk_cfg *c = d->cfg;
	struct vdisk *v = d->priv;

	if (c->stall_min_ms > c->stall_max_ms) {
		d->err_key = "vdisk_stall_min_ms";
		d->err_msg = "must not exceed vdisk_stall_max_ms";
		return -EDOM;
	}
	d->capacity = (uint64_t)(c->capacity_gib * 1073741824.0);
	v->start_ns = iolat_sim_evq_now(d->evq);
	if (c->stall_every_ms > 0)
		schedule_stall(d, v->start_ns);
	return 0;
}

/* The pipe's bandwidth at @now, MB/s. */
static double pipe_mbps(const struct iolat_sim_dev *d, uint64_t now)
{
	const struct vdisk_cfg *c = d->cfg;
	const struct vdisk *v = d->priv;
	uint64_t at = ms_ns(c->slow_at_s * 1000.0), len = ms_ns(c->slow_for_s * 1000.0);
	uint64_t t = now - v->start_ns;

	if (at && t >= at && t < at + len)
		return c->mbps * c->slow_pct / 100.0;
	return c->mbps;
}

static void on_kick(void *arg, uint64_t data, uint64_t now)
{
	struct iolat_sim_dev *d = arg;
	struct vdisk *v = d->priv;

	(void)data;
	(void)now;
	v->kick_ns = 0;
	iolat_sim_dev_kick(d);
}

static void on_done(void *arg, uint64_t data, uint64_t now)
{
	(void)now;
	iolat_sim_dev_complete(arg, (struct iolat_sim_req *)(uintptr_t)data);
}

/* Nothing starts before @t: hold the queue, and kick it then. */
static int busy_until(struct iolat_sim_dev *d, uint64_t t)
{
	struct vdisk *v = d->priv;

	if (!v->kick_ns || v->kick_ns > t) {
		v->kick_ns = t;
		iolat_sim_evq_at(d->evq, t, on_kick, d, 0);
	}
	return -EBUSY;
}

/* Forget the writes that left the pipe by @now. */
static void host_drop(struct vdisk *v, uint64_t now)
{
	while (v->host_n && v->host_end_ns[v->host_head] <= now) {
		v->host_head = (v->host_head + 1) % VDISK_MAX_HOST;
		v->host_n--;
	}
}

static int vdisk_start(struct iolat_sim_dev *d, struct iolat_sim_req *r, uint64_t now)
{
	const struct vdisk_cfg *c = d->cfg;
	struct vdisk *v = d->priv;
	uint64_t done;

	if (c->stall_every_ms > 0 && now >= v->stall_at_ns) {
		if (now < v->stall_end_ns)
			return busy_until(d, v->stall_end_ns);
		schedule_stall(d, v->stall_end_ns);
	}
	if (r->write) {
		unsigned n = (unsigned)c->host_writes;

		host_drop(v, now);
		if (v->host_n >= n)   /* the host holds n writes: the queue waits for the first */
			return busy_until(d, n == 1 ? v->pipe_free_ns : v->host_end_ns[v->host_head]);
		v->pipe_free_ns = (v->pipe_free_ns > now ? v->pipe_free_ns : now) +
				  iolat_sim_xfer_ns(r->len, pipe_mbps(d, now));
		v->host_end_ns[(v->host_head + v->host_n++) % VDISK_MAX_HOST] = v->pipe_free_ns;
		done = v->pipe_free_ns + jittered_us(d, c->write_us);
	} else {
		done = now + jittered_us(d, c->read_us) + iolat_sim_xfer_ns(r->len, c->read_mbps);
		host_drop(v, now);
		if (c->read_wait_pct > 0 && v->host_n)   /* behind the write in service */
			done += (uint64_t)llround((double)(v->host_end_ns[v->host_head] - now) *
						  c->read_wait_pct / 100.0);
	}
	iolat_sim_evq_at(d->evq, done, on_done, d, (uint64_t)(uintptr_t)r);
	return 0;
}

const struct iolat_sim_model iolat_sim_model_vdisk = {
	.name = "vdisk",
	.prefix = "vdisk_",
	.summary = "a VM's host-backed disk: 40 us reads beside a 3 GB/s write pipe, a sharp knee",
	.rotational = 1,
	.nr_requests = 256,
	.params = vdisk_params,
	.cfg_size = sizeof(struct vdisk_cfg),
	.priv_size = sizeof(struct vdisk),
	.init = vdisk_init,
	.start = vdisk_start,
};
