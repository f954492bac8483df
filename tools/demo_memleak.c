/* SPDX-License-Identifier: MIT */
/*
 * demo_memleak.c - `iolat demo --memleak`: the article's production result
 * in the simulator. A web server protected by memory.low and an io.latency
 * target shares a machine with a service that leaks memory into swap; the
 * modes (none, block, full, stock, nobypass) run on the same seed and their
 * story is told on one screen (demo_memleak_story.c): the web's RPS over
 * time, the moment the leak is killed and by which rule, the stock box's
 * downtime. --log DIR writes each mode's per-second series as CSV and the
 * plot (memleak_rps.svg; memleak_rps.png with gnuplot).
 * iolat_sim_memleak() is the same scenario from a job file (`iolat sim`).
 * Context: the CLI's main thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_opts.h"
#include "commands.h"
#include "demo_memleak_story.h"
#include "job/jobfile.h"

struct mlopts {
	struct iolat_ml_config c;
	bool modes[IOLAT_ML_NR_MODES];
	const char *logdir;
	bool quiet;
};

static int usage(FILE *f)
{
	fprintf(f,
		"usage: iolat demo --memleak [--device ssd|hdd|bad-ssd] [--speed X] [--seed N]\n"
		"                  [--modes none,block,full,stock,nobypass] [--oomd PRESET]\n"
		"                  [--web hhvm|rdhashd] [--rps N] [--timeout S] [--no-bg]\n"
		"                  [--kernel-5pct] [--log DIR] [-q]\n"
		"\n"
		"A web server (memory.low, io.latency target) beside a leaking service whose\n"
		"memory goes to swap on the same simulated disk; virtual time, deterministic.\n"
		"  --device M     simulated disk (default hdd)\n"
		"  --speed X      leak rate as a multiple of the disk's write bandwidth\n"
		"                 (default 0.5; resctl-bench's speeds: 0.1 0.25 0.5 1 2)\n"
		"  --seed N       the run's seed (default 1)\n"
		"  --modes LIST   which modes, comma-separated (default: all five)\n"
		"  --oomd P       oomd preset: percgroup (default: the 2018 rules and one on\n"
		"                 each child of system), fb2018, resctl, desktop, off\n"
		"  --web W        the web's calibration: hhvm (default; 10 %% of its memory\n"
		"                 file-backed) or rdhashd (resctl-bench's rd-hashd: 25 %%)\n"
		"  --rps N        the web's request rate (default 200)\n"
		"  --timeout S    seconds the leak may live (default 300; stock 3600)\n"
		"  --no-bg        no background service beside the leak (a pure hog)\n"
		"  --kernel-5pct  the kernel's 5 %% rule count (bypassed swap not counted):\n"
		"                 the leak escapes io.latency at fast speeds\n"
		"  --log DIR      per-second CSV per mode and the plot (memleak_rps.svg, .png)\n"
		"  -q             the story only, no heading\n");
	return f == stdout ? IOLAT_EXIT_OK : IOLAT_EXIT_USAGE;
}

static int bad(const char *what, const char *v)
{
	fprintf(stderr, "iolat demo: %s '%s'\n", what, v ? v : "");
	return IOLAT_EXIT_USAGE;
}

static int parse_modes(struct mlopts *o, const char *v)
{
	char buf[128], *save = NULL;

	if (strlen(v) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, v);
	memset(o->modes, 0, sizeof(o->modes));
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum iolat_ml_mode m;

		if (iolat_ml_mode_parse(t, &m))
			return -EINVAL;
		o->modes[m] = true;
	}
	return 0;
}

static int num(const char *v, double lo, double hi, double *out)
{
	char *end;
	double x;

	if (!v || !*v)
		return -EINVAL;
	x = strtod(v, &end);
	if (*end == 'x' && end[1] == 0)
		end++;
	if (*end || !(x >= lo && x <= hi))
		return -EINVAL;
	*out = x;
	return 0;
}

static int parse(struct mlopts *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		double x;

		if (!strcmp(a, "--memleak"))
			continue;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return usage(stdout) - 100;
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = true;
		} else if (!strcmp(a, "--no-bg")) {
			o->c.bg = false;
		} else if (!strcmp(a, "--kernel-5pct")) {
			o->c.kernel_five_pct = true;
		} else if (iolat_cli_is_opt(a, "--device")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--device");
			if (!v || (strcmp(v, "ssd") && strcmp(v, "hdd") && strcmp(v, "bad-ssd")))
				return bad("--device: expected ssd, hdd or bad-ssd, got", v);
			o->c.device = v;
		} else if (iolat_cli_is_opt(a, "--speed")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--speed");
			if (num(v, 0.001, 100, &o->c.speed))
				return bad("--speed: expected a multiple like 0.25 or 2x, got", v);
		} else if (iolat_cli_is_opt(a, "--seed")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--seed");
			if (num(v, 0, 1e15, &x))
				return bad("--seed: expected a number, got", v);
			o->c.seed = (uint64_t)x;
		} else if (iolat_cli_is_opt(a, "--web")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--web");
			if (!v || iolat_ml_web_preset(&o->c, v))
				return bad("--web: expected hhvm or rdhashd, got", v);
		} else if (iolat_cli_is_opt(a, "--rps")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--rps");
			if (num(v, 1, 100000, &o->c.rps))
				return bad("--rps: expected 1..100000, got", v);
		} else if (iolat_cli_is_opt(a, "--timeout")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--timeout");
			if (num(v, 10, 86400, &x))
				return bad("--timeout: expected 10..86400 seconds, got", v);
			o->c.timeout_ns = o->c.stock_timeout_ns = (uint64_t)(x * 1e9);
		} else if (iolat_cli_is_opt(a, "--modes")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--modes");
			if (!v || parse_modes(o, v))
				return bad("--modes: expected none,block,full,stock,nobypass, got", v);
		} else if (iolat_cli_is_opt(a, "--oomd")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--oomd");
			if (!v || iolat_ml_oomd_parse(v, &o->c.oomd))
				return bad("--oomd: expected percgroup, fb2018, resctl, desktop or off, got", v);
		} else if (iolat_cli_is_opt(a, "--log")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--log");
			if (!v || !*v)
				return bad("--log: expected a directory, got", v);
			o->logdir = v;
		} else {
			return bad("unknown option", a);
		}
	}
	return 0;
}

static void print_row(const struct iolat_ml_result *r)
{
	char kill[32] = "-";

	if (r->killed)
		snprintf(kill, sizeof(kill), "%.0f s", r->kill_s);
	printf("%-9s %6.0f %6.2f %6.2f %6.2f %8.2f %8s  %-32s %-11s %7.0f %6.0f\n",
	       iolat_ml_mode_name(r->mode), r->base_rps, r->isol_mean, r->isol_p10, r->isol_min,
	       r->lat_imp_mean, kill, r->killed ? r->killer : "(none)",
	       r->killed ? r->victim : "-", r->downtime_s, r->hog_slept_s);
}

/* Run the chosen modes; *@n results in @runs (freed by the caller). */
static int run_modes(const struct mlopts *o, struct iolat_ml_result **runs, size_t *n)
{
	char err[256] = "", path[4096];

	*n = 0;
	for (int m = 0; m < IOLAT_ML_NR_MODES; m++) {
		struct iolat_ml_config c = o->c;
		int ret;

		if (!o->modes[m])
			continue;
		c.mode = (enum iolat_ml_mode)m;
		ret = iolat_ml_run(&c, &runs[*n], err, sizeof(err));
		if (ret) {
			fprintf(stderr, "iolat demo: %s: %s\n", iolat_ml_mode_name(c.mode),
				err[0] ? err : strerror(-ret));
			return ret == -EINVAL ? IOLAT_EXIT_USAGE : IOLAT_EXIT_FAILED;
		}
		if (o->logdir) {
			snprintf(path, sizeof(path), "%s/memleak_%s.csv", o->logdir,
				 iolat_ml_mode_name(c.mode));
			if (iolat_ml_write_csv(runs[*n], path))
				fprintf(stderr, "iolat demo: cannot write %s\n", path);
		}
		(*n)++;
	}
	return IOLAT_EXIT_OK;
}

int iolat_demo_memleak(int argc, char **argv)
{
	struct iolat_ml_result *runs[IOLAT_ML_NR_MODES];
	struct mlopts o;
	size_t n = 0;
	int rc;

	memset(&o, 0, sizeof(o));
	iolat_ml_defaults(&o.c, "hdd");
	o.c.speed = 0.5;
	for (int m = 0; m < IOLAT_ML_NR_MODES; m++)
		o.modes[m] = true;
	rc = parse(&o, argc, argv);
	if (rc)
		return rc < 0 ? rc + 100 : rc;
	if (o.logdir && mkdir(o.logdir, 0777) && errno != EEXIST)
		return bad("--log: cannot create", o.logdir);
	if (!o.quiet)
		printf("The article's leaking service, simulated: %s disk, leak at %gx its write "
		       "bandwidth, seed %llu.\nA web server (%.0f requests/s; memory.low; an io.latency "
		       "target) shares a %llu GiB machine\nwith a service that leaks into swap on the "
		       "same disk; oomd %s. Virtual time; each mode the same seed.\n", o.c.device,
		       o.c.speed, (unsigned long long)o.c.seed, o.c.rps,
		       (unsigned long long)(o.c.mem_bytes >> 30), iolat_ml_oomd_name(o.c.oomd));
	rc = run_modes(&o, runs, &n);
	if (!rc) {
		iolat_ml_story(&o.c, runs, n);
		if (o.logdir) {
			int p = iolat_ml_plots(&o.c, runs, n, o.logdir);

			if (p < 0)
				fprintf(stderr, "iolat demo: cannot write the plot in %s\n", o.logdir);
			else
				printf("\nplot: %s/memleak_rps.svg%s%s%s; series: %s/memleak_MODE.csv\n",
				       o.logdir, p == 0 ? ", " : " (no gnuplot: no PNG)",
				       p == 0 ? o.logdir : "", p == 0 ? "/memleak_rps.png" : "", o.logdir);
		} else if (!o.quiet) {
			printf("\n(--log DIR writes the per-second series and the plot)\n");
		}
	}
	for (size_t i = 0; i < n; i++)
		iolat_ml_result_free(runs[i]);
	return rc;
}

int iolat_sim_memleak(const struct iolat_jobfile *jf, const char *logdir, bool json,
		      const uint64_t *seed, int control)
{
	struct iolat_ml_config c;
	struct iolat_ml_result *r;
	char err[IOLAT_JOBFILE_ERR_MAX] = "", path[4096];
	int ret;

	ret = iolat_ml_config_from_jobfile(jf, &c, err, sizeof(err));
	if (seed)
		c.seed = *seed;          /* --seed */
	if (control == 0)
		c.mode = IOLAT_ML_NONE;  /* --no-control */
	if (!ret)
		ret = iolat_ml_run(&c, &r, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iolat sim: %s\n", err[0] ? err : strerror(-ret));
		return ret == -EINVAL ? IOLAT_EXIT_USAGE : IOLAT_EXIT_FAILED;
	}
	if (json) {
		iolat_ml_write_json(r, stdout);
	} else {
		printf("memleak: %s disk, leak at %gx its write bandwidth, seed %llu, oomd %s\n",
		       c.device, c.speed, (unsigned long long)c.seed, iolat_ml_oomd_name(c.oomd));
		printf("%-9s %6s %6s %6s %6s %8s %8s  %-32s %-11s %7s %6s\n", "mode", "base", "isol",
		       "p10", "min", "lat_imp", "kill", "killed by", "victim", "down_s", "slept");
		print_row(r);
	}
	ret = IOLAT_EXIT_OK;
	if (logdir) {
		snprintf(path, sizeof(path), "%s/memleak_%s.csv", logdir, iolat_ml_mode_name(c.mode));
		if ((mkdir(logdir, 0777) && errno != EEXIST) || iolat_ml_write_csv(r, path)) {
			fprintf(stderr, "iolat sim: --log: cannot write %s\n", path);
			ret = IOLAT_EXIT_FAILED;
		}
	}
	iolat_ml_result_free(r);
	return fflush(stdout) ? IOLAT_EXIT_FAILED : ret;
}
