/* SPDX-License-Identifier: MIT */
/*
 * scenarios.h - the scenarios of src/scen (today one: the leaking service,
 * scen/memleak/memleak.h), registered with the job-file parser in one call.
 * Context: the program's start, before any job file is parsed.
 */
#ifndef IOLAT_SCEN_SCENARIOS_H
#define IOLAT_SCEN_SCENARIOS_H

/**
 * iolat_scenarios_register() - every scenario's workloads and job-file keys
 * (iolat_jobfile_register_scen()). Return: 0, or -EINVAL (a clash: a bug).
 */
int iolat_scenarios_register(void);

#endif /* IOLAT_SCEN_SCENARIOS_H */
