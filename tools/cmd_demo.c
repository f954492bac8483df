/* SPDX-License-Identifier: MIT */
/*
 * `iolat demo`: the article's story with no arguments. A latency-sensitive
 * 4 KiB random reader (group "main", with a target) runs beside a bulk
 * 1 MiB O_DIRECT writer at QD 32 (group "system/fbpkg", the download) four
 * times: without control, with a static rate cap on the writer (io.max's
 * answer), with io.latency (the kernel's rules) and with the adaptive mode;
 * then prints the reader's p50/p90/p99 and the writer's MiB/s side by side. Real files in --dir (removed afterwards), or
 * the simulator with --sim. Each mode's jobs are built in code (the job
 * layer's builder, jobfile_build.h), not written as text and parsed; -v
 * prints them as the job file they amount to.
 * Exit: 0 ok, 1 a run failed, 2 bad usage, 128+N stopped by signal N.
 * The temporary files are removed on every way out (cli_stop.h).
 * Context: the CLI's main thread (plus the signal handler of cli_stop.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli_opts.h"
#include "cli_stop.h"
#include "commands.h"
#include "demo_cgroups.h"
#include "iolatency.h"
#include "job/jobfile.h"
#include "job/jobfile_build.h"
#include "run/preflight.h"
#include "report/report.h"
#include "run/run.h"
#include "util/units.h"

#define DEMO_READ_SIZE   (256ull << 20)   /* the reader's file */
#define DEMO_WRITE_SIZE  (1ull << 30)     /* the writer's file */
#define DEMO_CAP_PCT_DEF 25u     /* static cap: this % of the uncontrolled writer */

enum demo_mode { MODE_NONE, MODE_CAP, MODE_IOLAT, MODE_ADAPTIVE, NR_MODES };

struct demo {
	const char *dir;
	bool sim, verbose, quiet, tty;
	const char *device;          /* --sim model, NULL: the simulator's default */
	enum iolat_device_kind device_kind;
	unsigned seconds;
	uint64_t target_ns;          /* parsed once: --target, or the default */
	char target_s[32];           /* as the user wrote it, for the table */
	uint64_t cap_bps;            /* 0: DEMO_CAP_PCT_DEF % of the first mode */
	char rpath[4096], wpath[4096];
	struct {
		bool ran;
		char label[64];
		uint64_t r_p50, r_p90, r_p99, r_ios;
		double w_mib_s;
		uint32_t w_depth_min;    /* the writer's top-level group ("system") */
		bool w_bound;
		uint64_t errors;
	} res[NR_MODES];
	char disk[48];               /* "vda", "sim ssd" */
	int rotational;
	uint32_t nr_requests;
	bool shown;                  /* a progress line is on screen */
	unsigned mode;
};

/* @bytes as a job file writes it: "256m", "1g", "4k", or a bare number. */
static const char *size_text(uint64_t bytes, char *buf, size_t len)
{
	static const char suffix[] = "kmgtp";
	int k = -1;

	while (bytes && bytes % 1024 == 0 && k < 4) {
		bytes /= 1024;
		k++;
	}
	if (k < 0)
		snprintf(buf, len, "%" PRIu64, bytes);
	else
		snprintf(buf, len, "%" PRIu64 "%c", bytes, suffix[k]);
	return buf;
}

static void usage(FILE *f)
{
	char r[32], w[32];

	fprintf(f,
		"usage: iolat demo [--dir D] [--sim [--device ssd|hdd|bad-ssd]] [--seconds N]\n"
		"                  [--target T] [--cap RATE] [-v] [-q]\n"
		"\n"
		"The io.latency story in one command: a 4 KiB random reader (group main,\n"
		"with a latency target) beside a 1 MiB O_DIRECT writer at queue depth 32\n"
		"(group system/fbpkg), run four times: with no control, with a static rate\n"
		"cap on the writer, with io.latency (the kernel's rules) and with the adaptive\n"
		"mode. Prints the reader's p50/p90/p99 and the writer's MiB/s side by side.\n"
		"\n"
		"options:\n"
		"  --dir D        where the two test files go (default: the working directory):\n"
		"                 %s + %s, removed at the end and on Ctrl-C, SIGTERM, SIGHUP;\n"
		"                 refused when the filesystem lacks the space\n"
		"  --sim          run on the simulated device instead (virtual time, no files)\n"
		"  --device M     the simulator's model with --sim (default: its default)\n"
		"  --seconds N    length of each of the four runs (default 10)\n"
		"  --target T     the reader's latency target (default 500us, for an SSD or a\n"
		"                 VM disk: on a spinning disk give ~30ms; with --sim 150us on\n"
		"                 ssd, 30ms on hdd, 25ms on bad-ssd)\n"
		"  --cap RATE     the static cap on the writer (default: %u%% of its\n"
		"                 uncontrolled MiB/s), e.g. 100m\n"
		"  -v             print the job files\n"
		"  -q             no progress line\n"
		"  --cgroups      the same story with unmodified fio in two cgroups, under\n"
		"                 iolatd (root; see iolat demo --cgroups --help)\n"
		"  -h, --help     this text\n"
		"  --memleak      another demo: the article's leaking service in the simulator\n"
		"                 (iolat demo --memleak --help)\n"
		"\n"
		"exit status: 0 ok, 1 a run failed, 2 bad usage, 128+N stopped by signal N\n",
		size_text(DEMO_READ_SIZE, r, sizeof(r)), size_text(DEMO_WRITE_SIZE, w, sizeof(w)),
		DEMO_CAP_PCT_DEF);
}

static int bad_usage(const char *fmt, const char *arg)
{
	return iolat_cli_usage_error("demo", fmt, arg);
}

/*
 * The demo's runs: each one's controller mode (the core's table names it;
 * IOLAT_CTL_MODE_NONE: no controller) and its label, where the mode's name
 * is not the label (the article's mode shows as io.latency, the kernel's).
 */
static const struct {
	enum iolat_ctl_mode ctl;
	const char *label;
} demo_runs[NR_MODES] = {
	[MODE_NONE] = { IOLAT_CTL_MODE_NONE, "no control" },
	[MODE_CAP] = { IOLAT_CTL_MODE_NONE, "static cap" },
	[MODE_IOLAT] = { IOLAT_CTL_MODE_ARTICLE, "io.latency" },
	[MODE_ADAPTIVE] = { IOLAT_CTL_MODE_ADAPTIVE, NULL },
};

static const char *run_label(enum demo_mode m)
{
	return demo_runs[m].label ? demo_runs[m].label : iolat_ctl_mode_name(demo_runs[m].ctl);
}

/* One of the demo's two jobs: its pattern, size and file, and what both share. */
static int fill_job(struct iolat_jobfile_builder *b, const struct demo *d, struct iolat_job *j,
		    int group, const char *path, uint64_t size)
{
	j->group = group;
	j->size = size;
	j->runtime_ns = (uint64_t)d->seconds * NSEC_PER_SEC;
	j->time_based = true;
	j->direct = true;
	return d->sim ? 0 : iolat_jobfile_build_filename(b, j, path);
}

/*
 * The job file of one mode, built directly: the reader in group main (with
 * the target) and the writer in system/fbpkg, capped in MODE_CAP; the
 * controller off, or on in the article's or the adaptive mode.
 */
static int build_jobs(const struct demo *d, enum demo_mode m, struct iolat_jobfile **out,
		      char *err, size_t errlen)
{
	struct iolat_jobfile_builder *b;
	struct iolat_jobfile_global *g;
	struct iolat_job *j;
	int ret, main_g, bg_g;

	ret = iolat_jobfile_build_begin("demo", err, errlen, &b);
	if (ret)
		return ret;
	g = iolat_jobfile_build_global(b);
	g->control = demo_runs[m].ctl != IOLAT_CTL_MODE_NONE;
	g->mode = demo_runs[m].ctl;
	if (d->sim)
		g->device = d->device_kind;
	main_g = iolat_jobfile_build_group(b, "main", d->target_ns);
	bg_g = iolat_jobfile_build_group(b, "system/fbpkg", 0);
	if (main_g >= 0 && bg_g >= 0 && (j = iolat_jobfile_build_job(b, "reader")) &&
	    !fill_job(b, d, j, main_g, d->rpath, DEMO_READ_SIZE)) {
		j->rw = IOLAT_RW_RANDREAD;
		j->bs = 4096;
		j->iodepth = 1;
	}
	if ((j = iolat_jobfile_build_job(b, "writer")) &&
	    !fill_job(b, d, j, bg_g, d->wpath, DEMO_WRITE_SIZE)) {
		j->rw = IOLAT_RW_WRITE;
		j->bs = 1u << 20;
		j->iodepth = 32;
		j->rate_bps = m == MODE_CAP ? d->cap_bps : 0;
	}
	return iolat_jobfile_build_end(b, out);   /* any failure above is returned here */
}

/* @ns as a job file writes a duration: "500us", "30ms", "1500ns". */
static const char *duration_text(uint64_t ns, char *buf, size_t len)
{
	if (ns % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "ms", ns / 1000000);
	else if (ns % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

/* -v: the job file a mode runs, written from its structs (the keys the demo sets). */
static void print_jobs(FILE *f, const struct iolat_jobfile *jf, const char *mode)
{
	const struct iolat_jobfile_global *g = &jf->global;
	char a[32], b[32];

	fprintf(f, "---- %s ----\n; iolat demo, mode: %s\n[global]\ncontrol=%s\n", mode, mode,
		!g->control ? "0" : iolat_ctl_mode_name(g->mode));
	if (g->device != IOLAT_DEVICE_DEFAULT)
		fprintf(f, "device=%s\n", iolat_device_name(g->device));
	for (unsigned i = 0; i < jf->nr_groups; i++) {
		if (!jf->groups[i].declared)
			continue;
		fprintf(f, "\n[group:%s]\n", jf->groups[i].path);
		if (jf->groups[i].target_ns)
			fprintf(f, "target=%s\n", duration_text(jf->groups[i].target_ns, a, sizeof(a)));
	}
	for (unsigned i = 0; i < jf->nr_jobs; i++) {
		const struct iolat_job *j = &jf->jobs[i];

		fprintf(f, "\n[%s]\n", j->name);
		if (j->group >= 0)
			fprintf(f, "group=%s\n", jf->groups[j->group].path);
		if (j->filename)
			fprintf(f, "filename=%s\n", j->filename);
		fprintf(f, "size=%s\nrw=%s\nbs=%s\niodepth=%u\nruntime=%" PRIu64 "s\n"
			"time_based=%d\ndirect=%d\n", size_text(j->size, a, sizeof(a)),
			iolat_rw_name(j->rw), size_text(j->bs, b, sizeof(b)), j->iodepth,
			(uint64_t)(j->runtime_ns / NSEC_PER_SEC), j->time_based, j->direct);
		if (j->rate_bps)
			fprintf(f, "rate=%" PRIu64 "\n", j->rate_bps);
	}
}

static void clear_line(struct demo *d)
{
	if (d->shown) {
		fputs("\r\033[K", stderr);
		d->shown = false;
	}
}

static void on_progress(void *ctx, const struct iolat_run_progress *p)
{
	struct demo *d = ctx;

	if (!d->tty)
		return;
	fprintf(stderr, "\r\033[K[%u/%u %s] %4.1fs/%us  %8.1f MiB/s", d->mode + 1, NR_MODES,
		run_label(d->mode), (double)p->elapsed_ns / 1e9, d->seconds, p->mib_s);
	fflush(stderr);
	d->shown = true;
}

static void on_note(void *ctx, const char *line)
{
	struct demo *d = ctx;

	if (d->quiet && !strncmp(line, "laying out", 10))
		return;
	clear_line(d);
	fprintf(stderr, "iolat demo: %s\n", line);
}

/* Copy the figures of one finished mode from its report. */
static void collect(struct demo *d, enum demo_mode m, const struct iolat_report *rep)
{
	struct iolat_report_row row;

	for (unsigned i = 0; i < iolat_report_nr_rows(rep); i++) {
		if (iolat_report_row(rep, i, &row))
			continue;
		d->res[m].errors += row.errors;
		if (!strcmp(row.name, "main")) {
			d->res[m].r_p50 = row.lat_p50_ns;
			d->res[m].r_p90 = row.lat_p90_ns;
			d->res[m].r_p99 = row.lat_p99_ns;
			d->res[m].r_ios = row.ios_read;
		} else if (!strcmp(row.name, "system/fbpkg")) {
			d->res[m].w_mib_s = row.mib_s;
		} else if (!strcmp(row.name, "system")) {
			d->res[m].w_bound = row.bound;
			d->res[m].w_depth_min = row.depth_min;
		}
	}
	d->res[m].ran = true;
}

/* A mode stopped by a signal says so in its row. */
static void mark_cut_short(struct demo *d, enum demo_mode m, bool interrupted)
{
	size_t n = strlen(d->res[m].label);

	if (interrupted)
		snprintf(d->res[m].label + n, sizeof(d->res[m].label) - n, " (stopped)");
}

static int run_mode(struct demo *d, enum demo_mode m)
{
	struct iolat_run_opts ro = {
		.control = -1, .kernel_compat = -1, .stop = &iolat_cli_stop_flag,
		.progress = d->sim ? NULL : on_progress, .note = on_note, .ctx = d,
	};
	struct iolat_run_result *res = NULL;
	char err[IOLAT_JOBFILE_ERR_MAX];
	struct iolat_jobfile *jf = NULL;
	int ret;

	d->mode = m;
	ret = build_jobs(d, m, &jf, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iolat demo: internal job file: %s\n", err[0] ? err : strerror(-ret));
		return ret;
	}
	if (d->verbose)
		print_jobs(stderr, jf, run_label(m));
	ret = iolat_run(jf, d->sim ? &iolat_backend_sim : &iolat_backend_engines, &ro, &res, err,
			sizeof(err));
	clear_line(d);
	if (!ret) {
		collect(d, m, res->report);
		mark_cut_short(d, m, res->interrupted);
		snprintf(d->disk, sizeof(d->disk), "%s%s", d->sim ? "sim " : "",
			 res->device[0] ? res->device : "unknown");
		d->rotational = res->rotational;
		d->nr_requests = res->nr_requests;
	}
	iolat_run_result_free(res);
	if (ret && ret != -EINTR)   /* a stop is said once, at the end */
		fprintf(stderr, "iolat demo: %s run: %s\n", run_label(m),
			err[0] ? err : strerror(-ret));
	iolat_jobfile_free(jf);
	return ret;
}

static void print_table(const struct demo *d)
{
	char a[32], b[32], c[32], depth[32];

	printf("\niolat demo: 4 KiB random reader (group main, target %s, QD 1) beside a\n"
	       "1 MiB O_DIRECT writer at QD 32 (group system/fbpkg), %u s per mode\n"
	       "on %s (%s, nr_requests %u)%s%s\n\n", d->target_s, d->seconds, d->disk,
	       d->rotational ? "rotational: io.latency judges the mean, adaptive the p90" :
	       "non-rotational: p90 rule",
	       d->nr_requests, d->sim ? "" : ", files in ", d->sim ? "" : d->dir);
	/* The mode column fits the longest label ("... (stopped)" included). */
	int width = 26;

	for (unsigned m = 0; m < NR_MODES; m++)
		if (d->res[m].ran && (int)strlen(d->res[m].label) > width)
			width = (int)strlen(d->res[m].label);
	printf("%-*s %11s %11s %11s %13s %13s\n", width, "mode", "reader p50", "reader p90",
	       "reader p99", "writer MiB/s", "writer depth");
	for (unsigned m = 0; m < NR_MODES; m++) {
		const char *label = d->res[m].label;

		if (!d->res[m].ran)
			continue;
		if (!d->res[m].w_bound)
			snprintf(depth, sizeof(depth), "-");
		else if (d->res[m].w_depth_min == IOLAT_DEPTH_MAX)
			snprintf(depth, sizeof(depth), "max");
		else
			snprintf(depth, sizeof(depth), "min %u", d->res[m].w_depth_min);
		printf("%-*s %11s %11s %11s %13.1f %13s\n", width, label,
		       iolat_format_latency(d->res[m].r_p50, a, sizeof(a)),
		       iolat_format_latency(d->res[m].r_p90, b, sizeof(b)),
		       iolat_format_latency(d->res[m].r_p99, c, sizeof(c)),
		       d->res[m].w_mib_s, depth);
	}
	for (unsigned m = 0; m < NR_MODES; m++)
		if (d->res[m].errors)
			printf("%s: %" PRIu64 " failed I/Os\n", run_label(m), d->res[m].errors);
}

/* --device: the model named @name, IOLAT_DEVICE_DEFAULT for none. */
static enum iolat_device_kind device_kind(const char *name)
{
	for (int k = IOLAT_DEVICE_SSD; k <= IOLAT_DEVICE_BAD_SSD; k++)
		if (!strcmp(name, iolat_device_name((enum iolat_device_kind)k)))
			return (enum iolat_device_kind)k;
	return IOLAT_DEVICE_DEFAULT;
}

static int parse_args(struct demo *d, int argc, char **argv, int *rc)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			*rc = IOLAT_EXIT_OK;
			return 1;
		} else if (iolat_cli_is_opt(a, "--dir")) {
			if (!(v = iolat_cli_opt_value(argc, argv, &i, "--dir")) || !*v)
				return *rc = bad_usage("%s needs a directory", "--dir"), 1;
			d->dir = v;
		} else if (!strcmp(a, "--sim")) {
			d->sim = true;
		} else if (iolat_cli_is_opt(a, "--device")) {
			if (!(v = iolat_cli_opt_value(argc, argv, &i, "--device")) || !*v)
				return *rc = bad_usage("%s needs ssd, hdd or bad-ssd", "--device"), 1;
			d->device = v;
			d->device_kind = device_kind(v);
			if (d->device_kind == IOLAT_DEVICE_DEFAULT)
				return *rc = bad_usage("--device: '%s' is not ssd, hdd or bad-ssd", v), 1;
		} else if (iolat_cli_is_opt(a, "--seconds")) {
			char *end;
			unsigned long s;

			if (!(v = iolat_cli_opt_value(argc, argv, &i, "--seconds")))
				return *rc = bad_usage("%s needs a number", "--seconds"), 1;
			errno = 0;
			s = strtoul(v, &end, 10);
			if (!*v || *end || errno || s < 1 || s > 3600 || *v == '-')
				return *rc = bad_usage("--seconds: '%s' is not 1..3600", v), 1;
			d->seconds = (unsigned)s;
		} else if (iolat_cli_is_opt(a, "--target")) {
			if (!(v = iolat_cli_opt_value(argc, argv, &i, "--target")))
				return *rc = bad_usage("%s needs a latency (2ms)", "--target"), 1;
			if (iolat_parse_duration(v, &d->target_ns) || !d->target_ns ||
			    strlen(v) >= sizeof(d->target_s))
				return *rc = bad_usage("--target: '%s' is not a latency like 2ms", v), 1;
			snprintf(d->target_s, sizeof(d->target_s), "%s", v);
		} else if (iolat_cli_is_opt(a, "--cap")) {
			if (!(v = iolat_cli_opt_value(argc, argv, &i, "--cap")))
				return *rc = bad_usage("%s needs a rate (100m)", "--cap"), 1;
			if (iolat_parse_size(v, &d->cap_bps) || !d->cap_bps)
				return *rc = bad_usage("--cap: '%s' is not a rate like 100m", v), 1;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			d->verbose = true;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			d->quiet = true;
		} else {
			return *rc = bad_usage("unknown argument '%s'", a), 1;
		}
	}
	if (d->device && !d->sim)
		return *rc = bad_usage("%s goes with --sim", "--device"), 1;
	return 0;
}

/*
 * Before anything is written: --dir can take the two temporary files, and
 * the user is told their size and that they go away at the end.
 */
static int check_dir(const struct demo *d)
{
	uint64_t need, avail;
	struct statvfs vfs;
	char a[32], b[32];

	need = DEMO_READ_SIZE + DEMO_WRITE_SIZE;
	if (access(d->dir, W_OK) != 0 || statvfs(d->dir, &vfs) != 0)
		return bad_usage("--dir: cannot write in '%s'", d->dir);
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail < need + need / 10) {
		fprintf(stderr, "iolat demo: --dir %s: the demo needs %s for two temporary files and "
			"the filesystem has %s free (give another --dir, or --sim)\n", d->dir,
			iolat_format_bytes(need, a, sizeof(a)), iolat_format_bytes(avail, b, sizeof(b)));
		return IOLAT_EXIT_USAGE;
	}
	fprintf(stderr, "iolat demo: two temporary files, %s in all, in %s (removed at the "
			"end, also on Ctrl-C)\n", iolat_format_bytes(need, a, sizeof(a)), d->dir);
	return 0;
}

/*
 * The reader's target when --target is not given: about 1.5x what the reader
 * gets unloaded on each device (the advice of the kernel's documentation:
 * a little above what the device delivers), so that the writer's harm shows.
 */
static void default_target(struct demo *d)
{
	static const struct { uint64_t ns; const char *text; } t[] = {
		{ 500000, "500us" },   /* real disk, SSD or VM: ~60 us unloaded; give an HDD ~30ms */
		{ 30000000, "30ms" },  /* hdd model: ~12.7 ms unloaded mean, ~25 ms beside a
					* depth-1 writer */
		{ 25000000, "25ms" },  /* bad-ssd model: met with the writer at depth 1, missed in
					* stalls */
		{ 150000, "150us" },   /* ssd model: ~97 us unloaded p90 */
	};
	unsigned k = !d->sim ? 0 : d->device_kind == IOLAT_DEVICE_HDD ? 1 :
		     d->device_kind == IOLAT_DEVICE_BAD_SSD ? 2 : 3;

	d->target_ns = t[k].ns;
	snprintf(d->target_s, sizeof(d->target_s), "%s", t[k].text);
}

int iolat_cmd_demo(int argc, char **argv)
{
	struct demo d = { .dir = ".", .seconds = 10 };
	const char *tmp_files[2] = { d.rpath, d.wpath };
	int rc = IOLAT_EXIT_OK, ret;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--memleak"))
			return iolat_demo_memleak(argc, argv);
	if (iolat_demo_wants_cgroups(argc, argv))
		return iolat_demo_cgroups(argc, argv); /* unmodified fio in cgroups, iolatd */
	if (parse_args(&d, argc, argv, &rc))
		return rc;
	if (!d.target_s[0])
		default_target(&d);
	d.tty = !d.quiet && isatty(STDERR_FILENO);
	if (!d.sim) {
		if ((size_t)snprintf(d.rpath, sizeof(d.rpath), "%s/iolat-demo-%ld.read", d.dir,
				     (long)getpid()) >= sizeof(d.rpath) ||
		    (size_t)snprintf(d.wpath, sizeof(d.wpath), "%s/iolat-demo-%ld.write", d.dir,
				     (long)getpid()) >= sizeof(d.wpath))
			return bad_usage("--dir: '%s' is too long", d.dir);
		rc = check_dir(&d);
		if (rc)
			return rc;
	}
	iolat_cli_stop_install();
	if (!d.sim)
		iolat_cli_stop_unlink_on_kill(tmp_files, 2);
	for (unsigned m = 0; m < NR_MODES && !atomic_load(&iolat_cli_stop_flag); m++) {
		if (m == MODE_CAP && !d.cap_bps) {
			/* io.max's answer: a fixed fraction of what the writer did alone. */
			d.cap_bps = (uint64_t)(d.res[MODE_NONE].w_mib_s * 1048576.0 *
					       DEMO_CAP_PCT_DEF / 100.0);
			if (d.cap_bps < 1048576)
				d.cap_bps = 1048576;
		}
		if (m == MODE_CAP)
			snprintf(d.res[m].label, sizeof(d.res[m].label), "static cap (%.0f MiB/s)",
				 (double)d.cap_bps / 1048576.0);
		else if (demo_runs[m].ctl != IOLAT_CTL_MODE_NONE)
			snprintf(d.res[m].label, sizeof(d.res[m].label), "%s (target %s)",
				 run_label(m), d.target_s);
		else
			snprintf(d.res[m].label, sizeof(d.res[m].label), "%s", run_label(m));
		ret = run_mode(&d, m);
		if (ret) {
			rc = ret == -EINVAL ? IOLAT_EXIT_USAGE : IOLAT_EXIT_FAILED;
			break;
		}
	}
	if (!d.sim) {
		/* Every way out passes here (a second signal: the handler unlinks). */
		unlink(d.rpath);
		unlink(d.wpath);
	}
	iolat_cli_stop_restore();
	if (iolat_cli_stop_signal()) {
		fprintf(stderr, "iolat demo: interrupted by signal %d%s\n", iolat_cli_stop_signal(),
			d.sim ? "" : "; its temporary files are removed");
		rc = iolat_cli_stop_exit_code();
	}
	if (d.res[MODE_NONE].ran)
		print_table(&d);
	for (unsigned m = 0; m < NR_MODES; m++)
		if (d.res[m].errors && rc == IOLAT_EXIT_OK)
			rc = IOLAT_EXIT_FAILED;
	return rc;
}
