/* SPDX-License-Identifier: MIT */
/*
 * demo_memleak.c - `iolat demo --memleak`: the article's production result
 * in the simulator. A web server protected by memory.low and an io.latency
 * target shares a machine with a service that leaks memory into swap; the
 * modes (none, block, full, stock, nobypass) run on the same seed and are
 * printed side by side: the web's RPS relative to its baseline, latency
 * impact, the kill (when, by which rule, which group) and downtime. --log DIR
 * writes each mode's per-second series as CSV and a gnuplot script that plots
 * RPS over time for every mode on one chart (rendered when gnuplot exists).
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
#include "job/jobfile.h"
#include "scen/memleak/memleak.h"

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
		"                  [--rps N] [--timeout S] [--no-bg] [--log DIR] [-q]\n"
		"\n"
		"A web server (memory.low, io.latency target) beside a leaking service whose\n"
		"memory goes to swap on the same simulated disk; virtual time, deterministic.\n"
		"  --device M     simulated disk (default hdd)\n"
		"  --speed X      leak rate as a multiple of the disk's write bandwidth\n"
		"                 (default 2; resctl-bench's speeds: 0.1 0.25 0.5 1 2)\n"
		"  --seed N       the run's seed (default 1)\n"
		"  --modes LIST   which modes, comma-separated (default: all five)\n"
		"  --oomd P       oomd preset: fb2018 (default), resctl, desktop, off\n"
		"  --rps N        the web's request rate (default 200)\n"
		"  --timeout S    seconds the leak may live (default 300)\n"
		"  --no-bg        no background service beside the leak (a pure hog)\n"
		"  --log DIR      per-second CSV per mode and an RPS plot (gnuplot)\n"
		"  -q             the table only\n");
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
		} else if (iolat_cli_is_opt(a, "--rps")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--rps");
			if (num(v, 1, 100000, &o->c.rps))
				return bad("--rps: expected 1..100000, got", v);
		} else if (iolat_cli_is_opt(a, "--timeout")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--timeout");
			if (num(v, 10, 86400, &x))
				return bad("--timeout: expected 10..86400 seconds, got", v);
			o->c.timeout_ns = (uint64_t)(x * 1e9);
		} else if (iolat_cli_is_opt(a, "--modes")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--modes");
			if (!v || parse_modes(o, v))
				return bad("--modes: expected none,block,full,stock,nobypass, got", v);
		} else if (iolat_cli_is_opt(a, "--oomd")) {
			v = iolat_cli_opt_value(argc, argv, &i, "--oomd");
			if (!v || iolat_ml_oomd_parse(v, &o->c.oomd))
				return bad("--oomd: expected fb2018, resctl, desktop or off, got", v);
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

static int write_plot(const char *dir, const struct mlopts *o)
{
	char path[4096];
	FILE *f;
	bool first = true;

	snprintf(path, sizeof(path), "%s/memleak_rps.gp", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "set datafile separator ','\nset terminal pngcairo size 1000,500\n"
		   "set output 'memleak_rps.png'\nset xlabel 'seconds since the leak started'\n"
		   "set ylabel 'web requests/s'\nset title 'web RPS, %s, leak at %gx the write bandwidth'\n"
		   "set key outside right\nplot ", o->c.device, o->c.speed);
	for (int m = 0; m < IOLAT_ML_NR_MODES; m++) {
		if (!o->modes[m])
			continue;
		fprintf(f, "%s'memleak_%s.csv' using 1:2 with lines title '%s'", first ? "" : ", ",
			iolat_ml_mode_name((enum iolat_ml_mode)m), iolat_ml_mode_name((enum iolat_ml_mode)m));
		first = false;
	}
	fprintf(f, "\n");
	if (fclose(f))
		return -errno;
	snprintf(path, sizeof(path), "cd '%s' && command -v gnuplot >/dev/null 2>&1 && gnuplot memleak_rps.gp", dir);
	if (system(path) != 0 && !o->quiet)
		fprintf(stderr, "iolat demo: gnuplot not run; %s/memleak_rps.gp is the script\n", dir);
	return 0;
}

int iolat_demo_memleak(int argc, char **argv)
{
	struct mlopts o;
	char err[256] = "", path[4096];
	int rc;

	memset(&o, 0, sizeof(o));
	iolat_ml_defaults(&o.c, "hdd");
	for (int m = 0; m < IOLAT_ML_NR_MODES; m++)
		o.modes[m] = true;
	rc = parse(&o, argc, argv);
	if (rc)
		return rc < 0 ? rc + 100 : rc;
	if (o.logdir && mkdir(o.logdir, 0777) && errno != EEXIST)
		return bad("--log: cannot create", o.logdir);
	if (!o.quiet)
		printf("memleak: %s disk, leak at %gx its write bandwidth, seed %llu, oomd %s\n",
		       o.c.device, o.c.speed, (unsigned long long)o.c.seed, iolat_ml_oomd_name(o.c.oomd));
	printf("%-9s %6s %6s %6s %6s %8s %8s  %-32s %-11s %7s %6s\n", "mode", "base", "isol",
	       "p10", "min", "lat_imp", "kill", "killed by", "victim", "down_s", "slept");
	for (int m = 0; m < IOLAT_ML_NR_MODES; m++) {
		struct iolat_ml_result *r;
		struct iolat_ml_config c = o.c;
		int ret;

		if (!o.modes[m])
			continue;
		c.mode = (enum iolat_ml_mode)m;
		ret = iolat_ml_run(&c, &r, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "iolat demo: %s: %s\n", iolat_ml_mode_name(c.mode),
				err[0] ? err : strerror(-ret));
			return ret == -EINVAL ? IOLAT_EXIT_USAGE : IOLAT_EXIT_FAILED;
		}
		print_row(r);
		fflush(stdout);
		if (o.logdir) {
			snprintf(path, sizeof(path), "%s/memleak_%s.csv", o.logdir, iolat_ml_mode_name(c.mode));
			if (iolat_ml_write_csv(r, path))
				fprintf(stderr, "iolat demo: cannot write %s\n", path);
		}
		iolat_ml_result_free(r);
	}
	if (o.logdir && write_plot(o.logdir, &o))
		fprintf(stderr, "iolat demo: cannot write the plot script in %s\n", o.logdir);
	return IOLAT_EXIT_OK;
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
