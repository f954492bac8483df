/* SPDX-License-Identifier: MIT */
/*
 * be_sim_setup.c - the one runner's simulator backend, its set-up and its
 * table (be_sim.h): the event queue and its clock, the simulated device
 * from the job file's model keys, the series' rows, one submitter per job
 * clone; and everything freed after the run.
 * Context: the run's thread, before its first event (teardown: after its last).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency_internal.h"   /* iolat_window_ns() */
#include "conf/suggest.h"
#include "run/be_sim.h"
#include "run/be_sim_throttle.h"
#include "sim/registry.h"
#include "util/errmsg.h"

/* The job file's model keys as the device takes them; each must be one of
 * @m's (NULL in *@kv: -EINVAL with the line at fault). */
static int model_keys(const struct iolat_jobfile *jf, const struct iolat_sim_model *m,
		      struct iolat_sim_kv **kv, char *err, size_t errlen)
{
	*kv = calloc(jf->nr_params ? jf->nr_params : 1, sizeof(**kv));
	if (!*kv)
		return -ENOMEM;
	for (unsigned i = 0; i < jf->nr_params; i++) {
		const struct iolat_jobfile_param *p = &jf->params[i];
		const struct iolat_sim_model *pm = iolat_sim_model_by_prefix(p->key);

		if (pm != m) {
			free(*kv);
			*kv = NULL;
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key '%s': %s (this file has "
					  "device=%s)", jf->file, p->line, p->key,
					  pm ? "a parameter of another device model" :
					       "not a device-model parameter", m->name);
		}
		(*kv)[i].key = p->key;
		(*kv)[i].value = p->value;
	}
	return 0;
}

/* The device refused its keys (@ret from iolat_sim_dev_create(), @bad the
 * key at fault, @why its reason): one line naming the key's line. */
static int model_refused(const struct iolat_jobfile *jf, const struct iolat_sim_model *m,
			 int ret, size_t bad, const struct iolat_sim_dev_err *why,
			 char *err, size_t errlen)
{
	const char *msg = why->msg ? why->msg : "inconsistent parameters";
	unsigned line = 0;

	if (bad < jf->nr_params && (ret == -ENOENT || ret == -EINVAL || ret == -ERANGE)) {
		const struct iolat_jobfile_param *p = &jf->params[bad];
		const struct iolat_sim_param *pp = iolat_sim_param_find(m->params, p->key);

		if (ret == -ENOENT) {
			struct iolat_suggest sg;
			const char *best;

			iolat_suggest_init(&sg, p->key);
			for (const struct iolat_sim_param *q = m->params; q && q->name; q++)
				iolat_suggest_offer(&sg, q->name);
			best = iolat_suggest_best(&sg);
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key '%s': unknown parameter of "
					  "device=%s (see iolat sim --help)%s%s%s", jf->file, p->line,
					  p->key, m->name, best ? "; did you mean '" : "", best ? best : "",
					  best ? "'?" : "");
		}
		if (ret == -EINVAL)
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key '%s': expected a number, "
					  "got '%s'", jf->file, p->line, p->key, p->value);
		return iolat_errf(err, errlen, -EINVAL, "%s:%u: key '%s': %s is out of range "
				  "[%g..%g]", jf->file, p->line, p->key, p->value, pp->min, pp->max);
	}
	if (ret != -EDOM)
		return ret;
	/* Name the line of the key at fault, else of any key of this model. */
	for (unsigned i = 0; i < jf->nr_params; i++)
		if (!line || (why->key && !strcmp(jf->params[i].key, why->key)))
			line = jf->params[i].line;
	if (line)
		return iolat_errf(err, errlen, -EINVAL, "%s:%u: key '%s': %s", jf->file, line,
				  why->key ? why->key : "?", msg);
	return iolat_errf(err, errlen, -EINVAL, "%s: device=%s: %s", jf->file, m->name, msg);
}

/* The simulated device of device= with the job file's model keys; what the
 * run needs to know of it in the result. */
static int setup_device(struct sim *s, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = s->r->jf;
	struct iolat_run_result *res = s->r->res;
	const char *name = jf->global.device == IOLAT_DEVICE_DEFAULT ? "ssd" :
			   iolat_device_name(jf->global.device);
	const struct iolat_sim_model *m = iolat_sim_model_find(name);
	struct iolat_sim_dev_config cfg = { .model = m, .seed = res->seed,
					    .nr_requests = jf->global.nr_requests };
	struct iolat_sim_dev_err why;
	struct iolat_sim_kv *kv;
	size_t bad = 0;
	int ret;

	if (!m)
		return iolat_errf(err, errlen, -EINVAL, "%s: device=%s: no such simulated device",
				  jf->file, name);
	ret = model_keys(jf, m, &kv, err, errlen);
	if (ret)
		return ret;
	cfg.params = kv;
	cfg.nr_params = jf->nr_params;
	ret = iolat_sim_dev_create(&cfg, &s->q, &s->dev, &bad, &why);
	free(kv);
	if (ret)
		return model_refused(jf, m, ret, bad, &why, err, errlen);
	s->res->device = m->name;
	snprintf(res->device, sizeof(res->device), "%s", m->name);
	res->device_known = true;
	res->nr_requests = s->dev->nr_requests;
	res->rotational = jf->global.rotational >= 0 ? jf->global.rotational : m->rotational;
	return 0;
}

/* The series' rows: the job file's groups, then the root row. */
static int setup_rows(struct sim *s)
{
	const struct iolat_jobfile *jf = s->r->jf;
	struct iolat_sim_result *res = s->res;

	s->nr_rows = jf->nr_groups + 1;
	s->root_row = jf->nr_groups;
	s->rows = calloc(s->nr_rows, sizeof(*s->rows));
	res->groups = calloc(s->nr_rows, sizeof(*res->groups));
	if (!s->rows || !res->groups)
		return -ENOMEM;
	res->nr_groups = s->nr_rows;
	for (unsigned i = 0; i < s->nr_rows; i++) {
		struct iolat_sim_group *rg = &res->groups[i];
		struct sim_row *row = &s->rows[i];

		iolat_hist_reset(&row->hs);
		iolat_hist_reset(&row->hw);
		if (i < jf->nr_groups) {
			rg->path = jf->groups[i].path;
			rg->target_ns = jf->groups[i].target_ns;
			rg->win_ns = rg->target_ns ? iolat_window_ns(rg->target_ns) : 0;
			row->parent = jf->groups[i].parent;
		} else {
			rg->path = "(root)";
			row->parent = -1;
		}
	}
	return 0;
}

/* The state, the series (the caller's, or our own), the event queue from
 * IOLAT_SIM_T0_NS and its clock for the controller, the rows, the device. */
/* cgroup= moves real threads into a kernel cgroup: the simulator has none. */
static int refuse_cgroups(const struct iolat_jobfile *jf, char *err, size_t errlen)
{
	for (unsigned i = 0; i < jf->nr_jobs; i++)
		if (jf->jobs[i].cgroup[0])
			return iolat_errf(err, errlen, -EINVAL, "%s:%u: key 'cgroup': job '%s': the simulator "
					  "runs no threads to put in a kernel cgroup (cgroup= is for iolat run; "
					  "the simulated group is group=)", jf->file,
					  iolat_job_key_line(&jf->jobs[i], "cgroup"), jf->jobs[i].name);
	return 0;
}

static int sim_prepare(struct run *r, char *err, size_t errlen)
{
	struct sim *s = r->be_state;
	int ret = refuse_cgroups(r->jf, err, errlen);

	if (!ret)
		ret = sim_thr_check(r->jf, err, errlen);
	if (ret)
		return ret;
	s->r = r;
	s->res = r->be_out;
	if (!s->res) {
		s->res = calloc(1, sizeof(*s->res));
		if (!s->res)
			return -ENOMEM;
		s->own_res = true;
	}
	iolat_sim_evq_init(&s->q, IOLAT_SIM_T0_NS);
	iolat_sim_evq_clock(&s->q, &s->clk);
	r->clock = &s->clk;
	ret = setup_rows(s);
	return ret ? ret : setup_device(s, err, errlen);
}

static void sim_label(const struct run *r, char *buf, size_t len)
{
	snprintf(buf, len, "sim %s, seed %llu", r->res->device, (unsigned long long)r->res->seed);
}

static uint64_t sim_now(const struct run *r)
{
	return IOLAT_SIM_T0_NS;
}

/* The device's bytes past offset=; a job needs runtime= or size=. */
static int sim_region(struct run *r, const struct iolat_job *job, uint64_t *size,
		      char *err, size_t errlen)
{
	struct sim *s = r->be_state;

	if (!job->runtime_ns && !job->size)
		return iolat_errf(err, errlen, -EINVAL, "%s:%u: job '%s': the simulator needs "
				  "runtime= or size= (the simulated device has no file size to "
				  "stop at)", r->jf->file, job->line, job->name);
	*size = job->offset < s->dev->capacity ? s->dev->capacity - job->offset : 0;
	return 0;
}

static int sim_bad_region(const struct run *r, const struct iolat_job *job, int ret,
			  char *err, size_t errlen)
{
	const struct sim *s = r->be_state;

	return iolat_errf(err, errlen, -EINVAL, "%s:%u: job '%s': its region (offset=, size=) does "
			  "not fit the %llu-byte simulated device or is smaller than bs",
			  r->jf->file, job->line, job->name, (unsigned long long)s->dev->capacity);
}

/* A submitter: its slots, each with the device's completion callback. */
static int sim_setup_clone(struct run *r, struct run_clone *c, char *err, size_t errlen)
{
	struct sim_job *j = (struct sim_job *)c;

	j->sim = r->be_state;
	j->depth = c->job->iodepth ? c->job->iodepth : 1;
	j->pump_at = UINT64_MAX;
	j->ios = calloc(j->depth, sizeof(*j->ios));
	if (!j->ios)
		return -ENOMEM;
	for (uint32_t k = 0; k < j->depth; k++) {
		struct sim_io *io = &j->ios[k];

		io->job = j;
		io->w.granted = sim_io_granted;
		io->req.owner = io;
		io->req.complete = sim_io_complete;
		io->next_free = j->free;
		j->free = io;
	}
	return 0;
}

/* The rows' controller groups (their figures in the series), the count of
 * submitters still running. */
static int sim_setup_done(struct run *r, char *err, size_t errlen)
{
	struct sim *s = r->be_state;

	for (unsigned i = 0; r->ctl && i < r->jf->nr_groups; i++)
		s->rows[i].g = r->groups[i];
	if (r->ctl)
		s->rows[s->root_row].g = iolat_ctl_root(r->ctl);
	s->active = r->nr_clones;
	return sim_thr_setup(s);
}

static void sim_teardown(struct run *r, bool failed)
{
	struct sim *s = r->be_state;

	if (!s->r)
		return;   /* prepare did not run */
	sim_thr_free(s);
	iolat_sim_dev_destroy(s->dev);
	for (unsigned i = 0; i < r->nr_clones; i++)
		free(sim_job_at(s, i)->ios);
	free(s->rows);
	iolat_sim_evq_destroy(&s->q);
	if (s->own_res)
		iolat_sim_result_free(s->res);
}

const struct iolat_run_backend iolat_backend_sim = {
	.name = "sim", .fail_what = "simulation failed: ", .virtual_time = true,
	.clone_size = sizeof(struct sim_job), .state_size = sizeof(struct sim),
	.default_sample_ns = SIM_DEF_SAMPLE_NS,
	.prepare = sim_prepare, .label = sim_label, .now = sim_now,
	.region = sim_region, .bad_region = sim_bad_region,
	.setup_clone = sim_setup_clone, .setup_done = sim_setup_done,
	.drive = sim_drive, .teardown = sim_teardown,
};
