/* SPDX-License-Identifier: MIT */
/*
 * psi.h - pressure stall information for one simulated cgroup: the memory
 * "some" and "full" lines (avg10/avg60/avg300 in %, total in us) computed
 * the way Linux's PSI computes them, from the group's task counts over
 * virtual time.
 *
 * Each group keeps counts of its tasks (its subtree's, as a cgroup's
 * pressure includes its children's): nonidle (running, waiting for I/O or
 * stalled on memory), memstall (stalled on memory: reclaim, refault,
 * throttled allocation) and running (on a CPU; tracked, not used by the
 * formulas below). Between two changes
 * the state is constant; with T = min(nonidle, ncpu) and P = nonidle -
 * memstall (the tasks not delayed on memory) the stalled share is
 *     SOME = min(memstall, T) / T
 *     FULL = (T - min(P, T)) / T
 * the aggregate formulas of the kernel's psi.c. With every nonidle task on
 * its own CPU this equals the kernel's per-CPU bookkeeping weighted by
 * nonidle time: a memory-stalled task beside two tasks waiting for I/O
 * gives SOME = FULL = 1/3, not 1. The stall time is that share times the
 * elapsed time. Every 2 s
 * (the kernel's PSI_FREQ) each average moves towards the period's stall
 * percentage: avg = avg * e + pct * (1 - e), e = exp(-2 s / 10 s, 60 s, 300 s).
 * Context: one simulation thread; nothing here locks.
 */
#ifndef IOLAT_SIM_PSI_H
#define IOLAT_SIM_PSI_H

#include <stdint.h>

#define IOLAT_PSI_PERIOD_NS 2000000000ull  /* averages are updated this often */

enum { IOLAT_PSI_AVG10 = 0, IOLAT_PSI_AVG60, IOLAT_PSI_AVG300, IOLAT_PSI_NR_AVG };

struct iolat_psi {
	uint32_t ncpu;
	int32_t nonidle, memstall, running;  /* tasks now */
	uint64_t last_ns;        /* state accounted up to here */
	double some_ns, full_ns; /* totals since creation */
	double some_at, full_at; /* totals at the last average update */
	uint64_t avg_at_ns;      /* time of the last average update */
	double some[IOLAT_PSI_NR_AVG], full[IOLAT_PSI_NR_AVG]; /* percent */
};

/** iolat_psi_init() - a group with no task, at @now_ns, on @ncpu CPUs. */
void iolat_psi_init(struct iolat_psi *p, uint32_t ncpu, uint64_t now_ns);

/**
 * iolat_psi_change() - account the time up to @now_ns in the current state,
 * then apply the deltas to the task counts (a task moving from running to
 * memstall is d_running = -1, d_memstall = +1, d_nonidle = 0).
 */
void iolat_psi_change(struct iolat_psi *p, uint64_t now_ns, int d_nonidle, int d_memstall,
		      int d_running);

/**
 * iolat_psi_update_avgs() - the 2 s averaging step, at @now_ns: accounts the
 * time up to now, then folds the stall percentage since the previous update
 * into avg10/avg60/avg300 (a late update first decays the averages once per
 * missed 2 s period, then folds the whole span as one sample, as the kernel).
 */
void iolat_psi_update_avgs(struct iolat_psi *p, uint64_t now_ns);

/** iolat_psi_total_us() - the "total=" figure of the some (0) or full (1) line. */
uint64_t iolat_psi_total_us(const struct iolat_psi *p, int full);

/** iolat_psi_fractions() - the current SOME and FULL shares (0..1) of the state now. */
void iolat_psi_fractions(const struct iolat_psi *p, double *some, double *full);

#endif /* IOLAT_SIM_PSI_H */
