/* SPDX-License-Identifier: MIT */
/*
 * be_sim_throttle.h - the simulator backend's kernel-throttle plant
 * (be_sim_throttle.c), called by be_sim.c's submitters and be_sim_setup.c;
 * it calls neither.
 * Context: one thread per run; all state is local to the run.
 */
#ifndef IOLAT_RUN_BE_SIM_THROTTLE_H
#define IOLAT_RUN_BE_SIM_THROTTLE_H

#include "run/be_sim_priv.h"

/* be_sim_throttle.c: the kernel-throttle plant. Does @jf ask for it; can it
 * run (-EINVAL and one line if not); its state after the rows have their
 * groups; its first round; how long an I/O of @bytes of row @row waits at
 * @now (0: it went and is charged; @bypass: never waits); its teardown. */
bool sim_thr_wanted(const struct iolat_jobfile *jf);
int sim_thr_check(const struct iolat_jobfile *jf, char *err, size_t errlen);
int sim_thr_setup(struct sim *s);
void sim_thr_start(struct sim *s);
uint64_t sim_thr_due(struct sim *s, unsigned row, uint64_t bytes, bool bypass, uint64_t now);
uint64_t sim_thr_bps(const struct sim *s, unsigned row);
void sim_thr_free(struct sim *s);

#endif /* IOLAT_RUN_BE_SIM_THROTTLE_H */
