/* SPDX-License-Identifier: MIT */
/*
 * The per-job I/O generator (see workload.h). Time enters only as arguments.
 *
 * - Offsets: sequential blocks wrap within [offset, offset + size); random
 *   ones are uniform over the region's bs-aligned blocks.
 * - Open loop (rate_iops=, or rate= with rate_process=poisson at rate / bs
 *   I/Os per second): a schedule of arrivals, evenly spaced (linear, the
 *   remainder carried) or a Poisson process (exponential gaps, -ln(U) *
 *   mean), running in "active" time, i.e. time during burst "on" phases only,
 *   mapped to wall time; an arrival is never placed in an "off" phase. An
 *   arrival waits for nothing but its time: when the runner takes it later
 *   (its queue was full), it keeps its due time, so arrivals that pile up
 *   are the backlog, counted by a second copy of the schedule run up to now.
 *   rate_iops=R,W: two schedules, reads at R and writes at W, the earlier
 *   arrival first (the direction is its schedule's, not rwmixread's).
 * - rate (not poisson): a token bucket written as GCRA (a theoretical arrival time TAT that
 *   advances by len / rate per I/O; an I/O may go once now >= TAT - tau, tau
 *   one I/O's cost: workload.h).
 *   Integer arithmetic with a carried remainder, so the long-run rate is exact.
 * - Three PRNG streams (offsets, read/write choice, arrivals), so changing one
 *   knob does not reshuffle the others.
 * Context: a workload belongs to one thread at a time; no locking, no clock.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "iolatency.h"
#include "run/workload.h"
#include "util/rng.h"
#include "util/units.h"

/* ---- seeds ---- */

uint64_t iolat_workload_seed(uint64_t seed, unsigned job_index, unsigned clone)
{
	uint64_t st = seed;
	uint64_t h = iolat_splitmix64(&st);
	st = h ^ (((uint64_t)job_index << 32) | clone);
	return iolat_splitmix64(&st);
}

/* ---- helpers ---- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static bool bursty(const struct iolat_workload *wl)
{
	return wl->burst_on_ns && wl->burst_off_ns;
}

/* Wall time of active (burst "on") time @a since the start. */
static uint64_t active_to_wall(const struct iolat_workload *wl, uint64_t a)
{
	if (!bursty(wl))
		return sat_add(wl->start_ns, a);
	uint64_t period = wl->burst_on_ns + wl->burst_off_ns;
	uint64_t cycles = a / wl->burst_on_ns;
	if (cycles > UINT64_MAX / period)
		return UINT64_MAX;
	return sat_add(sat_add(wl->start_ns, cycles * period), a % wl->burst_on_ns);
}

/* The first time >= @t (>= start) inside an "on" phase. */
static uint64_t gate(const struct iolat_workload *wl, uint64_t t)
{
	if (!bursty(wl) || t == UINT64_MAX)
		return t;
	uint64_t period = wl->burst_on_ns + wl->burst_off_ns;
	uint64_t since = t - wl->start_ns;
	if (since % period < wl->burst_on_ns)
		return t;
	return sat_add(wl->start_ns, (since / period + 1) > UINT64_MAX / period ?
				     UINT64_MAX : (since / period + 1) * period);
}

/* The gap from one arrival of @s to the next: num / den ns, or exponential with that mean. */
static uint64_t sched_gap(const struct iolat_workload *wl, struct iolat_wl_sched *s)
{
	if (wl->poisson) {
		double mean = (double)wl->gap_num / (double)s->gap_den;
		double gap = -log(iolat_rng_unit_pos(&s->rng)) * mean;   /* U in (0, 1]: finite */
		return (uint64_t)(gap + 0.5);
	}
	uint64_t num = wl->gap_num + s->rem;   /* < 2^57 + 2^50: no overflow */
	s->rem = num % s->gap_den;
	return num / s->gap_den;
}

static void sched_advance(const struct iolat_workload *wl, struct iolat_wl_sched *s)
{
	s->active_ns = sat_add(s->active_ns, sched_gap(wl, s));
	s->n++;
}

/* The schedule of @s (arr or ahead) whose arrival comes first (reads on a tie). */
static unsigned sched_first(const struct iolat_wl_sched s[2])
{
	return s[IOLAT_WL_WRITES].active_ns < s[IOLAT_WL_READS].active_ns ? IOLAT_WL_WRITES :
									     IOLAT_WL_READS;
}

static uint64_t sched_total(const struct iolat_wl_sched s[2])
{
	return s[0].n + s[1].n;
}

/* Run the look-ahead schedules over every arrival due at or before @t (and
 * before the end, within the size limit). */
static void ahead_to(struct iolat_workload *wl, uint64_t t)
{
	for (;;) {
		struct iolat_wl_sched *s = &wl->ahead[sched_first(wl->ahead)];
		uint64_t due = active_to_wall(wl, s->active_ns);

		if (due > t || due >= wl->end_ns || sched_total(wl->ahead) >= wl->io_limit)
			return;
		sched_advance(wl, s);
	}
}

/* Schedule @s at @rate (0: none) on its own stream. */
static void sched_init(const struct iolat_workload *wl, struct iolat_wl_sched *s, uint64_t rate,
		       uint64_t seed)
{
	s->gap_den = rate;
	s->active_ns = UINT64_MAX;
	if (!rate)
		return;
	iolat_rng_seed(&s->rng, seed, 0);
	s->active_ns = wl->poisson ? sched_gap(wl, s) : 0;   /* poisson: the first after a gap */
}

/* The arrival rates and process of @job, or none (closed loop). */
static void init_arrivals(struct iolat_workload *wl, const struct iolat_job *job, uint64_t seed)
{
	bool poisson = job->rate_process == IOLAT_RATE_POISSON;
	uint64_t reads, writes = 0;

	wl->rate_cap = wl->rate_bps && !poisson;
	if (job->rate_iops || job->rate_split) {
		wl->gap_num = NSEC_PER_SEC;
		reads = job->rate_iops;
		writes = job->rate_split ? job->rate_iops_write : 0;
		poisson = job->rate_process != IOLAT_RATE_LINEAR;   /* rate_iops' default */
	} else if (job->rate_bps && poisson) {
		wl->gap_num = (uint64_t)job->bs * NSEC_PER_SEC;    /* bs <= 64 MiB: < 2^57 */
		reads = job->rate_bps;
	} else {
		return;
	}
	if (!reads && !writes)
		return;
	wl->open_loop = true;
	wl->poisson = poisson;
	wl->split = job->rate_split;
	sched_init(wl, &wl->arr[IOLAT_WL_READS], reads, seed ^ 0x6172726976616c73ull); /* "arrivals" */
	sched_init(wl, &wl->arr[IOLAT_WL_WRITES], writes, seed ^ 0x7772697465727321ull); /* "writers!" */
	wl->ahead[0] = wl->arr[0];
	wl->ahead[1] = wl->arr[1];
}

/* ---- the generator ---- */

int iolat_workload_init(struct iolat_workload *wl, const struct iolat_job *job,
			const struct iolat_wl_params *p)
{
	uint64_t size;

	if (!wl || !job || !p || job->bs == 0)
		return -EINVAL;
	memset(wl, 0, sizeof(*wl));
	size = job->size ? job->size : p->size; /* p->size is already net of the offset */
	if (size < job->bs || job->offset > UINT64_MAX - size)
		return -EINVAL;

	wl->rw = job->rw;
	wl->rwmixread = job->rwmixread > 100 ? 100 : job->rwmixread;
	wl->bs = job->bs;
	wl->flags = job->ioflags;
	wl->region_off = job->offset;
	wl->nr_blocks = size / job->bs;
	wl->rate_iops = job->rate_iops;
	wl->rate_bps = job->rate_bps;
	if (wl->rate_bps && job->rate_process != IOLAT_RATE_POISSON) {
		uint64_t cost = (uint64_t)job->bs * NSEC_PER_SEC / wl->rate_bps;

		wl->gcra_tau_ns = cost < IOLAT_WL_RATE_TAU_MIN_NS ? IOLAT_WL_RATE_TAU_MIN_NS :
				  cost > IOLAT_WL_RATE_TAU_MAX_NS ? IOLAT_WL_RATE_TAU_MAX_NS : cost;
	}
	wl->thinktime_ns = job->thinktime_ns;
	wl->burst_on_ns = job->burst_on_ns;
	wl->burst_off_ns = job->burst_off_ns;
	if (wl->burst_on_ns > UINT64_MAX / 4 || wl->burst_off_ns > UINT64_MAX / 4)
		return -EINVAL;
	wl->start_ns = sat_add(p->start_ns, job->startdelay_ns);
	wl->end_ns = job->runtime_ns ? sat_add(sat_add(wl->start_ns, p->ramp_ns), job->runtime_ns)
				     : UINT64_MAX;
	wl->io_limit = job->time_based ? UINT64_MAX : wl->nr_blocks;

	uint64_t seed = iolat_workload_seed(p->seed, p->job_index, p->clone);
	iolat_rng_seed(&wl->rng_off, seed ^ 0x6f66667365747321ull, 0);   /* "offsets!" */
	iolat_rng_seed(&wl->rng_dir, seed ^ 0x646972656374696full, 0);   /* "directio" */
	init_arrivals(wl, job, seed);
	return 0;
}

bool iolat_workload_done(const struct iolat_workload *wl, uint64_t now_ns)
{
	return wl->nr_issued >= wl->io_limit || now_ns >= wl->end_ns;
}

uint64_t iolat_workload_end_ns(const struct iolat_workload *wl)
{
	return wl->end_ns;
}

uint64_t iolat_workload_next_time(const struct iolat_workload *wl, uint64_t now_ns)
{
	if (iolat_workload_done(wl, now_ns))
		return UINT64_MAX;
	uint64_t t = max_u64(max_u64(now_ns, wl->start_ns), wl->think_until_ns);
	if (wl->open_loop)
		t = max_u64(t, active_to_wall(wl, wl->arr[sched_first(wl->arr)].active_ns));
	if (wl->rate_cap && wl->gcra_tat_ns > wl->gcra_tau_ns)
		t = max_u64(t, wl->gcra_tat_ns - wl->gcra_tau_ns);
	t = gate(wl, t);
	if (t >= wl->end_ns)
		return UINT64_MAX;
	return t;
}

/* The open-loop arrival @io starts at @now_ns: its due time (and with two
 * schedules its direction), whether it waited, the backlog it leaves. */
static void take_arrival(struct iolat_workload *wl, uint64_t now_ns, struct iolat_wl_io *io)
{
	unsigned k = sched_first(wl->arr);
	uint64_t due = active_to_wall(wl, wl->arr[k].active_ns);

	if (wl->split)
		io->write = k == IOLAT_WL_WRITES;
	io->due_ns = due;
	io->late = due < wl->hold_ns ||
		   (wl->rate_cap && wl->gcra_tat_ns > wl->gcra_tau_ns &&
		    wl->gcra_tat_ns - wl->gcra_tau_ns > due);
	wl->nr_late += io->late;
	ahead_to(wl, now_ns);
	wl->max_backlog = max_u64(wl->max_backlog, sched_total(wl->ahead) - sched_total(wl->arr));
	sched_advance(wl, &wl->arr[k]);
}

int iolat_workload_next(struct iolat_workload *wl, uint64_t now_ns, struct iolat_wl_io *io)
{
	uint64_t t = iolat_workload_next_time(wl, now_ns);

	if (t == UINT64_MAX)
		return -ENODATA;
	if (t > now_ns)
		return -EAGAIN;

	uint64_t block;
	if (iolat_rw_is_random(wl->rw)) {
		block = iolat_rng_below(&wl->rng_off, wl->nr_blocks);
	} else {
		block = wl->next_block;
		wl->next_block = (wl->next_block + 1) % wl->nr_blocks;
	}
	bool write;
	if (iolat_rw_is_mixed(wl->rw) && !wl->split)   /* split: the arrival's schedule says */
		write = iolat_rng_below(&wl->rng_dir, 100) >= wl->rwmixread;
	else
		write = iolat_rw_has_write(wl->rw);

	memset(io, 0, sizeof(*io));   /* padding too: the same I/O, the same bytes */
	io->offset = wl->region_off + block * wl->bs;
	io->len = wl->bs;
	io->write = write;
	io->flags = wl->flags;
	io->seq = wl->nr_issued;
	io->due_ns = now_ns;
	if (wl->open_loop)
		take_arrival(wl, now_ns, io);
	if (wl->rate_cap) {
		/* cost = len * 1e9 / rate, with the remainder carried (len <= 64 MiB: no overflow) */
		uint64_t num = (uint64_t)wl->bs * NSEC_PER_SEC + wl->gcra_rem;
		uint64_t cost = num / wl->rate_bps;
		wl->gcra_rem = num % wl->rate_bps;
		wl->gcra_tat_ns = sat_add(max_u64(wl->gcra_tat_ns, now_ns), cost);
	}
	wl->nr_issued++;
	wl->bytes_issued += wl->bs;
	return 0;
}

void iolat_workload_completed(struct iolat_workload *wl, uint64_t now_ns)
{
	if (!wl->thinktime_ns)
		return;
	wl->think_until_ns = max_u64(wl->think_until_ns, sat_add(now_ns, wl->thinktime_ns));
	iolat_workload_hold(wl, wl->think_until_ns);
}

void iolat_workload_hold(struct iolat_workload *wl, uint64_t until_ns)
{
	if (wl->open_loop)
		wl->hold_ns = max_u64(wl->hold_ns, until_ns);
}

bool iolat_workload_openloop(struct iolat_workload *wl, uint64_t now_ns,
			     struct iolat_wl_openloop *out)
{
	if (!wl->open_loop)
		return false;
	ahead_to(wl, now_ns);
	out->asked_iops = (double)(wl->arr[0].gap_den + wl->arr[1].gap_den) * 1e9 / (double)wl->gap_num;
	out->arrived = sched_total(wl->ahead);
	out->started = sched_total(wl->arr);
	out->late = wl->nr_late;
	out->max_backlog = max_u64(wl->max_backlog, out->arrived - out->started);
	now_ns = now_ns < wl->end_ns ? now_ns : wl->end_ns;
	out->span_ns = now_ns > wl->start_ns ? now_ns - wl->start_ns : 0;
	return true;
}
