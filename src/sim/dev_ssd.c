/* SPDX-License-Identifier: MIT */
/*
 * dev_ssd.c - the "ssd" device model (a good NVMe/SATA drive): its parameter
 * table (ssd_* keys) and the flash mechanics it shares with "bad-ssd"
 * (dev_badssd.c): units, chunks, write buffer, pauses.
 * Context: one simulation thread.
 */

/*
 * The model, and where its figures come from.
 *
 * - The drive has `units` internal units (channels x dies) working at once.
 *   A request larger than chunk_kib is cut into chunks of that size; chunks
 *   wait in one FIFO and each free unit takes the next one. A read chunk
 *   costs read_us (+- jitter) + its size at unit_read_mbps. A request
 *   completes with its last chunk. Requests are taken in arrival order (no
 *   reordering), so a read that finds every unit busy waits for a unit, and
 *   one queued behind a deep queue of large writes waits for all of them: the
 *   device-queueing interference io.latency exists to bound.
 * - A write goes into the write buffer when it has room: it costs write_us +
 *   its transfer over the host link (one transfer at a time at host_mbps) and
 *   uses no unit. The buffer drains in the background at unit_prog_mbps per
 *   idle unit (host reads preempt the drain, as drives suspend programs for
 *   reads). A write that finds the buffer full is programmed directly: its
 *   chunks take units, prog_us + size at unit_prog_mbps each.
 * - After every ssd_gc_every_mib programmed (directly or by the drain) the
 *   drive pauses (garbage collection): for uniform(ssd_gc_min_ms,
 *   ssd_gc_max_ms) no chunk starts, nothing drains, and the host link accepts
 *   nothing; requests already on a unit finish.
 * Non-rotational: the controller uses its p90 rule.
 *
 * Figures ("ssd": a good PCIe 3/4 TLC NVMe drive with DRAM, Samsung 970/980
 * EVO/Pro, WD SN750/SN850 class): QD1 4 KiB random read 80-100 us seen by
 * applications (vendor sheets quote 15-20k IOPS at QD1; reviews such as
 * AnandTech's QD1 random-read tests show 70-100 us) -> 70 us + 4 KiB at
 * 200 MB/s a unit = 90 us; QD1 4 KiB writes ~20 us into DRAM/SLC (50k+ IOPS
 * at QD1); 32 units (8 channels x 4 dies); a 3.2 GB/s link; 32 x 62.5 MB/s =
 * 2 GB/s TLC program rate after the cache (reviews' "write after SLC cache"
 * plots: 1.5-3 GB/s for this class); GC pauses of a few ms,
 * a few times a second under sustained writes (reviews' 99.9th percentile
 * write/read latency under load: single-digit ms). The real SLC cache is tens
 * of GB; 256 MiB here so a short run reaches steady state (raise ssd_wbuf_mib
 * to study bursts).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "sim/flash.h"

#define P(n, f, d, lo, hi, h) { .name = "ssd_" n, .off = offsetof(struct iolat_sim_flash_cfg, f), \
				.def = d, .min = lo, .max = hi, .help = h }
static const struct iolat_sim_param ssd_params[] = {
	P("capacity_gib", capacity_gib, 1024, 1, 1e6, "drive size, GiB"),
	P("units", units, 32, 1, 1024, "internal units working at once (channels x dies)"),
	P("chunk_kib", chunk_kib, 1024, 4, 65536, "larger requests are cut into chunks of this size, KiB"),
	P("read_us", read_us, 70, 0, 1e6, "fixed cost of reading a chunk, us"),
	P("unit_read_mbps", unit_read_mbps, 200, 1, 1e6, "read transfer rate of one unit, MB/s"),
	P("jitter_pct", jitter_pct, 10, 0, 100, "+- uniform jitter on the fixed costs, %"),
	P("write_us", write_us, 20, 0, 1e6, "fixed cost of a write the buffer absorbs, us"),
	P("host_mbps", host_mbps, 3200, 1, 1e6, "host link rate for absorbed writes, MB/s"),
	P("wbuf_mib", wbuf_mib, 256, 0, 1e7, "write buffer (DRAM/SLC cache), MiB"),
	P("prog_us", prog_us, 0, 0, 1e6, "fixed cost of programming a chunk, us"),
	P("unit_prog_mbps", unit_prog_mbps, 62.5, 0.01, 1e6, "program rate of one unit, MB/s"),
	P("gc_every_mib", pause_every_mib, 512, 0, 1e9, "a GC pause after this much programmed, MiB (0: never)"),
	P("gc_min_ms", pause_min_ms, 2, 0, 1e6, "shortest GC pause, ms"),
	P("gc_max_ms", pause_max_ms, 5, 0, 1e6, "longest GC pause, ms"),
	{ .name = NULL },
};
#undef P


int iolat_sim_flash_init(struct iolat_sim_dev *d)
{
	const struct iolat_sim_flash_cfg *c = d->cfg;
	struct iolat_sim_flash *f = d->priv;

	if (c->pause_min_ms > c->pause_max_ms) {
		/* The two models name the pause keys differently. */
		bool bad = d->model->prefix[0] == 'b';

		d->err_key = bad ? "badssd_stall_min_ms" : "ssd_gc_min_ms";
		d->err_msg = bad ? "needs badssd_stall_min_ms <= badssd_stall_max_ms" :
				   "needs ssd_gc_min_ms <= ssd_gc_max_ms";
		return -EDOM;
	}
	f->units = (uint32_t)c->units;
	f->chunk_bytes = (uint64_t)(c->chunk_kib * 1024.0);
	f->read_ns_per_byte = 1000.0 / c->unit_read_mbps;
	f->prog_ns_per_byte = 1000.0 / c->unit_prog_mbps;
	f->prog_bytes_per_ns = 1.0 / f->prog_ns_per_byte;
	f->wbuf_cap = c->wbuf_mib * 1048576.0;
	f->wbuf_t = iolat_sim_evq_now(d->evq);
	d->capacity = (uint64_t)(c->capacity_gib * 1073741824.0);
	return 0;
}

void iolat_sim_flash_destroy(struct iolat_sim_dev *d)
{
	struct iolat_sim_flash *f = d->priv;

	free(f->fifo);
	f->fifo = NULL;
}

int iolat_sim_flash_stat(const struct iolat_sim_dev *d, struct iolat_sim_flash_stat *st)
{
	const struct iolat_sim_flash *f = d->priv;

	if (d->model->start != iolat_sim_flash_start)
		return -EINVAL;
	*st = f->st;
	st->wbuf_bytes = f->wbuf;
	return 0;
}

static uint64_t jitter(struct iolat_sim_dev *d, double base_us)
{
	const struct iolat_sim_flash_cfg *c = d->cfg;
	double j = c->jitter_pct / 100.0;

	if (j > 0)
		base_us *= 1.0 + j * (2.0 * iolat_rng_unit(&d->rng) - 1.0);
	return (uint64_t)llround(base_us * 1000.0);
}

static void flash_run(struct iolat_sim_dev *d, uint64_t now);

static void pause_over(void *arg, uint64_t data, uint64_t now)
{
	struct iolat_sim_dev *d = arg;

	flash_run(d, now);
	iolat_sim_dev_kick(d);
}

/* Count @bytes programmed; start a pause when enough has been written. */
static void programmed(struct iolat_sim_dev *d, double bytes, uint64_t now)
{
	const struct iolat_sim_flash_cfg *c = d->cfg;
	struct iolat_sim_flash *f = d->priv;
	double lo, hi;
	uint64_t len;

	f->since_pause += bytes;
	if (c->pause_every_mib <= 0 || f->since_pause < c->pause_every_mib * 1048576.0)
		return;
	if (now < f->paused_until)
		return;
	f->since_pause = 0;
	lo = c->pause_min_ms;
	hi = c->pause_max_ms;
	len = (uint64_t)llround((lo + (hi - lo) * iolat_rng_unit(&d->rng)) * 1e6);
	f->paused_until = now + len;
	f->st.nr_pauses++;
	f->st.pause_ns += len;
	iolat_sim_evq_at(d->evq, f->paused_until, pause_over, d, 0);
}

/* Bring the buffer fill up to @now: idle units drained it since wbuf_t. */
static void wbuf_update(struct iolat_sim_dev *d, uint64_t now)
{
	struct iolat_sim_flash *f = d->priv;
	uint64_t from = f->wbuf_t > f->paused_until ? f->wbuf_t : f->paused_until;
	double out;

	f->wbuf_t = now;
	if (now <= from || f->wbuf <= 0 || f->busy >= f->units)
		return;
	out = (double)(now - from) * f->prog_bytes_per_ns * (f->units - f->busy);
	if (out > f->wbuf)
		out = f->wbuf;
	f->wbuf -= out;
	f->st.bytes_drained += (uint64_t)out;
	programmed(d, out, now);
}

static void chunk_done(void *arg, uint64_t data, uint64_t now)
{
	struct iolat_sim_dev *d = arg;
	struct iolat_sim_req *r = (struct iolat_sim_req *)(uintptr_t)data;
	struct iolat_sim_flash *f = d->priv;

	wbuf_update(d, now);
	f->busy--;
	flash_run(d, now);
	if (--r->mstate[0] == 0)
		iolat_sim_dev_complete(d, r);
}

/* Give free units the next chunks, unless paused. */
static void flash_run(struct iolat_sim_dev *d, uint64_t now)
{
	const struct iolat_sim_flash_cfg *c = d->cfg;
	struct iolat_sim_flash *f = d->priv;

	wbuf_update(d, now);
	while (f->busy < f->units && f->nr && now >= f->paused_until) {
		struct iolat_sim_flash_chunk ch = f->fifo[f->head];
		uint64_t t;

		f->head = (f->head + 1) % f->cap;
		f->nr--;
		f->busy++;
		if (ch.r->write) {
			t = jitter(d, c->prog_us) +
			    (uint64_t)llround(ch.bytes * f->prog_ns_per_byte);
			programmed(d, ch.bytes, now);
		} else {
			t = jitter(d, c->read_us) +
			    (uint64_t)llround(ch.bytes * f->read_ns_per_byte);
		}
		iolat_sim_evq_at(d->evq, now + t, chunk_done, d, (uintptr_t)ch.r);
	}
}

static int push_chunk(struct iolat_sim_flash *f, struct iolat_sim_req *r, uint32_t bytes)
{
	if (f->nr == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 1024;
		struct iolat_sim_flash_chunk *n = malloc(cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < f->nr; i++)
			n[i] = f->fifo[(f->head + i) % f->cap];
		free(f->fifo);
		f->fifo = n;
		f->head = 0;
		f->cap = cap;
	}
	f->fifo[(f->head + f->nr) % f->cap] = (struct iolat_sim_flash_chunk){ .r = r, .bytes = bytes };
	f->nr++;
	return 0;
}

static void absorbed(void *arg, uint64_t data, uint64_t now)
{
	iolat_sim_dev_complete(arg, (struct iolat_sim_req *)(uintptr_t)data);
}

int iolat_sim_flash_start(struct iolat_sim_dev *d, struct iolat_sim_req *r, uint64_t now)
{
	const struct iolat_sim_flash_cfg *c = d->cfg;
	struct iolat_sim_flash *f = d->priv;
	uint64_t left = r->len ? r->len : 1;

	wbuf_update(d, now);
	if (r->write && f->wbuf + (double)r->len <= f->wbuf_cap) {
		uint64_t t = now;

		if (t < f->link_free_ns)
			t = f->link_free_ns;
		if (t < f->paused_until)
			t = f->paused_until;
		f->link_free_ns = t + iolat_sim_xfer_ns(r->len, c->host_mbps);
		f->wbuf += (double)r->len;
		f->st.bytes_absorbed += r->len;
		return iolat_sim_evq_at(d->evq, f->link_free_ns + jitter(d, c->write_us),
					absorbed, d, (uintptr_t)r);
	}
	if (r->write)
		f->st.bytes_through += r->len;
	while (left) {
		uint64_t b = left < f->chunk_bytes ? left : f->chunk_bytes;
		int ret = push_chunk(f, r, (uint32_t)b);

		if (ret)
			return ret;
		r->mstate[0]++;
		left -= b;
	}
	flash_run(d, now);
	return 0;
}

const struct iolat_sim_model iolat_sim_model_ssd = {
	.name = "ssd",
	.prefix = "ssd_",
	.summary = "good NVMe: 32 units, 90 us 4k reads, 256 MiB write buffer, 2 GB/s after it, short GC pauses",
	.rotational = 0,
	.nr_requests = 64,
	.params = ssd_params,
	.cfg_size = sizeof(struct iolat_sim_flash_cfg),
	.priv_size = sizeof(struct iolat_sim_flash),
	.init = iolat_sim_flash_init,
	.start = iolat_sim_flash_start,
	.destroy = iolat_sim_flash_destroy,
};
