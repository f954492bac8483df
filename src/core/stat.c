/* SPDX-License-Identifier: MIT */
/*
 * stat.c - what users can read: a group's counters as a snapshot, and the
 * io.stat-style line. Pure formatting (no stdio in the core).
 * Context: any thread; reads are racy snapshots of atomics, never torn, and
 * the carried window (cur_stat) is copied under the parent's child_lock.
 */
#include <errno.h>
#include <string.h>

#include "core/ctl.h"

int iolat_group_stat(const struct iolat_group *g, struct iolat_group_stat *st)
{
	struct iolat_win_stat sum, cur;
	struct iolat_group *p;
	uint64_t done;

	if (!g || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	iolat_grp_sum_slots(g, &sum, &done);
	st->depth = atomic_load(&g->max_depth);
	st->inflight = iolat_inflight_sum(g); /* a snapshot: exact when no I/O of g is under way */
	st->waiters = atomic_load(&g->nwait);
	st->nr_children = atomic_load(&g->nr_children);
	st->target_ns = atomic_load(&g->target_ns);
	st->win_ns = atomic_load(&g->win_ns);
	st->avg_lat_ns = atomic_load(&g->lat_avg_ns);
	st->total = sum.nr - atomic_load(&g->snap_nr);
	st->missed = sum.missed - atomic_load(&g->snap_missed);
	st->nr_done = done;
	st->nr_bypass = atomic_load(&g->nr_bypass);
	st->throttled_ns = atomic_load(&g->throttled_ns);
	st->delay_ns = atomic_load(&g->delay_nsec);
	st->slept_ns = atomic_load(&g->slept_ns);
	st->use_delay = atomic_load(&g->use_delay);
	st->congested = iolat_group_congested(g);
	st->windows_ok = atomic_load(&g->windows_ok);
	st->windows_missed = atomic_load(&g->windows_missed);
	st->stalled_windows = atomic_load(&g->stalled_windows);
	st->scale_downs = atomic_load(&g->scale_downs);
	st->scale_ups = atomic_load(&g->scale_ups);
	st->last_window_mean_ns = atomic_load(&g->last_mean_ns);
	st->child_cookie = atomic_load(&g->child_cookie);
	st->child_scale_lat_ns = atomic_load(&g->scale_lat);
	st->child_nr_samples = atomic_load(&g->child_nr_samples);
	/* cur_stat belongs to the parent's lock (window.c): copy it under that lock. */
	p = grp_parent(g);
	if (p)
		iolat_spin_lock(&p->child_lock);
	cur = g->cur_stat;
	if (p)
		iolat_spin_unlock(&p->child_lock);
	st->cur_stat_samples = cur.nr;
	st->cur_stat_mean_ns = (g->ctl->flags & IOLAT_CTL_COMPAT_B1) || !cur.nr ? 0 :
			       cur.sum_ns / cur.nr;
	st->cookie = atomic_load(&g->scale_cookie);
	if (g->ctl->mode->stat)
		g->ctl->mode->stat(g, st);
	return 0;
}

/* A tiny bounded writer: tracks the length needed, like snprintf. */
struct outbuf {
	char *buf;
	size_t len, pos;
};

static void out_str(struct outbuf *o, const char *s)
{
	for (; *s; s++, o->pos++)
		if (o->pos + 1 < o->len)
			o->buf[o->pos] = *s;
}

static void out_u64(struct outbuf *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp) - 1;

	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	out_str(o, &tmp[i]);
}

static void out_i64(struct outbuf *o, int64_t v)
{
	if (v < 0) {
		out_str(o, "-");
		out_u64(o, (uint64_t)(-(v + 1)) + 1);
	} else {
		out_u64(o, (uint64_t)v);
	}
}

/* A rate, or "max" for none. */
static void out_rate(struct outbuf *o, uint64_t v)
{
	if (v)
		out_u64(o, v);
	else
		out_str(o, "max");
}

int iolat_group_format_stat(const struct iolat_group *g, char *buf, size_t len)
{
	struct iolat_group_stat st;
	struct outbuf o = { buf, len, 0 };
	int ret = iolat_group_stat(g, &st);

	if (ret)
		return ret;
	out_str(&o, "depth=");
	if (st.depth == IOLAT_DEPTH_MAX)
		out_str(&o, "max");
	else
		out_u64(&o, st.depth);
	out_str(&o, " avg_lat=");
	out_u64(&o, st.avg_lat_ns / 1000);
	out_str(&o, " win=");
	out_u64(&o, st.win_ns / NSEC_PER_MSEC);
	out_str(&o, " missed=");
	out_u64(&o, st.missed);
	out_str(&o, " total=");
	out_u64(&o, st.total);
	out_str(&o, " use_delay=");
	out_i64(&o, st.use_delay);
	out_str(&o, " delay=");
	out_u64(&o, st.delay_ns);
	if (ctl_adaptive(g->ctl)) {
		/* Appended, so that the kernel's fields keep their places. */
		out_str(&o, " pace_bps=");
		out_rate(&o, st.pace_bps);
		out_str(&o, " limit_bps=");
		out_rate(&o, st.limit_bps);
		out_str(&o, " step=");
		out_str(&o, iolat_step_name(st.last_decision != IOLAT_STEP_NONE ?
					    st.last_decision : st.last_step));
		out_str(&o, " hold_ms=");
		out_u64(&o, st.probe_hold_ns / NSEC_PER_MSEC);
		if (st.unattainable)
			out_str(&o, " unattainable");
	}
	if (len)
		buf[o.pos < len ? o.pos : len - 1] = '\0';
	return o.pos > INT32_MAX ? -EOVERFLOW : (int)o.pos;
}
