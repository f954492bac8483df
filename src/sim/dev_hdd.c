/* SPDX-License-Identifier: MIT */
/*
 * dev_hdd.c - the "hdd" device model: one 7200 rpm disk head behind an
 * elevator; its parameter table (hdd_* keys) and its service-time arithmetic.
 * The device queue in front of it is device.c's.
 * Context: one simulation thread.
 */

/*
 * The model, and where its figures come from.
 *
 * Serving a request costs seek + rotational wait + transfer, one at a time:
 * - seek: 0 on the same track; otherwise t2t + (full - t2t) * x^k for a seek
 *   across the fraction x of the disk, k chosen so that a seek between two
 *   uniformly random points averages seek_avg_ms (E[x^k] = 2/((k+1)(k+2)));
 * - rotation: the platter turns once per 60/rpm s and a byte's angle is its
 *   offset within its track (track = bytes the head reads in one turn at
 *   media_mbps), so a random request waits half a turn on average and a
 *   request that continues the previous one without a gap waits nothing;
 * - transfer: len at media_mbps (one zone: no inner/outer difference).
 * No drive cache (write-through, no read-ahead). Queued requests are ordered
 * as mq-deadline does: one-way ascending sweep (C-LOOK) from the head, except
 * that a read older than read_expire_ms (a write older than write_expire_ms)
 * is served first. Rotational: the controller uses its mean rule.
 *
 * Figures (datasheet class of 7200 rpm 3.5" SATA drives, e.g. Seagate
 * Barracuda/Exos and WD Blue/Red/Gold product manuals): average read seek
 * 8-9 ms, track-to-track 0.5-1 ms, full stroke 15-18 ms, 7200 rpm = 8.33 ms a
 * turn (4.17 ms average latency), sustained 160-250 MB/s outer to inner
 * (180 MB/s chosen). Expiry 500 ms / 5 s: mq-deadline's fifo_expire_read and
 * fifo_expire_write defaults (Documentation/block/deadline-iosched.rst).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/device.h"

struct hdd_cfg {
	double capacity_gib;
	double rpm;
	double seek_t2t_ms;
	double seek_avg_ms;
	double seek_full_ms;
	double media_mbps;
	double read_expire_ms;
	double write_expire_ms;
};

#define P(n, f, d, lo, hi, h) { .name = "hdd_" n, .off = offsetof(struct hdd_cfg, f), \
				.def = d, .min = lo, .max = hi, .help = h }
static const struct iolat_sim_param hdd_params[] = {
	P("capacity_gib", capacity_gib, 4000, 1, 1e6, "disk size, GiB (seek distances scale to it)"),
	P("rpm", rpm, 7200, 1000, 20000, "spindle speed, turns a minute"),
	P("seek_t2t_ms", seek_t2t_ms, 0.5, 0, 100, "track-to-track seek, ms"),
	P("seek_avg_ms", seek_avg_ms, 8.5, 0, 100, "average seek between random points, ms"),
	P("seek_full_ms", seek_full_ms, 15, 0, 200, "full-stroke seek, ms"),
	P("media_mbps", media_mbps, 180, 1, 10000, "media transfer rate, MB/s (10^6 bytes)"),
	P("read_expire_ms", read_expire_ms, 500, 1, 1e6, "a read waiting longer is served first, ms"),
	P("write_expire_ms", write_expire_ms, 5000, 1, 1e6, "a write waiting longer is served first, ms"),
	{ .name = NULL },
};
#undef P

struct hdd {
	uint64_t cap;              /* bytes */
	uint64_t rev_ns;           /* one turn */
	uint64_t track_bytes;      /* bytes under the head in one turn */
	uint64_t t2t_ns, full_ns;
	double seek_k;             /* exponent of the seek curve */
	uint64_t rexp_ns, wexp_ns;
	uint64_t head;             /* offset just past the last transfer */
	bool busy;
};

static int hdd_init(struct iolat_sim_dev *d)
{
	const struct hdd_cfg *c = d->cfg;
	struct hdd *h = d->priv;
	double span, ratio;

	if (!(c->seek_t2t_ms <= c->seek_avg_ms && c->seek_avg_ms < c->seek_full_ms)) {
		d->err_key = "hdd_seek_avg_ms";
		d->err_msg = "needs hdd_seek_t2t_ms <= hdd_seek_avg_ms < hdd_seek_full_ms";
		return -EDOM;
	}
	h->cap = (uint64_t)(c->capacity_gib * 1073741824.0);
	h->rev_ns = (uint64_t)llround(60e9 / c->rpm);
	h->track_bytes = (uint64_t)llround(c->media_mbps * 1e6 * 60.0 / c->rpm);
	h->t2t_ns = (uint64_t)llround(c->seek_t2t_ms * 1e6);
	h->full_ns = (uint64_t)llround(c->seek_full_ms * 1e6);
	h->rexp_ns = (uint64_t)llround(c->read_expire_ms * 1e6);
	h->wexp_ns = (uint64_t)llround(c->write_expire_ms * 1e6);
	/* Solve 2/((k+1)(k+2)) = ratio for k >= 0: k^2 + 3k + 2 - 2/ratio = 0. */
	span = c->seek_full_ms - c->seek_t2t_ms;
	ratio = (c->seek_avg_ms - c->seek_t2t_ms) / span;
	if (ratio <= 0)
		ratio = 1e-9;
	if (ratio > 1)
		ratio = 1;
	h->seek_k = (-3.0 + sqrt(9.0 - 4.0 * (2.0 - 2.0 / ratio))) / 2.0;
	if (h->seek_k < 0)
		h->seek_k = 0;
	d->capacity = h->cap;
	return 0;
}

static uint64_t hdd_pos(const struct hdd *h, uint64_t off)
{
	return off % h->cap;
}

static uint64_t hdd_seek_ns(const struct hdd *h, uint64_t from, uint64_t to)
{
	uint64_t dist = from > to ? from - to : to - from;
	double x;

	if (dist < h->track_bytes)
		return 0;
	x = (double)dist / (double)h->cap;
	return h->t2t_ns + (uint64_t)llround((double)(h->full_ns - h->t2t_ns) * pow(x, h->seek_k));
}

/* Time to wait at @t until the start of @off comes under the head. */
static uint64_t hdd_rot_ns(const struct hdd *h, uint64_t off, uint64_t t)
{
	uint64_t want = (off % h->track_bytes) * h->rev_ns / h->track_bytes;
	uint64_t at = t % h->rev_ns;
	uint64_t wait = (want + h->rev_ns - at) % h->rev_ns;

	/* Integer rounding may leave a continuation a few ns "late": not a turn. */
	if (wait + 2000 >= h->rev_ns)
		wait = 0;
	return wait;
}

static uint32_t hdd_pick(struct iolat_sim_dev *d, uint64_t now)
{
	const struct hdd *h = d->priv;
	uint32_t best = UINT32_MAX, low = 0;
	uint64_t best_off = UINT64_MAX, low_off = UINT64_MAX;

	/* Deadline first: the oldest expired read, else the oldest expired write. */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < d->nr_queued; i++) {
			const struct iolat_sim_req *r = d->queue[i];

			if (r->write != (pass == 1))
				continue;
			if (now - r->slot_ns >= (r->write ? h->wexp_ns : h->rexp_ns))
				return i;
		}
	}
	/* C-LOOK: the nearest request at or above the head, else wrap to the lowest. */
	for (uint32_t i = 0; i < d->nr_queued; i++) {
		uint64_t off = hdd_pos(h, d->queue[i]->off);

		if (off >= h->head && off < best_off) {
			best_off = off;
			best = i;
		}
		if (off < low_off) {
			low_off = off;
			low = i;
		}
	}
	return best != UINT32_MAX ? best : low;
}

static void hdd_done(void *arg, uint64_t data, uint64_t now)
{
	struct iolat_sim_dev *d = arg;
	struct iolat_sim_req *r = (struct iolat_sim_req *)(uintptr_t)data;
	struct hdd *h = d->priv;

	h->busy = false;
	iolat_sim_dev_complete(d, r);
}

static int hdd_start(struct iolat_sim_dev *d, struct iolat_sim_req *r, uint64_t now)
{
	struct hdd *h = d->priv;
	uint64_t off = hdd_pos(h, r->off);
	uint64_t t, xfer;

	if (h->busy)
		return -EBUSY;
	t = now + hdd_seek_ns(h, h->head, off);
	t += hdd_rot_ns(h, off, t);
	xfer = r->len * h->rev_ns / h->track_bytes;
	h->busy = true;
	h->head = off + r->len;
	return iolat_sim_evq_at(d->evq, t + xfer, hdd_done, d, (uintptr_t)r);
}

const struct iolat_sim_model iolat_sim_model_hdd = {
	.name = "hdd",
	.prefix = "hdd_",
	.summary = "7200 rpm disk: seek + rotation + 180 MB/s, elevator (C-LOOK + deadline)",
	.rotational = 1,
	.nr_requests = 64,
	.params = hdd_params,
	.cfg_size = sizeof(struct hdd_cfg),
	.priv_size = sizeof(struct hdd),
	.init = hdd_init,
	.pick = hdd_pick,
	.start = hdd_start,
};
