/* SPDX-License-Identifier: MIT */
/*
 * run_sim.c - a virtual-time run with its series (run_sim.h): the one
 * runner (run.c) on the simulator backend (be_sim*.c), the backend filling
 * the series, the runner's result copied beside them; the check behind
 * `iolat sim --parse-only`; the models' help.
 * Context: one thread per run; all state is local to the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_priv.h"
#include "run/run_sim.h"
#include "sim/device.h"
#include "sim/param.h"

/* The runner's options for @o. */
static struct iolat_run_opts run_opts(const struct iolat_sim_opts *o)
{
	if (!o)
		return (struct iolat_run_opts){ .control = -1, .kernel_compat = -1 };
	return (struct iolat_run_opts){
		.control = o->control, .kernel_compat = o->kernel_compat, .mode = o->mode,
		.default_mode = o->default_mode, .label = o->label, .sample_ns = o->sample_ns,
		.stop = o->stop, .seed = o->seed, .seed_set = o->seed_set,
	};
}

/* The runner's result beside the series; its report moves. */
static void take_result(struct iolat_sim_result *res, struct iolat_run_result *rr)
{
	res->report = rr->report;
	rr->report = NULL;
	res->rotational = rr->rotational;
	res->nr_requests = rr->nr_requests;
	res->control = rr->control;
	res->kernel_compat = rr->kernel_compat;
	res->mode = rr->mode;
	res->seed = rr->seed;
	res->sample_ns = rr->sample_ns;
	res->duration_ns = rr->duration_ns;
	res->interrupted = rr->interrupted;
	res->drain_ns = rr->drain_ns;
	res->events = rr->events;
	res->nr_submitted = rr->nr_submitted;
	res->nr_completed = rr->nr_completed;
}

int iolat_sim_run(const struct iolat_jobfile *jf, const struct iolat_sim_opts *opts,
		  struct iolat_sim_result **out, char *err, size_t errlen)
{
	struct iolat_run_opts ro = run_opts(opts);
	struct iolat_sim_result *res = calloc(1, sizeof(*res));
	struct iolat_run_result *rr = NULL;
	int ret;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!res)
		return -ENOMEM;
	ret = run_execute(jf, &iolat_backend_sim, &ro, false, res, &rr, err, errlen);
	if (ret) {
		iolat_sim_result_free(res);
		return ret;
	}
	take_result(res, rr);
	iolat_run_result_free(rr);
	*out = res;
	return 0;
}

int iolat_sim_check(const struct iolat_jobfile *jf, const struct iolat_sim_opts *opts,
		    char *err, size_t errlen)
{
	struct iolat_run_opts ro = run_opts(opts);

	return iolat_run_check(jf, &iolat_backend_sim, &ro, err, errlen);
}

void iolat_sim_result_free(struct iolat_sim_result *res)
{
	if (!res)
		return;
	for (unsigned i = 0; res->groups && i < res->nr_groups; i++) {
		free(res->groups[i].samples);
		free(res->groups[i].windows);
	}
	free(res->groups);
	iolat_report_destroy(res->report);
	free(res);
}

int iolat_sim_find_group(const struct iolat_sim_result *res, const char *path)
{
	for (unsigned i = 0; i < res->nr_groups; i++)
		if (!strcmp(res->groups[i].path, path))
			return (int)i;
	return -ENOENT;
}

int iolat_sim_format_models(char *buf, size_t len)
{
	const struct iolat_sim_model *const *m = iolat_sim_models();
	size_t used = 0;

	for (; *m; m++) {
		int n = snprintf(buf ? buf + (used < len ? used : len) : NULL,
				 used < len ? len - used : 0, "device=%s (%s; %s rule)\n  %s\n",
				 (*m)->name, (*m)->rotational ? "rotational" : "non-rotational",
				 (*m)->rotational ? "mean" : "p90", (*m)->summary);

		if (n < 0)
			return -EINVAL;
		used += (size_t)n;
		n = iolat_sim_param_format((*m)->params, buf ? buf + (used < len ? used : len) : NULL,
					   used < len ? len - used : 0);
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	return (int)used;
}
