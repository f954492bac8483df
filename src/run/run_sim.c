/* SPDX-License-Identifier: MIT */
/*
 * run_sim.c - a virtual-time run with its series (run_sim.h): the one
 * runner (run.c) on the simulator backend (be_sim*.c), the backend filling
 * the series (sim_result.c), the runner's result copied beside them; the
 * check behind `iolat sim --parse-only`; the models' help.
 * Context: one thread per run; all state is local to the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_priv.h"
#include "run/run_sim.h"
#include "sim/registry.h"
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

/* Append to @buf the modes that judge a @rotational device by @rule:
 * "article and kernel". */
static size_t modes_with_rule(char *buf, size_t len, size_t used, int rotational,
			      enum iolat_window_rule rule)
{
	int nr = 0, i = 0;

	for (int m = 1; iolat_ctl_mode_name(m); m++)
		nr += iolat_ctl_window_rule(m, rotational) == rule;
	for (int m = 1; iolat_ctl_mode_name(m) && used < len; m++)
		if (iolat_ctl_window_rule(m, rotational) == rule)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 !i++ ? "" : i == nr ? " and " : ", ",
						 iolat_ctl_mode_name(m));
	return used;
}

/*
 * The rule the modes judge a @rotational device's windows by, from the core's
 * table: "p90 rule" when all agree, else "mean rule in article and kernel,
 * p90 in adaptive" (the first mode's rule first).
 */
static void rule_words(int rotational, char *buf, size_t len)
{
	enum iolat_window_rule first = iolat_ctl_window_rule(IOLAT_CTL_MODE_ARTICLE, rotational);
	enum iolat_window_rule other = first == IOLAT_RULE_P90 ? IOLAT_RULE_MEAN : IOLAT_RULE_P90;
	size_t used = (size_t)snprintf(buf, len, "%s rule", iolat_window_rule_name(first));
	bool split = false;

	for (int m = 1; iolat_ctl_mode_name(m); m++)
		split |= iolat_ctl_window_rule(m, rotational) == other;
	if (!split || used >= len)
		return;
	used += (size_t)snprintf(buf + used, len - used, " in ");
	used = modes_with_rule(buf, len, used, rotational, first);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, ", %s in ",
					 iolat_window_rule_name(other));
	modes_with_rule(buf, len, used, rotational, other);
}

int iolat_sim_format_models(char *buf, size_t len)
{
	const struct iolat_sim_model *const *m = iolat_sim_models();
	size_t used = 0;

	for (; *m; m++) {
		char rules[160];
		int n;

		rule_words((*m)->rotational, rules, sizeof(rules));
		n = snprintf(buf ? buf + (used < len ? used : len) : NULL,
			     used < len ? len - used : 0, "device=%s (%s; %s)\n  %s\n",
			     (*m)->name, (*m)->rotational ? "rotational" : "non-rotational",
			     rules, (*m)->summary);

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
