/* SPDX-License-Identifier: MIT */
/*
 * run_setup.h - what the job layer's two runs share: the real-time run
 * (runner.c, real engines) and the virtual-time run (run_sim.c, simulated
 * devices) set up the controller and its groups from a job file, and choose
 * their sample interval, the same way, here.
 * Context: the thread setting up a run.
 */
#ifndef IOLAT_RUN_RUN_SETUP_H
#define IOLAT_RUN_RUN_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "iolatency.h"
#include "job/jobfile.h"

/**
 * iolat_job_setup_controller() - create the controller for a run of @jf and
 * one group per job-file group, with its target.
 * @cfg: the run's controller settings (nr_requests, rotational, clock,
 * flags); max_groups is set here (the job file's groups and the root).
 * @ctl: set as soon as the controller exists, also when a group then fails:
 * the caller destroys it.
 * @groups: jf->nr_groups slots, filled in the job file's group order.
 * @err: one line "FILE: ..." or "FILE:LINE: group 'PATH': ..." on failure.
 * Return: 0 or the controller's negative errno.
 */
int iolat_job_setup_controller(const struct iolat_jobfile *jf, struct iolat_ctl_config cfg,
			       struct iolat_ctl **ctl, struct iolat_group **groups,
			       char *err, size_t errlen);

/**
 * iolat_job_default_sample_ns() - the sample interval of a run that asked
 * for none: the shortest latency window among the groups with a target (the
 * controller's own window, iolat_window_ns()), @none_ns when no group has one.
 */
uint64_t iolat_job_default_sample_ns(const struct iolat_jobfile *jf, uint64_t none_ns);

#endif /* IOLAT_RUN_RUN_SETUP_H */
