/* SPDX-License-Identifier: MIT */
/*
 * be_sim.h - PRIVATE to the simulator backend of the one runner (a job
 * file on a simulated device, in virtual time): be_sim.c (the submitters,
 * the tick, sampling, the end of the run and the drain) and be_sim_setup.c
 * (the event queue and the device, the clones, the backend's table). What
 * be_sim.c offers (the state: be_sim_priv.h): be_sim_setup.c calls
 * be_sim.c, never the other way. run_sim.c hands it the result it fills
 * (run_execute()'s be_out; sim_result.h), and is the only file of the
 * three that names the backend's table.
 * Context: one thread per run; all state is local to the run.
 */
#ifndef IOLAT_RUN_BE_SIM_H
#define IOLAT_RUN_BE_SIM_H

#include "run/be_sim_priv.h"

/* be_sim.c: the device's callbacks of an I/O; the run. */
void sim_io_granted(struct iolat_waiter *w);
void sim_io_complete(struct iolat_sim_req *r, uint64_t now);
int sim_drive(struct run *r, char *err, size_t errlen);

#endif /* IOLAT_RUN_BE_SIM_H */
