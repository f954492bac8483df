/* SPDX-License-Identifier: MIT */
/*
 * run_sim_setup.c - set-up of a virtual-time run (run_sim.h): the simulated
 * device from the job file's model keys, the controller and its groups
 * (through run_setup.c, as the real-time run), one submitter per job clone,
 * and the report.
 * Context: the run's thread, before its first event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_setup.h"
#include "run/run_sim_priv.h"

int sim_setup_device(struct sim *s, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = s->jf;
	const char *name = jf->global.device == IOLAT_DEVICE_DEFAULT ? "ssd" :
			   iolat_device_name(jf->global.device);
	const struct iolat_sim_model *m = iolat_sim_model_find(name);
	struct iolat_sim_dev_config cfg = { .model = m, .seed = s->res->seed,
					    .nr_requests = jf->global.nr_requests };
	struct iolat_sim_dev_err why;
	struct iolat_sim_kv *kv;
	size_t bad = 0;
	int ret;

	if (!m) {
		sim_set_err(err, errlen, "%s: device=%s: no such simulated device", jf->file, name);
		return -EINVAL;
	}
	kv = calloc(jf->nr_params ? jf->nr_params : 1, sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	for (unsigned i = 0; i < jf->nr_params; i++) {
		const struct iolat_jobfile_param *p = &jf->params[i];
		const struct iolat_sim_model *pm = iolat_sim_model_by_prefix(p->key);

		if (pm != m) {
			sim_set_err(err, errlen, "%s:%u: key '%s': %s (this file has device=%s)",
				jf->file, p->line, p->key,
				pm ? "a parameter of another device model" :
				     "not a device-model parameter", m->name);
			free(kv);
			return -EINVAL;
		}
		kv[i].key = p->key;
		kv[i].value = p->value;
	}
	cfg.params = kv;
	cfg.nr_params = jf->nr_params;
	ret = iolat_sim_dev_create(&cfg, &s->q, &s->dev, &bad, &why);
	if (ret && bad < jf->nr_params && (ret == -ENOENT || ret == -EINVAL || ret == -ERANGE)) {
		const struct iolat_jobfile_param *p = &jf->params[bad];
		const struct iolat_sim_param *pp = iolat_sim_param_find(m->params, p->key);

		if (ret == -ENOENT)
			sim_set_err(err, errlen, "%s:%u: key '%s': unknown parameter of device=%s "
				"(see iolat sim --help)", jf->file, p->line, p->key, m->name);
		else if (ret == -EINVAL)
			sim_set_err(err, errlen, "%s:%u: key '%s': expected a number, got '%s'",
				jf->file, p->line, p->key, p->value);
		else
			sim_set_err(err, errlen, "%s:%u: key '%s': %s is out of range [%g..%g]",
				jf->file, p->line, p->key, p->value, pp->min, pp->max);
		ret = -EINVAL;
	} else if (ret == -EDOM) {
		unsigned line = 0;

		/* Name the line of the key at fault, else of any key of this model. */
		for (unsigned i = 0; i < jf->nr_params; i++)
			if (!line || (why.key && !strcmp(jf->params[i].key, why.key)))
				line = jf->params[i].line;
		if (line)
			sim_set_err(err, errlen, "%s:%u: key '%s': %s", jf->file, line,
				why.key ? why.key : "?", why.msg ? why.msg : "inconsistent parameters");
		else
			sim_set_err(err, errlen, "%s: device=%s: %s", jf->file, m->name,
				why.msg ? why.msg : "inconsistent parameters");
		ret = -EINVAL;
	}
	free(kv);
	if (!ret) {
		s->res->device = m->name;
		s->res->nr_requests = s->dev->nr_requests;
		s->res->rotational = jf->global.rotational >= 0 ? jf->global.rotational : m->rotational;
	}
	return ret;
}

int sim_setup_controller(struct sim *s, unsigned flags, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = s->jf;
	struct iolat_ctl_config cfg = {
		.nr_requests = s->res->nr_requests,
		.rotational = s->res->rotational,
		.clock = &s->clk,
		.flags = flags,
	};
	struct iolat_group **groups = calloc(jf->nr_groups + 1, sizeof(*groups));
	int ret;

	if (!groups)
		return -ENOMEM;
	ret = iolat_job_setup_controller(jf, cfg, &s->ctl, groups, err, errlen);
	for (unsigned i = 0; !ret && i < jf->nr_groups; i++)
		s->rows[i].g = groups[i];
	free(groups);
	if (ret)
		return ret;
	s->rows[s->root_row].g = iolat_ctl_root(s->ctl);
	return 0;
}

int sim_setup_jobs(struct sim *s, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = s->jf;
	unsigned n = 0;

	for (unsigned i = 0; i < jf->nr_jobs; i++)
		n += jf->jobs[i].numjobs ? jf->jobs[i].numjobs : 1;
	s->jobs = calloc(n ? n : 1, sizeof(*s->jobs));
	if (!s->jobs)
		return -ENOMEM;
	s->t_end = 0;
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *job = &jf->jobs[i];
		unsigned clones = job->numjobs ? job->numjobs : 1;

		if (!job->runtime_ns && !job->size) {
			sim_set_err(err, errlen, "%s:%u: job '%s': the simulator needs runtime= or size= "
				"(the simulated device has no file size to stop at)",
				jf->file, job->line, job->name);
			return -EINVAL;
		}
		for (unsigned c = 0; c < clones; c++) {
			struct sim_job *j = &s->jobs[s->nr_jobs];
			struct iolat_wl_params p = {
				.seed = s->res->seed, .job_index = i, .clone = c,
				.size = job->offset < s->dev->capacity ? s->dev->capacity - job->offset : 0,
				.start_ns = s->t0, .ramp_ns = s->jf->global.ramp_ns,
			};
			uint64_t end;
			int ret = iolat_workload_init(&j->wl, job, &p);

			if (ret) {
				sim_set_err(err, errlen, "%s:%u: job '%s': its region (offset=, size=) does "
					"not fit the %llu-byte simulated device or is smaller than bs",
					jf->file, job->line, job->name,
					(unsigned long long)s->dev->capacity);
				return -EINVAL;
			}
			j->sim = s;
			j->job = job;
			j->job_index = i;
			j->row = job->group < 0 ? s->root_row : (unsigned)job->group;
			j->g = s->ctl ? s->rows[j->row].g : NULL;
			j->depth = job->iodepth ? job->iodepth : 1;
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
			s->nr_jobs++;
			end = iolat_workload_end_ns(&j->wl);
			if (end > s->t_end)
				s->t_end = end;
		}
	}
	s->active = s->nr_jobs;
	return 0;
}

int sim_setup_report(struct sim *s, bool control, int mode, const char *label)
{
	const struct iolat_jobfile *jf = s->jf;
	struct iolat_sim_result *res = s->res;
	struct iolat_report_cfg rcfg = { .jf = jf };
	char buf[128];
	int ret;

	if (label)
		snprintf(buf, sizeof(buf), "%s", label);
	else
		snprintf(buf, sizeof(buf), "sim %s, seed %llu: %s", res->device,
			 (unsigned long long)res->seed,
			 !control ? "no control" : mode == IOLAT_MODE_KERNEL ? "io.latency (kernel compat)" :
			 mode == IOLAT_MODE_ADAPTIVE ? "io.latency (adaptive)" : "io.latency");
	rcfg.label = buf;
	rcfg.no_control = !control;
	rcfg.adaptive = mode == IOLAT_MODE_ADAPTIVE;
	rcfg.sample_interval_ns = res->sample_ns;
	rcfg.nr_requests = res->nr_requests;
	ret = iolat_report_create(&rcfg, &s->rep);
	if (ret)
		return ret;
	if (s->ctl) {
		for (unsigned i = 0; i < jf->nr_groups; i++)
			iolat_report_bind_group(s->rep, i, s->rows[i].g);
		for (unsigned i = 0; i < s->nr_jobs; i++)
			if (s->jobs[i].row == s->root_row) {
				iolat_report_bind_group(s->rep, iolat_report_root_index(s->rep),
							s->rows[s->root_row].g);
				break;
			}
	}
	return 0;
}
