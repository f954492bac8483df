/* SPDX-License-Identifier: MIT */
/*
 * run.c - the one runner (run.h): what every run does whatever its backend.
 * In order: control on or off and its mode (the options over the job file),
 * the backend's checks and device, the controller and one group per
 * job-file group, the backend's layout, the report (its label, sample
 * step), the job clones (numjobs) with their groups and workloads, the
 * report's groups, a stop asked before the start (-EINTR), the backend's
 * run, the idle check (nothing in flight in the controller), the backend's
 * checks; then the result, or on failure one message and everything undone.
 * The backend's part is struct iolat_run_backend (run_priv.h).
 * Context: the calling thread (see run.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolatency.h"
#include "iolatency_internal.h"   /* iolat_window_ns() */
#include "run/run_priv.h"
#include "util/errmsg.h"

bool run_stop_requested(const struct run *r)
{
	return r->o.stop && atomic_load(r->o.stop);
}

void run_mark_interrupted(struct run *r)
{
	r->res->interrupted = true;
	iolat_report_set_interrupted(r->rep, true);
}

int run_finish(struct run *r, uint64_t now)
{
	r->res->duration_ns = now - r->start_ns;
	for (unsigned i = 0; i < r->nr_clones; i++) {
		struct run_clone *c = run_clone_at(r, i);
		struct iolat_wl_openloop w;

		if (iolat_workload_openloop(&c->wl, now, &w))
			iolat_report_add_openloop(r->rep, c->job_index, &(struct iolat_report_openloop){
				.asked_iops = w.asked_iops, .arrived = w.arrived, .started = w.started,
				.late = w.late, .max_backlog = w.max_backlog,
				.started_iops = w.span_ns ? (double)w.started * 1e9 / (double)w.span_ns : 0 });
	}
	return iolat_report_finish(r->rep, now);
}

void run_note(const struct run *r, const char *fmt, ...)
{
	char line[IOLAT_RUN_NOTE_MAX];
	va_list ap;

	if (!r->o.note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->o.note(r->o.ctx, line);
}

/* Control on or off and its mode: the options over the job file, in the result. */
static bool pick_control(struct run *r)
{
	const struct iolat_run_opts *o = &r->o;
	bool control = o->control >= 0 ? o->control : r->jf->global.control;
	int mode = iolat_mode_pick(r->jf, o->mode, o->kernel_compat, o->default_mode);

	if (o->kernel_compat == 0 && !o->mode && mode == IOLAT_CTL_MODE_KERNEL)
		mode = IOLAT_CTL_MODE_ARTICLE; /* an explicit kernel_compat = 0 */
	r->mode = mode;
	r->res->control = control;
	r->res->kernel_compat = control && mode == IOLAT_CTL_MODE_KERNEL;
	r->res->mode = control ? mode : IOLAT_CTL_MODE_NONE;
	return control;
}

/* The sample step: the option, else the shortest latency window among the
 * groups with a target (the controller's own), else the backend's. */
static uint64_t sample_step(const struct run *r)
{
	uint64_t best = 0;

	if (r->o.sample_ns)
		return r->o.sample_ns;
	for (unsigned i = 0; i < r->jf->nr_groups; i++) {
		uint64_t w;

		if (!r->jf->groups[i].target_ns)
			continue;
		w = iolat_window_ns(r->jf->groups[i].target_ns);
		if (!best || w < best)
			best = w;
	}
	return best ? best : r->be->default_sample_ns;
}

/* The controller for the job file's groups, each with its target. */
static int setup_controller(struct run *r, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = r->jf;
	struct iolat_ctl_config cfg = {
		.nr_requests = r->res->nr_requests, .rotational = r->res->rotational,
		.clock = r->clock, .flags = iolat_ctl_mode_flags(r->mode),
		.max_groups = jf->nr_groups + 1,
	};
	int ret;

	r->groups = calloc(jf->nr_groups + 1, sizeof(*r->groups));
	if (!r->groups)
		return -ENOMEM;
	ret = iolat_ctl_create(&cfg, &r->ctl);
	if (ret)
		return iolat_errf(err, errlen, ret, "%s: cannot create the controller: %s", jf->file,
				  strerror(-ret));
	for (unsigned i = 0; i < jf->nr_groups; i++) {
		const struct iolat_jobfile_group *gr = &jf->groups[i];
		struct iolat_group *parent = gr->parent < 0 ? NULL : r->groups[gr->parent];

		ret = iolat_group_create(r->ctl, parent, gr->name, &r->groups[i]);
		if (!ret && gr->target_ns)
			ret = iolat_group_set_target(r->groups[i], gr->target_ns);
		if (!ret && gr->weight) /* any weight= turns the controller's weights on */
			ret = iolat_group_set_weight(r->groups[i], gr->weight);
		if (ret)
			return iolat_errf(err, errlen, ret, "%s:%u: group '%s': %s", jf->file, gr->line,
					  gr->path, strerror(-ret));
	}
	return 0;
}

/*
 * The words after "io.latency" or "on" that say which mode ran: none for the
 * article's (the library's default), " (kernel compat)" for the kernel's
 * (--kernel-compat's words), else " (NAME)" by the core's table.
 */
static const char *mode_words(const struct iolat_run_result *res, char *buf, size_t len)
{
	if (res->mode == IOLAT_CTL_MODE_ARTICLE || res->mode == IOLAT_CTL_MODE_NONE)
		return "";
	if (res->kernel_compat)
		return " (kernel compat)";
	snprintf(buf, len, " (%s)", iolat_ctl_mode_name(res->mode));
	return buf;
}

/* The report: its label (the backend's device, the control), its step. */
static int create_report(struct run *r)
{
	struct iolat_report_cfg rcfg = { .jf = r->jf };
	bool control = r->res->control;
	char label[160], dev[96], words[32];

	if (r->o.label) {
		snprintf(label, sizeof(label), "%s", r->o.label);
	} else {
		r->be->label(r, dev, sizeof(dev));
		snprintf(label, sizeof(label), "%s: %s%s", dev, control ? "io.latency" : "no control",
			 control ? mode_words(r->res, words, sizeof(words)) : "");
	}
	rcfg.label = label;
	rcfg.no_control = !control;
	rcfg.adaptive = r->mode == IOLAT_CTL_MODE_ADAPTIVE;
	rcfg.weights = iolat_jobfile_has_weights(r->jf);
	rcfg.sample_interval_ns = r->res->sample_ns;
	rcfg.nr_requests = r->res->nr_requests;
	return iolat_report_create(&rcfg, &r->rep);
}

/* Clone @c of job @i: its group and its workload over @region from the start. */
static int init_clone(struct run *r, struct run_clone *c, unsigned i, unsigned k,
		      uint64_t region, char *err, size_t errlen)
{
	const struct iolat_job *job = &r->jf->jobs[i];
	struct iolat_wl_params wp = {
		.seed = r->res->seed, .job_index = i, .clone = k, .size = region,
		.start_ns = r->start_ns, .ramp_ns = r->jf->global.ramp_ns,
	};
	uint64_t end;
	int ret;

	c->r = r;
	c->job = job;
	c->job_index = i;
	c->clone = k;
	c->row = job->group < 0 ? r->jf->nr_groups : (unsigned)job->group;
	c->g = !r->ctl ? NULL : job->group < 0 ? iolat_ctl_root(r->ctl) : r->groups[job->group];
	ret = iolat_workload_init(&c->wl, job, &wp);
	if (ret)
		return r->be->bad_region(r, job, ret, err, errlen);
	end = iolat_workload_end_ns(&c->wl);
	if (end > r->end_ns)
		r->end_ns = end;
	return r->be->setup_clone(r, c, err, errlen);
}

/* Every job's clones, in the job file's order. */
static int setup_clones(struct run *r, char *err, size_t errlen)
{
	const struct iolat_jobfile *jf = r->jf;
	unsigned n = 0;
	int ret;

	for (unsigned i = 0; i < jf->nr_jobs; i++)
		n += jf->jobs[i].numjobs ? jf->jobs[i].numjobs : 1;
	r->clones = calloc(n ? n : 1, r->be->clone_size);
	if (!r->clones)
		return -ENOMEM;
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *job = &jf->jobs[i];
		unsigned clones = job->numjobs ? job->numjobs : 1;
		uint64_t region;

		ret = r->be->region(r, job, &region, err, errlen);
		for (unsigned k = 0; !ret && k < clones; k++)
			/* counted first: teardown frees what a failed clone set up */
			ret = init_clone(r, run_clone_at(r, r->nr_clones++), i, k, region, err, errlen);
		if (ret)
			return ret;
	}
	return r->be->setup_done ? r->be->setup_done(r, err, errlen) : 0;
}

/* With a controller: its groups behind the report's rows (the root's too
 * when a job runs there). */
static void bind_groups(struct run *r)
{
	bool root_used = false;

	if (!r->ctl)
		return;
	for (unsigned i = 0; i < r->jf->nr_groups; i++)
		iolat_report_bind_group(r->rep, i, r->groups[i]);
	for (unsigned i = 0; i < r->nr_clones; i++)
		root_used |= run_clone_at(r, i)->row == r->jf->nr_groups;
	if (root_used)
		iolat_report_bind_group(r->rep, iolat_report_root_index(r->rep),
					iolat_ctl_root(r->ctl));
}

/* Every step before the run, each refusal as one line in @err; with
 * @check_only, up to the first with side effects (a layout). */
static int set_up(struct run *r, bool check_only, char *err, size_t errlen)
{
	bool control = pick_control(r);
	int ret;

	r->res->seed = r->o.seed_set ? r->o.seed : r->jf->global.seed;
	r->res->sample_ns = sample_step(r);
	ret = r->be->prepare(r, err, errlen);
	if (ret || (check_only && r->be->lay_out))
		return ret;
	if (control)
		ret = setup_controller(r, err, errlen);
	if (!ret && r->be->lay_out)
		ret = r->be->lay_out(r, err, errlen);
	if (!ret)
		ret = create_report(r);
	if (ret)
		return ret;
	r->start_ns = r->be->now(r);
	ret = setup_clones(r, err, errlen);
	if (!ret)
		bind_groups(r);
	return ret;
}

/* After the run: every admitted I/O completed, nothing waits in the controller. */
static int check_idle(struct run *r, char *err, size_t errlen)
{
	struct iolat_group_stat st;

	for (unsigned i = 0; r->ctl && i < r->jf->nr_groups; i++) {
		if (iolat_group_stat(r->groups[i], &st) == 0 && (st.inflight || st.waiters)) {
			r->ctl = NULL;   /* not idle: leak it rather than destroy it under I/O */
			return iolat_errf(err, errlen, -EIO, "%s: group '%s': %u I/Os in flight and "
					  "%u waiting after the run", r->jf->file,
					  r->jf->groups[i].path, st.inflight, st.waiters);
		}
	}
	return 0;
}

/* The run proper, after its set-up. */
static int run_it(struct run *r, char *err, size_t errlen)
{
	int ret;

	if (run_stop_requested(r))
		return iolat_errf(err, errlen, -EINTR, "interrupted before the jobs started");
	iolat_report_start(r->rep, r->start_ns);
	r->jobs_started = true;
	ret = r->be->drive(r, err, errlen);
	if (!ret)
		ret = check_idle(r, err, errlen);
	if (!ret && r->be->after)
		ret = r->be->after(r, err, errlen);
	return ret;
}

/* The controller (unless a check left it to leak), then the backend's part. */
static void tear_down(struct run *r, bool failed)
{
	if (r->ctl)
		iolat_ctl_destroy(r->ctl);
	free(r->groups);
	r->be->teardown(r, failed);
	free(r->be_state);
	free(r->clones);
}

int run_execute(const struct iolat_jobfile *jf, const struct iolat_run_backend *be,
		const struct iolat_run_opts *opts, bool check_only, void *be_out,
		struct iolat_run_result **out, char *err, size_t errlen)
{
	static const struct iolat_run_opts defaults = { .control = -1, .kernel_compat = -1 };
	struct run r = { .jf = jf, .be = be, .be_out = be_out, .o = opts ? *opts : defaults };
	int ret;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!jf || !be)
		return -EINVAL;
	r.res = calloc(1, sizeof(*r.res));
	r.be_state = calloc(1, be->state_size);
	if (!r.res || !r.be_state) {
		free(r.res);
		free(r.be_state);
		return -ENOMEM;
	}
	r.res->virtual_time = be->virtual_time;
	ret = set_up(&r, check_only, err, errlen);
	if (!ret && !check_only)
		ret = run_it(&r, err, errlen);
	if (ret && err && errlen && !err[0])
		iolat_errf(err, errlen, ret, "%s: %s%s", jf->file, be->fail_what,
			   ret == -ENOMEM ? "out of memory" : strerror(-ret));
	tear_down(&r, ret != 0);
	if (ret) {
		iolat_report_destroy(r.rep);
		free(r.res);
		return ret;
	}
	r.res->report = r.rep;
	*out = r.res;
	return 0;
}

int iolat_run(const struct iolat_jobfile *jf, const struct iolat_run_backend *be,
	      const struct iolat_run_opts *opts, struct iolat_run_result **out,
	      char *err, size_t errlen)
{
	return run_execute(jf, be, opts, false, NULL, out, err, errlen);
}

int iolat_run_check(const struct iolat_jobfile *jf, const struct iolat_run_backend *be,
		    const struct iolat_run_opts *opts, char *err, size_t errlen)
{
	struct iolat_run_result *res = NULL;
	const struct iolat_jobfile_scen *scen;
	int ret = iolat_jobfile_scenario(jf, &scen, err, errlen);

	if (ret)
		return ret;
	if (scen)   /* a scenario (src/scen): its own checks */
		return scen->check ? scen->check(jf, err, errlen) : 0;
	ret = run_execute(jf, be, opts, true, NULL, &res, err, errlen);
	iolat_run_result_free(res);
	return ret;
}

void iolat_run_result_free(struct iolat_run_result *res)
{
	if (!res)
		return;
	iolat_report_destroy(res->report);
	free(res);
}

int iolat_run_describe(const struct iolat_run_result *res, char *buf, size_t len)
{
	char words[32], ctl[40];
	const char *rot = res->rotational ? "rotational" : "non-rotational";
	/* The rule the mode run judged windows by (without control: the
	 * device's io.latency rule, the article's). */
	const char *rule = iolat_window_rule_name(iolat_ctl_window_rule(res->mode,
									res->rotational));

	snprintf(ctl, sizeof(ctl), "%s%s", res->control ? "on" : "off",
		 res->control ? mode_words(res, words, sizeof(words)) : "");
	if (res->virtual_time)
		return snprintf(buf, len, "device %s (%s, %s rule), nr_requests %u, seed %" PRIu64
				", %.3f s virtual, controller %s", res->device, rot, rule,
				res->nr_requests, res->seed, (double)res->duration_ns / 1e9, ctl);
	return snprintf(buf, len, "device %s (%s, %s rule%s), nr_requests %u, %.1f s, controller %s",
			res->device[0] ? res->device : "unknown", rot, rule,
			res->device_known ? "" : ", defaults: not found in sysfs", res->nr_requests,
			(double)res->duration_ns / 1e9, ctl);
}
