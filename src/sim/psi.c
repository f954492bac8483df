/* SPDX-License-Identifier: MIT */
/*
 * psi.c - per-group memory pressure (see psi.h): stall time from the task
 * counts, and the kernel's 2 s exponential averages.
 * Context: one simulation thread.
 */
#include <math.h>

#include "sim/psi.h"

static const double psi_window_s[IOLAT_PSI_NR_AVG] = { 10.0, 60.0, 300.0 };

void iolat_psi_init(struct iolat_psi *p, uint32_t ncpu, uint64_t now_ns)
{
	*p = (struct iolat_psi){ .ncpu = ncpu ? ncpu : 1, .last_ns = now_ns, .avg_at_ns = now_ns };
}

void iolat_psi_fractions(const struct iolat_psi *p, double *some, double *full)
{
	int32_t t = p->nonidle < (int32_t)p->ncpu ? p->nonidle : (int32_t)p->ncpu;
	int32_t stalled, prod, f;

	*some = *full = 0;
	if (t <= 0 || p->memstall <= 0)
		return;
	stalled = p->memstall < t ? p->memstall : t;
	/* Productive: nonidle and not stalled on memory (a task waiting for
	 * I/O on its own CPU keeps that CPU out of the memory FULL state). */
	prod = p->nonidle - p->memstall;
	prod = prod < t ? prod : t;
	f = t - prod;
	if (f > stalled)
		f = stalled;
	*some = (double)stalled / t;
	*full = f > 0 ? (double)f / t : 0;
}

static void account(struct iolat_psi *p, uint64_t now_ns)
{
	double some, full, dt;

	if (now_ns <= p->last_ns)
		return;
	dt = (double)(now_ns - p->last_ns);
	iolat_psi_fractions(p, &some, &full);
	p->some_ns += some * dt;
	p->full_ns += full * dt;
	p->last_ns = now_ns;
}

void iolat_psi_change(struct iolat_psi *p, uint64_t now_ns, int d_nonidle, int d_memstall,
		      int d_running)
{
	account(p, now_ns);
	p->nonidle += d_nonidle;
	p->memstall += d_memstall;
	p->running += d_running;
}

static void fold(double *avg, double pct, double period_s)
{
	for (int i = 0; i < IOLAT_PSI_NR_AVG; i++) {
		double e = exp(-period_s / psi_window_s[i]);

		avg[i] = avg[i] * e + pct * (1.0 - e);
	}
}

void iolat_psi_update_avgs(struct iolat_psi *p, uint64_t now_ns)
{
	double period, pct_some, pct_full, period_s;

	account(p, now_ns);
	if (now_ns <= p->avg_at_ns)
		return;
	period = (double)(now_ns - p->avg_at_ns);
	pct_some = 100.0 * (p->some_ns - p->some_at) / period;
	pct_full = 100.0 * (p->full_ns - p->full_at) / period;
	if (pct_some > 100.0)
		pct_some = 100.0;
	if (pct_full > 100.0)
		pct_full = 100.0;
	/* As the kernel: periods missed by a late update first decay the
	 * averages with no stall, then the whole span counts as one sample. */
	period_s = (double)IOLAT_PSI_PERIOD_NS / 1e9;
	for (uint64_t missed = (now_ns - p->avg_at_ns) / IOLAT_PSI_PERIOD_NS; missed > 1; missed--) {
		fold(p->some, 0, period_s);
		fold(p->full, 0, period_s);
	}
	fold(p->some, pct_some, period_s);
	fold(p->full, pct_full, period_s);
	p->some_at = p->some_ns;
	p->full_at = p->full_ns;
	p->avg_at_ns = now_ns;
}

uint64_t iolat_psi_total_us(const struct iolat_psi *p, int full)
{
	return (uint64_t)((full ? p->full_ns : p->some_ns) / 1000.0);
}
